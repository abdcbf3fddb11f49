// The loader, the tutorial's worked example, d2l's examples, the probability functions and the
// masks, for both builds of web/dist/attn.mjs.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  TOKENS,
  assertClose,
  assertNear,
  assertWorkedExample,
  forEachBuild,
  loadAttn,
  makeRng,
  referenceAttention,
  referenceMaskedSoftmax,
  referenceRow,
  rowSums,
} from './helpers.mjs';

describe('loadAttn()', () => {
  it("picks the SIMD build with simd: 'auto' in Node 20", async () => {
    const attn = await loadAttn({ simd: 'auto' });
    assert.equal(attn.simd, true);
    assert.equal(attn.instructionSet, 'sse4.1');
    assertWorkedExample(attn);
  });

  it('defaults to auto', async () => {
    assert.equal((await loadAttn()).simd, true);
  });

  it("rejects simd: 'yes' with an Error naming the option", async () => {
    await assert.rejects(loadAttn({ simd: 'yes' }), (error) => error instanceof Error && /simd must be true, false or 'auto'/.test(error.message));
  });

  it('rejects options that are not an object', async () => {
    await assert.rejects(loadAttn(42), (error) => error instanceof Error && /options object/.test(error.message));
  });

  it('returns a frozen API object with every function', async () => {
    const attn = await loadAttn({ simd: false });
    assert.ok(Object.isFrozen(attn));
    for (const name of ['attention', 'softmax', 'sparsemax', 'hardmax', 'maskedSoftmax', 'multiHeadAttention', 'attentionPool',
      'attentionOverAttention', 'dropout', 'heapBytes', 'liveHandles']) {
      assert.equal(typeof attn[name], 'function', name);
    }
  });
});

forEachBuild('worked example', (attn) => {
  it('self-attention over five 4-d tokens matches the tutorial', () => {
    assertWorkedExample(attn);
  });

  it('matches a float64 reference for every weight and output', () => {
    const x = new Float32Array(TOKENS.flat());
    const options = { query: x, key: x, value: x, queryLength: 5, keyLength: 5, dim: 4 };
    const actual = attn.attention(options);
    const expected = referenceAttention(options);
    assertClose(actual.weights, expected.weights, 1e-6, 'weights');
    assertClose(actual.output, expected.output, 1e-6, 'output');
    assert.deepEqual(Object.keys(actual).sort(), ['output', 'weights']);
  });

  it('returnScores gives q.k/sqrt(d) and returnWeights: false drops the weights', () => {
    const x = new Float32Array(TOKENS.flat());
    const result = attn.attention({ query: x, key: x, value: x, queryLength: 5, keyLength: 5, dim: 4, returnWeights: false, returnScores: true });
    assert.equal(result.weights, undefined);
    // row 1: [1,0,1,0] against each token, divided by sqrt(4)
    assertNear(result.scores.slice(0, 5), [1, 0, 0.5, 0.5, 0.75], 1e-7, 'scores row 1');
    assert.ok(result.output instanceof Float32Array);
    assertWorkedExample(attn); // and the same output with weights on
  });
});

// d2l.ai, "Attention Scoring Functions": batch of 2, one query each, ten keys of ones,
// values arange(40).reshape(1, 10, 4) repeated, valid lengths [2, 6].
forEachBuild('d2l examples', (attn) => {
  const keys = new Float32Array(2 * 10 * 2).fill(1);
  const values = new Float32Array(2 * 10 * 4);
  for (let i = 0; i < values.length; ++i) values[i] = i % 40;
  const validLength = new Int32Array([2, 6]);
  const expected = [2, 3, 4, 5, 10, 11, 12, 13];

  it('dot-product attention with valid lengths [2, 6]', () => {
    const { output, weights } = attn.attention({
      query: new Float32Array(2 * 1 * 2).fill(1), key: keys, value: values,
      heads: 2, queryLength: 1, keyLength: 10, dim: 2, valueDim: 4, score: 'scaled_dot', validLength,
    });
    assertNear(output, expected, 1e-5, 'output');
    assertNear(weights, [...[0.5, 0.5], ...new Array(8).fill(0), ...new Array(6).fill(1 / 6), 0, 0, 0, 0], 1e-6, 'weights');
  });

  it('additive attention (query dim 20, keyDim 2, hidden 8, random weights) gives the same', () => {
    const rng = makeRng(2017);
    const hidden = 8;
    const { output } = attn.attention({
      query: Float32Array.from({ length: 2 * 20 }, rng.normal), key: keys, value: values,
      heads: 2, queryLength: 1, keyLength: 10, dim: 20, keyDim: 2, valueDim: 4, validLength, score: 'additive',
      additive: { hidden, queryWeight: rng.floats(hidden * 20), keyWeight: rng.floats(hidden * 2), v: rng.floats(hidden) },
    });
    assertNear(output, expected, 1e-5, 'output');
  });

  it('maskedSoftmax with valid lengths [2, 3] zeroes the columns past each length', () => {
    const rng = makeRng(3);
    const scores = Float32Array.from({ length: 16 }, rng.next);
    const options = { scores, batch: 2, rows: 2, cols: 4, validLength: new Int32Array([2, 3]) };
    const result = attn.maskedSoftmax(options);
    assert.ok(result instanceof Float32Array);
    for (const [b, length] of [[0, 2], [1, 3]]) {
      for (let i = 0; i < 2; ++i) {
        for (let j = 0; j < 4; ++j) {
          const w = result[(b * 2 + i) * 4 + j];
          if (j >= length) assert.equal(w, 0, `[${b}][${i}][${j}]`);
          else assert.ok(w > 0, `[${b}][${i}][${j}]`);
        }
      }
    }
    assertNear(rowSums(result, 4), [1, 1, 1, 1], 1e-6, 'row sums');
    assertClose(result, referenceMaskedSoftmax(options), 1e-6);
    assert.notDeepEqual(Array.from(result), Array.from(scores), 'a copy, not the input');
  });

  it('maskedSoftmax with per-row valid lengths [[1, 3], [2, 4]]', () => {
    const rng = makeRng(4);
    const scores = Float32Array.from({ length: 16 }, rng.next);
    const options = { scores, batch: 2, rows: 2, cols: 4, validLength: new Int32Array([1, 3, 2, 4]) };
    const result = attn.maskedSoftmax(options);
    const lengths = [1, 3, 2, 4];
    lengths.forEach((length, row) => {
      for (let j = length; j < 4; ++j) assert.equal(result[row * 4 + j], 0, `row ${row} column ${j}`);
    });
    assert.equal(result[0], 1, 'a row of valid length 1 puts everything on its first key');
    assertNear(rowSums(result, 4), [1, 1, 1, 1], 1e-6, 'row sums');
    assertClose(result, referenceMaskedSoftmax(options), 1e-6);
  });
});

forEachBuild('probability functions', (attn) => {
  it('softmax of one row, with a temperature', () => {
    const row = [1, 2, 3, -4];
    assertNear(attn.softmax(new Float32Array(row)), referenceRow(row, [1, 1, 1, 1]), 1e-7, 'softmax');
    assertNear(attn.softmax(new Float32Array(row), { temperature: 2 }), referenceRow(row.map((x) => x / 2), [1, 1, 1, 1]), 1e-7, 'T = 2');
    // a large common offset does not overflow
    assertNear(attn.softmax(new Float32Array([1000, 1001])), [1 / (1 + Math.E), Math.E / (1 + Math.E)], 1e-6, 'shifted');
  });

  it('sparsemax worked example [1, 0.5, -1] -> [0.75, 0.25, 0]', () => {
    assertNear(attn.sparsemax(new Float32Array([1, 0.5, -1])), [0.75, 0.25, 0], 1e-7, 'sparsemax');
    // T = 2: [0.5, 0.25, -0.5] -> tau = -0.125 -> [0.625, 0.375, 0]
    assertNear(attn.sparsemax(new Float32Array([1, 0.5, -1]), { temperature: 2 }), [0.625, 0.375, 0], 1e-7, 'sparsemax T=2');
    // uniform input stays uniform; a dominant score takes everything
    assertNear(attn.sparsemax(new Float32Array([2, 2, 2, 2])), [0.25, 0.25, 0.25, 0.25], 1e-7, 'uniform');
    assertNear(attn.sparsemax(new Float32Array([5, 1, 0])), [1, 0, 0], 1e-7, 'one-hot');
  });

  it('hardmax puts 1 on the largest score and splits exact ties', () => {
    assertNear(attn.hardmax(new Float32Array([0.1, 3, -2, 1])), [0, 1, 0, 0], 0, 'single');
    assertNear(attn.hardmax(new Float32Array([1, 3, 3, 0])), [0, 0.5, 0.5, 0], 0, 'ties');
  });

  it('the functions return new arrays and leave their input alone', () => {
    const input = new Float32Array([1, 2, 3]);
    const output = attn.softmax(input);
    assert.notEqual(output, input);
    assert.deepEqual(Array.from(input), [1, 2, 3]);
  });

  it('maskedSoftmax: sparsemax, hardmax and a temperature over masked rows', () => {
    const rng = makeRng(11);
    for (const probability of ['softmax', 'sparsemax', 'hardmax']) {
      for (const temperature of [1, 0.25, 3]) {
        const options = { scores: rng.floats(3 * 4 * 7, 3), batch: 3, rows: 4, cols: 7, validLength: new Int32Array([7, 4, 1]), causal: true, probability, temperature };
        assertClose(attn.maskedSoftmax(options), referenceMaskedSoftmax(options), 1e-6, `${probability} T=${temperature}`);
      }
    }
  });
});

forEachBuild('masks', (attn) => {
  const rng = makeRng(99);
  const heads = 3, queryLength = 5, keyLength = 6, dim = 4;
  const base = () => ({
    query: rng.floats(heads * queryLength * dim), key: rng.floats(heads * keyLength * dim), value: rng.floats(heads * keyLength * 3),
    heads, queryLength, keyLength, dim, valueDim: 3,
  });
  const check = (options, label) => {
    const actual = attn.attention(options);
    const expected = referenceAttention(options);
    assertClose(actual.weights, expected.weights, 1e-6, `${label} weights`);
    assertClose(actual.output, expected.output, 1e-6, `${label} output`);
    return actual;
  };
  const randomMask = (n) => Uint8Array.from({ length: n }, () => (rng.chance(0.6) ? 1 : 0));

  it('a boolean mask [queryLength][keyLength] shared by every head', () => {
    const mask = randomMask(queryLength * keyLength);
    const { weights } = check({ ...base(), mask }, 'shared mask');
    for (let h = 0; h < heads; ++h) {
      for (let i = 0; i < queryLength * keyLength; ++i) if (!mask[i]) assert.equal(weights[h * queryLength * keyLength + i], 0);
    }
  });

  it('a boolean mask [heads][queryLength][keyLength]', () => {
    const mask = randomMask(heads * queryLength * keyLength);
    const { weights } = check({ ...base(), mask }, 'per-head mask');
    mask.forEach((m, i) => !m && assert.equal(weights[i], 0));
  });

  it('causal: query i sees keys 0..i', () => {
    const { weights } = check({ ...base(), causal: true }, 'causal');
    for (let h = 0; h < heads; ++h) {
      for (let i = 0; i < queryLength; ++i) {
        for (let j = i + 1; j < keyLength; ++j) assert.equal(weights[(h * queryLength + i) * keyLength + j], 0);
      }
    }
    // the first query sees only the first key: its output is the first value row
    const options = { ...base(), causal: true };
    assertNear(attn.attention(options).output.slice(0, 3), options.value.slice(0, 3), 1e-7, 'first row');
  });

  it('validLength: one number, one per head, one per query row', () => {
    check({ ...base(), validLength: 4 }, 'number');
    check({ ...base(), validLength: new Int32Array([6, 1, 3]) }, 'per head');
    check({ ...base(), validLength: Int32Array.from({ length: heads * queryLength }, () => rng.int(1, keyLength)) }, 'per row');
  });

  it('masks combine: valid length, boolean mask and causal together', () => {
    check({ ...base(), validLength: new Int32Array([5, 2, 6]), mask: randomMask(queryLength * keyLength), causal: true }, 'combined');
  });

  it('maskValue -1e6 behaves like d2l (same as -Infinity except that fully masked rows are zeros)', () => {
    const options = { ...base(), validLength: new Int32Array([2, 0, 5]) };
    const exact = attn.attention(options);
    const d2l = attn.attention({ ...options, maskValue: -1e6 });
    assertClose(d2l.weights, exact.weights, 1e-7, 'weights');
    assertClose(d2l.output, exact.output, 1e-7, 'output');
    check({ ...options, maskValue: -1e6 }, 'maskValue -1e6');
    // head 1 has valid length 0: zeros, not d2l's uniform row
    assert.ok(d2l.weights.slice(queryLength * keyLength, 2 * queryLength * keyLength).every((w) => w === 0));
  });

  it('a finite maskValue takes part in the softmax (masked keys get exp(maskValue))', () => {
    const options = { ...base(), validLength: 3, maskValue: -1 };
    const { weights } = check(options, 'maskValue -1');
    assert.ok(weights[3] > 0, 'masked key has a small weight');
  });

  it('temperature divides the scores before the probability function', () => {
    for (const temperature of [0.1, 0.5, 4]) {
      const options = { ...base(), temperature, validLength: new Int32Array([6, 5, 4]) };
      check(options, `T = ${temperature}`);
    }
    // a high temperature flattens, a low one sharpens
    const options = { ...base() };
    const entropy = (w) => -w.reduce((s, x) => s + (x > 0 ? x * Math.log(x) : 0), 0);
    const hot = attn.attention({ ...options, temperature: 100 }).weights;
    const cold = attn.attention({ ...options, temperature: 0.01 }).weights;
    assert.ok(entropy(hot) > entropy(cold));
  });
});
