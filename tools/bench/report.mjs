// Turns the JSON lines of `./run bench` (build/bench/results.jsonl, each tagged with "run") into
// docs/BENCHMARKS.md: tables of times and of our speed-ups over each peer, measured in one run,
// and a plot of time against sequence length (docs/benchmarks-scaling.svg, .png).
//   node tools/bench/report.mjs build/bench/results.jsonl
import { readFileSync, writeFileSync } from 'node:fs';
import { modelSection } from './model_report.mjs';
import { captionSection } from './caption_report.mjs';
import { browserSection } from './browser_report.mjs';
import { median } from './sections.mjs';

const [file = 'build/bench/results.jsonl'] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const meta = lines.find((l) => l.run === 'machine') ?? {};
const DEFAULT_SHAPES = ['1x8x128x128x64', '1x1x512x512x64', '1x4x32x32x64', '1x1x16x16x64'];
const COMPUTE_BOUND = DEFAULT_SHAPES.slice(0, 2);
const rounds = [...new Set(lines.filter((l) => l.round > 0 && l.run !== 'caption').map((l) => l.round))].sort((a, b) => a - b);  // the captioner's rounds are its own
// PyTorch's lines name their thread count (pytorch-cpu-2t) rather than carry it
const threadsOf = (l) => l.threads ?? Number(/-(\d+)t$/.exec(l.impl)?.[1] ?? 1);
// One implementation's line in one round; `threads` tells the 1- and N-thread lines of one impl apart.
const find = (run, impl, shape, round, threads) => lines.find((l) => l.run === run && l.impl === impl && l.shape === shape &&
  l.round === round && (threads === undefined || threadsOf(l) === threads));
const fmt = (x, digits = 3) => (x === undefined || Number.isNaN(x) ? '—' : x >= 10 ? x.toFixed(1) : x.toPrecision(digits));
const geomean = (xs) => (xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : undefined);
// A column: an implementation in a run at a thread count.
const col = (run, impl, threads, label = impl) => ({ run, impl, threads, label });
const perRound = (c, shape) => rounds.map((r) => find(c.run, c.impl, shape, r, c.threads)?.ms);
const timeOf = (c, shape) => median(perRound(c, shape).filter((x) => x !== undefined));
// theirs / ours in each round where both ran: how many times faster we are
function ratios(ours, theirs, shape) {
  const a = perRound(ours, shape), b = perRound(theirs, shape);
  return rounds.map((_, i) => (a[i] && b[i] ? b[i] / a[i] : undefined)).filter((x) => x !== undefined);
}
// three digits: the goals are thresholds (1.8×, 1.25×) that two would round a 1.77 onto
const spread = (xs) => (xs.length ? `${fmt(median(xs))}${xs.length > 1 ? ` (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})` : ''}` : '—');
// per round, the geometric mean over shapes of the ratio
function geomeanRatios(ours, theirs, shapes) {
  return rounds.map((r) => {
    const xs = shapes.map((shape) => {
      const a = find(ours.run, ours.impl, shape, r, ours.threads)?.ms, b = find(theirs.run, theirs.impl, shape, r, theirs.threads)?.ms;
      return a && b ? b / a : undefined;
    });
    return xs.every((x) => x !== undefined) ? geomean(xs) : undefined;
  }).filter((x) => x !== undefined);
}

// Times (median over rounds) and our speed-up over each peer: median (min–max) over the rounds.
// `peak`: add each shape's GFLOP/s as a share of the machine's multiply-add peak.
function table(ours, peers, { shapes = DEFAULT_SHAPES, peak } = {}) {
  const head = [ours.label, ...peers.map((p) => p.label)];
  const out = [`| shape | ${head.join(' | ')} | ${peers.map((p) => `× vs ${p.label}`).join(' | ')}${peak ? ' | share of peak |' : ' |'}`,
    `|---|${head.map(() => '---|').join('')}${peers.map(() => '---|').join('')}${peak ? '---|' : ''}`];
  for (const shape of shapes) {
    const mine = timeOf(ours, shape);
    const gflops = median(rounds.map((r) => find(ours.run, ours.impl, shape, r, ours.threads)?.gflops).filter((x) => x));
    out.push(`| ${shape} | ${fmt(mine)} ms | ${peers.map((p) => `${fmt(timeOf(p, shape))} ms`).join(' | ')} | ` +
      `${peers.map((p) => spread(ratios(ours, p, shape))).join(' | ')}${peak ? ` | ${gflops ? `${Math.round(100 * gflops / peak)}% (${fmt(gflops)} GFLOP/s)` : '—'} |` : ' |'}`);
  }
  if (shapes.length > 1) {
    out.push(`| **geometric mean** | ${head.map(() => '').join(' | ')} | ${peers.map((p) => `**${spread(geomeanRatios(ours, p, shapes))}**`).join(' | ')}${peak ? ' | |' : ' |'}`);
  }
  return out.join('\n');
}

function scalingSvg() {
  const series = [
    ['native-sweep', 'attn-native-simd', '#2b59c3'], ['native-sweep', 'pytorch-cpu-1t', '#e7298a'],
    ['wasm-sweep', 'attn-wasm-simd', '#1b9e77'], ['wasm-sweep', 'onnxruntime-web', '#d95f02'],
    ['wasm-sweep', 'attn-wasm-scalar', '#7570b3'],
  ];
  const points = series.map(([run, impl, colour]) => ({
    impl: `${impl} (${run.split('-')[0]})`, colour,
    points: lines.filter((l) => l.run === run && l.impl === impl)
      .map((l) => [Number(l.shape.split('x')[2]), l.ms]).sort((a, b) => a[0] - b[0]),
  })).filter((s) => s.points.length);
  const W = 640, H = 400, L = 60, B = 50, x = (n) => L + (Math.log2(n) - 4) / 8 * (W - L - 20), y = (t) => H - B - (Math.log10(t) + 3) / 7 * (H - B - 20);
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="DejaVu Sans, sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="#fff"/>`];
  for (let e = 4; e <= 12; e++) parts.push(`<text x="${x(2 ** e)}" y="${H - B + 16}" text-anchor="middle">${2 ** e}</text><line x1="${x(2 ** e)}" x2="${x(2 ** e)}" y1="20" y2="${H - B}" stroke="#eee"/>`);
  for (let p = -3; p <= 4; p++) parts.push(`<text x="${L - 6}" y="${y(10 ** p) + 4}" text-anchor="end">${10 ** p >= 1 ? 10 ** p : (10 ** p).toFixed(-p)}</text><line x1="${L}" x2="${W - 20}" y1="${y(10 ** p)}" y2="${y(10 ** p)}" stroke="#eee"/>`);
  parts.push(`<text x="${(W + L) / 2}" y="${H - 12}" text-anchor="middle">sequence length L (queries = keys, d = 64, one head)</text>`);
  parts.push(`<text x="14" y="${(H - B) / 2}" transform="rotate(-90 14 ${(H - B) / 2})" text-anchor="middle">milliseconds (log)</text>`);
  points.forEach((s, i) => {
    parts.push(`<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${s.points.map(([n, t]) => `${x(n)},${y(t)}`).join(' ')}"/>`);
    parts.push(`<text x="${L + 10}" y="${30 + 14 * i}" fill="${s.colour}">${s.impl}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}

const sgemm = lines.find((l) => l.impl === 'openblas-sgemm-1t');
const nativePeak = lines.find((l) => l.impl === 'fma-peak-native');
const wasmPeak = lines.find((l) => l.impl === 'simd128-peak-wasm');
const memory = lines.filter((l) => /memory/.test(l.case ?? ''));
const models = lines.filter((l) => l.run === 'models');
const worst = lines.filter((l) => typeof l.maxAbsErr === 'number').reduce((a, l) => Math.max(a, l.maxAbsErr), 0);
const wasmThreads = Math.max(...lines.filter((l) => l.run === 'wasm-threads').map(threadsOf), 2);
const nativeThreads = Math.max(...lines.filter((l) => l.run === 'native' && l.impl === 'attn-native-simd').map(threadsOf), 2);

const wasm1 = col('wasm', 'attn-wasm-simd', 1);
const wasmN = col('wasm-threads', 'attn-wasm-simd', wasmThreads, `attn-wasm-simd, ${wasmThreads} threads`);
const wasmN1 = col('wasm-threads', 'attn-wasm-simd-1t', 1, 'attn-wasm-simd, 1 thread');
const ortN = col('wasm-threads', 'onnxruntime-web', wasmThreads, `onnxruntime-web, ${wasmThreads} threads`);
const native1 = col('native', 'attn-native-simd', 1);
const nativeN = col('native', 'attn-native-simd', nativeThreads, `attn-native-simd, ${nativeThreads} threads`);
const native1b = col('native', 'attn-native-simd', 1, 'attn-native-simd, 1 thread');
const torch1 = col('native', 'pytorch-cpu-1t', 1);
const torchN = col('native', `pytorch-cpu-${nativeThreads}t`, nativeThreads, `pytorch-cpu, ${nativeThreads} threads`);
const roundsText = `${rounds.length} round${rounds.length === 1 ? '' : 's'}`;

const doc = `# Benchmarks

Measured by \`./run bench\` on ${meta.machine ?? 'the development machine'} (${meta.cores ?? '?'} cores), ${meta.date ?? ''}.
Each comparison ran in ${roundsText}, ours and the peers alternating (native: our benchmark then
PyTorch, A B A B A B; WebAssembly: every implementation once per timing round inside the peers
harness, in a rotating order). A time is the median over the rounds of each round's median; a
ratio "× vs X" is X's time over ours (above 1: we are faster), given as the median over the rounds
with its range in brackets. Compare ratios, not absolute times across machines: the machines are
shared virtual machines.

- Native: \`build/bin/attn_bench --threads ${nativeThreads}\` — ${meta.cxx ?? 'g++'} \`-O3 -march=native\` (kernels: ${lines.find((l) => l.isa && l.impl === 'attn-native-simd')?.isa ?? '?'}), median of 30 per round.
  Peer: Debian's PyTorch ${meta.torch ?? ''} with OpenBLAS, \`/usr/bin/python3 ../shared/bench/peers/torch_sdpa.py N\`, median of 30.
- WebAssembly: \`../shared/bench/peers/run --attn web/dist/attn.mjs [--threads ${wasmThreads}]\` in Node ${meta.node ?? ''} (the V8 of Chrome),
  emscripten 3.1.6 \`-O3 -msimd128 -msse4.1\` (SIMD build), \`-O3\` (scalar build), \`-pthread\` (threads builds), median of 30 per round.
- Peaks, one thread, registers only: fused multiply-add natively (\`attn_bench --peak\`): ${nativePeak ? `**${fmt(nativePeak.gflops)} GFLOP/s** (${nativePeak.isa})` : '—'};
  WebAssembly SIMD128 multiply and add (no FMA in WebAssembly; \`node tools/bench/peak.mjs\`): ${wasmPeak ? `**${fmt(wasmPeak.gflops)} GFLOP/s**` : '—'}.
  "Share of peak" is a shape's GFLOP/s (4·L·S·D + 5·L·S per head) over that figure.
- Captioner: \`node tools/bench/caption.mjs\` — held-out scenes captioned by attnscope (native, SIMD128), PyTorch and onnxruntime-web, one thread, interleaved rounds, the same captions checked.

## WebAssembly, one thread

${table(wasm1, [col('wasm', 'onnxruntime-web', 1), col('wasm', 'tfjs-wasm', 1), col('wasm', 'plain-js', 1), col('wasm', 'attn-wasm-scalar', 1)], { peak: wasmPeak?.gflops })}

## WebAssembly, ${wasmThreads} threads

Threads build (\`loadAttn({ threads: ${wasmThreads} })\`) against the same SIMD build on one thread and onnxruntime-web
with \`numThreads: ${wasmThreads}\`, all in the same rounds.

${table(wasmN, [wasmN1, ortN], { shapes: COMPUTE_BOUND })}

onnxruntime-web's Workers keep spinning for 14-17 ms of CPU after each of its runs, so in these rounds
they hold part of the second core during every run of ours: three busy threads on two cores. A round
where our Worker never got that core runs at the one-thread time, and some Node processes run the
2-thread module slower for the whole process, for a cause not found (see DEVELOPERS.md); read the
ratios with their ranges, and the module alone (\`--only attn-wasm-simd,attn-wasm-simd-1t\`) for its own scaling.

Every 2-thread call of ours in these rounds also finds the pool's Worker asleep (it watches for
0.2 ms after a call; the other implementations ran in between), and waking a sleeping thread is
slow on this virtual machine: \`node tools/bench/wake.mjs\` measured 96-124 µs from \`Atomics.notify\` until
a plain Node Worker ran (90th percentile 130-945 µs), and the module's 2-thread calls over one
thread at 1.60-1.66× for 1x8x128x128x64 with the Worker asleep, 1.81-1.83× right after another call
(1x1x512x512x64: 1.42-1.46× and 1.55-1.59×; two runs of 300 rounds).

## Native, one thread

${table(native1, [torch1, col('native', 'attn-native-scalar', 1)], { peak: nativePeak?.gflops })}

OpenBLAS SGEMM 2048×2048, one thread: ${sgemm ? `${fmt(sgemm.gflops)} GFLOP/s` : '—'}.

The same kernels built for AVX2 + FMA (\`cmake --preset native-avx2\`, \`-march=x86-64-v3\`: ${lines.find((l) => l.isa && l.run === 'native-avx2')?.isa ?? '?'}) on the same machine, beside the same PyTorch rounds:

${table(col('native-avx2', 'attn-native-simd', 1, 'attn-native-simd, AVX2'), [torch1, native1])}

## Native, ${nativeThreads} threads

${table(nativeN, [native1b, torchN], { shapes: COMPUTE_BOUND })}

\`attn_bench\` keeps its pool started through the run and switches between 1 and ${nativeThreads} threads with
\`attn::ThreadLimit\`, calling each case for 20 ms before timing a call: threads started anew at every
switch, or a core that sat idle during the 1-thread case, timed the ${nativeThreads}-thread case short of its
steady state on this virtual machine (see DEVELOPERS.md). PyTorch's times are back-to-back calls too.

PyTorch's own ${nativeThreads}-thread times swing widely on this virtual machine from round to round (its
OpenMP threads wait for a core the other round's process may hold): read its column with its range.

## Scaling with sequence length

![time against sequence length](benchmarks-scaling.png)

## Memory without weights (4096 queries × 4096 keys × 64)

${memory.map((m) => `- ${m.impl}: ${m.extraMiB !== undefined ? `peak RSS +${fmt(m.extraMiB)} MiB over the inputs` : `heap ${fmt(m.heapBeforeMiB)} → ${fmt(m.heapAfterMiB)} MiB`} (the score matrix alone would be ${fmt(m.scoreMatrixMiB)} MiB)`).join('\n')}

## Translation models

${models.map((m) => `- ${m.impl}, ${m.model === 'transformer' ? 'untrained Transformer of the trained size (3 + 3 layers, d 256, 4 heads)' : 'the shipped RNN'}${(m.threads ?? 1) > 1 ? `, ${m.threads} threads` : ''}, ${m.case}: ${fmt(m.ms)} ms`).join('\n')}

The untrained Transformer (\`tools/train/make_bench_transformer.py\`) times the architecture: its
beam search runs to the length limit, so its translation time is a pessimistic bound.

Every timed result matched the float64 reference: largest max abs error ${worst.toExponential(2)}.

${captionSection(lines)}
${modelSection(new URL('../../build/model-bench', import.meta.url).pathname, meta.date ?? '')}
${browserSection(new URL('../../build/model-bench', import.meta.url).pathname, meta.date ?? '')}
`;

// The README's speed table: the same rounds, ours against the closest peer on each target.
const readmeRow = (shape) => {
  const cells = [[wasm1, col('wasm', 'onnxruntime-web', 1)], [wasmN, ortN], [native1, torch1]];
  return `| ${shape.replaceAll('x', '×')} | ${cells.map(([a, b]) => `${fmt(timeOf(a, shape))} ms | ${fmt(timeOf(b, shape))} ms | ${spread(ratios(a, b, shape))}`).join(' | ')} | ` +
    `${fmt(timeOf(nativeN, shape))} ms | ${spread(ratios(nativeN, native1b, shape))} |`;
};
const simdOverScalar = spread(geomeanRatios(wasm1, col('wasm', 'attn-wasm-scalar', 1), DEFAULT_SHAPES));
const readme = `<!-- speed:start (written by tools/bench/report.mjs) -->
softmax(QKᵀ/√d)V from one \`./run bench\` on ${meta.machine ?? 'the development machine'} (${meta.cores ?? '?'} cores, a shared VM), ${meta.date ?? ''}:
${roundsText}, ours and the peer alternating; "×" is the peer's time over ours, median (range) over the rounds.
Full tables, peaks, commands, compilers and flags in [\`docs/BENCHMARKS.md\`](docs/BENCHMARKS.md).

| shape (B×H×L×S×D) | SIMD128, 1 thread | onnxruntime-web | × | SIMD128, ${wasmThreads} threads | onnxruntime-web, ${wasmThreads} | × | native, 1 thread | PyTorch 1t | × | native, ${nativeThreads} threads | × vs 1 thread |
|---|---|---|---|---|---|---|---|---|---|---|---|
${DEFAULT_SHAPES.map(readmeRow).join('\n')}

The SIMD128 build is ${simdOverScalar}× the scalar build (geometric mean over the shapes).
<!-- speed:end -->`;
const readmePath = new URL('../../README.md', import.meta.url);
const readmeText = readFileSync(readmePath, 'utf8');
if (!/<!-- speed:start[^]*?<!-- speed:end -->/.test(readmeText)) throw new Error('README.md has no <!-- speed:start --> … <!-- speed:end --> block');
writeFileSync(readmePath, readmeText.replace(/<!-- speed:start[^]*?<!-- speed:end -->/, readme));
writeFileSync(new URL('../../docs/BENCHMARKS.md', import.meta.url), doc);
const svg = scalingSvg();
writeFileSync(new URL('../../docs/benchmarks-scaling.svg', import.meta.url), svg);
// the PNG, rendered by Debian's Chromium
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 640, height: 400 } });
await page.setContent(`<body style="margin:0">${svg}</body>`);
await page.locator('svg').screenshot({ path: new URL('../../docs/benchmarks-scaling.png', import.meta.url).pathname });
await browser.close();
console.log('wrote docs/BENCHMARKS.md, docs/benchmarks-scaling.svg and .png');
