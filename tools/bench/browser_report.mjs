// docs/BENCHMARKS.md's Chromium section, from the runs of tools/bench/browser.mjs that ./run bench
// writes into the model bench's folder (browser-1.jsonl, browser-2.jsonl, ...): per row, the median
// over the runs of each run's ratio of medians, with the runs' range, and of the per-round ratios'
// medians (paired), so that the spread between runs shows.
//   node tools/bench/browser_report.mjs [DIR=build/model-bench]   writes the section between
//   <!-- browser:start --> and <!-- browser:end --> in docs/BENCHMARKS.md (tools/bench/report.mjs,
//   which rewrites the file after ./run bench, calls browserSection() too).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { median, writeSection } from './sections.mjs';

const parse = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const fmt = (x) => (x >= 100 ? x.toFixed(1) : x >= 10 ? x.toFixed(2) : x.toFixed(3));
const spread = (values) => `${median(values).toFixed(2)} (${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})`;

export function browserRuns(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).filter((f) => /^browser-\d+\.jsonl$/.test(f)).sort().map((f) => parse(`${dir}/${f}`));
}

// The figures the section shows, per group: times (median over runs of the run's median), and the
// ratios ORT / relaxed, ORT / SIMD128, SIMD128 / relaxed and relaxed 1 thread / 2 threads per run.
export function browserFigures(runs) {
  const peaks = runs.map((rows) => rows.find((r) => r.impl === 'simd128-peak-chromium')?.gflops).filter((g) => g);
  const peak = peaks.length === runs.length && peaks.length > 0 ? median(peaks) : null;
  const groups = [...new Set(runs.flatMap((rows) => rows.filter((r) => r.group).map((r) => r.group)))];
  return groups.map((group) => {
    const per = runs.map((rows) => {
      const of = (test) => rows.find((r) => r.group === group && test(r.impl));
      return { relaxed: of((i) => i === 'attn-relaxed'), simd: of((i) => i === 'attn-simd'),
        ort: of((i) => i.startsWith('ort-web')), two: of((i) => i.startsWith('attn-relaxed-2t')) };
    }).filter((r) => r.relaxed && r.simd && r.ort);
    const ms = (key) => median(per.map((r) => r[key].median_ms));
    const twoThreads = per.every((r) => r.two) && per.length > 0;
    const rate = (key) => (per.length && per.every((r) => r[key].gflops) ? median(per.map((r) => r[key].gflops)) : null);
    return {
      group, runs: per.length, relaxed: ms('relaxed'), simd: ms('simd'), ort: ms('ort'), two: twoThreads ? ms('two') : null,
      peak, relaxedGflops: rate('relaxed'), ortGflops: rate('ort'),
      ortOverRelaxed: per.map((r) => r.ort.median_ms / r.relaxed.median_ms),
      ortOverRelaxedPaired: per.map((r) => r.ort.paired_median),
      ortOverSimd: per.map((r) => r.ort.median_ms / r.simd.median_ms),
      simdOverRelaxed: per.map((r) => r.simd.median_ms / r.relaxed.median_ms),
      oneOverTwo: twoThreads ? per.map((r) => r.relaxed.median_ms / r.two.median_ms) : null,
    };
  });
}

export function browserSection(dir, date = '') {
  const runs = browserRuns(dir);
  if (runs.length === 0) return '';
  const header = runs[0].find((r) => r.browser) ?? {};
  const figures = browserFigures(runs);
  const share = (gflops, peak) => (gflops && peak ? `${fmt(gflops)} (${Math.round(100 * gflops / peak)} %)` : '—');
  const rows = figures.map((f) => `| ${f.group} | ${fmt(f.relaxed)} | ${fmt(f.simd)} | ${fmt(f.ort)} | ` +
    `${spread(f.ortOverRelaxed)} | ${spread(f.ortOverRelaxedPaired)} | ${spread(f.ortOverSimd)} | ${spread(f.simdOverRelaxed)} | ` +
    `${f.oneOverTwo ? `${fmt(f.two)} ms, ${spread(f.oneOverTwo)}` : ''} | ${share(f.relaxedGflops, f.peak)} | ${share(f.ortGflops, f.peak)} |`);
  const peak = figures[0]?.peak;
  // what 1.8 times ORT's speed on the model's maps would take, against the ceiling
  const needs = figures.filter((f) => f.group.startsWith('maps ') && f.ortGflops && peak)
    .map((f) => `${f.group.slice(5)} ${fmt(1.8 * f.ortGflops)} GFLOP/s (${Math.round(180 * f.ortGflops / peak)} %)`);
  const relative = figures.map((f) => median(f.simdOverRelaxed.map((x) => 1 / x)));
  const level = relative.length ? `${Math.min(...relative).toFixed(2)}–${Math.max(...relative).toFixed(2)}×` : '';
  const ceiling = peak ? `The same page's SIMD128 peak (\`tools/bench/peak/simd_peak.cpp\`'s register-only multiply and add
loops, the ceiling of four-lane arithmetic, which no matrix product reaches): **${fmt(peak)} GFLOP/s**,
the median over the runs. The two right columns: each build's GFLOP/s (\`tools/bench/flops.mjs\`:
the matrix products) and its share of that peak; the relaxed build's fused multiply-adds take
${level} of SIMD128's time on the rows. 1.8 times onnxruntime-web's speed on the maps rows would
need ${needs.join(', ')} of the peak.
` : '';
  const kernels = figures.filter((f) => f.group.startsWith('attention'));
  const geomean = (values) => Math.exp(values.reduce((sum, v) => sum + Math.log(v), 0) / values.length);
  const perRun = (key) => runs.map((_, i) => geomean(kernels.map((f) => f[key][i])));
  const kernelLine = kernels.length && kernels.every((f) => f.runs === runs.length)
    ? `Attention kernels, geometric mean of ORT / attnscope: relaxed ${spread(perRun('ortOverRelaxed'))}, SIMD128 ${spread(perRun('ortOverSimd'))}.`
    : '';
  return `<!-- browser:start (written by tools/bench/browser_report.mjs) -->
## In the browser: Chromium, relaxed SIMD and SIMD128 beside onnxruntime-web${date ? ` (${date})` : ''}

\`node tools/bench/browser.mjs ${header.rounds ?? 20} ${header.warmupMs ?? 1500} --threads\`, ${runs.length} separate runs: Debian's
Chromium (${header.browser ?? 'headless'}) through playwright-core, one page holding attnscope's relaxed-SIMD build
(fused multiply-adds), its SIMD128 build and onnxruntime-web (wasm, SIMD, one thread), timed in interleaved
rounds. Rows: the model bench's Transformer (the section above) in forced decoding with every map
(\`maps\`, against ORT's \`maps+x\` graph) and with the log-probabilities (\`maps+logprobs\`, against
ORT's full graph), at 10, 30 and 59 words; then the attention kernels (B x H x L x S x D). Times: the
median over the runs of each run's median. Ratios: the median over the runs, their range in
brackets; "paired" is each run's median of the per-round ratios. The last column: the relaxed build
on two threads and its speed-up over one.
${ceiling}
| row | relaxed ms | SIMD128 ms | ORT ms | ORT / relaxed | paired | ORT / SIMD128 | SIMD128 / relaxed | relaxed, 2 threads | relaxed GFLOP/s (of peak) | ORT GFLOP/s (of peak) |
|---|---|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

${kernelLine}
<!-- browser:end -->`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] || 'build/model-bench';
  const section = browserSection(dir, new Date().toISOString().slice(0, 10));
  if (!section) throw new Error(`${dir} has no browser-N.jsonl: run node tools/bench/browser.mjs > ${dir}/browser-1.jsonl first`);
  writeSection('browser', section);
  console.log('wrote the Chromium section of docs/BENCHMARKS.md');
}
