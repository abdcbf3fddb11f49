// The playground's projections (web/page/projections.mjs) under Node: its products and its split
// into heads, fed to the module's attention() one head at a time and merged through W_O, give what
// the library's multiHeadAttention() gives with the same matrices in PyTorch's layout ([out][in]).
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { assertClose, forEachBuild, makeRng } from './helpers.mjs';
import { identity, matmul, merge, split, transpose } from '../../web/page/projections.mjs';

it('multiplies, transposes, splits and merges as the formulas say', () => {
  const x = Float32Array.from([1, 2, 3, 4, 5, 6]);  // [2][3]
  const w = Float32Array.from([1, 0, 0, 1, 1, 1]);  // [3][2]
  assert.deepEqual([...matmul(x, 2, 3, w, 2)], [4, 5, 10, 11]);
  assert.deepEqual([...transpose(w, 3, 2)], [1, 0, 1, 0, 1, 1]);
  assert.deepEqual([...matmul(x, 2, 3, identity(3), 3)], [...x]);
  const rows = Float32Array.from({ length: 3 * 4 }, (_, k) => k);  // [3][4], two heads of 2
  assert.deepEqual([...split(rows, 3, 4, 2)], [0, 1, 4, 5, 8, 9, 2, 3, 6, 7, 10, 11]);
  assert.deepEqual([...merge(split(rows, 3, 4, 2), 3, 4, 2)], [...rows]);
});

forEachBuild('the page\'s projections through attention() are multiHeadAttention()', (attn) => {
  const rng = makeRng(42);
  for (const heads of [1, 2, 4]) {
    const length = 5, dim = 4;
    const x = rng.floats(length * dim, 1);
    const [wq, wk, wv, wo] = [0, 1, 2, 3].map(() => rng.floats(dim * dim, 1));  // [in][out], as the page shows them
    const [q, k, v] = [wq, wk, wv].map((w) => matmul(x, length, dim, w, dim));
    const d = dim / heads;
    const perHead = attn.attention({
      query: split(q, length, dim, heads), key: split(k, length, dim, heads), value: split(v, length, dim, heads),
      heads, queryLength: length, keyLength: length, dim: d, score: 'scaled_dot',
    });
    const ours = matmul(merge(perHead.output, length, dim, heads), length, dim, wo, dim);
    const theirs = attn.multiHeadAttention({
      queryInput: x, queryLength: length, modelDim: dim, heads,
      queryWeight: transpose(wq, dim, dim), keyWeight: transpose(wk, dim, dim), valueWeight: transpose(wv, dim, dim),
      outputWeight: transpose(wo, dim, dim), score: 'scaled_dot',
    });
    assertClose(ours, theirs.output, 1e-5, `${heads} heads`);
  }
});
