// Every mechanism of the module against the float64 references in helpers.mjs, for both builds:
// score functions, probability functions inside attention, local and hard attention, dropout,
// multi-head attention, attention pooling and attention-over-attention.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import {
  assertClose,
  assertNear,
  forEachBuild,
  makeRng,
  referenceAttention,
  referenceAttentionOverAttention,
  referenceDropout,
  referenceMultiHead,
  referencePool,
  rowOf,
  rowSums,
} from './helpers.mjs';

/** Random attention inputs: [heads][queryLength][dim] queries, [heads][keyLength][keyDim] keys, ... */
function inputs(rng, { heads = 2, queryLength = 5, keyLength = 7, dim = 6, keyDim = dim, valueDim = 3, scale = 1 } = {}) {
  return {
    query: rng.floats(heads * queryLength * dim, scale), key: rng.floats(heads * keyLength * keyDim, scale),
    value: rng.floats(heads * keyLength * valueDim), heads, queryLength, keyLength, dim, keyDim, valueDim,
  };
}

/** Runs attention() and its reference; compares output, weights and (when asked) scores. */
function compare(attn, options, tolerance = 1e-5, label = '') {
  const actual = attn.attention(options);
  const expected = referenceAttention(options);
  assertClose(actual.output, expected.output, tolerance, `${label} output`);
  if (options.returnWeights !== false) assertClose(actual.weights, expected.weights, tolerance, `${label} weights`);
  if (options.returnScores) assertClose(actual.scores, expected.scores, tolerance, `${label} scores`);
  return { actual, expected };
}

forEachBuild('score functions', (attn) => {
  const rng = makeRng(1);

  it('dot: q.k', () => {
    compare(attn, { ...inputs(rng), score: 'dot', returnScores: true }, 1e-6, 'dot');
  });

  it('scaled_dot (the default): q.k / sqrt(dim)', () => {
    const options = inputs(rng);
    compare(attn, { ...options, returnScores: true }, 1e-6, 'default');
    compare(attn, { ...options, score: 'scaled_dot', returnScores: true }, 1e-6, 'scaled_dot');
    const scaled = attn.attention({ ...options, returnScores: true }).scores;
    const plain = attn.attention({ ...options, score: 'dot', returnScores: true }).scores;
    assertClose(scaled, plain.map((x) => x / Math.sqrt(options.dim)), 1e-6, 'ratio');
  });

  it('general: scale * q^T W k with keyDim != dim', () => {
    const options = inputs(rng, { dim: 5, keyDim: 3 });
    const weight = rng.floats(5 * 3);
    compare(attn, { ...options, score: 'general', general: { weight }, returnScores: true }, 1e-6, 'general');
    compare(attn, { ...options, score: 'general', general: { weight, scale: 0.7 }, returnScores: true }, 1e-6, 'general scale 0.7');
  });

  it('additive: v^T tanh(W_q q + W_k k), with and without a bias', () => {
    const hidden = 4;
    const options = inputs(rng, { dim: 5, keyDim: 3 });
    const additive = { hidden, queryWeight: rng.floats(hidden * 5), keyWeight: rng.floats(hidden * 3), v: rng.floats(hidden) };
    compare(attn, { ...options, score: 'additive', additive, returnScores: true }, 1e-5, 'additive');
    compare(attn, { ...options, score: 'additive', additive: { ...additive, bias: rng.floats(hidden) }, returnScores: true }, 1e-5, 'with bias');
  });

  it('additive, weight-normalized: v -> gain v / |v|', () => {
    const hidden = 6;
    const options = inputs(rng, { dim: 4, keyDim: 4 });
    const additive = { hidden, queryWeight: rng.floats(hidden * 4), keyWeight: rng.floats(hidden * 4), v: rng.floats(hidden, 5), normalize: true };
    const { actual } = compare(attn, { ...options, score: 'additive', additive, returnScores: true }, 1e-5, 'normalize');
    compare(attn, { ...options, score: 'additive', additive: { ...additive, gain: 2.5, bias: rng.floats(hidden) }, returnScores: true }, 1e-5, 'gain');
    // normalizing a v that is already a unit vector changes nothing
    const norm = Math.hypot(...additive.v);
    const unit = { ...additive, v: additive.v.map((x) => x / norm), normalize: false };
    assertClose(attn.attention({ ...options, score: 'additive', additive: unit }).weights, actual.weights, 1e-5, 'unit v');
  });
});

forEachBuild('probability functions inside attention', (attn) => {
  const rng = makeRng(2);

  it('sparsemax gives sparse rows that sum to 1', () => {
    const options = { ...inputs(rng, { scale: 2 }), probability: 'sparsemax' };
    const { actual } = compare(attn, options, 1e-5, 'sparsemax');
    assert.ok(actual.weights.some((w) => w === 0), 'some exact zeros');
    assertNear(rowSums(actual.weights, options.keyLength), new Array(options.heads * options.queryLength).fill(1), 1e-5, 'sums');
    compare(attn, { ...options, temperature: 0.5, validLength: 4 }, 1e-5, 'sparsemax T=0.5 masked');
  });

  it('hardmax: the value of the best key, ties averaged', () => {
    const options = { ...inputs(rng), probability: 'hardmax' };
    compare(attn, options, 1e-6, 'hardmax');
    // exact ties: identical keys share the weight
    const key = new Float32Array([1, 0, 1, 0, 0, 1]); // keys 0 and 1 equal, key 2 different
    const value = new Float32Array([2, 4, 6]);
    const { weights, output } = attn.attention({ query: new Float32Array([1, 0]), key, value, queryLength: 1, keyLength: 3, dim: 2, valueDim: 1, probability: 'hardmax' });
    assertNear(weights, [0.5, 0.5, 0], 0, 'ties');
    assertNear(output, [3], 1e-7, 'output');
  });
});

forEachBuild('local attention', (attn) => {
  const rng = makeRng(3);

  it('monotonic: query t attends to keys [t - D, t + D]', () => {
    for (const halfWidth of [0, 1, 3]) {
      const options = { ...inputs(rng, { queryLength: 9, keyLength: 9 }), local: { mode: 'monotonic', halfWidth } };
      const { actual } = compare(attn, options, 1e-5, `D = ${halfWidth}`);
      assertNear(actual.positions, Array.from({ length: options.heads * 9 }, (_, i) => i % 9), 0, 'positions = t');
      for (let row = 0; row < options.heads * 9; ++row) {
        const t = row % 9;
        for (let s = 0; s < 9; ++s) {
          if (Math.abs(s - t) > halfWidth) assert.equal(actual.weights[row * 9 + s], 0, `t=${t} s=${s}`);
        }
      }
    }
  });

  it('monotonic with more queries than keys: rows past the keys are empty (zeros)', () => {
    const options = { ...inputs(rng, { queryLength: 8, keyLength: 3 }), local: { mode: 'monotonic', halfWidth: 1 } };
    const { actual } = compare(attn, options, 1e-5, 'short keys');
    assert.ok(actual.output.slice(5 * 3, 8 * 3).every((x) => x === 0), 'query 5+ sees nothing');
  });

  it('predictive: p_t = S sigmoid(v_p^T tanh(W_p q_t)) and a Gaussian of sigma D/2', () => {
    const hidden = 5, keyLength = 20;
    for (const halfWidth of [2, 5]) {
      const options = {
        ...inputs(rng, { queryLength: 6, keyLength, dim: 4 }),
        local: { mode: 'predictive', halfWidth, hidden, positionWeight: rng.floats(hidden * 4, 2), positionV: rng.floats(hidden, 3) },
      };
      const { actual, expected } = compare(attn, options, 1e-5, `predictive D=${halfWidth}`);
      assertClose(actual.positions, expected.positions, 1e-6, 'positions');
      assert.ok(actual.positions.every((p) => p > 0 && p < keyLength));
      // the Gaussian makes rows sum to less than one
      assert.ok(rowSums(actual.weights, keyLength).every((sum) => sum < 1 && sum > 0));
    }
  });
});

forEachBuild('hard attention', (attn) => {
  const rng = makeRng(4);

  it('argmax: indices of the largest weight, output rows = the chosen values', () => {
    const options = { ...inputs(rng, { heads: 3, queryLength: 6, keyLength: 9 }), hard: 'argmax' };
    const { actual, expected } = compare(attn, options, 1e-6, 'argmax');
    assert.deepEqual(Array.from(actual.indices), Array.from(expected.indices));
    actual.indices.forEach((index, row) => {
      const head = Math.floor(row / options.queryLength);
      assertNear(rowOf(actual.output, row, 3), rowOf(options.value, head * options.keyLength + index, 3), 0, `row ${row}`);
      assertNear(rowOf(actual.weights, row, 9), Array.from({ length: 9 }, (_, s) => (s === index ? 1 : 0)), 0, `one-hot ${row}`);
    });
  });

  it('argmax on a fully masked row gives index -1 and a zero output', () => {
    const options = { ...inputs(rng, { heads: 2 }), hard: 'argmax', validLength: new Int32Array([0, 7]) };
    const { actual } = compare(attn, options, 1e-6, 'masked argmax');
    assert.deepEqual(Array.from(actual.indices.slice(0, 5)), [-1, -1, -1, -1, -1]);
    assert.ok(actual.indices.slice(5).every((i) => i >= 0 && i < 7));
    assert.ok(actual.output.slice(0, 15).every((x) => x === 0));
  });

  it('sample: the same seed gives the same indices, another seed other ones', () => {
    const options = { ...inputs(rng, { heads: 2, queryLength: 50, keyLength: 6 }), hard: 'sample', temperature: 3 };
    const a = attn.attention({ ...options, seed: 42 });
    const b = attn.attention({ ...options, seed: 42 });
    const c = attn.attention({ ...options, seed: 43 });
    assert.deepEqual(Array.from(a.indices), Array.from(b.indices));
    assert.notDeepEqual(Array.from(a.indices), Array.from(c.indices));
    a.indices.forEach((index, row) => {
      const head = Math.floor(row / options.queryLength);
      assertNear(rowOf(a.output, row, 3), rowOf(options.value, head * options.keyLength + index, 3), 0, `row ${row}`);
    });
  });

  it('sample: key frequencies over 2000 rows follow the weights', () => {
    // every query is the same, so every row has the same soft weights
    const queryLength = 2000, keyLength = 4, dim = 2;
    const query = new Float32Array(queryLength * dim).fill(0.5);
    const key = new Float32Array([0, 0, 1, 0, 1, 1, 2, 1]);
    const options = { query, key, value: new Float32Array(keyLength * dim), queryLength, keyLength, dim, score: 'dot' };
    const soft = referenceAttention({ ...options, queryLength: 1, query: query.slice(0, dim) }).weights;
    const { indices } = attn.attention({ ...options, hard: 'sample', seed: 7 });
    const counts = new Array(keyLength).fill(0);
    indices.forEach((i) => ++counts[i]);
    counts.forEach((count, s) => {
      // 4 standard deviations of a binomial proportion with n = 2000 is at most 0.045
      assert.ok(Math.abs(count / queryLength - soft[s]) < 0.045, `key ${s}: ${count / queryLength} vs ${soft[s]}`);
    });
  });
});

forEachBuild('dropout', (attn) => {
  it('dropout(): zeroes about `rate` of the weights and scales the rest by 1/(1-rate)', () => {
    const n = 20000;
    for (const rate of [0.1, 0.5, 0.9]) {
      const result = attn.dropout(new Float32Array(n).fill(1), { rate, seed: 5 });
      const zeros = result.filter((x) => x === 0).length;
      assert.ok(Math.abs(zeros / n - rate) < 0.02, `rate ${rate}: ${zeros / n}`);
      const kept = Math.fround(1 / Math.fround(1 - Math.fround(rate))); // float arithmetic, as in C++
      assert.ok(result.every((x) => x === 0 || x === kept), `survivors are 1/(1-${rate})`);
    }
  });

  it('dropout(): seeded like the documented splitmix64 generator', () => {
    const rng = makeRng(6);
    const weights = Float32Array.from({ length: 1000 }, rng.next);
    for (const seed of [0, 1, 123456, -1]) {
      assertClose(attn.dropout(weights, { rate: 0.3, seed }), referenceDropout(weights, 0.3, seed), 1e-7, `seed ${seed}`);
    }
    const a = attn.dropout(weights, { rate: 0.3, seed: 9 });
    assert.deepEqual(Array.from(attn.dropout(weights, { rate: 0.3, seed: 9 })), Array.from(a), 'same seed');
    assert.notDeepEqual(Array.from(attn.dropout(weights, { rate: 0.3, seed: 10 })), Array.from(a), 'another seed');
    assert.deepEqual(Array.from(attn.dropout(weights, { rate: 0 })), Array.from(weights), 'rate 0 is the identity');
  });

  it('attention with dropout: weights dropped and rescaled, output = dropped weights x values', () => {
    const rng = makeRng(7);
    const options = inputs(rng, { heads: 2, queryLength: 10, keyLength: 12 });
    const soft = referenceAttention(options);
    const rate = 0.25, seed = 31;
    const dropped = attn.attention({ ...options, dropout: rate, seed });
    // one draw per weight, row after row, from the seeded generator
    assertClose(dropped.weights, referenceDropout(soft.weights, rate, seed), 1e-5, 'weights');
    const output = new Float64Array(soft.output.length);
    for (let row = 0; row < options.heads * options.queryLength; ++row) {
      const head = Math.floor(row / options.queryLength);
      for (let s = 0; s < options.keyLength; ++s) {
        for (let d = 0; d < 3; ++d) output[row * 3 + d] += dropped.weights[row * 12 + s] * options.value[(head * 12 + s) * 3 + d];
      }
    }
    assertClose(dropped.output, output, 1e-5, 'output');
    assert.deepEqual(Array.from(attn.attention({ ...options, dropout: rate, seed }).weights), Array.from(dropped.weights), 'seeded');
    const zeros = dropped.weights.filter((w) => w === 0).length / dropped.weights.length;
    assert.ok(zeros > 0.1 && zeros < 0.4, `dropped ${zeros}`);
  });
});

forEachBuild('multiHeadAttention', (attn) => {
  const rng = makeRng(8);
  /** Random weights of a layer with the given sizes (all biases when `biases`). */
  function layer({ modelDim, keyValueDim = modelDim, heads, keyDim = modelDim / heads, valueDim = keyDim, biases = true }) {
    const w = {
      modelDim, heads,
      queryWeight: rng.floats(heads * keyDim * modelDim), keyWeight: rng.floats(heads * keyDim * keyValueDim),
      valueWeight: rng.floats(heads * valueDim * keyValueDim), outputWeight: rng.floats(modelDim * heads * valueDim),
    };
    if (biases) {
      Object.assign(w, { queryBias: rng.floats(heads * keyDim), keyBias: rng.floats(heads * keyDim), valueBias: rng.floats(heads * valueDim), outputBias: rng.floats(modelDim) });
    }
    return w;
  }

  it('self-attention (keyValueInput omitted) matches the reference', () => {
    const options = { ...layer({ modelDim: 8, heads: 2 }), queryInput: rng.floats(5 * 8), queryLength: 5 };
    const actual = attn.multiHeadAttention(options);
    const expected = referenceMultiHead(options);
    assertClose(actual.output, expected.output, 1e-5, 'output');
    assertClose(actual.weights, expected.weights, 1e-5, 'weights');
    assert.equal(actual.weights.length, 2 * 5 * 5);
    // the same as passing the input twice
    const twice = attn.multiHeadAttention({ ...options, keyValueInput: options.queryInput, keyLength: 5 });
    assertClose(twice.output, expected.output, 1e-5, 'explicit self');
  });

  it('cross-attention with keyValueDim, keyDim and valueDim of their own, no biases', () => {
    const sizes = { modelDim: 6, keyValueDim: 10, heads: 3, keyDim: 4, valueDim: 5, biases: false };
    const options = { ...layer(sizes), ...sizes, queryInput: rng.floats(4 * 6), queryLength: 4, keyValueInput: rng.floats(7 * 10), keyLength: 7 };
    delete options.biases;
    const actual = attn.multiHeadAttention(options);
    const expected = referenceMultiHead(options);
    assertClose(actual.output, expected.output, 1e-5, 'output');
    assertClose(actual.weights, expected.weights, 1e-5, 'weights');
  });

  it('masks per head, dot score, temperature and no weights', () => {
    const options = {
      ...layer({ modelDim: 8, heads: 4 }), queryInput: rng.floats(6 * 8), queryLength: 6,
      causal: true, validLength: new Int32Array([6, 3, 1, 0]), score: 'dot', temperature: 2,
    };
    const expected = referenceMultiHead(options);
    assertClose(attn.multiHeadAttention(options).output, expected.output, 1e-5, 'output');
    const noWeights = attn.multiHeadAttention({ ...options, returnWeights: false });
    assert.equal(noWeights.weights, undefined);
    assertClose(noWeights.output, expected.output, 1e-5, 'output without weights');
  });
});

forEachBuild('attentionPool', (attn) => {
  const rng = makeRng(9);
  const length = 7, dim = 5, hidden = 4;
  const base = () => ({ inputs: rng.floats(length * dim), length, dim, hidden, weight: rng.floats(hidden * dim, 2), context: rng.floats(hidden, 2) });

  it('u = tanh(W h + b), alpha = softmax(u . u_w), pooled = sum alpha h', () => {
    for (const options of [base(), { ...base(), bias: rng.floats(hidden) }]) {
      const actual = attn.attentionPool(options);
      const expected = referencePool(options);
      assertClose(actual.pooled, expected.pooled, 1e-5, 'pooled');
      assertClose(actual.weights, expected.weights, 1e-5, 'weights');
    }
  });

  it('validLength masks the tail; 0 gives zeros', () => {
    const options = { ...base(), validLength: 3 };
    const actual = attn.attentionPool(options);
    assertClose(actual.pooled, referencePool(options).pooled, 1e-5, 'pooled');
    assert.ok(actual.weights.slice(3).every((w) => w === 0));
    const empty = attn.attentionPool({ ...options, validLength: 0 });
    assert.ok([...empty.pooled, ...empty.weights].every((x) => x === 0));
  });
});

forEachBuild('attentionOverAttention', (attn) => {
  it('pairwise D Q^T, column and row softmax, averaged query attention and their product', () => {
    const rng = makeRng(10);
    const options = { document: rng.floats(9 * 6, 2), query: rng.floats(4 * 6, 2), documentLength: 9, queryLength: 4, dim: 6 };
    const actual = attn.attentionOverAttention(options);
    const expected = referenceAttentionOverAttention(options);
    for (const name of ['pairwise', 'columnSoftmax', 'rowSoftmax', 'queryAttention', 'documentAttention']) {
      assertClose(actual[name], expected[name], 1e-5, name);
    }
    assertNear(rowSums(actual.rowSoftmax, 4), new Array(9).fill(1), 1e-6, 'rows of beta');
    assertNear([actual.documentAttention.reduce((a, b) => a + b, 0)], [1], 1e-6, 'document attention sums to 1');
  });
});
