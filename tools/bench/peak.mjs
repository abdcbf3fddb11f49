// The WebAssembly SIMD128 peak of this machine on one thread: register-only f32x4.mul and f32x4.add
// loops (tools/bench/peak/simd_peak.cpp, built by the wasm-simd build into build/wasm-simd/bin/), the
// ceiling against which attention's GFLOP/s read as a fraction. Every loop shape and chain count is
// warmed up first, so that V8's optimizing tier runs it, then timed over --reps calls (median);
// the best is the peak.
//   node tools/bench/peak.mjs [--wasm build/wasm-simd/bin/simd_peak.wasm] [--reps 7] [--sweep]
// Prints {"impl":"simd128-peak-wasm","gflops","threads":1,"loop"}; --sweep first prints one line
// per loop, where the figure climbs with the chain count (more of the latency covered) and levels
// off. The peak counts only loops whose chains V8 keeps in its 15 allocatable XMM registers (x64,
// Node 20): chains_N up to 13 (13 chains, scale and offset), pairs_N up to 7 (14 values and scale)
// and split_N up to 6. Checked with `node --print-wasm-code`: their loop bodies are the multiplies
// and adds, a counter and a branch; chains_14, chains_16, pairs_8 and split_7 load and store
// spilled chains each step (sweep lines say "registers": false) and come out within a few percent
// above the register-only plateau, the last of the latency covered.
import { readFileSync } from 'node:fs';
import { bestPeak } from './peak_loops.mjs';

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const wasmPath = option('wasm', new URL('../../build/wasm-simd/bin/simd_peak.wasm', import.meta.url).pathname);
const reps = Number(option('reps', 7));
const sweep = args.includes('--sweep');

const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const best = bestPeak(instance.exports, {
  reps,
  onLoop: (loop, registers, gflops) => {
    if (sweep) console.log(JSON.stringify({ impl: 'simd128-loop-wasm', loop, registers, gflops: +gflops.toFixed(2), threads: 1 }));
  },
});
console.log(JSON.stringify({ impl: 'simd128-peak-wasm', gflops: +best.gflops.toFixed(2), threads: 1, loop: best.loop }));
