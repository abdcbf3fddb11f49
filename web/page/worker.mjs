// The explorer's model thread: the WebAssembly module and the models live here, so typing on the
// page never waits for a forced decoding. Only what the first view of the chosen language pair
// needs is fetched at start (the module, the model index, then that pair's first model: its HMM
// aligner, or the attention model of a pair with a file of its own); the pair's other
// models are fetched when a request first needs them, and another pair's only once it is chosen.
// A Chinese pair's text is cut into words here by the module's jieba segmenter, whose data is
// fetched beside the pair's first model, only when such a pair is chosen.
// Downloads report their progress. Messages (`pair`: a name of the index, 'en-es' when left out):
//   {type: 'init', simd, pair}                -> {type: 'module', simd, build, instructionSet, threads, alignment, pairs}
//                                                then {type: 'ready', pair, models: {forward?, statistical?}} (or 'failed')
//   {type: 'align', id, pair, source, target, ...}  -> {type: 'result', id, result} | {type: 'error', id, message}
//                                                (result.alignmentShift: the model's, where a model drew it)
//                                                (result.familiarity: web/page/familiarity.mjs's {level, rank, text, score},
//                                                where the pair's forward model drew it and it was measured;
//                                                with preview: true, the HMM's answer while the model downloads)
//   {type: 'translate', id, pair, text, beam, model?} -> same (model: a file stem of the pair's, else its forward model;
//                                                a Transformer of alignmentShift 1 gives every head's row of a
//                                                word at the step where the word is the decoder's input)
//   {type: 'attentions', id, source, target, model, pieces}
//                                             -> every map of `model` (a shipped file's stem), with its info
//   while fetching a file                     -> {type: 'progress', file, what, loaded, total} (total 0: unknown)
//   once a model file is loaded               -> {type: 'loaded', file, what}
//   {type: 'caption' | 'captionPhoto' | 'captionByo', id, ...} -> the image captioner's (caption-worker.mjs)
// `alignment` is the library's alignment rules (attn.alignment): the page lists its methods from
// them, and this worker decides from them what a method waits for and loads. `pairs` is the model
// index's (web/dist/models/index.json, made from models/pairs.json): each pair's files by role.
import loadAttn from './dist/attn.mjs';
import { describe as describeFamiliarity, pieceScore } from './familiarity.mjs';
import { methodRule, statisticalKindOf } from './methods.mjs';
import { answerRequests } from './worker-client.mjs';
import { captionHandlers } from './caption-worker.mjs';

// The attention models of a pair, by role (the index's file roles).
const ROLES = {
  forward: (pair) => `the ${pair.name} model`,
  reverse: (pair) => `the ${pair.language}-en model`,
  general: () => 'the general-attention model',
};
const DEFAULT_PAIR = 'en-es';

let attn = null;
let shipped = new Set();
let pairs = {};  // the index's pairs by name, each with its name
let multilingual = {};  // the index's multilingual files -> the languages each writes
let familiarity = {};  // the index's held-out score percentiles by direction (web/page/familiarity.mjs)
// what the shipped translation models learned from, in a few words (docs/DATA_CARD.md)
const TRAINING_TEXT = 'the software help pages and interface text it was trained on';
const TRAINING_TEXT_PROSE = 'the software help pages, interface text, handbook and stories it was trained on';
const loading = {};  // name -> promise of the loaded model (or, for 'statistical', of every aligner by kind)
const loaded = new Set();  // the model files whose promise has resolved

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

// The statistical aligners' downloads in flight (their bytes, not their loading).
const aligning = new Set();

// A shipped model file, fetched and loaded once. It waits for any statistical aligner still
// downloading: the pair's first figure is the aligner's, and on a slow network it then comes when
// the aligner's bytes are in rather than when both files' are (10 Mbit/s, en-hu's 3.3 MB HMM beside
// the 8.3 MB Transformer; tools/bench/page.mjs --pair).
function modelFile(file, what) {
  if (!shipped.has(file)) return Promise.reject(new Error(`${what} is not shipped with this build`));
  loading[file] ??= Promise.allSettled(aligning).then(() => fetchBytes(file, what)).then(async (bytes) => {
    const model = await attn.loadModel(bytes);
    loaded.add(file);
    self.postMessage({ type: 'loaded', file, what });
    return model;
  }, (error) => {
    delete loading[file];  // a failed download is tried again by the next request that needs it
    throw error;
  });
  return loading[file];
}

// The Chinese segmenter (jieba's dictionary, dist/models/zh-jieba.txt.gz, 2 MB gzipped, which
// attn.loadSegmenter inflates with the browser's DecompressionStream): fetched the first time a
// Chinese pair's text is read, loaded once, and kept.
let segmenter = null;
function chineseSegmenter() {
  segmenter ??= fetchBytes('zh-jieba.txt.gz', 'the Chinese segmenter').then((bytes) => attn.loadSegmenter(bytes), (error) => {
    segmenter = null;  // a failed download is tried again by the next text that needs it
    throw error;
  });
  return segmenter;
}

// `text` as the models of `language` read it: Chinese cut into words as `attn segment --lang zh`
// cuts it (Segmenter::words: text already spaced between Han characters is taken as given), one
// space between them; any other language as typed (the aligners split it themselves).
async function wordsOf(language, text) {
  if (language !== 'zh') return text;
  return (await chineseSegmenter()).words(text).join(' ');
}

// The pair called `name`, or an error naming the ones this build ships.
function pairOf(name = DEFAULT_PAIR) {
  const pair = pairs[name];
  if (!pair) throw new Error(`unknown language pair '${name}' (this build ships: ${Object.keys(pairs).join(', ')})`);
  return pair;
}

// The error for a pair that ships only its statistical aligner, asked for a `what` model.
const onlyStatistical = (pair, what) =>
  new Error(`no ${what} is shipped for ${pair.name} (English–${pair.languageName}) yet: only its statistical aligner`);

// A multilingual model (one file for every pair, docs/MODEL_FORMAT.md §7.1) set to write
// `language`, made once per language and kept; a model of one direction as it is.
const targeted = new Map();  // `${file}:${language}` -> the model set to write it
function writing(file, loaded, language) {
  if (!loaded.info.languages) return loaded;
  const key = `${file}:${language}`;
  if (!targeted.has(key)) targeted.set(key, loaded.forTarget(language));
  return targeted.get(key);
}

// The attention model of `pair` in `role` (forward, reverse, general), or an error saying the pair has none.
async function model(pair, role) {
  const file = pair.files[role];
  if (!file) {
    throw pair.files.forward ? new Error(`${ROLES[role](pair)} is not shipped with this build`) : onlyStatistical(pair, 'attention model');
  }
  return writing(file, await modelFile(file, ROLES[role](pair)), role === 'reverse' ? 'en' : pair.language);
}

// The translation models the build ships, by name: the file stem of a model of one direction
// (en-es-additive, …), and for a multilingual file one name per direction of each pair it serves,
// as the index gives them ('en-fr-transformer' and 'fr-en-transformer', the library's names and the
// command line's), each -> {file, language}.
const statisticalFiles = () => new Set(Object.values(pairs).flatMap((pair) => [pair.files.hmm, pair.files.ibm2]));
function modelNames() {
  const names = new Map();
  for (const file of [...shipped].filter((f) => f.endsWith('.safetensors') && !statisticalFiles().has(f))) {
    const languages = multilingual[file];
    if (!languages) {
      names.set(file.replace(/\.safetensors$/, ''), { file, language: null });
      continue;
    }
    for (const pair of Object.values(pairs).filter((p) => p.files.forward === file && languages.includes(p.language))) {
      names.set(pair.directionModels.forward, { file, language: pair.language });
      names.set(pair.directionModels.reverse, { file, language: 'en' });
    }
  }
  return names;
}
const translationModels = () => [...modelNames().keys()].sort();

// The statistical aligner of `kind` ('hmm', 'ibm2') of `pair` that `method` needs, fetched the first
// time it is needed (the hybrid needs the HMM only: IBM Model 2's file waits for its own method).
function statisticalAligner(pair, kind, method) {
  const file = pair.files[kind];
  if (!file) return Promise.reject(new Error(`${method} needs the ${kind} aligner, which is not shipped for ${pair.name}`));
  const key = `statistical:${pair.name}:${kind}`;
  loading[key] ??= (async () => {
    const bytes = fetchBytes(file, `the ${pair.name} statistical aligner`);
    aligning.add(bytes);
    bytes.finally(() => aligning.delete(bytes)).catch(() => {});
    const aligner = await attn.loadStatisticalAligner(await bytes);
    if (aligner.kind !== kind) throw new Error(`${file} holds a ${aligner.kind} aligner, not ${kind}`);
    self.postMessage({ type: 'loaded', file, what: `the ${pair.name} statistical aligner` });
    return aligner;
  })().catch((error) => {
    delete loading[key];
    throw error;
  });
  return loading[key];
}

// What the first view of a pair needs: its own forward attention model, else its statistical
// aligner (a pair whose attention model is the multilingual file, every shipped pair, starts from
// its HMM, 0.7-5.0 MB; the 8.3 MB file follows once the HMM is in, when the hybrid asks for it).
async function firstModels(pair) {
  if (pair.files.forward && !pair.multilingual) return { forward: (await model(pair, 'forward')).info };
  const rules = attn.alignment;
  const kind = statisticalKindOf(rules, methodRule(rules, pair.method));
  // a Chinese pair's first figure needs the segmenter too: both downloads at once
  await Promise.all([statisticalAligner(pair, kind, pair.method), wordsOf(pair.language, '')]);
  return { statistical: [kind] };
}

// The module and the index, then (without waiting for it) what the chosen pair's first view
// needs: requests may come once the module is in.
async function init({ simd, pair: chosen = DEFAULT_PAIR }) {
  attn = await loadAttn({ simd });
  const response = await fetch(new URL('./dist/models/index.json', import.meta.url));
  if (!response.ok) throw new Error(`the model index: HTTP ${response.status}`);
  const index = await response.json();
  shipped = new Set(index.models);
  multilingual = index.multilingual ?? {};
  familiarity = index.familiarity ?? {};
  pairs = Object.fromEntries(Object.entries(index.pairs ?? {}).map(([name, pair]) =>
    [name, { ...pair, name, multilingual: Boolean(multilingual[pair.files.forward]) }]));
  self.postMessage({
    type: 'module', simd: attn.simd, build: attn.build, instructionSet: attn.instructionSet, threads: attn.threads, alignment: attn.alignment,
    pairs, models: translationModels(), facts: index.facts ?? {},
    // the names that are directions of a multilingual file (the rest are files of their own)
    directions: [...modelNames()].filter(([, named]) => named.language).map(([name]) => name),
  });
  const pair = pairOf(pairs[chosen] ? chosen : DEFAULT_PAIR);
  firstModels(pair).then((models) => self.postMessage({ type: 'ready', pair: pair.name, models }),
    (error) => self.postMessage({ type: 'failed', message: error.message }));
}

// What a method needs comes from the library's rules; the settings the page does not offer
// (the hybrid's weight, mix, symmetrization) are left to the library's defaults, and a statistical
// aligner alone links at its pair's posterior threshold (models/pairs.json). Every method attaches
// English articles where the pair does (attachArticles), and the hybrid links words that are each
// other's best where the pair's does (mutualBest), as `attn align --pair` does.
async function align({ pair: name, source, target: typed, method: asked, shift, threshold: given, model: role = 'forward', preview }) {
  const pair = pairOf(name);
  const target = await wordsOf(pair.language, typed);
  // 'attention' is the pair's best attention-only method, with its threshold (models/pairs.json)
  const method = asked === 'attention' ? pair.attentionMethod : asked;
  const threshold = asked === 'attention' ? pair.attentionThreshold : given;
  const rules = attn.alignment;
  const rule = methodRule(rules, method);
  if (preview) {
    const early = await previewWhileLoading(pair, rule, role, source, target);
    if (early) return early;
  }
  const chosen = rule.needsModel ? await model(pair, role) : null;
  const reverse = rule.needsReverse ? await model(pair, 'reverse') : null;
  let aligner = null;
  if (rule.needsStatistical) {
    const kind = statisticalKindOf(rules, rule);
    aligner = await statisticalAligner(pair, kind, rule.name);
  }
  const started = performance.now();
  const result = chosen
    ? chosen.align(source, target, {
      method, shift, threshold, attachArticles: pair.attachArticles, ...(reverse ? { reverse } : {}),
      // the pair's own mix, as `attn align --pair` uses it
      ...(aligner ? {
        statistical: aligner, statisticalWeight: pair.statisticalWeight, posteriorThreshold: pair.posteriorThreshold,
        mutualBest: pair.mutualBest,
      } : {}),
    })
    : aligner.align(source, target, { threshold: pair.posteriorThreshold, attachArticles: pair.attachArticles });
  const milliseconds = performance.now() - started;
  // how far the pair is from the model's data: its forced decoding's log-probability per piece
  // among held-out pairs' (only where the method's model is the pair's forward one, measured)
  const measured = familiarity[pair.name];
  const reference = chosen && role === 'forward' && measured?.file === pair.files.forward ? measured.forced : null;
  return {
    ...result, milliseconds, ...(chosen ? { alignmentShift: chosen.info.alignmentShift ?? 0 } : {}),
    ...(reference ? { familiarity: familiarOf(chosen, source, target, reference, 'pair') } : {}),
  };
}

// With `preview`, a method whose attention model is still downloading (the page's first minutes: the
// multilingual Transformer is 8 MB, the pair's HMM 1-3 MB) is answered at once by the pair's HMM
// alone, marked {preview: {method: 'hmm', waitingFor: [files]}}, while the download goes on; the
// page draws it and asks again without `preview`. Null where nothing is left to wait for.
async function previewWhileLoading(pair, rule, role, source, target) {
  if (!rule.needsModel || !pair.files.hmm) return null;
  const roles = rule.needsReverse ? [role, 'reverse'] : [role];
  const waitingFor = [...new Set(roles.map((r) => pair.files[r]).filter((file) => file && !loaded.has(file)))];
  if (waitingFor.length === 0) return null;
  for (const r of roles) model(pair, r).catch(() => {});  // started now; its error reaches the request that waits for it
  let aligner;
  try {
    aligner = await statisticalAligner(pair, 'hmm', 'hmm');
  } catch {
    return null;  // no HMM to show meanwhile: the method's own request waits for its model
  }
  const started = performance.now();
  const result = aligner.align(source, target, { threshold: pair.posteriorThreshold, attachArticles: pair.attachArticles });
  return { ...result, milliseconds: performance.now() - started, preview: { method: 'hmm', waitingFor } };
}

// web/page/familiarity.mjs's sentence for `target` forced after `source` through `model`; undefined
// (no line) where the model cannot score the pair, which leaves the figure as it is.
// What a model learned from, as the familiarity line names it: the file's record of its corpora
// (info.training's "corpora": "prose:1.5" where it also read the handbook and stories).
function trainingText(info) {
  let corpora;
  try {
    corpora = String(JSON.parse(info.training ?? '{}').corpora ?? '');
  } catch {
    return TRAINING_TEXT;  // no record: the software text every file learned from
  }
  return corpora.split(',').some((item) => item.split(':')[0] === 'prose') ? TRAINING_TEXT_PROSE : TRAINING_TEXT;
}

function familiarOf(model, source, target, reference, what) {
  let score;
  try {
    score = pieceScore(model.attentions(source, target, { pieces: true, logProbs: true }));
  } catch {
    return undefined;
  }
  if (Number.isNaN(score)) return undefined;
  return { score, ...describeFamiliarity(score, reference, { what, data: trainingText(model.info) }) };
}

// The translation model called `stem` (en-es-additive, en-fr-transformer, …).
async function modelByStem(stem) {
  const named = modelNames().get(stem);
  if (!named) throw new Error(`model '${stem}' is not shipped with this build`);
  const loaded = await modelFile(named.file, named.language ? 'the multilingual Transformer' : `the ${stem} model`);
  return named.language ? writing(named.file, loaded, named.language) : loaded;
}

// A translation by the model whose file stem is `model` (by default the pair's forward one), with
// every layer's and head's cross-attention of its output and the model's info. A pair without a
// translation model says so rather than translating with another pair's.
async function translate({ pair: name, text, beam, model: stem }) {
  const pair = pairOf(name);
  if (!pair.files.forward) throw onlyStatistical(pair, 'translation model');
  if (stem && !stem.startsWith(`${pair.name}-`) && !stem.startsWith(`${pair.language}-en-`)) {
    throw new Error(`model '${stem}' translates neither ${pair.name} nor ${pair.language}-en`);
  }
  const chosen = stem ? await modelByStem(stem) : await model(pair, 'forward');
  // every head's row of a word where the model's metadata says its aligning head holds the word
  // Chinese input (a model translating from the pair's language) cut into words as the aligners' is
  const input = stem?.startsWith(`${pair.language}-en-`) ? await wordsOf(pair.language, text) : text;
  const result = chosen.translate(input, { beam, shift: Boolean(chosen.info.alignmentShift) });
  // the direction the model translates (a stem names it: 'fr-en-transformer'), and how far the
  // input is from its data: the translation's log-probability per piece among held-out ones'
  const direction = stem ? stem.split('-').slice(0, 2).join('-') : pair.name;
  const file = stem ? modelNames().get(stem).file : pair.files.forward;
  const measured = familiarity[direction];
  const reference = result.text.trim() && measured?.file === file ? measured.translated : null;
  return { ...result, info: chosen.info, ...(reference ? { familiarity: familiarOf(chosen, input, result.text, reference, 'translation') } : {}) };
}

// Every attention map of a pair through the model whose file stem is `model`.
async function attentions({ source: typedSource, target: typedTarget, model: stem, pieces }) {
  const chosen = await modelByStem(stem);
  // the stem names the direction ('en-zh-…'): each side's text as its language's models read it
  const [from, to] = stem.split('-');
  const [source, target] = await Promise.all([wordsOf(from, typedSource), wordsOf(to, typedTarget)]);
  const started = performance.now();
  // over words, a word's rows where the model's metadata says its aligning head holds the word;
  // pieces keep the raw rows (the view says so)
  const maps = chosen.attentions(source, target, { pieces: Boolean(pieces), shift: !pieces && Boolean(chosen.info.alignmentShift) });
  return { ...maps, info: chosen.info, milliseconds: performance.now() - started };
}

answerRequests({
  init, handlers: { align, translate, attentions, ...captionHandlers(() => modelFile('captioner.safetensors', 'the image captioner')) },
  transfer: (result) => [result.weights, result.cross?.data, result.encoder?.data, result.decoder?.data, result.attention?.data],
});
