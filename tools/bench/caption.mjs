// The captioner beside its peers, one thread each, the same scenes and weights, greedy soft attention:
//   attn-native-simd   build/bin/attn_bench_caption --greedy (the library, -march=native)
//   attn-wasm-simd     the SIMD128 module in Node (tools/bench/caption_wasm.mjs attn)
//   pytorch-cpu-1t     the training model loaded from the file (tools/bench/caption_torch.py time)
//   onnxruntime-web    1.30.0, wasm EP, SIMD, one thread, on the two graphs caption_torch.py exports
//                      (encoder; one decoder step), the greedy loop in JavaScript (caption_wasm.mjs ort)
// Held-out scenes from tools/data/scenes (seed 2). Rounds: each implementation once a round, in a
// rotating order, each a fresh process that warms up (native: 30 captions a scene; the others: the
// scenes in turn for --warmup-ms, for V8's and PyTorch's first calls) and prints its median per scene. Every
// implementation must write the training model's caption of every scene, or this exits with 1.
//   node tools/bench/caption.mjs [--rounds 10] [--reps 30] [--warmup-ms 2000] [--scenes 4] [--work build/caption-bench]
// stdout: one JSON line per implementation, scene and round; stderr: progress, then the table
// (tools/bench/caption_report.mjs). onnxruntime-web is installed into the work folder from the
// whole-Transformer benchmark's pinned package-lock.json ($ORT_PACKAGE_DIR, default ../shared/bench/models).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { captionTable } from './caption_report.mjs';

const root = resolve(new URL('../..', import.meta.url).pathname);
const options = { rounds: 10, reps: 30, 'warmup-ms': 2000, scenes: 4, work: 'build/caption-bench', model: 'models/captioner.safetensors' };
const args = process.argv.slice(2);
for (let i = 0; i < args.length; i += 2) {
  const key = args[i].replace(/^--/, '');
  if (!(key in options) || args[i + 1] === undefined) {
    console.error('usage: node tools/bench/caption.mjs [--rounds N] [--reps N] [--warmup-ms MS] [--scenes N] [--work DIR] [--model FILE]');
    process.exit(2);
  }
  options[key] = typeof options[key] === 'number' ? Number(args[i + 1]) : args[i + 1];
}
const work = resolve(root, options.work);
const python = '/usr/bin/python3';
const log = (text) => console.error(`caption bench: ${text}`);

function run(command, commandArgs, { env = {}, cwd = root } = {}) {
  const result = spawnSync(command, commandArgs, { cwd, env: { ...process.env, ...env }, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (result.status !== 0) {
    throw new Error(`${command} ${commandArgs.join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}):\n${result.stderr}`);
  }
  return result.stdout;
}
const records = (text) => text.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));

// The scenes, the ONNX graphs and the training model's captions (needs PyTorch)
const sceneDir = `${work}/scenes`;
const sceneCount = () => (existsSync(`${sceneDir}/scenes.json`) ? JSON.parse(readFileSync(`${sceneDir}/scenes.json`, 'utf8')).scenes.length : 0);
if (sceneCount() !== options.scenes) {
  run(python, ['-m', 'tools.data.scenes', '--split', 'held-out', '--count', String(options.scenes), '--seed', '2', '--out', sceneDir]);
}
const pngs = readdirSync(sceneDir).filter((f) => f.endsWith('.png')).sort().slice(0, options.scenes).map((f) => `${sceneDir}/${f}`);
const torch = spawnSync(python, ['-c', 'import torch'], { stdio: 'ignore' }).status === 0;
if (!torch) throw new Error('no PyTorch for /usr/bin/python3 (apt-get install -y python3-torch): it writes the scenes\' captions and the ONNX graphs');
process.stderr.write(run(python, ['-m', 'tools.bench.caption_torch', 'export', options.model, ...pngs, work]));
const expected = JSON.parse(readFileSync(`${work}/scenes.json`, 'utf8')).scenes.map((s) => s.caption);

// onnxruntime-web, pinned by the whole-Transformer benchmark's package-lock.json
const ortPackage = resolve(root, process.env.ORT_PACKAGE_DIR ?? '../shared/bench/models');
let ort = existsSync(`${ortPackage}/package-lock.json`);
if (!ort) {
  log(`no ${ortPackage}/package-lock.json: no onnxruntime-web row`);
} else if (!existsSync(`${work}/node_modules/onnxruntime-web`) ||
    readFileSync(`${ortPackage}/package-lock.json`, 'utf8') !== (existsSync(`${work}/package-lock.json`) ? readFileSync(`${work}/package-lock.json`, 'utf8') : '')) {
  for (const file of ['package.json', 'package-lock.json']) copyFileSync(`${ortPackage}/${file}`, `${work}/${file}`);
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: work });
  ort = existsSync(`${work}/node_modules/onnxruntime-web`);
}

const reps = String(options.reps), warmup = String(options['warmup-ms']);
const implementations = [
  { impl: 'attn-native-simd', command: `${root}/build/bin/attn_bench_caption`,
    args: ['--model', options.model, '--rgba', `${work}/scenes.rgba`, '--reps', reps, '--greedy'] },
  { impl: 'attn-wasm-simd', command: process.execPath, args: [`${root}/tools/bench/caption_wasm.mjs`, 'attn', work, reps, warmup] },
  { impl: 'pytorch-cpu-1t', command: python, args: ['-m', 'tools.bench.caption_torch', 'time', options.model, work, reps, warmup],
    env: { OMP_NUM_THREADS: '1' } },
  ...(ort ? [{ impl: 'onnxruntime-web', command: process.execPath, args: [`${root}/tools/bench/caption_wasm.mjs`, 'ort', work, reps, warmup] }] : []),
];

const all = [];
for (let round = 1; round <= options.rounds; round++) {
  const shift = (round - 1) % implementations.length;
  const order = [...implementations.slice(shift), ...implementations.slice(0, shift)];
  log(`round ${round} of ${options.rounds}: ${order.map((i) => i.impl).join(', ')}`);
  for (const { impl, command, args: commandArgs, env } of order) {
    const lines = records(run(command, commandArgs, { env }));
    for (const line of lines) {
      const record = { impl, ...line, round, case: 'greedy caption', reps: options.reps, warmupMs: options['warmup-ms'] };
      if (record.caption !== expected[record.scene]) {
        log(`${impl} captions scene ${record.scene} (${pngs[record.scene]}) "${record.caption}", PyTorch's training model "${expected[record.scene]}"`);
        process.exit(1);
      }
      console.log(JSON.stringify(record));
      all.push(record);
    }
    if (lines.length !== expected.length) throw new Error(`${impl} timed ${lines.length} scenes, not ${expected.length}`);
  }
}
log(`every implementation wrote the same captions: ${expected.map((c) => `"${c}"`).join(', ')}`);
console.error(captionTable(all));
