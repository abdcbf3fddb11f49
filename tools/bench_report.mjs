// Turns the JSON lines of `./run bench` (build/bench/results.jsonl, each tagged with "run") into
// docs/BENCHMARKS.md: tables of times and of our speed-ups over each peer, measured in one run,
// and a plot of time against sequence length (docs/benchmarks-scaling.svg, .png).
//   node tools/bench_report.mjs build/bench/results.jsonl
import { readFileSync, writeFileSync } from 'node:fs';

const [file = 'build/bench/results.jsonl'] = process.argv.slice(2);
const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
const meta = lines.find((l) => l.run === 'machine') ?? {};
const DEFAULT_SHAPES = ['1x8x128x128x64', '1x1x512x512x64', '1x4x32x32x64', '1x1x16x16x64'];
const ms = (run, impl, shape) => lines.find((l) => l.run === run && l.impl === impl && l.shape === shape)?.ms;
const fmt = (x, digits = 3) => (x === undefined ? '—' : x >= 10 ? x.toFixed(1) : x.toPrecision(digits));
const ratio = (ours, theirs) => (ours && theirs ? theirs / ours : undefined);
const geomean = (xs) => (xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : undefined);

function table(run, ours, peers) {
  const out = [`| shape | ${ours} | ${peers.join(' | ')} | ${peers.map((p) => `× vs ${p}`).join(' | ')} |`,
    `|---|---|${peers.map(() => '---|').join('')}${peers.map(() => '---|').join('')}`];
  const speedups = peers.map(() => []);
  for (const shape of DEFAULT_SHAPES) {
    const mine = ms(run, ours, shape);
    const theirs = peers.map((p) => ms(run, p, shape));
    theirs.forEach((t, i) => { const r = ratio(mine, t); if (r) speedups[i].push(r); });
    out.push(`| ${shape} | ${fmt(mine)} ms | ${theirs.map((t) => `${fmt(t)} ms`).join(' | ')} | ${theirs.map((t) => fmt(ratio(mine, t), 2)).join(' | ')} |`);
  }
  out.push(`| **geometric mean** | | ${peers.map(() => '').join(' | ')} | ${speedups.map((s) => `**${fmt(geomean(s), 2)}**`).join(' | ')} |`);
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
const big = lines.find((l) => l.run === 'native' && l.impl === 'attn-native-simd' && l.shape === '1x1x512x512x64');
const memory = lines.filter((l) => /memory/.test(l.case ?? ''));
const models = lines.filter((l) => l.run === 'models');
const worst = lines.filter((l) => l.maxAbsErr !== undefined).reduce((a, l) => Math.max(a, l.maxAbsErr), 0);
const doc = `# Benchmarks

Measured by \`./run bench\` on ${meta.machine ?? 'the development machine'} (${meta.cores ?? '?'} cores), ${meta.date ?? ''}.
Single thread everywhere; each figure is the median of the runs stated; compare ratios within one run, not
absolute times across machines (the machines are shared and noisy).

- Native: \`build/bin/attn_bench\` — ${meta.cxx ?? 'g++'} \`-O3 -march=native\` (kernels: ${lines.find((l) => l.isa && l.impl === 'attn-native-simd')?.isa ?? '?'}), median of 30.
  Peer: Debian's PyTorch ${meta.torch ?? ''} with OpenBLAS, \`/usr/bin/python3 ../shared/bench/peers/torch_sdpa.py 1\`, median of 30.
- WebAssembly: \`../shared/bench/peers/run --attn web/dist/attn.mjs\` in Node ${meta.node ?? ''} (the V8 of Chrome),
  emscripten 3.1.6 \`-O3 -msimd128 -msse4.1\` (SIMD build) and \`-O3\` (scalar build), median of 30.

## WebAssembly, single thread

${table('wasm', 'attn-wasm-simd', ['onnxruntime-web', 'tfjs-wasm', 'plain-js', 'attn-wasm-scalar'])}

## Native, single thread

${table('native', 'attn-native-simd', ['pytorch-cpu-1t', 'attn-native-scalar'])}

OpenBLAS SGEMM 2048×2048, one thread, same run: ${sgemm ? `${fmt(sgemm.gflops)} GFLOP/s` : '—'}; attention on 1x1x512x512x64:
${big ? `${fmt(big.gflops)} GFLOP/s` : '—'}${sgemm && big ? ` (${Math.round(100 * big.gflops / sgemm.gflops)}% of SGEMM)` : ''}.

## Scaling with sequence length

![time against sequence length](benchmarks-scaling.png)

## Memory without weights (4096 queries × 4096 keys × 64)

${memory.map((m) => `- ${m.impl}: ${m.extraMiB !== undefined ? `peak RSS +${fmt(m.extraMiB)} MiB over the inputs` : `heap ${fmt(m.heapBeforeMiB)} → ${fmt(m.heapAfterMiB)} MiB`} (the score matrix alone would be ${fmt(m.scoreMatrixMiB)} MiB)`).join('\n')}

## Translation models

${models.map((m) => `- ${m.impl}, ${m.case}: ${fmt(m.ms)} ms`).join('\n')}

Every timed result matched the float64 reference: largest max abs error ${worst.toExponential(2)}.
`;
writeFileSync(new URL('../docs/BENCHMARKS.md', import.meta.url), doc);
const svg = scalingSvg();
writeFileSync(new URL('../docs/benchmarks-scaling.svg', import.meta.url), svg);
// the PNG, rendered by Debian's Chromium
const { chromium } = await import('playwright-core');
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
const page = await browser.newPage({ viewport: { width: 640, height: 400 } });
await page.setContent(`<body style="margin:0">${svg}</body>`);
await page.locator('svg').screenshot({ path: new URL('../docs/benchmarks-scaling.png', import.meta.url).pathname });
await browser.close();
console.log('wrote docs/BENCHMARKS.md, docs/benchmarks-scaling.svg and .png');
