// The explorer's compute thread: the WebAssembly module and the translation models live here, so
// typing on the page never waits for a forced decoding. Messages:
//   {type: 'init', simd}                      -> {type: 'ready', simd, instructionSet, alignment, models: {forward}}
//                                                then {type: 'extras', models: {reverse, general}, statistical}
//                                                (the optional models load after the page is ready)
//   {type: 'align', id, source, target, ...}  -> {type: 'result', id, result} | {type: 'error', id, message}
//   {type: 'translate', id, text, beam}       -> same
// `alignment` is the library's alignment rules (attn.alignment): the page lists its methods from
// them, and this worker decides from them what a method waits for and loads.
import loadAttn from './dist/attn.mjs';
import { methodRule, readsOneMatrix, statisticalKindOf } from './methods.mjs';

const MODELS = {
  forward: 'en-es-additive.safetensors',
  reverse: 'es-en-additive.safetensors',
  general: 'en-es-general.safetensors',
};
// IBM Model 2 and the HMM aligner, for comparison and for the methods that mix one with attention;
// each is filed under the kind its file declares.
const STATISTICAL_FILES = ['ibm2-en-es.safetensors', 'hmm-en-es.safetensors'];
const statistical = {};

let attn = null;
const models = {};

async function fetchBytes(file) {
  const response = await fetch(new URL(`./dist/models/${file}`, import.meta.url));
  if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

const fetchModel = async (file) => attn.loadModel(await fetchBytes(file));

// The reverse and general models and the statistical aligners: loaded after 'ready', so the page
// is usable once the forward model is in; requests that need them wait for them.
let extras = Promise.resolve();

async function loadExtras(shipped) {
  const names = ['reverse', 'general'].filter((name) => shipped.has(MODELS[name]));
  const loaded = await Promise.all(names.map((name) => fetchModel(MODELS[name])));
  names.forEach((name, i) => { models[name] = loaded[i]; });
  for (const file of STATISTICAL_FILES.filter((name) => shipped.has(name))) {
    const aligner = await attn.loadStatisticalAligner(await fetchBytes(file));
    statistical[aligner.kind] = aligner;
  }
  return {
    type: 'extras',
    models: Object.fromEntries(Object.entries(models).map(([name, model]) => [name, model.info])),
    statistical: attn.alignment.statisticalKinds.every((kind) => statistical[kind]),
  };
}

async function init(simd) {
  attn = await loadAttn({ simd });
  const index = await fetch(new URL('./dist/models/index.json', import.meta.url));
  if (!index.ok) throw new Error(`the model index: HTTP ${index.status}`);
  const shipped = new Set((await index.json()).models);
  if (!shipped.has(MODELS.forward)) throw new Error(`the build ships no ${MODELS.forward}`);
  models.forward = await fetchModel(MODELS.forward);
  // The extras are optional: the page works without them and says so.
  extras = loadExtras(shipped).then(
    (status) => self.postMessage(status),
    (error) => self.postMessage({ type: 'extras', models: {}, statistical: false, error: error.message }));
  return {
    type: 'ready', simd: attn.simd, instructionSet: attn.instructionSet, alignment: attn.alignment,
    models: { forward: models.forward.info },
  };
}

// What a method needs comes from the library's rules; the settings the page does not offer
// (the hybrid's weight, mix, symmetrization and threshold) are left to the library's defaults.
async function align({ source, target, method, shift, threshold, model = 'forward' }) {
  const rules = attn.alignment;
  const rule = methodRule(rules, method);
  // Only the forward model is in before 'ready': anything else waits for the extras.
  if (model !== 'forward' || !readsOneMatrix(rule)) await extras;
  const chosen = rule.needsModel ? attentionModel(model, rule) : null;
  const aligner = rule.needsStatistical ? statisticalAligner(rules, rule) : null;
  const started = performance.now();
  const result = chosen
    ? chosen.align(source, target, {
      method, shift, threshold, ...(rule.needsReverse ? { reverse: models.reverse } : {}), ...(aligner ? { statistical: aligner } : {}),
    })
    : aligner.align(source, target);
  return { ...result, milliseconds: performance.now() - started };
}

// The attention model a method reads, once the ones it needs are in.
function attentionModel(name, rule) {
  if (!models[name]) throw new Error(`the ${name} model is not available`);
  if (rule.needsReverse && !models.reverse) throw new Error(`${rule.name} needs the es-en model, which is not available`);
  return models[name];
}

function statisticalAligner(rules, rule) {
  const kind = statisticalKindOf(rules, rule);
  if (!statistical[kind]) throw new Error(`${rule.name} needs the ${kind} aligner, which is not available in this build`);
  return statistical[kind];
}

function translate({ text, beam }) {
  return models.forward.translate(text, { beam });
}

self.onmessage = async ({ data }) => {
  try {
    if (data.type === 'init') {
      self.postMessage(await init(data.simd));
      return;
    }
    const result = data.type === 'align' ? await align(data) : data.type === 'translate' ? translate(data) : null;
    if (!result) throw new Error(`unknown request '${data.type}'`);
    self.postMessage({ type: 'result', id: data.id, result });
  } catch (error) {
    self.postMessage({ type: data.type === 'init' ? 'failed' : 'error', id: data.id, message: error.message });
  }
};
