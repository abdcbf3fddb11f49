// Bad input: every mistake throws an Error whose message names the problem, and the module keeps
// working afterwards. Then leaks: Embind handles and the WebAssembly heap stay constant.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { assertWorkedExample, forEachBuild, makeRng } from './helpers.mjs';

const F = (n, fill = 0.5) => new Float32Array(n).fill(fill);

/** A valid attention() call: 5 queries and 5 keys of dim 4 (20 elements each). */
const good = () => ({ query: F(20), key: F(20), value: F(20), queryLength: 5, keyLength: 5, dim: 4 });
const without = (name) => {
  const options = good();
  delete options[name];
  return options;
};
const withNaN = () => {
  const query = F(20);
  query[6] = NaN;
  return { ...good(), query };
};
const withInfinity = () => {
  const key = F(20);
  key[13] = Infinity;
  return { ...good(), key };
};

// [description, call, message pattern]
const BAD_CALLS = [
  ['missing queryLength', (a) => a.attention(without('queryLength')), /queryLength is required/],
  ['missing query', (a) => a.attention(without('query')), /query is required/],
  ['missing value', (a) => a.attention(without('value')), /value is required/],
  ['query of the wrong length', (a) => a.attention({ ...good(), query: F(19) }), /query has 19 elements, expected 20/],
  ['value of the wrong length', (a) => a.attention({ ...good(), valueDim: 3 }), /value has 20 elements, expected 15/],
  ['unknown score', (a) => a.attention({ ...good(), score: 'cosine' }), /unknown score 'cosine'/],
  ['unknown probability', (a) => a.attention({ ...good(), probability: 'softermax' }), /unknown probability 'softermax'/],
  ['unknown hard attention', (a) => a.attention({ ...good(), hard: 'gumbel' }), /unknown hard attention 'gumbel'/],
  ['unknown local attention', (a) => a.attention({ ...good(), local: { mode: 'global', halfWidth: 2 } }), /unknown local attention 'global'/],
  ['negative queryLength', (a) => a.attention({ ...good(), queryLength: -5 }), /queryLength must be at least 1, got -5/],
  ['zero dim', (a) => a.attention({ ...good(), dim: 0 }), /dim must be at least 1/],
  ['negative heads', (a) => a.attention({ ...good(), heads: -1 }), /heads must be at least 1/],
  ['non-integer dim', (a) => a.attention({ ...good(), dim: 2.5 }), /dim must be an integer, got 2.5/],
  ['size given as a string', (a) => a.attention({ ...good(), keyLength: '5' }), /keyLength must be a number, got string/],
  ['plain array for query', (a) => a.attention({ ...good(), query: Array.from(F(20)) }), /query must be a Float32Array, got a plain Array/],
  ['Float64Array for key', (a) => a.attention({ ...good(), key: new Float64Array(20) }), /key must be a Float32Array, got Float64Array/],
  ['Float32Array for validLength', (a) => a.attention({ ...good(), validLength: new Float32Array([2]) }), /validLength must be an? Int32Array, got Float32Array/],
  ['plain array for validLength', (a) => a.attention({ ...good(), validLength: [2] }), /validLength must be an? Int32Array, got a plain Array/],
  ['validLength longer than the keys', (a) => a.attention({ ...good(), validLength: 6 }), /validLength\[0\] = 6 is outside 0\.\.5/],
  ['validLength with the wrong count', (a) => a.attention({ ...good(), validLength: new Int32Array([1, 2]) }), /validLength must have one entry per head/],
  ['mask of the wrong size', (a) => a.attention({ ...good(), mask: new Uint8Array(24) }), /mask has 24 elements/],
  ['mask that is not a Uint8Array', (a) => a.attention({ ...good(), mask: new Int32Array(25) }), /mask must be a Uint8Array, got Int32Array/],
  ['NaN in the query', (a) => a.attention(withNaN()), /query contains NaN at index 6/],
  ['Infinity in the key', (a) => a.attention(withInfinity()), /key contains an infinite value at index 13/],
  ['NaN maskValue', (a) => a.attention({ ...good(), maskValue: NaN }), /maskValue/],
  ['unknown option (typo)', (a) => a.attention({ ...good(), querylength: 5 }), /unknown option 'querylength'/],
  ['unknown option in general', (a) => a.attention({ ...good(), score: 'general', general: { weight: F(16), scael: 2 } }), /unknown option 'scael'/],
  ['keyDim != dim for the dot score', (a) => a.attention({ ...good(), keyDim: 2, key: F(10), score: 'dot' }), /keyDim \(2\) must equal dim \(4\)/],
  ['general score without its weight', (a) => a.attention({ ...good(), score: 'general' }), /general/],
  ['additive weight of the wrong size', (a) => a.attention({ ...good(), score: 'additive', additive: { hidden: 3, queryWeight: F(12), keyWeight: F(11), v: F(3) } }), /keyWeight has 11 elements, expected 12/],
  ['additive normalize with v = 0', (a) => a.attention({ ...good(), score: 'additive', additive: { hidden: 3, queryWeight: F(12), keyWeight: F(12), v: F(3, 0), normalize: true } }), /v must not be all zeros/],
  ['local halfWidth below 0 (named as the JS option, not local.half_width)', (a) => a.attention({ ...good(), local: { mode: 'monotonic', halfWidth: -1 } }), /^local\.halfWidth must be at least 0, got -1$/],
  ['NaN in the additive queryWeight (named as the JS option)', (a) => a.attention({ ...good(), score: 'additive', additive: { hidden: 3, queryWeight: new Float32Array(12).fill(NaN), keyWeight: F(12), v: F(3) } }), /^additive\.queryWeight contains NaN at index 0$/],
  ['local-p without its weights', (a) => a.attention({ ...good(), local: { mode: 'predictive', halfWidth: 2 } }), /hidden is required/],
  ['dropout of 1', (a) => a.attention({ ...good(), dropout: 1 }), /dropout must be in \[0, 1\)/],
  ['negative dropout', (a) => a.attention({ ...good(), dropout: -0.1 }), /dropout must be in \[0, 1\)/],
  ['dropout with hard attention', (a) => a.attention({ ...good(), dropout: 0.5, hard: 'sample' }), /dropout applies to soft attention/],
  ['temperature 0', (a) => a.attention({ ...good(), temperature: 0 }), /temperature must be a positive finite number/],
  ['negative temperature in softmax()', (a) => a.softmax(F(3), { temperature: -1 }), /temperature must be a positive finite number/],
  ['boolean as returnWeights', (a) => a.attention({ ...good(), returnWeights: 'yes' }), /returnWeights must be true or false/],
  ['huge lengths (1e6 x 1e6) with mismatched arrays (the sizes are checked first)', (a) => a.attention({ ...good(), queryLength: 1e6, keyLength: 1e6 }), /weights is too large/],
  ['huge heads x length', (a) => a.attention({ ...good(), heads: 1e5, queryLength: 1e5 }), /query is too large/],
  ['length over the limit', (a) => a.attention({ ...good(), queryLength: 1e9 }), /queryLength is too large/],
  ['options not an object (number)', (a) => a.attention(42), /attention\(\) expects an options object/],
  ['options not an object (null)', (a) => a.attention(null), /attention\(\) expects an options object/],
  ['options missing', (a) => a.attention(), /attention\(\) expects an options object/],
  ['options an array', (a) => a.attention([good()]), /attention\(\) expects an options object/],
  ['local not an object', (a) => a.attention({ ...good(), local: 'monotonic' }), /local\(\) expects an options object/],
  ['softmax() of a plain array', (a) => a.softmax([1, 2, 3]), /scores must be a Float32Array, got a plain Array/],
  ['softmax() of nothing', (a) => a.softmax(new Float32Array(0)), /at least one score/],
  ['sparsemax() with NaN', (a) => a.sparsemax(new Float32Array([1, NaN])), /scores contains NaN at index 1/],
  ['softmax() with an unknown option', (a) => a.softmax(F(3), { temprature: 2 }), /unknown option 'temprature'/],
  ['maskedSoftmax() without cols', (a) => a.maskedSoftmax({ scores: F(4) }), /cols is required/],
  ['maskedSoftmax() of the wrong length', (a) => a.maskedSoftmax({ scores: F(7), batch: 2, cols: 4 }), /scores has 7 elements, expected 8/],
  ['maskedSoftmax() with an unknown probability', (a) => a.maskedSoftmax({ scores: F(4), cols: 4, probability: 'argmax' }), /unknown probability 'argmax'/],
  ['dropout() without options', (a) => a.dropout(F(3)), /dropout\(\) expects an options object/],
  ['dropout() without rate', (a) => a.dropout(F(3), { seed: 1 }), /rate is required/],
  ['dropout() rate 1', (a) => a.dropout(F(3), { rate: 1 }), /dropout must be in \[0, 1\)/],
  ['dropout() seed out of range', (a) => a.dropout(F(3), { rate: 0.5, seed: 2 ** 40 }), /seed is out of range/],
  ['multiHeadAttention() modelDim not divisible by heads', (a) => a.multiHeadAttention({ queryInput: F(5), queryLength: 1, modelDim: 5, heads: 2, queryWeight: F(1), keyWeight: F(1), valueWeight: F(1), outputWeight: F(1) }), /modelDim \(5\) is not divisible by heads \(2\)/],
  ['multiHeadAttention() weight of the wrong size', (a) => a.multiHeadAttention({ queryInput: F(4), queryLength: 1, modelDim: 4, heads: 2, queryWeight: F(15), keyWeight: F(16), valueWeight: F(16), outputWeight: F(16) }), /queryWeight has 15 elements, expected \[4\]\[4\]/],
  ['multiHeadAttention() with NaN in queryInput', (a) => a.multiHeadAttention({ queryInput: new Float32Array(4).fill(NaN), queryLength: 1, modelDim: 4, heads: 2, queryWeight: F(16), keyWeight: F(16), valueWeight: F(16), outputWeight: F(16) }), /^queryInput contains NaN at index 0$/],
  ['multiHeadAttention() with a general score', (a) => a.multiHeadAttention({ queryInput: F(4), queryLength: 1, modelDim: 4, heads: 2, queryWeight: F(16), keyWeight: F(16), valueWeight: F(16), outputWeight: F(16), score: 'general' }), /score must be dot or scaled_dot/],
  ['multiHeadAttention() cross without keyLength', (a) => a.multiHeadAttention({ queryInput: F(4), keyValueInput: F(8), queryLength: 1, modelDim: 4, heads: 2, queryWeight: F(16), keyWeight: F(16), valueWeight: F(16), outputWeight: F(16) }), /keyLength is required/],
  ['attentionPool() validLength past the end', (a) => a.attentionPool({ inputs: F(6), length: 3, dim: 2, hidden: 2, weight: F(4), context: F(2), validLength: 4 }), /validLength \(4\) exceeds the length \(3\)/],
  ['attentionPool() with Infinity', (a) => a.attentionPool({ inputs: F(6), length: 3, dim: 2, hidden: 2, weight: F(4), context: new Float32Array([1, -Infinity]) }), /context contains an infinite value at index 1/],
  ['attentionOverAttention() query of the wrong length', (a) => a.attentionOverAttention({ document: F(6), query: F(5), documentLength: 3, queryLength: 3, dim: 2 }), /query has 5 elements, expected 6/],
];

/** Throws-assertion: an Error (not a string or an Embind exception pointer) whose message matches. */
function assertBadCall(attn, [description, call, pattern]) {
  assert.throws(() => call(attn), (error) => {
    assert.ok(error instanceof Error, `${description}: threw ${typeof error} ${String(error)}, not an Error`);
    assert.match(error.message, pattern, `${description}: message "${error.message}"`);
    return true;
  }, description);
}

forEachBuild('bad input', (attn) => {
  for (const bad of BAD_CALLS) {
    it(`${bad[0]} throws a clear Error, and the module still works`, () => {
      assertBadCall(attn, bad);
      assertWorkedExample(attn);
    });
  }

  it('huge sizes with matching arrays (queryLength 1e6 x keyLength 1e6) say "too large" without crashing', () => {
    const big = new Float32Array(1e6);
    // without weights the scratch stays small, but the score matrix is still checked
    assertBadCall(attn, ['1e6 x 1e6, no weights', (a) => a.attention({ query: big, key: big, value: big, queryLength: 1e6, keyLength: 1e6, dim: 1, returnWeights: false }), /too large/]);
    assertWorkedExample(attn);
  });

  it('huge sizes with matching arrays and the default returnWeights say "too large"', () => {
    const big = new Float32Array(1e6);
    assertBadCall(attn, ['1e6 x 1e6', (a) => a.attention({ query: big, key: big, value: big, queryLength: 1e6, keyLength: 1e6, dim: 1 }), /too large/]);
    assertWorkedExample(attn);
  });

  it('multiHeadAttention() with an overflowing projection size says "too large"', () => {
    const n = 100000;
    const F0 = (size) => new Float32Array(size);
    assertBadCall(attn, ['mha 1e5 x 1e5', (a) => a.multiHeadAttention({ queryInput: F0(n), queryLength: n, modelDim: 1, heads: 1, keyDim: n, queryWeight: F0(n), keyWeight: F0(n), valueWeight: F0(n), outputWeight: F0(n) }), /too large/]);
    assertWorkedExample(attn);
  });
});

forEachBuild('no leaks', (attn) => {
  it('liveHandles() is unchanged by 200 mixed successful and failing calls', () => {
    const rng = makeRng(12);
    const x = rng.floats(6 * 8);
    const successes = [
      (a) => a.attention({ query: x, key: x, value: x, queryLength: 6, keyLength: 6, dim: 8, validLength: new Int32Array([3]), causal: true, returnScores: true }),
      (a) => a.attention({ query: x, key: x, value: x, queryLength: 6, keyLength: 6, dim: 8, hard: 'argmax', local: { mode: 'monotonic', halfWidth: 1 } }),
      (a) => a.maskedSoftmax({ scores: x, batch: 2, rows: 3, cols: 8, mask: new Uint8Array(24).fill(1) }),
      (a) => a.softmax(x, { temperature: 2 }),
      (a) => a.sparsemax(x),
      (a) => a.hardmax(x),
      (a) => a.dropout(x, { rate: 0.5, seed: 1 }),
      (a) => a.multiHeadAttention({ queryInput: x, queryLength: 6, modelDim: 8, heads: 2, queryWeight: F(64), keyWeight: F(64), valueWeight: F(64), outputWeight: F(64) }),
      (a) => a.attentionPool({ inputs: x, length: 6, dim: 8, hidden: 2, weight: F(16), context: F(2) }),
      (a) => a.attentionOverAttention({ document: x, query: x, documentLength: 6, queryLength: 6, dim: 8 }),
    ];
    const before = attn.liveHandles();
    let failures = 0;
    for (let i = 0; i < 200; ++i) {
      if (i % 2 === 0) {
        successes[(i / 2) % successes.length](attn);
      } else {
        const [, call] = BAD_CALLS[((i - 1) / 2) % BAD_CALLS.length];
        try {
          call(attn);
        } catch {
          ++failures;
        }
      }
    }
    assert.equal(failures, 100);
    assert.equal(attn.liveHandles(), before);
    assertWorkedExample(attn);
  });

  it('heapBytes() stays constant across 200 identical calls after a warm-up', () => {
    const rng = makeRng(13);
    // ~160 kB of copies and results per call: 200 leaked calls would need 32 MB and grow the memory
    const heads = 2, length = 64, dim = 64;
    const options = { query: rng.floats(heads * length * dim), key: rng.floats(heads * length * dim), value: rng.floats(heads * length * dim), heads, queryLength: length, keyLength: length, dim, causal: true };
    attn.attention(options);
    const heap = attn.heapBytes();
    assert.ok(heap > 0 && heap % 65536 === 0, `heapBytes() = ${heap} is a whole number of wasm pages`);
    for (let i = 0; i < 200; ++i) attn.attention(options);
    assert.equal(attn.heapBytes(), heap, 'after 200 successful calls');
    // failing calls with the same inputs free what they copied
    const nan = { ...options, key: options.key.slice() };
    nan.key[nan.key.length - 1] = NaN;
    for (let i = 0; i < 200; ++i) assert.throws(() => attn.attention(nan), /key contains NaN/);
    assert.equal(attn.heapBytes(), heap, 'after 200 failing calls');
  });

  it('heapBytes() may grow once for a big input, then stays constant across repeats', () => {
    // [2100][2100] weights are 17.6 MB, more than the 16 MiB initial memory
    const length = 2100;
    const x = Float32Array.from({ length }, (_, i) => Math.sin(i));
    const options = { query: x, key: x, value: x, queryLength: length, keyLength: length, dim: 1 };
    const first = attn.attention(options);
    const heap = attn.heapBytes();
    assert.ok(heap > 16 * 1024 * 1024, `heapBytes() = ${heap} after a 17.6 MB result`);
    for (let i = 0; i < 20; ++i) attn.attention(options);
    assert.equal(attn.heapBytes(), heap);
    assert.equal(first.weights.length, length * length);
    // results are copies with their own buffer, not views into the wasm memory
    assert.equal(first.weights.buffer.byteLength, first.weights.byteLength);
  });
});
