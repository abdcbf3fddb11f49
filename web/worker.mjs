// The explorer's model thread: the WebAssembly module and the translation models live here, so
// typing on the page never waits for a forced decoding. Only what the first view needs is fetched
// at start (the module, then the en-es model); the other models and the statistical aligners are
// fetched when a request first needs them. Downloads report their progress. Messages:
//   {type: 'init', simd}                      -> {type: 'module', simd, instructionSet, threads, alignment, shipped}
//                                                then {type: 'ready', models: {forward}} (or 'failed')
//   {type: 'align', id, source, target, ...}  -> {type: 'result', id, result} | {type: 'error', id, message}
//   {type: 'translate', id, text, beam, model?} -> same (model: a file stem)
//   {type: 'attentions', id, source, target, model, pieces}
//                                             -> every map of `model` (a shipped file's stem), with its info
//   while fetching a file                     -> {type: 'progress', file, what, loaded, total} (total 0: unknown)
// `alignment` is the library's alignment rules (attn.alignment): the page lists its methods from
// them, and this worker decides from them what a method waits for and loads.
import loadAttn from './dist/attn.mjs';
import { methodRule, statisticalKindOf } from './methods.mjs';
import { answerRequests } from './worker-client.mjs';

const MODELS = {
  forward: { file: 'en-es-additive.safetensors', what: 'the en-es model' },
  reverse: { file: 'es-en-additive.safetensors', what: 'the es-en model' },
  general: { file: 'en-es-general.safetensors', what: 'the general-attention model' },
};
// IBM Model 2 and the HMM aligner, for comparison and for the methods that mix one with attention;
// each is filed under the kind its file declares.
const STATISTICAL_FILES = ['ibm2-en-es.safetensors', 'hmm-en-es.safetensors'];

let attn = null;
let shipped = new Set();
const loading = {};  // name -> promise of the loaded model (or, for 'statistical', of every aligner by kind)

// A file's bytes, with progress messages at most every 100 ms.
async function fetchBytes(file, what) {
  const response = await fetch(new URL(`./dist/models/${file}`, import.meta.url));
  if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
  const total = Number(response.headers.get('Content-Length')) || 0;
  const reader = response.body.getReader();
  const chunks = [];
  let loaded = 0, told = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    loaded += value.length;
    if (performance.now() - told > 100) {
      told = performance.now();
      self.postMessage({ type: 'progress', file, what, loaded, total });
    }
  }
  self.postMessage({ type: 'progress', file, what, loaded, total: total || loaded });
  const bytes = new Uint8Array(loaded);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

// A shipped model file, fetched and loaded once.
function modelFile(file, what) {
  if (!shipped.has(file)) return Promise.reject(new Error(`${what} is not shipped with this build`));
  loading[file] ??= fetchBytes(file, what).then((bytes) => attn.loadModel(bytes), (error) => {
    delete loading[file];  // a failed download is tried again by the next request that needs it
    throw error;
  });
  return loading[file];
}

// The model called `name` (forward, reverse, general).
const model = (name) => modelFile(MODELS[name].file, MODELS[name].what);

// The translation models the build ships, by file stem (en-es-additive, …): the statistical
// aligners' files are not among them.
const translationModels = () => [...shipped].filter((file) => file.endsWith('.safetensors') &&
  !STATISTICAL_FILES.includes(file)).map((file) => file.replace(/\.safetensors$/, '')).sort();

// Every shipped statistical aligner, by the kind its file declares.
function statisticalAligners() {
  loading.statistical ??= (async () => {
    const byKind = {};
    for (const file of STATISTICAL_FILES.filter((name) => shipped.has(name))) {
      const aligner = await attn.loadStatisticalAligner(await fetchBytes(file, 'the statistical aligners'));
      byKind[aligner.kind] = aligner;
    }
    return byKind;
  })();
  return loading.statistical;
}

// The module, then (without waiting for it) the en-es model: requests may come once the module is in.
async function init({ simd }) {
  attn = await loadAttn({ simd });
  const index = await fetch(new URL('./dist/models/index.json', import.meta.url));
  if (!index.ok) throw new Error(`the model index: HTTP ${index.status}`);
  shipped = new Set((await index.json()).models);
  self.postMessage({
    type: 'module', simd: attn.simd, instructionSet: attn.instructionSet, threads: attn.threads, alignment: attn.alignment,
    shipped: {
      reverse: shipped.has(MODELS.reverse.file), general: shipped.has(MODELS.general.file),
      statistical: STATISTICAL_FILES.every((file) => shipped.has(file)),
    },
    models: translationModels(),
  });
  if (!shipped.has(MODELS.forward.file)) throw new Error(`the build ships no ${MODELS.forward.file}`);
  model('forward').then((forward) => self.postMessage({ type: 'ready', models: { forward: forward.info } }),
    (error) => self.postMessage({ type: 'failed', message: error.message }));
}

// What a method needs comes from the library's rules; the settings the page does not offer
// (the hybrid's weight, mix, symmetrization and threshold) are left to the library's defaults.
async function align({ source, target, method, shift, threshold, model: name = 'forward' }) {
  const rules = attn.alignment;
  const rule = methodRule(rules, method);
  const chosen = rule.needsModel ? await model(name) : null;
  const reverse = rule.needsReverse ? await model('reverse') : null;
  let aligner = null;
  if (rule.needsStatistical) {
    const kind = statisticalKindOf(rules, rule);
    aligner = (await statisticalAligners())[kind];
    if (!aligner) throw new Error(`${rule.name} needs the ${kind} aligner, which is not available in this build`);
  }
  const started = performance.now();
  const result = chosen
    ? chosen.align(source, target, { method, shift, threshold, ...(reverse ? { reverse } : {}), ...(aligner ? { statistical: aligner } : {}) })
    : aligner.align(source, target);
  return { ...result, milliseconds: performance.now() - started };
}

// The translation model whose file stem is `stem` (en-es-additive, …).
function modelByStem(stem) {
  if (!translationModels().includes(stem)) return Promise.reject(new Error(`model '${stem}' is not shipped with this build`));
  return modelFile(`${stem}.safetensors`, `the ${stem} model`);
}

// A translation by the model whose file stem is `model` (by default the forward one), with every
// layer's and head's cross-attention of its output and the model's info.
async function translate({ text, beam, model: stem }) {
  const chosen = stem ? await modelByStem(stem) : await model('forward');
  return { ...chosen.translate(text, { beam }), info: chosen.info };
}

// Every attention map of a pair through the model whose file stem is `model`.
async function attentions({ source, target, model: stem, pieces }) {
  const chosen = await modelByStem(stem);
  const started = performance.now();
  const maps = chosen.attentions(source, target, { pieces: Boolean(pieces) });
  return { ...maps, info: chosen.info, milliseconds: performance.now() - started };
}

answerRequests({
  init, handlers: { align, translate, attentions },
  transfer: (result) => [result.weights, result.cross?.data, result.encoder?.data, result.decoder?.data],
});
