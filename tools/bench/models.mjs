// Model speed through the WebAssembly module under Node (the counterpart of attn_bench_models):
// forced alignment of a 30-word pair, every attention map of it (forced decoding with every map,
// over pieces), and beam-4 translation of a 20-word sentence, median of N, for either architecture.
//   node tools/bench/models.mjs [MODEL] [--reps N] [--dist DIR]
// --dist times another build's web/dist (a copy kept from before a change, to compare in one run).
// A multilingual model is set to write Spanish (the sentences' language).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const args = process.argv.slice(2);
const repsAt = args.indexOf('--reps');
const reps = repsAt >= 0 ? Number(args.splice(repsAt, 2)[1]) : 20;
const distAt = args.indexOf('--dist');
const dist = distAt >= 0 ? pathToFileURL(`${resolve(args.splice(distAt, 2)[1])}/`) : new URL('../../web/dist/', import.meta.url);
const { default: loadAttn } = await import(new URL('attn.mjs', dist).href);
const path = args[0] ?? new URL('../../models/en-es-additive.safetensors', import.meta.url).pathname;
const SOURCE_30 = 'The old man who lives in the small house near the river walks slowly to the market every morning to buy fresh bread and fruit for his large family .';
const TARGET_30 = 'El anciano que vive en la pequeña casa cerca del río camina despacio hasta el mercado cada mañana para comprar pan fresco y fruta para toda su gran familia .';
const SOURCE_20 = 'The committee will publish its final report on the new energy policy before the end of the next year .';

function median(body) {
  body();
  const times = [];
  for (let r = 0; r < reps; r++) {
    const start = performance.now();
    body();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
}

for (const simd of [true, false]) {
  const attn = await loadAttn({ simd });
  const loaded = await attn.loadModel(new Uint8Array(readFileSync(path)));
  const model = loaded.info.languages ? loaded.forTarget('es') : loaded;
  const impl = `attn-wasm-${simd ? 'simd' : 'scalar'}`;
  const aligned = model.align(SOURCE_30, TARGET_30);
  const alignMs = median(() => model.align(SOURCE_30, TARGET_30));
  const mapsMs = median(() => model.attentions(SOURCE_30, TARGET_30, { pieces: true }));
  let output = '';
  const translateMs = median(() => { output = model.translate(SOURCE_20, { beam: 4 }).text; });
  const words = `${aligned.sourceWords.length}x${aligned.targetWords.length} words`;
  const about = { impl, model: model.info.architecture, threads: attn.threads ?? 1 };
  console.log(JSON.stringify({ ...about, case: `align ${words}`, ms: +alignMs.toFixed(3) }));
  console.log(JSON.stringify({ ...about, case: `every map ${words}`, ms: +mapsMs.toFixed(3) }));
  console.log(JSON.stringify({ ...about, case: 'translate 20 words, beam 4', ms: +translateMs.toFixed(3), output }));
  model.delete();
  if (model !== loaded) loaded.delete();
}
