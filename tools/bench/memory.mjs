// WebAssembly memory for one 4096 x 4096 x 64 attention without weights: heapBytes() before and
// after (the heap grows only by what the call needs; the score matrix alone would be 64 MiB).
//   node tools/bench/memory.mjs
import loadAttn from '../../web/dist/attn.mjs';

const length = 4096, dim = 64;
for (const simd of [true, false]) {
  const attn = await loadAttn({ simd });
  const values = (seed) => Float32Array.from({ length: length * dim }, (_, i) => Math.sin(seed * 7919 + i) * 0.5);
  const query = values(1), key = values(2), value = values(3);
  const before = attn.heapBytes();
  const started = performance.now();
  attn.attention({ query, key, value, queryLength: length, keyLength: length, dim, returnWeights: false });
  const ms = performance.now() - started;
  const after = attn.heapBytes();
  console.log(JSON.stringify({
    impl: `attn-wasm-${simd ? 'simd' : 'scalar'}`, case: 'memory 1x1x4096x4096x64, no weights',
    heapBeforeMiB: before / 2 ** 20, heapAfterMiB: after / 2 ** 20, inputsMiB: (3 * length * dim * 4) / 2 ** 20,
    scoreMatrixMiB: (length * length * 4) / 2 ** 20, ms: +ms.toFixed(1),
  }));
}
