// The relaxed-SIMD build (web/dist/attn-relaxed.*, SIMD128 with f32x4.relaxed_madd) and how the
// loader chooses it: by a validate probe, so an engine without relaxed SIMD (Node 20 without
// --experimental-wasm-relaxed-simd, Safari) gets SIMD128 under 'auto' and a clear error when it
// asks for 'relaxed'; in a Node started with the flag, relaxed_compare.mjs checks that 'auto' picks
// it and that its results match SIMD128's within fused multiply-add's tolerances.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { test } from 'node:test';

import loadAttn, { relaxedSimdSupported, simdSupported } from '../../web/dist/attn.mjs';

const flagged = process.execArgv.includes('--experimental-wasm-relaxed-simd');
const nodeMajor = Number(process.versions.node.split('.')[0]);

test('Node 20 without flags validates SIMD128 but not relaxed SIMD', { skip: nodeMajor !== 20 || flagged }, () => {
  assert.equal(simdSupported(), true);
  assert.equal(relaxedSimdSupported(), false);
});

test("'auto' loads the build the probe allows: relaxed where it validates, SIMD128 otherwise", async () => {
  const attn = await loadAttn({ simd: 'auto', warmUp: false });
  assert.equal(attn.build, relaxedSimdSupported() ? 'relaxed' : 'simd');
  assert.equal(attn.simd, true);
  assert.equal(attn.instructionSet, relaxedSimdSupported() ? 'relaxed-simd' : 'sse4.1');
  attn.dispose();
});

test('true and false keep their builds, and say so in attn.build', async () => {
  const [simd, scalar] = await Promise.all([true, false].map((value) => loadAttn({ simd: value, warmUp: false })));
  assert.deepEqual([simd.build, simd.simd, simd.instructionSet], ['simd', true, 'sse4.1']);
  assert.deepEqual([scalar.build, scalar.simd, scalar.instructionSet], ['scalar', false, 'scalar']);
});

test("'relaxed' where the engine has no relaxed SIMD is an error that says so", { skip: relaxedSimdSupported() }, async () => {
  await assert.rejects(loadAttn({ simd: 'relaxed' }),
    (error) => error instanceof Error && /no WebAssembly relaxed SIMD.*use simd: true or "auto"/.test(error.message));
});

test('a bad simd value names the four choices', async () => {
  await assert.rejects(loadAttn({ simd: 'fma' }),
    (error) => error instanceof Error && /simd must be true, false or 'auto' \(or 'relaxed'\), got fma/.test(error.message));
});

test('with --experimental-wasm-relaxed-simd, auto picks the relaxed build, within tolerance of SIMD128', () => {
  const script = fileURLToPath(new URL('relaxed_compare.mjs', import.meta.url));
  const child = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', script], { encoding: 'utf8' });
  assert.equal(child.status, 0, `relaxed_compare.mjs failed:\n${child.stdout}\n${child.stderr}`);
  const { compared, worst } = JSON.parse(child.stdout.trim().split('\n').at(-1));
  assert.ok(compared > 10000, `compared ${compared} values`);
  assert.ok(worst['0.00001'] <= 1e-5 && worst['0.0001'] <= 1e-4, JSON.stringify(worst));
});
