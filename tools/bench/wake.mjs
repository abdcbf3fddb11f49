// What waking a sleeping thread costs the threads build, on this machine:
//
//   node tools/bench/wake.mjs [--rounds 300] [--shapes 1x8x128x128x64,1x1x512x512x64]
//
// 1. A plain Node Worker asleep in Atomics.wait, woken by Atomics.notify from the main thread:
//    the time until it runs (median and 90th percentile), and what the notify costs the waker.
// 2. The module on 2 threads against the SIMD build on 1, in the same rounds: a 2-thread call that
//    finds the pool's Worker asleep (the pool's threads watch for 0.2 ms after a call, then sleep;
//    in the peers harness every call of ours finds it so, the other implementations ran in between)
//    and one that finds it awake (right after another call). Medians and ratios, one JSON line each.
//
// A benchmark that prints figures, never a test: machines here are shared and noisy.
import { Worker } from 'node:worker_threads';
import loadAttn from '../../web/dist/attn.mjs';

const args = Object.fromEntries(process.argv.slice(2).map((a, i, all) => (a.startsWith('--') ? [a.slice(2), all[i + 1]] : null)).filter(Boolean));
const rounds = Number(args.rounds ?? 300);
const shapes = (args.shapes ?? '1x8x128x128x64,1x1x512x512x64').split(',').map((s) => s.split('x').map(Number));
const IDLE_MS = 2;  // longer than the pool's watch: its thread is asleep after this

const busyWait = (ms) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
};
const percentile = (values, p) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const us = (ms) => +(ms * 1000).toFixed(1);

async function workerWake() {
  const shared = new SharedArrayBuffer(64);
  const flag = new Int32Array(shared), woke = new Float64Array(shared, 32, 1);
  const worker = new Worker(`
    const { workerData } = require('node:worker_threads');
    const flag = new Int32Array(workerData), woke = new Float64Array(workerData, 32, 1);
    for (;;) {
      const seen = Atomics.load(flag, 0);
      Atomics.wait(flag, 0, seen);
      woke[0] = performance.timeOrigin + performance.now();
      Atomics.add(flag, 1, 1);
    }`, { eval: true, workerData: shared });
  await new Promise((resolve) => setTimeout(resolve, 100));
  const latency = [], notify = [];
  for (let i = 0; i < rounds; i++) {
    busyWait(IDLE_MS);
    const answered = Atomics.load(flag, 1);
    const start = performance.timeOrigin + performance.now();
    Atomics.add(flag, 0, 1);
    Atomics.notify(flag, 0);
    notify.push(performance.timeOrigin + performance.now() - start);
    while (Atomics.load(flag, 1) === answered);
    latency.push(woke[0] - start);
  }
  await worker.terminate();
  console.log(JSON.stringify({
    run: 'wake', impl: 'node-worker', idleMs: IDLE_MS,
    wakeUs: us(percentile(latency, 0.5)), wakeP90Us: us(percentile(latency, 0.9)),
    notifyUs: us(percentile(notify, 0.5)), notifyP90Us: us(percentile(notify, 0.9)),
  }));
}

async function moduleWake() {
  const one = await loadAttn({ simd: true, threads: 1 });
  const two = await loadAttn({ simd: true, threads: 2 });
  for (const [B, H, L, S, D] of shapes) {
    const values = (n, seed) => Float32Array.from({ length: n }, (_, i) => Math.sin(seed + i * 0.37));
    const call = {
      query: values(B * H * L * D, 1), key: values(B * H * S * D, 2), value: values(B * H * S * D, 3),
      heads: B * H, queryLength: L, keyLength: S, dim: D, score: 'scaled_dot', returnWeights: false,
    };
    const timed = (attn) => {
      const start = performance.now();
      attn.attention(call);
      return performance.now() - start;
    };
    const until = performance.now() + 500;  // V8's optimizing compiler, and the pool's first wake
    while (performance.now() < until) { one.attention(call); two.attention(call); }
    const times = { one: [], asleep: [], awake: [] };
    for (let i = 0; i < rounds; i++) {
      busyWait(IDLE_MS);
      times.one.push(timed(one));
      busyWait(IDLE_MS);
      times.asleep.push(timed(two));
      times.awake.push(timed(two));  // the call before woke the Worker, which watches for the next
    }
    const median = (x) => percentile(x, 0.5);
    console.log(JSON.stringify({
      run: 'wake', impl: 'attn-wasm-simd', shape: [B, H, L, S, D].join('x'), threads: 2,
      oneThreadMs: +median(times.one).toFixed(4), asleepMs: +median(times.asleep).toFixed(4), awakeMs: +median(times.awake).toFixed(4),
      speedupAsleep: +(median(times.one) / median(times.asleep)).toFixed(2), speedupAwake: +(median(times.one) / median(times.awake)).toFixed(2),
    }));
  }
  one.dispose();
  two.dispose();
}

await workerWake();
await moduleWake();
