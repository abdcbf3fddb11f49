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

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const at = args.indexOf(`--${name}`);
  return at >= 0 ? args[at + 1] : fallback;
};
const wasmPath = option('wasm', new URL('../../build/wasm-simd/bin/simd_peak.wasm', import.meta.url).pathname);
const reps = Number(option('reps', 7));
const sweep = args.includes('--sweep');

const { instance } = await WebAssembly.instantiate(readFileSync(wasmPath), {});
const loops = Object.keys(instance.exports)
  .filter((name) => /^(chains|pairs|split)_\d+$/.test(name))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const REGISTER_ONLY = { chains: 13, pairs: 7, split: 6 };  // the most that stay in registers
const inRegisters = (loop) => Number(loop.split('_')[1]) <= REGISTER_ONLY[loop.split('_')[0]];

// x stays near 1 (and the pairs' sums grow by about 1 a step): no overflow, no denormals
const scale = 0.9999999, offset = 1e-7;
const FLOPS_PER_ITERATION_AND_CHAIN = 4 * 2 * 4;  // 4 steps, a multiply and an add, 4 lanes

function measure(name) {
  const run = instance.exports[name];
  const chains = Number(name.split('_')[1]);
  let sink = 0;
  // V8 tiers the function up in the background a few tens of milliseconds after its first calls
  for (const start = performance.now(); performance.now() - start < 300;) sink += run(10000, scale, offset);
  let iterations = 10000, ms = 0;  // about 20 ms a call
  while (ms < 20) {
    iterations *= 2;
    const start = performance.now();
    sink += run(iterations, scale, offset);
    ms = performance.now() - start;
  }
  const gflops = [];
  for (let r = 0; r < reps; r++) {
    const start = performance.now();
    sink += run(iterations, scale, offset);
    const seconds = (performance.now() - start) / 1e3;
    gflops.push((FLOPS_PER_ITERATION_AND_CHAIN * chains * iterations) / seconds / 1e9);
  }
  if (!Number.isFinite(sink)) throw new Error(`bench_peak: ${name} overflowed`);
  return median(gflops);
}

let best = { loop: '', gflops: 0 };
for (const loop of loops) {
  const gflops = measure(loop);
  const registers = inRegisters(loop);
  if (sweep) console.log(JSON.stringify({ impl: 'simd128-loop-wasm', loop, registers, gflops: +gflops.toFixed(2), threads: 1 }));
  if (registers && gflops > best.gflops) best = { loop, gflops };
}
console.log(JSON.stringify({ impl: 'simd128-peak-wasm', gflops: +best.gflops.toFixed(2), threads: 1, loop: best.loop }));
