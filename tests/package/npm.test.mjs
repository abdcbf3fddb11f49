// The npm package as a user meets it: build/attnscope-<version>.tgz (made by `./run package`, which
// `./run test` runs first) installed into a fresh folder, then used from Node 20, from TypeScript
// (tsc --strict --moduleResolution bundler), through a default `vite build` run in Chromium, and
// from a plain static folder with <script type="module">. Offline: the tarball has no dependencies,
// and vite and tsc come from this repository's node_modules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { chromium } from 'playwright-core';
import { serve } from '../../tools/serve.mjs';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'node_modules/.bin');
const EXPECTED = '0.2976 0.1095 0.1805 0.1805 0.2318';  // the tutorial's first row of weights
// What a user writes: the README's example, printing the first row of weights.
const USAGE = `import loadAttn from 'attnscope';
const attn = await loadAttn();
const x = new Float32Array([1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0.5, 0.5, 0]);
const { weights } = attn.attention({ query: x, key: x, value: x, queryLength: 5, keyLength: 5, dim: 4 });
export const row = Array.from(weights ? weights.slice(0, 5) : [], (w) => w.toFixed(4)).join(' ');
`;
let work, project, tarball;

before(async () => {
  const { version } = JSON.parse(await readFile(join(ROOT, 'web/package/package.json'), 'utf8'));
  const built = (await readdir(join(ROOT, 'build'))).filter((name) => /^attnscope-.*\.tgz$/.test(name));
  assert.deepEqual(built, [`attnscope-${version}.tgz`], 'exactly one tarball, of the package version');
  tarball = join(ROOT, 'build', built[0]);
  work = await mkdtemp(join(tmpdir(), 'attnscope-npm-'));
  project = join(work, 'project');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'user-project', private: true, type: 'module' }));
  await run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: project });
});
after(() => rm(work, { recursive: true, force: true }));

test('the tarball holds only what users need, with a package.json fit for Node and bundlers', async () => {
  const { stdout } = await run('tar', ['-tzf', tarball]);
  const files = stdout.trim().split('\n').map((line) => line.replace(/^package\//, '')).sort();
  assert.deepEqual(files, ['CHANGELOG.md', 'LICENSE', 'README.md', 'attn-relaxed-threads.mjs', 'attn-relaxed-threads.wasm',
    'attn-relaxed-threads.worker.cjs', 'attn-relaxed-threads.worker.js', 'attn-relaxed.mjs', 'attn-relaxed.wasm',
    'attn-scalar-threads.mjs', 'attn-scalar-threads.wasm',
    'attn-scalar-threads.worker.cjs', 'attn-scalar-threads.worker.js', 'attn-scalar.mjs', 'attn-scalar.wasm',
    'attn-simd-threads.mjs', 'attn-simd-threads.wasm', 'attn-simd-threads.worker.cjs', 'attn-simd-threads.worker.js',
    'attn-simd.mjs', 'attn-simd.wasm', 'attn.d.ts', 'attn.mjs', 'package.json']);
  const manifest = JSON.parse(await readFile(join(project, 'node_modules/attnscope/package.json'), 'utf8'));
  assert.equal(manifest.name, 'attnscope');
  assert.equal(manifest.type, 'module');
  assert.equal(manifest.sideEffects, false);
  assert.equal(manifest.license, 'MIT');
  assert.deepEqual(manifest.exports['.'], { types: './attn.d.ts', import: './attn.mjs' });
  assert.ok(!manifest.scripts, 'no install scripts');
  assert.ok(!manifest.dependencies, 'no dependencies');
});

test('Node 20 imports it by name and computes attention', async () => {
  await writeFile(join(project, 'node-user.mjs'), `${USAGE}console.log(row);\n`);
  const { stdout } = await run(process.execPath, ['node-user.mjs'], { cwd: project });
  assert.equal(stdout.trim(), EXPECTED);
});

test('Node 20 runs it with threads from the installed package ("type": "module"), and ends without process.exit', async () => {
  await writeFile(join(project, 'node-threads.mjs'), `${USAGE.replace('loadAttn()', 'loadAttn({ threads: 2 })')}
console.log(attn.threads, row);\n`);
  const { stdout } = await run(process.execPath, ['node-threads.mjs'], { cwd: project, timeout: 20000 });
  assert.equal(stdout.trim(), `2 ${EXPECTED}`);
});

test('TypeScript checks a user file strictly with bundler resolution', async () => {
  await writeFile(join(project, 'user.ts'), `${USAGE}
const simd: boolean = attn.simd;
const methods: readonly string[] = attn.alignment.methods.map((method) => method.name);
// @ts-expect-error queryLength must be a number
attn.attention({ query: x, key: x, value: x, queryLength: '5', keyLength: 5, dim: 4 });
export { simd, methods };
`);
  await run(join(BIN, 'tsc'), ['--strict', '--noEmit', '--moduleResolution', 'bundler', '--module', 'esnext',
    '--target', 'es2022', '--skipLibCheck', 'false', 'user.ts'], { cwd: project });
});

// Serves a folder, opens its index.html in Chromium, waits for #result, returns its text.
async function resultInChromium(folder) {
  const server = await serve(folder, 0);
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--no-first-run', '--disable-quic'],
  });
  try {
    const page = await browser.newPage();
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
    await page.goto(`http://127.0.0.1:${server.address().port}/`);
    await page.waitForSelector('#result[data-done]', { timeout: 20000 });
    assert.deepEqual(problems, []);
    // serve.mjs makes the page cross-origin isolated: the default is then the hardware's threads
    const { threads, hardware } = await page.evaluate(() => ({
      threads: Number(document.querySelector('#result').dataset.threads), hardware: navigator.hardwareConcurrency,
    }));
    assert.equal(threads, hardware, 'the threads build ran');
    return await page.textContent('#result');
  } finally {
    await browser.close();
    await new Promise((resolve) => server.close(resolve));
  }
}

const PAGE = (script) => `<!doctype html><meta charset="utf-8"><title>attnscope user</title><link rel="icon" href="data:,">
<p id="result"></p><script type="module" src="${script}"></script>
`;
const MAIN = (from) => `${USAGE.replace("'attnscope'", `'${from}'`)}
const result = document.querySelector('#result');
result.textContent = row;
result.dataset.threads = String(attn.threads);
result.dataset.done = '';
`;

test('a default vite build (no config) of a page that imports it runs in Chromium', async () => {
  await writeFile(join(project, 'index.html'), PAGE('./main.js'));
  await writeFile(join(project, 'main.js'), MAIN('attnscope'));
  await run(join(BIN, 'vite'), ['build', '--logLevel', 'warn'], { cwd: project });
  const shipped = await readdir(join(project, 'dist/assets'));
  assert.ok(shipped.some((name) => name.endsWith('.wasm')), `vite shipped the WebAssembly: ${shipped}`);
  assert.equal(await resultInChromium(join(project, 'dist')), EXPECTED);
});

test('a plain static folder with <script type="module"> uses it as copied', async () => {
  const site = join(work, 'static');
  await cp(join(project, 'node_modules/attnscope'), join(site, 'attnscope'), { recursive: true });
  await writeFile(join(site, 'index.html'), PAGE('./main.js'));
  await writeFile(join(site, 'main.js'), MAIN('./attnscope/attn.mjs'));
  assert.equal(await resultInChromium(site), EXPECTED);
});
