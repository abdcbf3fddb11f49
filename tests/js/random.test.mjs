// Random shapes against the float64 reference, fully masked rows, large magnitudes, and the SIMD
// and scalar builds against each other.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  BUILDS,
  assertAllFinite,
  assertClose,
  forEachBuild,
  makeRng,
  maxRelError,
  referenceAttention,
  rowSums,
} from './helpers.mjs';

const TRIALS = 15;

/**
 * Random attention options: lengths and dims 1..130, heads 1..8, any score, any probability,
 * any mix of masks, a temperature. Inputs are uniform in [-1, 1).
 */
function randomOptions(rng) {
  const heads = rng.int(1, 8);
  const queryLength = rng.int(1, 130), keyLength = rng.int(1, 130);
  const dim = rng.int(1, 130), valueDim = rng.int(1, 130);
  const score = rng.pick(['dot', 'scaled_dot', 'general', 'additive']);
  const keyDim = score === 'general' || score === 'additive' ? rng.int(1, 130) : dim;
  const options = {
    query: rng.floats(heads * queryLength * dim), key: rng.floats(heads * keyLength * keyDim), value: rng.floats(heads * keyLength * valueDim),
    heads, queryLength, keyLength, dim, keyDim, valueDim, score,
    probability: rng.pick(['softmax', 'softmax', 'sparsemax']),
    temperature: rng.pick([1, 1, 0.5, 2]),
    returnScores: true,
  };
  if (score === 'general') options.general = { weight: rng.floats(dim * keyDim, 1 / Math.sqrt(dim)), scale: rng.pick([1, 0.5]) };
  if (score === 'additive') {
    const hidden = rng.int(1, 32);
    options.additive = { hidden, queryWeight: rng.floats(hidden * dim, 1 / Math.sqrt(dim)), keyWeight: rng.floats(hidden * keyDim, 1 / Math.sqrt(keyDim)), v: rng.floats(hidden), bias: rng.floats(hidden) };
  }
  switch (rng.int(0, 3)) {
    case 0: break;
    case 1: options.validLength = Int32Array.from({ length: heads }, () => rng.int(0, keyLength)); break;
    case 2: options.validLength = Int32Array.from({ length: heads * queryLength }, () => rng.int(0, keyLength)); break;
    case 3: options.validLength = rng.int(1, keyLength); break;
  }
  if (rng.chance(0.3)) options.causal = true;
  if (rng.chance(0.3)) options.mask = Uint8Array.from({ length: (rng.chance(0.5) ? heads : 1) * queryLength * keyLength }, () => (rng.chance(0.8) ? 1 : 0));
  return options;
}

const describeShape = (o) => `heads ${o.heads}, ${o.queryLength}x${o.keyLength}, dim ${o.dim}/${o.keyDim}/${o.valueDim}, ${o.score}, ${o.probability}`;

forEachBuild('random shapes', (attn) => {
  it(`${TRIALS} seeded trials agree with the float64 reference to 1e-5`, () => {
    for (let trial = 0; trial < TRIALS; ++trial) {
      const options = randomOptions(makeRng(1000 + trial));
      const actual = attn.attention(options);
      const expected = referenceAttention(options);
      const label = `trial ${trial} (${describeShape(options)})`;
      assertClose(actual.scores, expected.scores, 1e-5, `${label} scores`);
      assertClose(actual.weights, expected.weights, 1e-5, `${label} weights`);
      assertClose(actual.output, expected.output, 1e-5, `${label} output`);
      assertAllFinite(actual.output, `${label} output`);
    }
  });

  it('fully masked rows give all-zero weights and a zero output, never NaN', () => {
    const rng = makeRng(77);
    const heads = 3, queryLength = 6, keyLength = 5, dim = 4;
    const query = rng.floats(heads * queryLength * dim), key = rng.floats(heads * keyLength * dim), value = rng.floats(heads * keyLength * dim);
    const base = { query, key, value, heads, queryLength, keyLength, dim };
    const mask = new Uint8Array(queryLength * keyLength).fill(1);
    mask.fill(0, 2 * keyLength, 3 * keyLength); // query 2 sees nothing
    const cases = [
      { masks: { validLength: new Int32Array([3, 0, 5]) }, empty: (h) => h === 1 },
      { masks: { validLength: Int32Array.from({ length: heads * queryLength }, (_, r) => (r % 2 ? 0 : 2)) }, empty: (h, t) => (h * queryLength + t) % 2 === 1 },
      { masks: { mask }, empty: (h, t) => t === 2 },
      { masks: { validLength: 0 }, empty: () => true },
      // local-m with more queries than keys + D: queries 5.. have no key in [t-D, t+D] with D = 0
      { masks: { local: { mode: 'monotonic', halfWidth: 0 } }, empty: (h, t) => t >= keyLength },
    ];
    for (const { masks, empty } of cases) {
      for (const probability of ['softmax', 'sparsemax', 'hardmax']) {
        for (const maskValue of [-Infinity, -1e6, 0]) {
          for (const hard of ['none', 'argmax']) {
            const options = { ...base, ...masks, probability, maskValue, hard };
            const { output, weights, indices } = attn.attention(options);
            const label = `${JSON.stringify(Object.keys(masks))} ${probability} maskValue ${maskValue} hard ${hard}`;
            assertAllFinite(weights, `${label} weights`);
            assertAllFinite(output, `${label} output`);
            let emptyRows = 0;
            for (let h = 0; h < heads; ++h) {
              for (let t = 0; t < queryLength; ++t) {
                const row = h * queryLength + t;
                const sum = weights.slice(row * keyLength, (row + 1) * keyLength).reduce((a, b) => a + b, 0);
                if (empty(h, t)) {
                  ++emptyRows;
                  assert.ok(weights.slice(row * keyLength, (row + 1) * keyLength).every((w) => w === 0), `${label}: row ${row} weights`);
                  assert.ok(output.slice(row * dim, (row + 1) * dim).every((x) => x === 0), `${label}: row ${row} output`);
                  if (indices) assert.equal(indices[row], -1, `${label}: row ${row} index`);
                } else {
                  assert.ok(Math.abs(sum - 1) < 1e-5, `${label}: row ${row} sums to ${sum}`);
                }
              }
            }
            assert.ok(emptyRows > 0);
            if (maskValue === -Infinity && hard === 'none') assertClose(weights, referenceAttention(options).weights, 1e-6, label);
          }
        }
      }
    }
  });

  it('inputs of magnitude 1e4 give finite weights that sum to 1 and a convex combination of the values', () => {
    const rng = makeRng(5);
    for (const score of ['dot', 'scaled_dot', 'general', 'additive']) {
      const heads = 2, queryLength = 17, keyLength = 23, dim = 33, valueDim = 9, hidden = 5;
      const options = {
        query: rng.floats(heads * queryLength * dim, 1e4), key: rng.floats(heads * keyLength * dim, 1e4), value: rng.floats(heads * keyLength * valueDim, 1e4),
        heads, queryLength, keyLength, dim, valueDim, score,
        general: score === 'general' ? { weight: rng.floats(dim * dim) } : undefined,
        additive: score === 'additive' ? { hidden, queryWeight: rng.floats(hidden * dim), keyWeight: rng.floats(hidden * dim), v: rng.floats(hidden) } : undefined,
      };
      for (const probability of ['softmax', 'sparsemax']) {
        const { output, weights } = attn.attention({ ...options, probability });
        assertAllFinite(weights, `${score} ${probability} weights`);
        assertAllFinite(output, `${score} ${probability} output`);
        rowSums(weights, keyLength).forEach((sum, row) => assert.ok(Math.abs(sum - 1) < 1e-5, `${score} row ${row} sums to ${sum}`));
        for (let row = 0; row < heads * queryLength; ++row) {
          const h = Math.floor(row / queryLength);
          for (let d = 0; d < valueDim; ++d) {
            const column = Array.from({ length: keyLength }, (_, s) => options.value[(h * keyLength + s) * valueDim + d]);
            const x = output[row * valueDim + d];
            assert.ok(x >= Math.min(...column) - 1 && x <= Math.max(...column) + 1, `${score} output[${row}][${d}] = ${x}`);
          }
        }
      }
    }
  });

  it('finite inputs whose scores overflow float32 throw an Error naming the overflow, not NaN', () => {
    const q = new Float32Array([-1e19, 1e19, -1e19, 1e19, -5e18, 5e18, -5e18, 5e18]);
    assert.throws(() => attn.attention({ query: q, key: q, value: q, queryLength: 2, keyLength: 2, dim: 4, score: 'dot' }),
      (error) => error instanceof Error && /overflow float32/.test(error.message));
  });
});

describe('SIMD and scalar builds', () => {
  const [simd, scalar] = BUILDS.map((build) => build.attn);

  it('are the builds they claim to be', () => {
    assert.equal(simd.simd, true);
    assert.equal(simd.instructionSet, 'sse4.1');
    assert.equal(scalar.simd, false);
    assert.equal(scalar.instructionSet, 'scalar');
  });

  /** Calls fn (which must not draw random numbers itself) on both builds and compares every Float32Array field (or the array) to `tolerance`. */
  function agree(fn, label, tolerance = 1e-5) {
    const a = fn(simd), b = fn(scalar);
    const fields = a instanceof Float32Array ? { result: [a, b] } : Object.fromEntries(Object.keys(a).map((k) => [k, [a[k], b[k]]]));
    for (const [name, [x, y]] of Object.entries(fields)) {
      assert.ok(y !== undefined, `${label}: ${name} missing from the scalar build`);
      if (x instanceof Int32Array) assert.deepEqual(Array.from(x), Array.from(y), `${label}: ${name}`);
      else assert.ok(maxRelError(x, y) <= tolerance, `${label}: ${name} differs by ${maxRelError(x, y).toExponential(2)}`);
    }
  }

  it('attention agrees to 1e-5 on the random trials (and on argmax indices and local positions)', () => {
    for (let trial = 0; trial < TRIALS; ++trial) {
      const options = randomOptions(makeRng(5000 + trial));
      agree((attn) => attn.attention(options), `trial ${trial} (${describeShape(options)})`);
      agree((attn) => attn.attention({ ...options, hard: 'argmax', local: { mode: 'monotonic', halfWidth: 8 } }), `trial ${trial} argmax local`);
    }
  });

  it('local-p, dropout, multi-head, pooling, AoA, maskedSoftmax and the row functions agree', () => {
    const rng = makeRng(6000);
    const hidden = 7;
    const base = { query: rng.floats(3 * 40 * 16), key: rng.floats(3 * 50 * 16), value: rng.floats(3 * 50 * 8), heads: 3, queryLength: 40, keyLength: 50, dim: 16, valueDim: 8 };
    const local = { mode: 'predictive', halfWidth: 6, hidden, positionWeight: rng.floats(hidden * 16), positionV: rng.floats(hidden) };
    agree((attn) => attn.attention({ ...base, local }), 'local-p');
    agree((attn) => attn.attention({ ...base, dropout: 0.2, seed: 3 }), 'dropout');
    const mha = {
      queryInput: rng.floats(30 * 24), queryLength: 30, keyValueInput: rng.floats(20 * 12), keyLength: 20, keyValueDim: 12, modelDim: 24, heads: 4,
      queryWeight: rng.floats(24 * 24), keyWeight: rng.floats(24 * 12), valueWeight: rng.floats(24 * 12), outputWeight: rng.floats(24 * 24), queryBias: rng.floats(24), causal: true,
    };
    agree((attn) => attn.multiHeadAttention(mha), 'multiHeadAttention');
    const pool = { inputs: rng.floats(70 * 33), length: 70, dim: 33, hidden: 10, weight: rng.floats(10 * 33), bias: rng.floats(10), context: rng.floats(10) };
    agree((attn) => attn.attentionPool(pool), 'attentionPool');
    const aoa = { document: rng.floats(90 * 20), query: rng.floats(11 * 20), documentLength: 90, queryLength: 11, dim: 20 };
    agree((attn) => attn.attentionOverAttention(aoa), 'attentionOverAttention');
    const scores = rng.floats(4 * 9 * 67, 5);
    agree((attn) => attn.maskedSoftmax({ scores, batch: 4, rows: 9, cols: 67, validLength: new Int32Array([67, 30, 1, 0]) }), 'maskedSoftmax');
    const row = rng.floats(301, 10);
    agree((attn) => attn.softmax(row, { temperature: 0.7 }), 'softmax');
    agree((attn) => attn.sparsemax(row), 'sparsemax');
    agree((attn) => attn.hardmax(row), 'hardmax', 0);
    agree((attn) => attn.dropout(row, { rate: 0.4, seed: 8 }), 'dropout()', 0);
  });
});
