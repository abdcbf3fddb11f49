// The register-only peak loops of tools/bench/peak/simd_peak.cpp, timed the same way in Node
// (tools/bench/peak.mjs) and in a browser page (tools/bench/browser_page.mjs): every loop shape
// and chain count warmed up first, so that the engine's optimizing tier runs it, then timed over
// `reps` calls of about 20 ms (median); the peak is the best loop whose chains stay in registers.

export const REGISTER_ONLY = { chains: 13, pairs: 7, split: 6 };  // the most that V8 keeps in XMM registers (x64)
export const inRegisters = (loop) => Number(loop.split('_')[1]) <= REGISTER_ONLY[loop.split('_')[0]];
export const FLOPS_PER_ITERATION_AND_CHAIN = 4 * 2 * 4;  // 4 steps, a multiply and an add, 4 lanes

// x stays near 1 (and the pairs' sums grow by about 1 a step): no overflow, no denormals
const scale = 0.9999999, offset = 1e-7;
const middle = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

/** The loops a simd_peak module exports, in a fixed order (chains_1 ... split_7). */
export const peakLoops = (exports) => Object.keys(exports)
  .filter((name) => /^(chains|pairs|split)_\d+$/.test(name))
  .sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));

/** GFLOP/s of one loop (the median of `reps` timed calls), `now` a millisecond clock. */
export function measureLoop(exports, name, reps = 7, now = () => performance.now()) {
  const run = exports[name];
  const chains = Number(name.split('_')[1]);
  let sink = 0;
  // V8 tiers the function up in the background a few tens of milliseconds after its first calls
  for (const start = now(); now() - start < 300;) sink += run(10000, scale, offset);
  let iterations = 10000, ms = 0;  // about 20 ms a call
  while (ms < 20) {
    iterations *= 2;
    const start = now();
    sink += run(iterations, scale, offset);
    ms = now() - start;
  }
  const gflops = [];
  for (let r = 0; r < reps; r++) {
    const start = now();
    sink += run(iterations, scale, offset);
    gflops.push((FLOPS_PER_ITERATION_AND_CHAIN * chains * iterations) / ((now() - start) / 1e3) / 1e9);
  }
  if (!Number.isFinite(sink)) throw new Error(`peak: ${name} overflowed`);
  return middle(gflops);
}

/** {loop, gflops} of the best register-only loop; onLoop(name, registers, gflops) sees every loop. */
export function bestPeak(exports, { reps = 7, loops = peakLoops(exports), onLoop = () => {}, now } = {}) {
  let best = { loop: '', gflops: 0 };
  for (const loop of loops) {
    const gflops = measureLoop(exports, loop, reps, now);
    onLoop(loop, inRegisters(loop), gflops);
    if (inRegisters(loop) && gflops > best.gflops) best = { loop, gflops };
  }
  return best;
}
