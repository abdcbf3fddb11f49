// docs/BENCHMARKS.md's whole-Transformer section, from the work folder of one
// ../shared/bench/models/run (its summary.md) and of this repository's rows beside it
// (tools/bench/model_full.mjs: full*.jsonl; build/bin/attn_bench_models --pairs: threads.jsonl).
//   node tools/bench/model_report.mjs [DIR=build/model-bench]   writes the section between
//   <!-- model:start --> and <!-- model:end --> in docs/BENCHMARKS.md (tools/bench/report.mjs,
//   which rewrites the file after ./run bench, calls modelSection() too).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { writeSection } from './sections.mjs';

const lines = (path) => existsSync(path)
  ? readFileSync(path, 'utf8').split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l)) : [];
const fmt = (x) => (x >= 100 ? x.toFixed(1) : x >= 10 ? x.toFixed(2) : x.toFixed(3));

export function modelSection(dir, date = '') {
  if (!existsSync(`${dir}/summary.md`)) return '';
  const summary = readFileSync(`${dir}/summary.md`, 'utf8').trim().replace(/^### /gm, '#### ');
  const full = ['full.jsonl', 'full2.jsonl'].flatMap((f, run) => lines(`${dir}/${f}`).map((r) => ({ ...r, run: run + 1 })));
  const fullRows = full.filter((r) => r.impl?.startsWith('ort-web')).map((r) =>
    `| ${r.run} | ${r.pair} (${r.S}, ${r.T}) | ${r.impl} | ${fmt(r.median_ms)} | ${r.vs} | ${fmt(full.find((b) => b.run === r.run && b.pair === r.pair && b.impl === r.vs).median_ms)} | ${r.ratio.toFixed(2)} [paired med ${r.paired_median.toFixed(2)}, ${r.paired_min.toFixed(2)}–${r.paired_max.toFixed(2)}] |`);
  const threads = lines(`${dir}/threads.jsonl`);
  const threadRows = threads.filter((r) => r.speedup_median !== undefined).map((r) => {
    const one = threads.find((b) => b.case === r.case && b.impl === r.impl && b.threads === 1);
    return `| ${r.impl} | ${r.case} | ${fmt(one.ms)} | ${fmt(r.ms)} | ${r.speedup_median.toFixed(2)} (${r.speedup_min.toFixed(2)}–${r.speedup_max.toFixed(2)}) |`;
  });
  return `<!-- model:start (written by tools/bench/model_report.mjs) -->
## Whole Transformer: attnscope beside onnxruntime-web and PyTorch${date ? ` (${date})` : ''}

\`../shared/bench/models/run\` (its README says what each graph holds): one untrained 3 + 3-layer,
d 256, 4-head Transformer (\`tools/train/make_bench_transformer.py\`), forced decoding of three
English–Spanish pairs returning every attention map, one thread, interleaved rounds. "×" is the
peer's time over ours. attnscope's maps-only call skips the output layer and the last decoder
layer's feed-forward; onnxruntime-web's \`maps+x\` graph does the same arithmetic, \`maps\` less,
\`full\` more (the log-probabilities).

${summary}

#### WebAssembly, 1 thread, with log-probabilities: \`model.attentions(s, t, { pieces: true, logProbs: true })\`

\`node tools/bench/model_full.mjs 40 2000\` (two separate runs), the same pairs and ONNX files, each
onnxruntime-web graph against the attnscope call doing the same work.

| run | pair (S, T pieces) | peer | peer ms | attnscope | attnscope ms | × |
|---|---|---|---|---|---|---|
${fullRows.join('\n')}

#### Two threads over one (\`attn_bench_models --pairs pairs.txt --threads 2\`; \`node tools/bench/model_full.mjs --threads\`)

| build | case | 1 thread ms | 2 threads ms | speed-up, median of rounds (range) |
|---|---|---|---|---|
${threadRows.join('\n')}
<!-- model:end -->`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2] || 'build/model-bench';
  const section = modelSection(dir, new Date().toISOString().slice(0, 10));
  if (!section) throw new Error(`${dir}/summary.md is missing: run ../shared/bench/models/run first`);
  writeSection('model', section);
  console.log('wrote the whole-Transformer section of docs/BENCHMARKS.md');
}
