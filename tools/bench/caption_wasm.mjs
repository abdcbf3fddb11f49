// The captioner in WebAssembly under Node, one thread, for the captioner benchmark
// (tools/bench/caption.mjs): attnscope's SIMD module (model.caption(imageData), greedy) or
// onnxruntime-web (wasm EP, SIMD, numThreads 1) on the two graphs of tools/bench/caption_torch.py,
// its greedy loop here as attnscope's is in C++: encode once, then one step a word, the largest
// logit the next word, until the end token or max_words.
//   node tools/bench/caption_wasm.mjs attn|ort WORK_DIR [REPS] [WARMUP_MS]
// WORK_DIR holds scenes.rgba, scenes.json and the graphs (caption_torch.py export), and
// node_modules/onnxruntime-web for ort. The scenes are captioned in turn for WARMUP_MS (V8 compiles
// WebAssembly in tiers: the first captions run its baseline code), then REPS times each, in turn;
// one JSON line per scene: the median ms and the caption.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [which, workArg, repsArg = '30', warmupArg = '2000'] = process.argv.slice(2);
if (!['attn', 'ort'].includes(which) || !workArg) {
  console.error('usage: node tools/bench/caption_wasm.mjs attn|ort WORK_DIR [REPS] [WARMUP_MS]');
  process.exit(2);
}
const work = resolve(workArg);
const reps = Number(repsArg), warmupMs = Number(warmupArg);
const about = JSON.parse(readFileSync(`${work}/scenes.json`, 'utf8'));
const side = about.image_size;
const rgba = new Uint8Array(readFileSync(`${work}/scenes.rgba`));
const sceneBytes = side * side * 4;
const images = Array.from({ length: rgba.length / sceneBytes },
  (_, i) => ({ data: rgba.subarray(i * sceneBytes, (i + 1) * sceneBytes), width: side, height: side }));

async function attnscope() {
  const { default: loadAttn } = await import(new URL('../../web/dist/attn.mjs', import.meta.url).href);
  const attn = await loadAttn({ simd: true, threads: 1 });
  if (!attn.simd || attn.threads !== 1) throw new Error(`wanted SIMD, 1 thread; got simd=${attn.simd} threads=${attn.threads}`);
  const model = await attn.loadModel(new Uint8Array(readFileSync(resolve(about.model))));
  return {
    about: { impl: 'attn-wasm-simd', threads: attn.threads, build: attn.build, isa: attn.instructionSet },
    caption: (image) => model.caption(image).words,
  };
}

async function onnxruntime() {
  const require = createRequire(`${work}/package.json`);
  const ort = await import(pathToFileURL(require.resolve('onnxruntime-web')).href);
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.proxy = false;
  const session = (file) => ort.InferenceSession.create(readFileSync(`${work}/${file}`), {
    executionProviders: ['wasm'], graphOptimizationLevel: 'all',
  });
  const encoder = await session('caption_encoder.onnx');
  const step = await session('caption_step.onnx');
  const { bos_id: bos, eos_id: eos, max_words: maxWords, vocabulary } = about;
  const previous = new BigInt64Array(1);
  async function caption(image) {
    const start = await encoder.run({ image: new ort.Tensor('uint8', image.data, [1, side, side, 4]) });
    let { h, c } = start;
    const words = [];
    previous[0] = BigInt(bos);
    for (let t = 0; t < maxWords; t++) {
      const out = await step.run({ annotations: start.annotations, keys: start.keys,
        previous: new ort.Tensor('int64', previous, [1]), h, c });
      const logits = out.logits.data;
      let best = 0;
      for (let v = 1; v < logits.length; v++) if (logits[v] > logits[best]) best = v;
      if (best === eos) break;
      words.push(vocabulary[best]);
      previous[0] = BigInt(best);
      ({ h_next: h, c_next: c } = out);
    }
    return words;
  }
  return { about: { impl: 'onnxruntime-web', threads: ort.env.wasm.numThreads, version: ort.env.versions?.web ?? '' }, caption };
}

const impl = which === 'attn' ? await attnscope() : await onnxruntime();
const warmupStart = performance.now();
for (let i = 0; i < 10 * images.length || performance.now() - warmupStart < warmupMs; i++) await impl.caption(images[i % images.length]);
const times = images.map(() => []), words = images.map(() => []);
for (let r = 0; r < reps; r++) {
  for (const [scene, image] of images.entries()) {
    const start = performance.now();
    words[scene] = await impl.caption(image);
    times[scene].push(performance.now() - start);
  }
}
for (const [scene, ms] of times.entries()) {
  ms.sort((a, b) => a - b);
  console.log(JSON.stringify({ ...impl.about, scene, words: words[scene].length, ms: +ms[reps >> 1].toFixed(3),
    caption: words[scene].join(' ') }));
}
