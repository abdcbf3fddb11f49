// web/page/maps.mjs: one head's map, the mean over heads, and attention rollout, on hand-made maps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { meanOverHeads, rollout, slice } from '../../web/page/maps.mjs';

// 2 layers, 2 heads, 2 x 2 maps with known values
const map = {
  shape: [2, 2, 2, 2],
  data: Float32Array.from([
    1, 0, 0, 1, /* l0 h0 */ 0, 1, 1, 0, /* l0 h1 */
    0.5, 0.5, 0.5, 0.5, /* l1 h0 */ 1, 0, 1, 0, /* l1 h1 */
  ]),
};

test('slice is one head, meanOverHeads the mean of a layer', () => {
  assert.deepEqual(Array.from(slice(map, 1, 1)), [1, 0, 1, 0]);
  assert.deepEqual(Array.from(meanOverHeads(map, 0)), [0.5, 0.5, 0.5, 0.5]);
  assert.deepEqual(Array.from(meanOverHeads(map, 1)), [0.75, 0.25, 0.75, 0.25]);
});

test('rollout adds the residual, renormalizes and multiplies down the layers', () => {
  const [first, second] = rollout(map);
  // layer 0: ½·[[.5,.5],[.5,.5]] + ½·I = [[.75,.25],[.25,.75]]
  assert.deepEqual(Array.from(first), [0.75, 0.25, 0.25, 0.75]);
  // layer 1: Ã = ½·[[.75,.25],[.75,.25]] + ½·I = [[.875,.125],[.375,.625]]; R = Ã · first
  const expected = [0.875 * 0.75 + 0.125 * 0.25, 0.875 * 0.25 + 0.125 * 0.75, 0.375 * 0.75 + 0.625 * 0.25, 0.375 * 0.25 + 0.625 * 0.75];
  Array.from(second).forEach((x, i) => assert.ok(Math.abs(x - expected[i]) < 1e-6, `${i}: ${x}`));
  for (const r of [first, second]) {
    for (let i = 0; i < 2; i++) assert.ok(Math.abs(r[i * 2] + r[i * 2 + 1] - 1) < 1e-6);
  }
  assert.throws(() => rollout({ shape: [1, 1, 2, 3], data: new Float32Array(6) }), /square/);
});
