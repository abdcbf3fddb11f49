// Run by relaxed.test.mjs in a Node started with --experimental-wasm-relaxed-simd: the loader picks
// the relaxed-SIMD build under 'auto', and that build's results match the SIMD128 build's within
// the tolerances fused multiply-add allows (maps 1e-5, log-probabilities 1e-4), on the tiny fixture
// models (tests/data) and random attention calls. Prints one JSON line; exits 1 on a mismatch.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import loadAttn, { relaxedSimdSupported } from '../../web/dist/attn.mjs';
import { makeRng } from './rng.mjs';

const DATA = new URL('../data/', import.meta.url);
const bytes = (name) => new Uint8Array(readFileSync(new URL(name, DATA)));
const MAPS = 1e-5, LOG_PROBS = 1e-4;

assert.equal(relaxedSimdSupported(), true, 'this Node validates relaxed SIMD');
const relaxed = await loadAttn({ simd: 'auto', warmUp: false });
assert.equal(relaxed.build, 'relaxed');
assert.equal(relaxed.simd, true);
assert.equal(relaxed.instructionSet, 'relaxed-simd');
const simd = await loadAttn({ simd: true, warmUp: false });
assert.equal(simd.build, 'simd');
assert.equal(simd.instructionSet, 'sse4.1');
assert.equal((await loadAttn({ simd: 'relaxed', warmUp: false })).build, 'relaxed');

let compared = 0, differing = 0;
const worst = {};  // the largest difference under each tolerance
function close(actual, expected, tolerance, what) {
  assert.equal(actual.length, expected.length, what);
  for (let i = 0; i < actual.length; i++) {
    const difference = Math.abs(actual[i] - expected[i]);
    assert.ok(difference <= tolerance, `${what}[${i}]: relaxed ${actual[i]}, SIMD128 ${expected[i]}`);
    worst[tolerance] = Math.max(worst[tolerance] ?? 0, difference);
    if (actual[i] !== expected[i]) differing++;
  }
  compared += actual.length;
}

// The Transformer: every map by pieces with the log-probabilities, the alignment, beam search.
const reference = JSON.parse(readFileSync(new URL('tiny-transformer-reference.json', DATA), 'utf8'));
const [fast, plain] = await Promise.all([relaxed, simd].map((attn) => attn.loadModel(bytes('tiny-transformer.safetensors'))));
for (const { source, target } of reference.cases) {
  const [a, b] = [fast, plain].map((model) => model.attentions(source, target, { pieces: true, logProbs: true }));
  assert.deepEqual(a.target, b.target);
  for (const map of ['cross', 'encoder', 'decoder']) close(a[map].data, b[map].data, MAPS, `${map} of '${source}'`);
  close(a.logProbs, b.logProbs, LOG_PROBS, `logProbs of '${source}'`);
  const [x, y] = [fast, plain].map((model) => model.align(source, target));
  close(x.weights, y.weights, MAPS, `alignment of '${source}'`);
  assert.equal(x.pharaoh, y.pharaoh, `links of '${source}'`);
  const [s, t] = [fast, plain].map((model) => model.translate(source, { beam: 2 }));
  assert.equal(s.text, t.text, `translation of '${source}'`);
}

// The RNNs (additive and general attention): word attention and links.
for (const attention of ['additive', 'general']) {
  const [x, y] = await Promise.all([relaxed, simd].map((attn) => attn.loadModel(bytes(`tiny-${attention}.safetensors`))));
  for (const [source, target] of [['the cat sleeps on the sofa .', 'el gato duerme en el sofá .'], ['the house', 'la casa']]) {
    const [a, b] = [x, y].map((model) => model.align(source, target));
    close(a.weights, b.weights, MAPS, `${attention} '${source}'`);
    close(a.nullWeights, b.nullWeights, MAPS, `${attention} null '${source}'`);
    assert.equal(a.pharaoh, b.pharaoh, `${attention} links of '${source}'`);
  }
}

// Attention calls long enough for the matrix products' micro-kernels and the exp's polynomial.
const rng = makeRng(51);
for (let trial = 0; trial < 12; trial++) {
  const heads = rng.int(1, 4), queryLength = rng.int(1, 70), keyLength = rng.int(1, 300), dim = rng.int(1, 64);
  const call = {
    query: rng.floats(heads * queryLength * dim), key: rng.floats(heads * keyLength * dim),
    value: rng.floats(heads * keyLength * dim), heads, queryLength, keyLength, dim,
    score: rng.pick(['dot', 'scaled_dot']), returnWeights: true, causal: rng.chance(0.3),
  };
  const [a, b] = [relaxed, simd].map((attn) => attn.attention(call));
  close(a.output, b.output, MAPS, `attention output, trial ${trial}`);
  close(a.weights, b.weights, MAPS, `attention weights, trial ${trial}`);
}
console.log(JSON.stringify({ compared, differing, worst }));
