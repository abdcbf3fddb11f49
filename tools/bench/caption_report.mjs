// The captioner benchmark's table (tools/bench/caption.mjs's records): for each implementation, a
// scene's time (each round: the mean over the scenes of their medians; then the median over the
// rounds, with their range) and each scene's, and each peer's time over attnscope's on the same
// target (PyTorch over native, onnxruntime-web over WebAssembly), per round: median (range).
import { median } from './sections.mjs';

const IMPLEMENTATIONS = [
  ['attn-native-simd', 'attnscope native', null],
  ['pytorch-cpu-1t', 'PyTorch', 'attn-native-simd'],
  ['attn-wasm-simd', 'attnscope WebAssembly SIMD128', null],
  ['onnxruntime-web', 'onnxruntime-web', 'attn-wasm-simd'],
];
const fmt = (x) => (x >= 10 ? x.toFixed(1) : x.toPrecision(3));
const spread = (xs) => (xs.length ? `${fmt(median(xs))}${xs.length > 1 ? ` (${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))})` : ''}` : '—');

/** Markdown table of the records ({impl, round, scene, ms, caption}) of one or more rounds. */
export function captionTable(records) {
  const scenes = [...new Set(records.map((r) => r.scene))].sort((a, b) => a - b);
  const rounds = [...new Set(records.map((r) => r.round))].sort((a, b) => a - b);
  const at = (impl, round, scene) => records.find((r) => r.impl === impl && r.round === round && r.scene === scene)?.ms;
  // each round's mean over the scenes (undefined where a scene is missing)
  const perRound = (impl) => rounds.map((round) => {
    const xs = scenes.map((scene) => at(impl, round, scene));
    return xs.every((x) => x !== undefined) ? xs.reduce((a, x) => a + x, 0) / xs.length : undefined;
  });
  const captions = scenes.map((scene) => records.find((r) => r.scene === scene)?.caption ?? '');
  const rows = IMPLEMENTATIONS.filter(([impl]) => records.some((r) => r.impl === impl)).map(([impl, label, ours]) => {
    const mine = perRound(impl);
    const ratios = ours ? perRound(ours).map((o, i) => (o && mine[i] ? mine[i] / o : undefined)).filter((x) => x !== undefined) : [];
    const sceneTimes = scenes.map((scene) => spread(rounds.map((round) => at(impl, round, scene)).filter((x) => x !== undefined)));
    return `| ${label} | ${spread(mine.filter((x) => x !== undefined))} | ${sceneTimes.join(' | ')} | ${ours ? spread(ratios) : ''} |`;
  });
  return [
    `| implementation, one thread | ms per scene | ${scenes.map((s) => `"${captions[s]}"`).join(' | ')} | × attnscope's time |`,
    `|---|---|${scenes.map(() => '---|').join('')}---|`,
    ...rows,
    '',
    `${rounds.length} round${rounds.length === 1 ? '' : 's'}; ms: median over the rounds (min–max) of each round's median; ` +
      '"ms per scene": the mean over the scenes; ×: the peer\'s time over attnscope\'s on the same target in each round, median (min–max).',
  ].join('\n');
}

/** BENCHMARKS.md's section, from the lines of `./run bench` (those with run "caption"). */
export function captionSection(lines) {
  const records = lines.filter((l) => l.run === 'caption' && typeof l.ms === 'number');
  if (!records.length) return '## The captioner\n\nNot measured in this run (`node tools/bench/caption.mjs`).\n';
  const about = (impl, key) => records.find((r) => r.impl === impl)?.[key];
  return `## The captioner

Greedy captions (soft attention) of ${new Set(records.map((r) => r.scene)).size} held-out 96 × 96 scenes
(\`tools/data/scenes --split held-out --seed 2\`) by \`models/captioner.safetensors\`, one thread each, by
\`node tools/bench/caption.mjs\`: attnscope natively (\`attn_bench_caption --greedy\`, ${about('attn-native-simd', 'isa') ?? '?'}) and in
WebAssembly SIMD128 (Node); PyTorch ${about('pytorch-cpu-1t', 'torch') ?? ''} running the training model with the file's weights
(\`torch.set_num_threads(1)\`, eval, no_grad; BLAS: ${about('pytorch-cpu-1t', 'blas') || '?'}); onnxruntime-web
${about('onnxruntime-web', 'version') ?? ''} (wasm EP, SIMD, one thread) on the network exported as two ONNX graphs (the encoder, one
decoder step), its greedy loop in JavaScript. Each implementation ran once a round in a rotating order,
a fresh process that warms up (natively 30 captions a scene; the others caption the scenes in turn for
${records[0].warmupMs ?? 2000} ms), then times ${records[0].reps ?? 30} captions a scene and keeps the median;
every one wrote the same captions (the benchmark stops otherwise).

${captionTable(records)}
`;
}
