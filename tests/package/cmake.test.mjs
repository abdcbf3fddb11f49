// The CMake package as a user meets it: `cmake --install` of the native build, then a consumer
// project (tests/package/consumer) that finds it with find_package(attnscope CONFIG REQUIRED),
// and the same consumer with add_subdirectory(attnscope). Both build and run the README's C++
// example (attnscope::attn) and an HMM alignment (attnscope::align). Needs ./run build first.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CONSUMER = join(ROOT, 'tests/package/consumer');
const HMM = join(ROOT, 'models/hmm-en-es.safetensors');
let work;

before(async () => {
  work = await mkdtemp(join(tmpdir(), 'attnscope-cmake-'));
  const readme = await readFile(join(ROOT, 'README.md'), 'utf8');
  const example = readme.match(/```cpp\n([\s\S]*?)```/);
  assert.ok(example, 'README.md has a ```cpp example');
  await writeFile(join(work, 'readme_example.cpp'), example[1]);
});
after(() => rm(work, { recursive: true, force: true }));

const cmake = (...args) => run('cmake', args, { maxBuffer: 1 << 26 });

async function buildConsumer(name, definitions) {
  const build = join(work, name);
  await cmake('-S', CONSUMER, '-B', build, '-DCMAKE_BUILD_TYPE=Release', `-DREADME_EXAMPLE=${join(work, 'readme_example.cpp')}`,
    ...definitions);
  await cmake('--build', build, '-j', '2');
  return build;
}

async function checkPrograms(build) {
  await run(join(build, 'readme_example'));  // exits non-zero unless the weights are the promised ones
  const { stdout } = await run(join(build, 'align_words'), [HMM]);
  assert.match(stdout, /(^| )1-1( |$)/, `the HMM links café to café: ${stdout}`);
}

async function filesUnder(folder) {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.path ?? entry.parentPath, entry.name));
}

test('cmake --install gives headers without internals, three libraries and a versioned config', async () => {
  const prefix = join(work, 'prefix');
  await cmake('--install', join(ROOT, 'build/native'), '--prefix', prefix);
  const files = (await filesUnder(prefix)).map((file) => file.slice(prefix.length + 1));
  for (const wanted of ['include/attn/attn.hpp', 'include/attn/core/attention.hpp', 'include/attn/models/rnn.hpp',
    'include/attn/align/methods.hpp', 'lib/libattn.a', 'lib/libattn_models.a', 'lib/libattn_align.a',
    'lib/cmake/attnscope/attnscopeConfig.cmake', 'lib/cmake/attnscope/attnscopeConfigVersion.cmake']) {
    assert.ok(files.includes(wanted), `installed: ${wanted}`);
  }
  assert.ok(!files.some((file) => file.includes('internal')), 'the kernels and helpers stay private');
  assert.ok(!files.some((file) => file.endsWith('.cpp')), 'no sources installed');
  // nothing of this build's flags or paths reaches a user
  for (const file of files.filter((name) => name.startsWith('lib/cmake/'))) {
    const text = await readFile(join(prefix, file), 'utf8');
    for (const forbidden of ['-march', 'sanitize', '-O3', '-Wall', 'attn_build_flags', ROOT]) {
      assert.ok(!text.includes(forbidden), `${file} mentions ${forbidden}`);
    }
  }
});

test('a consumer finds the installed package with find_package and runs the README example', async () => {
  const build = await buildConsumer('find-package', [`-DCMAKE_PREFIX_PATH=${join(work, 'prefix')}`]);
  await checkPrograms(build);
});

test('the same consumer builds attnscope from source with add_subdirectory', async () => {
  const build = await buildConsumer('subdirectory', [`-DATTNSCOPE_SOURCE_DIR=${ROOT}`]);
  await checkPrograms(build);
  const flags = await readFile(join(build, 'CMakeFiles/readme_example.dir/flags.make'), 'utf8');
  // -O3 here is CMake's own Release default; -march=native and the warnings are attnscope's build's
  assert.ok(!flags.includes('-march') && !flags.includes('-Wall'), `the consumer's own flags stay its own: ${flags}`);
});
