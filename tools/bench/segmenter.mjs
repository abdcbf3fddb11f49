// The Chinese segmenter's speed beside its reference, one JSON line per case (never a test):
// loading jieba's data and cutting the sentences of tests/data/zh-segmentation.jsonl natively
// (build/bin/attn_bench_segmenter), in both WebAssembly builds (web/dist, from the gzipped file the
// page fetches), and in python3-jieba 0.42.1 itself, the median of --reps runs each.
//   node tools/bench/segmenter.mjs [--reps N]
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

import loadAttn from '../../web/dist/attn.mjs';

const reps = Number(process.argv[process.argv.indexOf('--reps') + 1] ?? 5) || 5;
const root = new URL('../../', import.meta.url);
const sentences = readFileSync(new URL('tests/data/zh-segmentation.jsonl', root), 'utf8')
  .split('\n').filter((line) => line).map((line) => JSON.parse(line).text);
const median = (times) => times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
const timed = (body) => median(Array.from({ length: reps + 1 }, () => {
  const start = performance.now();
  body();
  return performance.now() - start;
}).slice(1));  // the first run warms up

const native = spawnSync(new URL('build/bin/attn_bench_segmenter', root).pathname, ['--reps', String(reps)], { encoding: 'utf8' });
process.stdout.write(native.status === 0 ? native.stdout : `{"impl":"attn-native","error":${JSON.stringify(native.stderr || 'not built')}}\n`);

const gzipped = new Uint8Array(readFileSync(new URL('web/dist/models/zh-jieba.txt.gz', root)));
for (const simd of [true, false]) {
  const attn = await loadAttn({ simd, warmUp: false });
  const loads = [];
  let segmenter;
  for (let r = 0; r < reps; r++) {
    segmenter?.delete();
    const start = performance.now();
    segmenter = await attn.loadSegmenter(gzipped);
    loads.push(performance.now() - start);
  }
  const ms = timed(() => sentences.forEach((text) => segmenter.cut(text)));
  const impl = `attn-wasm-${simd ? 'simd' : 'scalar'}`;
  console.log(JSON.stringify({ impl, case: 'jieba load (gzipped)', ms: +median(loads).toFixed(1) }));
  console.log(JSON.stringify({ impl, case: `jieba cut, ${sentences.length} sentences`, ms: +ms.toFixed(3), sentences_per_s: Math.round(sentences.length / (ms / 1000)) }));
  segmenter.delete();
}

const python = `
import json, sys, time, jieba
jieba.setLogLevel(60)
start = time.perf_counter(); jieba.initialize(); load = (time.perf_counter() - start) * 1000
sentences = json.loads(sys.stdin.read())
times = []
for r in range(${reps + 1}):
    start = time.perf_counter()
    for text in sentences: list(jieba.cut(text))
    times.append((time.perf_counter() - start) * 1000)
ms = sorted(times[1:])[len(times[1:]) // 2]
print(json.dumps({'impl': 'python3-jieba', 'case': 'jieba load (its cache)', 'ms': round(load, 1)}))
print(json.dumps({'impl': 'python3-jieba', 'case': f'jieba cut, {len(sentences)} sentences', 'ms': round(ms, 3), 'sentences_per_s': round(len(sentences) / (ms / 1000))}))
`;
const peer = spawnSync('/usr/bin/python3', ['-c', python], { input: JSON.stringify(sentences), encoding: 'utf8' });
process.stdout.write(peer.status === 0 ? peer.stdout : `{"impl":"python3-jieba","error":${JSON.stringify(peer.stderr)}}\n`);
