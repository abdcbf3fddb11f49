// The in-page half of tools/bench/browser.mjs, served from its site folder (dist/: web/dist;
// ort/: onnxruntime-web's dist; work/: the model bench's work folder; sdpa.onnx): attnscope's
// relaxed-SIMD and SIMD128 builds and onnxruntime-web in the same page, one thread each, timed in
// interleaved rounds (every row once a round, in a rotating order, after a warm-up), on the whole
// model's forced decoding with every map (and with the log-probabilities) and on the attention
// kernels, after the page's SIMD128 peak (peak.wasm: tools/bench/peak/simd_peak.cpp). Returns one
// record per row: its median and every round's time, for the paired ratios; and the peak.
import loadAttn from './dist/attn.mjs';
import * as ort from './ort/ort.wasm.min.mjs';
import { bestPeak } from './peak_loops.mjs';

const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };

// Each sample runs a row `repeat` times, enough for about 2 ms (a browser's clock is coarse: 5 µs
// where the page is cross-origin isolated), the same count for every row of the group.
async function timeRows(rows, rounds, warmupMs) {
  let fastest = Infinity;
  for (const row of rows) {
    const until = performance.now() + warmupMs;
    let calls = 0;
    const t0 = performance.now();
    do { await row.run(); calls++; } while (performance.now() < until);
    fastest = Math.min(fastest, (performance.now() - t0) / calls);
  }
  const repeat = Math.max(1, Math.ceil(2 / fastest));
  for (const row of rows) row.times = [];
  for (let i = 0; i < rounds; i++) {
    for (let j = 0; j < rows.length; j++) {
      const row = rows[(i + j) % rows.length];
      const t0 = performance.now();
      for (let r = 0; r < repeat; r++) await row.run();
      row.times.push((performance.now() - t0) / repeat);
    }
  }
  return rows.map(({ name, times }) => ({ name, ms: median(times), times }));
}

async function bytesOf(path) {
  const response = await fetch(path);
  if (!response.ok) throw new Error(`${path}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

function random(n, seed) {
  const a = new Float32Array(n);
  let x = seed >>> 0;
  for (let i = 0; i < n; i++) { x = (Math.imul(x, 1664525) + 1013904223) >>> 0; a[i] = x / 4294967296 - 0.5; }
  return a;
}

// The SIMD128 peak of this browser on this machine (simd_peak.wasm, registers only), first, while
// nothing else has run: the ceiling the rows' GFLOP/s read against.
async function peak() {
  const { instance } = await WebAssembly.instantiate(await bytesOf('./peak.wasm'), {});
  return bestPeak(instance.exports, { reps: 5 });
}

export async function run({ rounds, warmupMs, shapes, threads2 }) {
  const ceiling = await peak();
  const builds = {
    relaxed: await loadAttn({ simd: 'relaxed', threads: 1 }),
    simd: await loadAttn({ simd: true, threads: 1 }),
  };
  if (builds.relaxed.build !== 'relaxed' || builds.simd.build !== 'simd') throw new Error('the builds asked for did not load');
  if (threads2) {
    builds['relaxed-2t'] = await loadAttn({ simd: 'relaxed', threads: 2 });
    if (builds['relaxed-2t'].threads !== 2) throw new Error(`relaxed with 2 threads: got ${builds['relaxed-2t'].threads}`);
  }
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  ort.env.wasm.wasmPaths = new URL('./ort/', import.meta.url).href;
  const session = async (file) => ort.InferenceSession.create(await bytesOf(file), {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
  const sessions = { full: await session('./work/forced_full.onnx'), mapsX: await session('./work/forced_maps_x.onnx') };
  const weights = await bytesOf('./work/bench.safetensors');
  const models = {};
  for (const [name, attn] of Object.entries(builds)) models[name] = await attn.loadModel(weights);
  const pairs = await (await fetch('./work/pairs_ids.json')).json();
  const results = [];
  let sink = 0;
  for (const p of pairs) {
    const src = BigInt64Array.from(p.source, BigInt), dec = BigInt64Array.from(p.decoderInput, BigInt);
    const ortRun = (s) => async () => {
      const out = await s.run({ source: new ort.Tensor('int64', src, [1, p.S]), decoder_input: new ort.Tensor('int64', dec, [1, p.T]) });
      sink += out.cross.data[0];
    };
    for (const logProbs of [false, true]) {
      const rows = Object.entries(models).map(([name, model]) => ({
        name: `attn-${name}`,
        run: async () => { sink += model.attentions(p.sourceWords, p.targetWords, { pieces: true, logProbs }).cross.data[0]; },
      }));
      rows.push({ name: logProbs ? 'ort-web full' : 'ort-web maps+x', run: ortRun(logProbs ? sessions.full : sessions.mapsX) });
      results.push({ group: `${logProbs ? 'maps+logprobs' : 'maps'} ${p.name}`, rows: await timeRows(rows, rounds, warmupMs) });
    }
  }
  const sdpa = await session('./sdpa.onnx');
  for (const shape of shapes) {
    const [B, H, L, S, D] = shape;
    const q = random(B * H * L * D, 1), k = random(B * H * S * D, 2), v = random(B * H * S * D, 3);
    const call = { query: q, key: k, value: v, heads: B * H, queryLength: L, keyLength: S, dim: D, score: 'scaled_dot', returnWeights: false };
    const rows = ['relaxed', 'simd'].map((name) => ({
      name: `attn-${name}`, run: async () => { sink += builds[name].attention(call).output[0]; },
    }));
    rows.push({ name: 'ort-web sdpa', run: async () => {
      const out = await sdpa.run({
        q: new ort.Tensor('float32', q, [B, H, L, D]), k: new ort.Tensor('float32', k, [B, H, S, D]), v: new ort.Tensor('float32', v, [B, H, S, D]),
      });
      sink += out.o.data[0];
    } });
    results.push({ group: `attention ${shape.join('x')}`, rows: await timeRows(rows, rounds, warmupMs) });
  }
  for (const attn of Object.values(builds)) attn.dispose();
  return { userAgent: navigator.userAgent, results, peak: ceiling, sink: Number.isNaN(sink) ? 'NaN' : 'ok' };
}
