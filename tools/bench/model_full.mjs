// The row ../shared/bench/models/ does not time yet: attnscope's forced decoding with every map AND
// the log-probabilities (model.attentions(..., { pieces: true, logProbs: true })) beside
// onnxruntime-web's "full" graph (maps + log_probs [1,T,V]) and, for reference, both maps-only
// rows, in one Node process, one thread each, interleaved rounds in a rotating order, after a
// warm-up; the same pairs, model and ONNX files, from the harness's work folder (run the harness
// once first: it builds them). Prints one JSON line per row, the ratio ORT / attnscope of the
// medians and the median, min and max of each round's paired ratio.
//   node tools/bench/model_full.mjs [ROUNDS=40] [WARMUP_MS=2000]
//   node tools/bench/model_full.mjs --threads [ROUNDS=40] [WARMUP_MS=2000]   instead: the SIMD module
//     on 1 thread and the threads build on 2, maps and maps + log-probs, interleaved; the 2-thread
//     speed-up as the median of each round's ratio and its range
//   (MODEL_BENCH_DIR: the harness's work folder, default build/model-bench; SHARED_BENCH: the
//   harness, default ../shared/bench/models)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const threadsMode = process.argv[2] === '--threads';
const args = process.argv.slice(threadsMode ? 3 : 2);
const rounds = Number(args[0] || 40);
const warmupMs = Number(args[1] || 2000);
const shared = resolve(process.env.SHARED_BENCH || '../shared/bench/models');
const { loadAttnscope, loadOrt, ortSession, pairs, median, MODEL } = await import(pathToFileURL(`${shared}/common.mjs`).href);

if (threadsMode) {
  const { readFileSync } = await import('node:fs');
  const { default: loadAttn } = await import(pathToFileURL(resolve('web/dist/attn.mjs')).href);
  const bytes = new Uint8Array(readFileSync(MODEL));
  const modules = [];
  for (const threads of [1, 2]) modules.push(await (await loadAttn({ simd: true, threads })).loadModel(bytes));
  for (const p of pairs()) {
    for (const logProbs of [false, true]) {
      const runs = modules.map((model, i) => ({ threads: i + 1, times: [], run: () => model.attentions(p.sourceWords, p.targetWords, { pieces: true, logProbs }) }));
      for (const r of runs) { const until = performance.now() + warmupMs; do r.run(); while (performance.now() < until); }
      for (let i = 0; i < rounds; i++) {
        for (let j = 0; j < runs.length; j++) {
          const r = runs[(i + j) % runs.length];
          const t0 = performance.now();
          r.run();
          r.times.push(performance.now() - t0);
        }
      }
      const ratios = runs[0].times.map((t, i) => t / runs[1].times[i]);
      const name = `${logProbs ? 'maps+logprobs' : 'maps'} ${p.name}`;
      console.log(JSON.stringify({ impl: 'attn-wasm-simd', case: name, threads: 1, ms: +median(runs[0].times).toFixed(3) }));
      console.log(JSON.stringify({
        impl: 'attn-wasm-simd', case: name, threads: 2, ms: +median(runs[1].times).toFixed(3),
        speedup_median: +median(ratios).toFixed(3), speedup_min: +Math.min(...ratios).toFixed(3), speedup_max: +Math.max(...ratios).toFixed(3),
      }));
    }
  }
  process.exit(0);
}

const { attn, model } = await loadAttnscope();
const ort = await loadOrt(1);
const sessions = { full: await ortSession(ort, 'forced_full.onnx'), mapsX: await ortSession(ort, 'forced_maps_x.onnx') };
let sink = 0;
console.log(JSON.stringify({ node: process.version, build: attn.simd ? 'simd128' : 'scalar', threads: attn.threads, rounds, warmupMs }));
for (const p of pairs()) {
  const src = BigInt64Array.from(p.source, BigInt), dec = BigInt64Array.from(p.decoderInput, BigInt);
  const ortRun = (session) => async () => {
    const out = await session.run({
      source: new ort.Tensor('int64', src, [1, p.S]), decoder_input: new ort.Tensor('int64', dec, [1, p.T]),
    });
    sink += out.cross.data[0];
  };
  const live = [
    { name: 'attnscope-wasm maps+logprobs', run: async () => {
      const m = model.attentions(p.sourceWords, p.targetWords, { pieces: true, logProbs: true });
      sink += m.cross.data[0] + m.logProbs[0];
    } },
    { name: 'ort-web full', run: ortRun(sessions.full) },
    { name: 'attnscope-wasm maps', run: async () => {
      sink += model.attentions(p.sourceWords, p.targetWords, { pieces: true }).cross.data[0];
    } },
    { name: 'ort-web maps+x', run: ortRun(sessions.mapsX) },
  ];
  for (const r of live) {
    const until = performance.now() + warmupMs;
    do await r.run(); while (performance.now() < until);
    r.times = [];
  }
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < live.length; j++) {
      const r = live[(i + j) % live.length];
      const t0 = performance.now();
      await r.run();
      r.times.push(performance.now() - t0);
    }
  }
  // each ORT row against the attnscope row doing the same work
  const against = { 'ort-web full': live[0], 'ort-web maps+x': live[2] };
  for (const r of live) {
    const base = against[r.name] || r;
    const paired = r.times.map((t, i) => t / base.times[i]);
    console.log(JSON.stringify({
      pair: p.name, S: p.S, T: p.T, impl: r.name, median_ms: +median(r.times).toFixed(3),
      min_ms: +Math.min(...r.times).toFixed(3), max_ms: +Math.max(...r.times).toFixed(3),
      vs: base.name, ratio: +(median(r.times) / median(base.times)).toFixed(3),
      paired_median: +median(paired).toFixed(3), paired_min: +Math.min(...paired).toFixed(3),
      paired_max: +Math.max(...paired).toFixed(3),
    }));
  }
}
if (Number.isNaN(sink)) console.log('NaN');
