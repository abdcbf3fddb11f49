// The WebAssembly builds where users run them: Debian's Chromium (playwright-core), one page that
// holds attnscope's relaxed-SIMD build (SIMD128 with fused multiply-adds), its SIMD128 build and
// onnxruntime-web 1.30 (wasm, SIMD, one thread), timed in interleaved rounds on
//   - the whole Transformer's forced decoding with every map (attentions(..., { pieces: true })
//     against ORT's maps+x graph, the like-for-like row) and with the log-probabilities (against
//     ORT's full graph), on the model bench's three pairs (10, 30 and 59 words);
//   - the attention kernels, softmax(QK^T/sqrt(d))V (attention() against ORT's sdpa.onnx).
// First the page's SIMD128 peak (tools/bench/peak/simd_peak.cpp's register-only loops, the ceiling
// of four-lane arithmetic on this machine), then one JSON line per row (median ms, GFLOP/s by
// flops.mjs, the ratio of medians against the relaxed build and the median and range of the
// per-round ratios), then the summary. A benchmark, not a test.
//   node tools/bench/browser.mjs [ROUNDS=20] [WARMUP_MS=1500] [--threads]
// --threads adds the relaxed build on two threads to the model rows. Needs web/dist (./run build)
// and the model bench's work folder, MODEL_BENCH_DIR (default build/model-bench: bench.safetensors,
// the ONNX graphs, pairs_ids.json and onnxruntime-web, which ../shared/bench/models/run writes).
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';
import { safetensorsHeader } from '../build/safetensors_header.mjs';
import { attentionFlops, forcedDecodingFlops } from './flops.mjs';

const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const [rounds = 20, warmupMs = 1500] = process.argv.slice(2).filter((a) => !a.startsWith('--')).map(Number);
const threads2 = flags.includes('--threads');
const root = resolve(new URL('../..', import.meta.url).pathname);
const work = resolve(process.env.MODEL_BENCH_DIR || 'build/model-bench');
const peers = resolve(process.env.SHARED_PEERS || `${root}/../shared/bench/peers`);
const ortDist = `${work}/node_modules/onnxruntime-web/dist`;
const needed = [`${root}/web/dist/attn-relaxed.wasm`, `${root}/web/dist/attn-simd.wasm`, `${work}/bench.safetensors`,
  `${work}/forced_full.onnx`, `${work}/forced_maps_x.onnx`, `${work}/pairs_ids.json`, `${ortDist}/ort.wasm.min.mjs`,
  `${peers}/sdpa.onnx`, `${root}/build/wasm-simd/bin/simd_peak.wasm`];
if (threads2) needed.push(`${root}/web/dist/attn-relaxed-threads.wasm`);
for (const file of needed) {
  if (!existsSync(file)) {
    console.error(`bench_browser: ${file} is missing (./run build; ../shared/bench/models/run prepares ${work})`);
    process.exit(1);
  }
}

// The site: links to what the page reads, nothing copied.
const site = `${root}/build/bench-browser`;
rmSync(site, { recursive: true, force: true });
mkdirSync(site, { recursive: true });
symlinkSync(`${root}/web/dist`, `${site}/dist`);
symlinkSync(ortDist, `${site}/ort`);
symlinkSync(work, `${site}/work`);
symlinkSync(`${peers}/sdpa.onnx`, `${site}/sdpa.onnx`);
symlinkSync(`${root}/tools/bench/browser_page.mjs`, `${site}/bench.mjs`);
symlinkSync(`${root}/tools/bench/peak_loops.mjs`, `${site}/peak_loops.mjs`);
symlinkSync(`${root}/build/wasm-simd/bin/simd_peak.wasm`, `${site}/peak.wasm`);
writeFileSync(`${site}/index.html`, '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>attnscope bench</title>\n');

const shapes = [[1, 8, 128, 128, 64], [1, 1, 512, 512, 64], [1, 4, 32, 32, 64], [1, 1, 16, 16, 64]];
// Each group's floating-point operations (flops.mjs): the bench model's architecture (its file's
// metadata) at each pair's piece counts, and each attention shape.
const arch = JSON.parse((await safetensorsHeader(`${work}/bench.safetensors`)).__metadata__.architecture);
const flopsOf = new Map(shapes.map((shape) => [`attention ${shape.join('x')}`, attentionFlops(shape)]));
for (const p of JSON.parse(readFileSync(`${work}/pairs_ids.json`, 'utf8'))) {
  flopsOf.set(`maps ${p.name}`, forcedDecodingFlops(arch, p.S, p.T));
  flopsOf.set(`maps+logprobs ${p.name}`, forcedDecodingFlops(arch, p.S, p.T, { logProbs: true }));
}
const gflops = (group, ms) => (flopsOf.has(group) ? +(flopsOf.get(group) / ms / 1e6).toFixed(2) : null);
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const server = await serve(site, 0);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
try {
  const page = await browser.newPage();
  page.on('console', (message) => { if (message.type() === 'error') console.error(`page: ${message.text()}`); });
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  const { userAgent, results, peak, sink } = await page.evaluate(
    async (config) => (await import('./bench.mjs')).run(config), { rounds, warmupMs, shapes, threads2 });
  console.log(JSON.stringify({ browser: userAgent, rounds, warmupMs, threads2, sink }));
  console.log(JSON.stringify({ impl: 'simd128-peak-chromium', gflops: +peak.gflops.toFixed(2), threads: 1, loop: peak.loop }));
  const summary = [];
  for (const { group, rows } of results) {
    const base = rows.find((row) => row.name === 'attn-relaxed');
    for (const row of rows) {
      const paired = row.times.map((t, i) => t / base.times[i]);
      console.log(JSON.stringify({
        group, impl: row.name, median_ms: +row.ms.toFixed(3), gflops: gflops(group, row.ms), vs: 'attn-relaxed', ratio: +(row.ms / base.ms).toFixed(3),
        paired_median: +median(paired).toFixed(3), paired_min: +Math.min(...paired).toFixed(3), paired_max: +Math.max(...paired).toFixed(3),
      }));
    }
    const of = (name) => rows.find((row) => row.name === name || row.name.startsWith(name))?.ms;
    summary.push([group, of('attn-relaxed'), of('attn-simd'), of('ort-web'), of('attn-relaxed-2t')]);
  }
  console.log(`\nSIMD128 peak in this page (registers only, ${peak.loop}): ${peak.gflops.toFixed(1)} GFLOP/s; share of it in brackets`);
  console.log('group                         relaxed ms   SIMD128 ms   ORT ms   SIMD128/relaxed   ORT/relaxed   ORT/SIMD128   1t/2t   relaxed GFLOP/s   ORT GFLOP/s');
  const kernelRatios = [];
  for (const [group, relaxed, simd, ortMs, twoThreads] of summary) {
    if (group.startsWith('attention')) kernelRatios.push([ortMs / relaxed, ortMs / simd]);
    console.log(`${group.padEnd(28)} ${relaxed.toFixed(2).padStart(11)} ${simd.toFixed(2).padStart(12)} ${ortMs.toFixed(2).padStart(8)}` +
      ` ${(simd / relaxed).toFixed(2).padStart(17)} ${(ortMs / relaxed).toFixed(2).padStart(13)} ${(ortMs / simd).toFixed(2).padStart(13)}` +
      `${(twoThreads ? (relaxed / twoThreads).toFixed(2) : '').padStart(8)}` +
      `${`${gflops(group, relaxed)} (${Math.round(100 * gflops(group, relaxed) / peak.gflops)}%)`.padStart(18)}` +
      `${`${gflops(group, ortMs)} (${Math.round(100 * gflops(group, ortMs) / peak.gflops)}%)`.padStart(14)}`);
  }
  const geomean = (values) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
  console.log(`attention kernels, ORT / attnscope geomean: relaxed ${geomean(kernelRatios.map((r) => r[0])).toFixed(2)}, ` +
    `SIMD128 ${geomean(kernelRatios.map((r) => r[1])).toFixed(2)}`);
} finally {
  await browser.close();
  server.close();
}
