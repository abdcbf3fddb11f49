// The README's JavaScript example, run as written (only its import path is made absolute), so
// the README cannot drift from the module.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const ROOT = new URL('../../', import.meta.url);

test('the README JavaScript example prints the tutorial weights it promises', async () => {
  const readme = await readFile(new URL('README.md', ROOT), 'utf8');
  // the example that runs from a clone (the Install section's snippet imports the npm package)
  const example = [...readme.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]).find((code) => code.includes('web/dist/attn.mjs'));
  assert.ok(example, 'README.md has a ```js example importing ./web/dist/attn.mjs');
  assert.match(example, /from '\.\/web\/dist\/attn\.mjs'/);
  const promised = example.match(/^\/\/ (SIMD128 [0-9. ]+)$/m);
  assert.ok(promised, 'the example shows its expected output in a comment');
  const directory = await mkdtemp(join(tmpdir(), 'attn-readme-'));
  try {
    const script = join(directory, 'example.mjs');
    await writeFile(script, example.replace('./web/dist/attn.mjs', new URL('web/dist/attn.mjs', ROOT).href));
    const { stdout } = await promisify(execFile)(process.execPath, [script]);
    assert.equal(stdout.trim(), promised[1].trim());
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
});
