// The loader's fast path for plain attention() calls (typed arrays copied into the heap, a C entry
// point instead of Embind): the same results as the float64 reference and as the Embind path, the
// same errors, every option that is not plain going through Embind, and no heap growth.
import assert from 'node:assert/strict';
import { it } from 'node:test';

import { assertClose, forEachBuild, makeRng, referenceAttention } from './helpers.mjs';

const randomArray = (rng, n, scale = 1) => rng.floats(n, scale);

function randomCall(rng) {
  const heads = rng.int(1, 4), queryLength = rng.int(1, 70), keyLength = rng.int(1, 300);
  const dim = rng.int(1, 40), valueDim = rng.int(1, 40);
  const call = {
    query: randomArray(rng, heads * queryLength * dim),
    key: randomArray(rng, heads * keyLength * dim),
    value: randomArray(rng, heads * keyLength * valueDim),
    heads, queryLength, keyLength, dim, valueDim,
    score: rng.pick(['dot', 'scaled_dot']),
    returnWeights: rng.chance(0.5),
  };
  if (rng.chance(0.4)) call.causal = true;
  if (rng.chance(0.3)) call.temperature = 0.25 + rng.next();
  return call;
}

forEachBuild('plain attention() calls', (attn) => {
  it('match the float64 reference and the Embind path, with and without weights', () => {
    const rng = makeRng(11);
    for (let trial = 0; trial < 30; trial++) {
      const call = randomCall(rng);
      const fast = attn.attention(call);
      // an own property the fast path does not know sends the same call through Embind
      const embind = attn.attention({ ...call, validLength: undefined });
      const reference = referenceAttention(call);
      const label = `trial ${trial}: ${JSON.stringify({ ...call, query: undefined, key: undefined, value: undefined })}`;
      assertClose(fast.output, reference.output, 1e-5, `${label} output`);
      assertClose(fast.output, embind.output, 1e-5, `${label} output vs Embind`);
      assert.equal(fast.weights === undefined, call.returnWeights === false, label);
      if (call.returnWeights) assertClose(fast.weights, reference.weights, 1e-5, `${label} weights`);
    }
  });

  it('return fresh arrays that later calls do not overwrite', () => {
    const rng = makeRng(3);
    const call = { ...randomCall(rng), returnWeights: true };
    const first = attn.attention(call);
    const copy = Float32Array.from(first.output);
    attn.attention({ ...call, query: randomArray(rng, call.query.length) });
    assert.deepEqual(first.output, copy);
    assert.ok(first.output.buffer !== first.weights.buffer || first.output.byteOffset !== first.weights.byteOffset);
  });

  it('give the Embind path\'s errors for bad values and impossible scores', () => {
    const base = () => ({ query: new Float32Array(8).fill(0.5), key: new Float32Array(8).fill(0.5), value: new Float32Array(8).fill(0.5), queryLength: 2, keyLength: 2, dim: 4 });
    const nan = base();
    nan.query[5] = NaN;
    assert.throws(() => attn.attention(nan), /query contains NaN at index 5/);
    const huge = base();
    huge.query = Float32Array.from([-1e19, 1e19, -1e19, 1e19, -5e18, 5e18, -5e18, 5e18]);
    huge.key = huge.query;
    assert.throws(() => attn.attention({ ...huge, score: 'dot', returnWeights: false }), /overflow float32/);
    assert.throws(() => attn.attention({ ...base(), queryLength: 3 }), /query/);
    assert.throws(() => attn.attention({ ...base(), temperature: 0 }), /temperature/);
    assert.throws(() => attn.attention({ ...base(), score: 'cosine' }), /unknown score 'cosine'/);
    assert.throws(() => attn.attention({ ...base(), query: Array.from(base().query) }), /query/);
    const ok = attn.attention(base());
    assert.equal(ok.output.length, 8);
  });

  it('keep the heap and the Embind handles constant over many calls, small and large', () => {
    const rng = makeRng(5);
    const small = { ...randomCall(rng), returnWeights: false };
    const large = {  // over the 4 MiB the fast path keeps allocated between calls
      query: randomArray(rng, 2048 * 64), key: randomArray(rng, 2048 * 64), value: randomArray(rng, 2048 * 64),
      queryLength: 2048, keyLength: 2048, dim: 64, returnWeights: false,
    };
    attn.attention(small);
    attn.attention(large);
    const heap = attn.heapBytes(), handles = attn.liveHandles();
    for (let i = 0; i < 300; i++) attn.attention(small);
    for (let i = 0; i < 3; i++) attn.attention(large);
    assert.equal(attn.heapBytes(), heap);
    assert.equal(attn.liveHandles(), handles);
  });
});

// The rule itself, through the raw module (web/dist/attn-simd.mjs, the loader's factory): the C
// side (web/bindings/plain_attention.cpp) takes the plain calls, defaults applied as Embind's path
// applies them, and leaves everything else to Embind (undefined), which the tests above cannot
// tell apart by the results alone.
// A Float32Array whose length says less than it holds.
class Short extends Float32Array {
  get length() { return super.length / 2; }
}

it('the plain path takes exactly the calls its C side accepts', async () => {
  const { readFile } = await import('node:fs/promises');
  const dist = new URL('../../web/dist/', import.meta.url);
  const { default: createModule } = await import(new URL('attn-simd.mjs', dist).href);
  const module = await createModule({ wasmBinary: await readFile(new URL('attn-simd.wasm', dist)), print() {}, printErr() {} });
  const rng = makeRng(5);
  const H = 2, L = 3, S = 5, D = 4;
  const base = () => ({ query: randomArray(rng, H * L * D), key: randomArray(rng, H * S * D),
    value: randomArray(rng, H * S * D), heads: H, queryLength: L, keyLength: S, dim: D });
  const takes = (call) => module.attnPlainAttention(call, false) !== undefined;
  const plain = [{}, { score: 'dot' }, { score: 'scaled_dot', causal: true }, { temperature: 0.5 },
    { returnWeights: false }, { returnScores: false }, { probability: 'softmax' }, { valueDim: 0 }, { keyDim: D },
    { valueDim: D, keyDim: 0 }, { causal: undefined }];
  for (const extra of plain) assert.ok(takes({ ...base(), ...extra }), `plain: ${JSON.stringify(extra)}`);
  const { heads, ...oneHead } = base();  // heads defaults to 1: the arrays are then too long
  assert.ok(!takes(oneHead), 'heads missing with two heads\' arrays');
  const notPlain = [{ score: 'general' }, { score: 'additive' }, { score: 'Dot' }, { causal: 1 }, { temperature: 0 },
    { temperature: NaN }, { temperature: Infinity }, { temperature: '1' }, { returnScores: true },
    { probability: 'sparsemax' }, { keyDim: D + 1 }, { heads: 2.5 }, { heads: 0 }, { dim: -4 }, { mask: [] },
    { validLength: [1] }, { dropout: 0 }, { query: Array.from(base().query) }, { key: new Float64Array(H * S * D) },
    { score: 'toString' }, { score: '__proto__' }, { score: 'constructor' }, { query: new Short(2 * H * L * D) },
    { value: randomArray(rng, H * S * D + 1) }, { queryLength: undefined }];
  for (const extra of notPlain) assert.ok(!takes({ ...base(), ...extra }), `not plain: ${String(Object.keys(extra))}`);
  // each option is read once: an array that a getter makes longer on a second read is not copied
  const call = base();
  let reads = 0;
  const tricky = { ...call };
  Object.defineProperty(tricky, 'query', {
    enumerable: true,
    get: () => (++reads === 1 ? call.query : randomArray(rng, 64 * call.query.length)),
  });
  const once = module.attnPlainAttention(tricky, false);
  assert.equal(reads, 1);
  assert.deepEqual(once.output, module.attnPlainAttention(call, false).output);
  assert.ok(!takes(Object.assign(Object.create({ inherited: 1 }), base())), 'not a plain object');
  assert.ok(!takes(null) && !takes([]), 'not an object');
  // the defaults as Embind's path applies them: scaled_dot, temperature 1, weights returned
  const fast = module.attnPlainAttention(call, false);
  const explicit = module.attnPlainAttention({ ...call, score: 'scaled_dot', temperature: 1, returnWeights: true }, false);
  assert.deepEqual(fast.output, explicit.output);
  assert.deepEqual(fast.weights, explicit.weights);
});
