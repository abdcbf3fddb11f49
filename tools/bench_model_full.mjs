// The row ../shared/bench/models/ does not time yet: attnscope's forced decoding with every map AND
// the log-probabilities (model.attentions(..., { pieces: true, logProbs: true })) beside
// onnxruntime-web's "full" graph (maps + log_probs [1,T,V]) and, for reference, both maps-only
// rows, in one Node process, one thread each, interleaved rounds in a rotating order, after a
// warm-up; the same pairs, model and ONNX files, from the harness's work folder (run the harness
// once first: it builds them). Prints one JSON line per row, the ratio ORT / attnscope of the
// medians and the median, min and max of each round's paired ratio.
//   node tools/bench_model_full.mjs [ROUNDS=40] [WARMUP_MS=2000]
//   (MODEL_BENCH_DIR: the harness's work folder, default build/model-bench; SHARED_BENCH: the
//   harness, default ../shared/bench/models)
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const rounds = Number(process.argv[2] || 40);
const warmupMs = Number(process.argv[3] || 2000);
const shared = resolve(process.env.SHARED_BENCH || '../shared/bench/models');
const { loadAttnscope, loadOrt, ortSession, pairs, median } = await import(pathToFileURL(`${shared}/common.mjs`).href);

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
