// The WebAssembly builds where users run them: Debian's Chromium (playwright-core), one page that
// holds attnscope's relaxed-SIMD build (SIMD128 with fused multiply-adds), its SIMD128 build and
// onnxruntime-web 1.30 (wasm, SIMD, one thread), timed in interleaved rounds on
//   - the whole Transformer's forced decoding with every map (attentions(..., { pieces: true })
//     against ORT's maps+x graph, the like-for-like row) and with the log-probabilities (against
//     ORT's full graph), on the model bench's three pairs (10, 30 and 59 words);
//   - the attention kernels, softmax(QK^T/sqrt(d))V (attention() against ORT's sdpa.onnx).
// Prints one JSON line per row (median ms, the ratio of medians against the relaxed build and the
// median and range of the per-round ratios), then the summary. A benchmark, not a test.
//   node tools/bench/browser.mjs [ROUNDS=20] [WARMUP_MS=1500] [--threads]
// --threads adds the relaxed build on two threads to the model rows. Needs web/dist (./run build)
// and the model bench's work folder, MODEL_BENCH_DIR (default build/model-bench: bench.safetensors,
// the ONNX graphs, pairs_ids.json and onnxruntime-web, which ../shared/bench/models/run writes).
import { existsSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { serve } from '../serve.mjs';

const flags = process.argv.slice(2).filter((a) => a.startsWith('--'));
const [rounds = 20, warmupMs = 1500] = process.argv.slice(2).filter((a) => !a.startsWith('--')).map(Number);
const threads2 = flags.includes('--threads');
const root = resolve(new URL('../..', import.meta.url).pathname);
const work = resolve(process.env.MODEL_BENCH_DIR || 'build/model-bench');
const peers = resolve(process.env.SHARED_PEERS || `${root}/../shared/bench/peers`);
const ortDist = `${work}/node_modules/onnxruntime-web/dist`;
const needed = [`${root}/web/dist/attn-relaxed.wasm`, `${root}/web/dist/attn-simd.wasm`, `${work}/bench.safetensors`,
  `${work}/forced_full.onnx`, `${work}/forced_maps_x.onnx`, `${work}/pairs_ids.json`, `${ortDist}/ort.wasm.min.mjs`,
  `${peers}/sdpa.onnx`];
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
writeFileSync(`${site}/index.html`, '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>attnscope bench</title>\n');

const shapes = [[1, 8, 128, 128, 64], [1, 1, 512, 512, 64], [1, 4, 32, 32, 64], [1, 1, 16, 16, 64]];
const median = (a) => { const s = [...a].sort((x, y) => x - y); return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const server = await serve(site, 0);
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'] });
try {
  const page = await browser.newPage();
  page.on('console', (message) => { if (message.type() === 'error') console.error(`page: ${message.text()}`); });
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  const { userAgent, results, sink } = await page.evaluate(
    async (config) => (await import('./bench.mjs')).run(config), { rounds, warmupMs, shapes, threads2 });
  console.log(JSON.stringify({ browser: userAgent, rounds, warmupMs, threads2, sink }));
  const summary = [];
  for (const { group, rows } of results) {
    const base = rows.find((row) => row.name === 'attn-relaxed');
    for (const row of rows) {
      const paired = row.times.map((t, i) => t / base.times[i]);
      console.log(JSON.stringify({
        group, impl: row.name, median_ms: +row.ms.toFixed(3), vs: 'attn-relaxed', ratio: +(row.ms / base.ms).toFixed(3),
        paired_median: +median(paired).toFixed(3), paired_min: +Math.min(...paired).toFixed(3), paired_max: +Math.max(...paired).toFixed(3),
      }));
    }
    const of = (name) => rows.find((row) => row.name === name || row.name.startsWith(name))?.ms;
    summary.push([group, of('attn-relaxed'), of('attn-simd'), of('ort-web'), of('attn-relaxed-2t')]);
  }
  console.log('\ngroup                         relaxed ms   SIMD128 ms   ORT ms   SIMD128/relaxed   ORT/relaxed   ORT/SIMD128   1t/2t');
  const kernelRatios = [];
  for (const [group, relaxed, simd, ortMs, twoThreads] of summary) {
    if (group.startsWith('attention')) kernelRatios.push([ortMs / relaxed, ortMs / simd]);
    console.log(`${group.padEnd(28)} ${relaxed.toFixed(2).padStart(11)} ${simd.toFixed(2).padStart(12)} ${ortMs.toFixed(2).padStart(8)}` +
      ` ${(simd / relaxed).toFixed(2).padStart(17)} ${(ortMs / relaxed).toFixed(2).padStart(13)} ${(ortMs / simd).toFixed(2).padStart(13)}` +
      `${twoThreads ? (relaxed / twoThreads).toFixed(2).padStart(8) : ''}`);
  }
  const geomean = (values) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
  console.log(`attention kernels, ORT / attnscope geomean: relaxed ${geomean(kernelRatios.map((r) => r[0])).toFixed(2)}, ` +
    `SIMD128 ${geomean(kernelRatios.map((r) => r[1])).toFixed(2)}`);
} finally {
  await browser.close();
  server.close();
}
