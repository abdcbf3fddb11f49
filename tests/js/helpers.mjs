// Shared helpers for the JS tests of the WebAssembly module (web/dist/attn.mjs):
//   - forEachBuild(): a describe() per build (SIMD and scalar), each checking it got what it asked for
//   - makeRng(): a small seeded PRNG (mulberry32) for reproducible random inputs
//   - splitmix64(): the module's documented generator (src/attn/rng.hpp), for dropout references
//   - reference*(): float64 implementations of every mechanism, written from the papers / headers,
//     never from the module's output
//   - maxRelError() / assertClose(): max |actual - expected| / max |expected|
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import loadAttn from '../../web/dist/attn.mjs';

export { loadAttn };

// ---------------------------------------------------------------------------------------------
// Builds
// ---------------------------------------------------------------------------------------------

export const BUILDS = await Promise.all([true, false].map(async (simd) => ({ simd, attn: await loadAttn({ simd }) })));

export const buildName = (simd) => (simd ? 'SIMD' : 'scalar');

/** describe(title) once per build; fn(attn, simd) registers the tests. */
export function forEachBuild(title, fn) {
  for (const { simd, attn } of BUILDS) {
    describe(`${title} [${buildName(simd)} build]`, () => {
      it('runs the requested build', () => {
        assert.equal(attn.simd, simd);
        assert.equal(attn.instructionSet, simd ? 'sse4.1' : 'scalar');
      });
      fn(attn, simd);
    });
  }
}

// ---------------------------------------------------------------------------------------------
// Random numbers
// ---------------------------------------------------------------------------------------------

export { makeRng } from './rng.mjs';

/** The module's generator (src/attn/rng.hpp): splitmix64, uniform() = top 24 bits / 2^24. */
export function splitmix64(seed) {
  const mask = (1n << 64n) - 1n;
  let state = BigInt.asUintN(64, BigInt(seed));
  return () => {
    state = (state + 0x9e3779b97f4a7c15n) & mask;
    let z = state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
    z ^= z >> 31n;
    return Number(z >> 40n) / 16777216;
  };
}

/** Inverted dropout as documented: zero with probability p (uniform() < p), scale the rest by 1/(1-p). */
export function referenceDropout(weights, rate, seed) {
  const uniform = splitmix64(seed);
  const p = Math.fround(rate);
  const keepScale = Math.fround(1 / Math.fround(1 - p));
  return Float64Array.from(weights, (w) => (uniform() < p ? 0 : w * keepScale));
}

// ---------------------------------------------------------------------------------------------
// Comparisons
// ---------------------------------------------------------------------------------------------

/** max |actual - expected| / max |expected| (absolute when expected is all zeros). */
export function maxRelError(actual, expected) {
  assert.equal(actual.length, expected.length, 'lengths differ');
  let diff = 0;
  let scale = 0;
  for (let i = 0; i < expected.length; ++i) {
    const d = Math.abs(actual[i] - expected[i]);
    diff = Number.isNaN(d) ? Infinity : Math.max(diff, d);
    scale = Math.max(scale, Math.abs(expected[i]));
  }
  return scale > 0 ? diff / scale : diff;
}

export function assertClose(actual, expected, tolerance = 1e-5, label = 'values') {
  assert.ok(actual !== undefined, `${label} missing`);
  const error = maxRelError(actual, expected);
  assert.ok(error <= tolerance, `${label}: relative error ${error.toExponential(2)} > ${tolerance}`);
}

/** Element-wise absolute tolerance, for small hand-computed expectations. */
export function assertNear(actual, expected, tolerance = 1e-6, label = 'values') {
  assert.equal(actual.length, expected.length, `${label}: length`);
  for (let i = 0; i < expected.length; ++i) {
    assert.ok(Math.abs(actual[i] - expected[i]) <= tolerance, `${label}[${i}] = ${actual[i]}, expected ${expected[i]}`);
  }
}

export function assertAllFinite(values, label = 'values') {
  const bad = Array.prototype.findIndex.call(values, (x) => !Number.isFinite(x));
  assert.equal(bad, -1, `${label}[${bad}] = ${values[bad]}`);
}

/** Sums of consecutive rows of `cols` entries. */
export function rowSums(values, cols) {
  const sums = [];
  for (let i = 0; i < values.length; i += cols) sums.push(values.slice(i, i + cols).reduce((a, b) => a + b, 0));
  return sums;
}

// ---------------------------------------------------------------------------------------------
// The tutorial's worked example: self-attention over five 4-d tokens, scaled dot product
// ---------------------------------------------------------------------------------------------

export const TOKENS = [[1, 0, 1, 0], [0, 1, 0, 1], [1, 1, 0, 0], [0, 0, 1, 1], [1, 0.5, 0.5, 0]];
export const WORKED_ROW_1 = [0.2976, 0.1095, 0.1805, 0.1805, 0.2318];
export const WORKED_ROW_5 = [0.2374, 0.144, 0.2374, 0.144, 0.2374];

export function workedExample(attn) {
  const x = new Float32Array(TOKENS.flat());
  return attn.attention({ query: x, key: x, value: x, queryLength: 5, keyLength: 5, dim: 4, score: 'scaled_dot' });
}

/** Runs the worked example and checks it against the tutorial's numbers and weights x values. */
export function assertWorkedExample(attn) {
  const { output, weights } = workedExample(attn);
  assertNear(weights.slice(0, 5), WORKED_ROW_1, 1e-4, 'weights row 1');
  assertNear(weights.slice(20, 25), WORKED_ROW_5, 1e-4, 'weights row 5');
  const expected = [];
  for (let i = 0; i < 5; ++i) {
    for (let d = 0; d < 4; ++d) expected.push(TOKENS.reduce((sum, token, j) => sum + weights[i * 5 + j] * token[d], 0));
  }
  assertNear(output, expected, 1e-6, 'output = weights x values');
}

// ---------------------------------------------------------------------------------------------
// Probability functions (float64)
// ---------------------------------------------------------------------------------------------

export function referenceSoftmax(row) {
  const top = Math.max(...row);
  if (top === -Infinity) return row.map(() => 0);
  const e = row.map((x) => Math.exp(x - top));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/** Martins & Astudillo 2016: Euclidean projection onto the probability simplex. */
export function referenceSparsemax(row) {
  const z = row.filter((x) => x !== -Infinity).sort((a, b) => b - a);
  if (z.length === 0) return row.map(() => 0);
  let cumulative = 0;
  let tau = 0;
  for (let k = 1; k <= z.length; ++k) {
    cumulative += z[k - 1];
    if (1 + k * z[k - 1] > cumulative) tau = (cumulative - 1) / k;
  }
  return row.map((x) => Math.max(0, x - tau));
}

export function referenceHardmax(row) {
  const top = Math.max(...row);
  if (top === -Infinity) return row.map(() => 0);
  const ties = row.filter((x) => x === top).length;
  return row.map((x) => (x === top ? 1 / ties : 0));
}

const PROBABILITY = { softmax: referenceSoftmax, sparsemax: referenceSparsemax, hardmax: referenceHardmax };

/**
 * One row of scores -> weights. keep[j] says whether key j may be attended. With maskValue
 * -Infinity masked keys are simply left out; with a finite maskValue they take part with that
 * score (d2l). A row with nothing kept is all zeros.
 */
export function referenceRow(scores, keep, { probability = 'softmax', temperature = 1, maskValue = -Infinity } = {}) {
  const n = scores.length;
  if (!keep.some(Boolean)) return new Array(n).fill(0);
  const f = PROBABILITY[probability];
  const row = scores.map((s, j) => (keep[j] ? s / temperature : maskValue));
  if (maskValue !== -Infinity) return f(row);
  const kept = [];
  for (let j = 0; j < n; ++j) if (keep[j]) kept.push(row[j]);
  const p = f(kept);
  const out = new Array(n).fill(0);
  for (let j = 0, k = 0; j < n; ++j) if (keep[j]) out[j] = p[k++];
  return out;
}

/**
 * keep(b, i, j) for the mask options shared by attention() and maskedSoftmax() over
 * [batch][rows][cols]: validLength (number, per batch entry or per row), mask (shared or per
 * batch entry), causal.
 */
export function maskPredicate({ validLength, mask, causal = false }, batch, rows, cols) {
  return (b, i, j) => {
    if (validLength !== undefined) {
      let length;
      if (typeof validLength === 'number') length = validLength;
      else if (validLength.length === batch * rows) length = validLength[b * rows + i];
      else length = validLength[b];
      if (j >= length) return false;
    }
    if (mask !== undefined) {
      const m = mask.length === rows * cols ? 0 : b;
      if (!mask[(m * rows + i) * cols + j]) return false;
    }
    if (causal && j > i) return false;
    return true;
  };
}

export function referenceMaskedSoftmax(options) {
  const { scores, batch = 1, rows = 1, cols } = options;
  const keep = maskPredicate(options, batch, rows, cols);
  const out = new Float64Array(scores.length);
  for (let b = 0; b < batch; ++b) {
    for (let i = 0; i < rows; ++i) {
      const start = (b * rows + i) * cols;
      const row = Array.from(scores.slice(start, start + cols));
      const keepRow = row.map((_, j) => keep(b, i, j));
      out.set(referenceRow(row, keepRow, options), start);
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Attention (float64)
// ---------------------------------------------------------------------------------------------

const dot = (a, b) => a.reduce((sum, x, i) => sum + x * b[i], 0);
const sigmoid = (x) => 1 / (1 + Math.exp(-x));
/** Row r of a row-major matrix with `cols` columns, as a plain array of doubles. */
export const rowOf = (data, r, cols) => Array.from(data.subarray(r * cols, (r + 1) * cols));
/** W x for W [rows][cols] */
const matVec = (w, rows, cols, x) => Array.from({ length: rows }, (_, r) => dot(rowOf(w, r, cols), x));

/**
 * The score function, split so that the per-query and per-key work is done once:
 * score(prepareQuery(q), prepareKey(k)).
 */
function scoreFunction(o) {
  const dim = o.dim;
  const keyDim = o.keyDim ?? dim;
  const same = (x) => x;
  switch (o.score ?? 'scaled_dot') {
    case 'dot':
      return { prepareQuery: same, prepareKey: same, score: dot };
    case 'scaled_dot':
      return { prepareQuery: same, prepareKey: same, score: (q, k) => dot(q, k) / Math.sqrt(dim) };
    case 'general': {
      // scale * q^T W k with W [dim][keyDim]: q^T W first
      const { weight, scale = 1 } = o.general;
      const prepareQuery = (q) => {
        const qw = new Array(keyDim).fill(0);
        for (let i = 0; i < dim; ++i) for (let j = 0; j < keyDim; ++j) qw[j] += q[i] * weight[i * keyDim + j];
        return qw;
      };
      return { prepareQuery, prepareKey: same, score: (qw, k) => scale * dot(qw, k) };
    }
    case 'additive': {
      // v^T tanh(W_q q + W_k k + b)
      const { hidden, queryWeight, keyWeight, bias, normalize = false, gain = 1 } = o.additive;
      let v = Array.from(o.additive.v);
      if (normalize) {
        const norm = Math.sqrt(dot(v, v));
        v = v.map((x) => (gain * x) / norm);
      }
      return {
        prepareQuery: (q) => matVec(queryWeight, hidden, dim, q).map((x, h) => x + (bias ? bias[h] : 0)),
        prepareKey: (k) => matVec(keyWeight, hidden, keyDim, k),
        score: (wq, wk) => {
          let sum = 0;
          for (let h = 0; h < hidden; ++h) sum += v[h] * Math.tanh(wq[h] + wk[h]);
          return sum;
        },
      };
    }
    default:
      throw new Error(`reference: unknown score ${o.score}`);
  }
}

/**
 * Attention over [heads][queryLength][dim] with the options of attn.attention() (all but
 * dropout and sampled hard attention). Returns float64 { output, weights, scores, positions, indices }.
 */
export function referenceAttention(o) {
  const heads = o.heads ?? 1;
  const { queryLength: lq, keyLength: lk, dim } = o;
  const keyDim = o.keyDim ?? dim;
  const valueDim = o.valueDim ?? dim;
  const { prepareQuery, prepareKey, score } = scoreFunction(o);
  const keep = maskPredicate(o, heads, lq, lk);
  const local = o.local;
  const output = new Float64Array(heads * lq * valueDim);
  const weights = new Float64Array(heads * lq * lk);
  const scores = new Float64Array(heads * lq * lk);
  const positions = local && local.mode !== 'none' ? new Float64Array(heads * lq) : undefined;
  const indices = o.hard === 'argmax' ? new Int32Array(heads * lq) : undefined;

  for (let h = 0; h < heads; ++h) {
    const keys = Array.from({ length: lk }, (_, s) => prepareKey(rowOf(o.key, h * lk + s, keyDim)));
    const values = Array.from({ length: lk }, (_, s) => rowOf(o.value, h * lk + s, valueDim));
    for (let t = 0; t < lq; ++t) {
      const row = h * lq + t;
      const q = rowOf(o.query, row, dim);
      const prepared = prepareQuery(q);
      const rowScores = keys.map((k) => score(prepared, k));
      scores.set(rowScores, row * lk);

      let centre;
      if (positions) {
        if (local.mode === 'monotonic') {
          centre = t;
        } else {
          const hiddenState = matVec(local.positionWeight, local.hidden, dim, q).map(Math.tanh);
          centre = lk * sigmoid(dot(Array.from(local.positionV), hiddenState));
        }
        positions[row] = centre;
      }
      const inWindow = (s) => !positions || (s >= Math.ceil(centre - local.halfWidth) && s <= Math.floor(centre + local.halfWidth));
      const keepRow = rowScores.map((_, s) => keep(h, t, s) && inWindow(s));
      const w = referenceRow(rowScores, keepRow, o);
      if (positions && local.mode === 'predictive') {
        const sigma = local.halfWidth / 2;
        for (let s = 0; s < lk; ++s) w[s] *= Math.exp(-((s - centre) ** 2) / (2 * sigma * sigma));
      }
      if (indices) {
        let best = -1;
        for (let s = 0; s < lk; ++s) if (w[s] > 0 && (best < 0 || w[s] > w[best])) best = s;
        w.fill(0);
        if (best >= 0) w[best] = 1;
        indices[row] = best;
      }
      weights.set(w, row * lk);
      for (let s = 0; s < lk; ++s) {
        if (w[s] === 0) continue;
        for (let d = 0; d < valueDim; ++d) output[row * valueDim + d] += w[s] * values[s][d];
      }
    }
  }
  return { output, weights, scores, positions, indices };
}

// ---------------------------------------------------------------------------------------------
// Multi-head attention, attention pooling, attention-over-attention (float64)
// ---------------------------------------------------------------------------------------------

/** y [rows][out] = x [rows][in] W^T + b, W [out][in] (PyTorch Linear). */
export function referenceLinear(x, rows, inDim, weight, bias, outDim) {
  const y = new Float64Array(rows * outDim);
  for (let r = 0; r < rows; ++r) {
    for (let o = 0; o < outDim; ++o) {
      let sum = bias ? bias[o] : 0;
      for (let i = 0; i < inDim; ++i) sum += x[r * inDim + i] * weight[o * inDim + i];
      y[r * outDim + o] = sum;
    }
  }
  return y;
}

/** [length][heads*width] -> [heads][length][width] */
function splitHeads(x, length, heads, width) {
  const out = new Float64Array(x.length);
  for (let t = 0; t < length; ++t) {
    for (let h = 0; h < heads; ++h) {
      for (let d = 0; d < width; ++d) out[(h * length + t) * width + d] = x[(t * heads + h) * width + d];
    }
  }
  return out;
}

/** [heads][length][width] -> [length][heads*width] */
function mergeHeads(x, length, heads, width) {
  const out = new Float64Array(x.length);
  for (let h = 0; h < heads; ++h) {
    for (let t = 0; t < length; ++t) {
      for (let d = 0; d < width; ++d) out[(t * heads + h) * width + d] = x[(h * length + t) * width + d];
    }
  }
  return out;
}

/** Vaswani et al. 2017 with the options of attn.multiHeadAttention(). */
export function referenceMultiHead(o) {
  const { queryLength: lq, modelDim, heads } = o;
  const self = o.keyValueInput === undefined;
  const kvInput = self ? o.queryInput : o.keyValueInput;
  const lk = self ? lq : o.keyLength;
  const kvDim = o.keyValueDim ?? modelDim;
  const keyDim = o.keyDim ?? modelDim / heads;
  const valueDim = o.valueDim ?? keyDim;
  const q = referenceLinear(o.queryInput, lq, modelDim, o.queryWeight, o.queryBias, heads * keyDim);
  const k = referenceLinear(kvInput, lk, kvDim, o.keyWeight, o.keyBias, heads * keyDim);
  const v = referenceLinear(kvInput, lk, kvDim, o.valueWeight, o.valueBias, heads * valueDim);
  const attention = referenceAttention({
    ...o,
    query: splitHeads(q, lq, heads, keyDim),
    key: splitHeads(k, lk, heads, keyDim),
    value: splitHeads(v, lk, heads, valueDim),
    heads,
    queryLength: lq,
    keyLength: lk,
    dim: keyDim,
    keyDim,
    valueDim,
  });
  const context = mergeHeads(attention.output, lq, heads, valueDim);
  return {
    output: referenceLinear(context, lq, heads * valueDim, o.outputWeight, o.outputBias, modelDim),
    weights: attention.weights,
  };
}

/** Yang et al. 2016: u_i = tanh(W h_i + b), alpha = softmax(u_i . u_w), s = sum alpha_i h_i. */
export function referencePool({ inputs, length, dim, hidden, weight, bias, context, validLength = length }) {
  const scores = [];
  for (let i = 0; i < length; ++i) {
    const u = matVec(weight, hidden, dim, rowOf(inputs, i, dim)).map((x, h) => Math.tanh(x + (bias ? bias[h] : 0)));
    scores.push(dot(u, Array.from(context)));
  }
  const alpha = referenceRow(scores, scores.map((_, i) => i < validLength));
  const pooled = new Float64Array(dim);
  for (let i = 0; i < length; ++i) for (let d = 0; d < dim; ++d) pooled[d] += alpha[i] * inputs[i * dim + d];
  return { pooled, weights: Float64Array.from(alpha) };
}

/** Cui et al. 2017. */
export function referenceAttentionOverAttention({ document, query, documentLength: n, queryLength: m, dim }) {
  const pairwise = new Float64Array(n * m);
  for (let i = 0; i < n; ++i) for (let j = 0; j < m; ++j) pairwise[i * m + j] = dot(rowOf(document, i, dim), rowOf(query, j, dim));
  const columnSoftmax = new Float64Array(n * m);
  for (let j = 0; j < m; ++j) {
    const column = referenceSoftmax(Array.from({ length: n }, (_, i) => pairwise[i * m + j]));
    column.forEach((x, i) => (columnSoftmax[i * m + j] = x));
  }
  const rowSoftmax = new Float64Array(n * m);
  for (let i = 0; i < n; ++i) rowSoftmax.set(referenceSoftmax(rowOf(pairwise, i, m)), i * m);
  const queryAttention = new Float64Array(m);
  for (let i = 0; i < n; ++i) for (let j = 0; j < m; ++j) queryAttention[j] += rowSoftmax[i * m + j] / n;
  const documentAttention = new Float64Array(n);
  for (let i = 0; i < n; ++i) for (let j = 0; j < m; ++j) documentAttention[i] += columnSoftmax[i * m + j] * queryAttention[j];
  return { pairwise, columnSoftmax, rowSoftmax, queryAttention, documentAttention };
}
