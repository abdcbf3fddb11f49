// The explorer's compute thread: the WebAssembly module and the translation models live here, so
// typing on the page never waits for a forced decoding. Messages:
//   {type: 'init', simd}                      -> {type: 'ready', simd, instructionSet, models: {forward}}
//                                                then {type: 'extras', models: {reverse, general}, statistical}
//                                                (the optional models load after the page is ready)
//   {type: 'align', id, source, target, ...}  -> {type: 'result', id, result} | {type: 'error', id, message}
//   {type: 'translate', id, text, beam}       -> same
import loadAttn from './dist/attn.mjs';

const MODELS = {
  forward: 'en-es-additive.safetensors',
  reverse: 'es-en-additive.safetensors',
  general: 'en-es-general.safetensors',
};
// IBM Model 2 for comparison; the HMM aligner for comparison and, mixed with attention, for
// 'hybrid' with attn align's defaults (the best measured: models/MODEL_CARD.md).
const STATISTICAL = { ibm2: 'ibm2-en-es.safetensors', hmm: 'hmm-en-es.safetensors' };
const HYBRID = { statisticalWeight: 0.6, posteriorThreshold: 0.35 };
const HMM_LINKS = { symmetrize: 'posterior', threshold: 0.35 };
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
  for (const [name, file] of Object.entries(STATISTICAL)) {
    if (!shipped.has(file)) continue;
    statistical[name] = await attn.loadStatisticalAligner(await fetchBytes(file));
  }
  return {
    type: 'extras',
    models: Object.fromEntries(Object.entries(models).map(([name, model]) => [name, model.info])),
    statistical: Boolean(statistical.ibm2 && statistical.hmm),
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
  return { type: 'ready', simd: attn.simd, instructionSet: attn.instructionSet, models: { forward: models.forward.info } };
}

// The methods that need only the forward model, loaded before 'ready'.
const FORWARD_ONLY = new Set(['argmax', 'threshold', 'itermax']);

async function align({ source, target, method, shift, threshold, model = 'forward' }) {
  if (!FORWARD_ONLY.has(method) || model !== 'forward') await extras;
  if (method === 'ibm2' || method === 'hmm') {
    const aligner = statistical[method];
    if (!aligner) throw new Error(`the ${method === 'hmm' ? 'HMM' : 'IBM Model 2'} aligner is not available in this build`);
    const started = performance.now();
    return { ...aligner.align(source, target, method === 'hmm' ? HMM_LINKS : undefined), milliseconds: performance.now() - started };
  }
  const chosen = models[model];
  if (!chosen) throw new Error(`the ${model} model is not available`);
  const needsReverse = ['intersection', 'union', 'grow-diag-final-and', 'soft-itermax', 'hybrid'].includes(method);
  if (needsReverse && !models.reverse) throw new Error(`${method} needs the es-en model, which is not available`);
  if (method === 'hybrid' && !statistical.hmm) throw new Error('hybrid needs the HMM aligner, which is not available');
  const started = performance.now();
  const result = chosen.align(source, target, {
    method, shift, threshold,
    ...(needsReverse ? { reverse: models.reverse } : {}),
    ...(method === 'hybrid' ? { statistical: statistical.hmm, ...HYBRID } : {}),
  });
  return { ...result, milliseconds: performance.now() - started };
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
