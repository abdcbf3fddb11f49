// A typed usage example of web/dist/attn.mjs, checked (never run) by
//   node_modules/.bin/tsc --noEmit -p tests/js/tsconfig.json
// It calls every function with every option type, and the @ts-expect-error lines prove that the
// types (web/dist/attn.d.ts, written from web/src/attn.d.ts.in and the module's rules) reject wrong usage.
import loadAttn, { relaxedSimdSupported, simdSupported, threadsSupported } from '../../web/dist/attn.mjs';
import type {
  AdditiveOptions,
  AttentionMap,
  Attentions,
  AlignDefaults,
  AlignMethod,
  AlignMethodName,
  AlignMethodRule,
  AlignmentRules,
  LanguagePair,
  PairName,
  AlignOptions,
  AlignResult,
  ExtractMethod,
  Mix,
  StatisticalAligner,
  StatisticalKind,
  Symmetrization,
  Links,
  Model,
  ModelInfo,
  CaptionerInfo,
  CaptionerModel,
  CaptionResult,
  ImageLike,
  TranslateResult,
  AttentionOptions,
  AttentionOverAttentionResult,
  AttentionResult,
  Attn,
  GeneralOptions,
  LoadOptions,
  LocalOptions,
  MaskedSoftmaxOptions,
  MultiHeadOptions,
  MultiHeadResult,
  PoolOptions,
  ProbabilityName,
  Score,
} from '../../web/dist/attn.mjs';

const loadOptions: LoadOptions = { simd: 'auto', print: (text: string) => void text, printErr: console.error };
const attn: Attn = await loadAttn(loadOptions);
const scalar: Attn = await loadAttn({ simd: false });
const defaults: Attn = await loadAttn();
const supported: boolean = simdSupported();
const relaxedSupported: boolean = relaxedSimdSupported();
const best: Attn = await loadAttn({ simd: relaxedSupported ? 'relaxed' : 'auto', warmUp: false });
const build: 'relaxed' | 'simd' | 'scalar' = best.build;
void build;
const simd: boolean = attn.simd;
const instructionSet: string = scalar.instructionSet;
const heap: number = defaults.heapBytes();
const handles: number = attn.liveHandles();
void [supported, simd, instructionSet, heap, handles];

// --- threads ---------------------------------------------------------------------------------

const canShare: boolean = threadsSupported();
const threaded: Attn = await loadAttn({ simd: true, threads: canShare ? 4 : 1, warmUp: false });
const running: number = threaded.threads;
threaded.dispose();
const threadOptions: LoadOptions = { threads: 2 };
// @ts-expect-error threads is a number
await loadAttn({ threads: '2' });
// @ts-expect-error dispose returns nothing
const disposed: Attn = threaded.dispose();
// @ts-expect-error threads is read-only
threaded.threads = 2;
void [running, threadOptions, disposed];

// --- attention(), the worked example and every option ---------------------------------------

const tokens = new Float32Array([1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0.5, 0.5, 0]);
const worked: AttentionResult = attn.attention({ query: tokens, key: tokens, value: tokens, queryLength: 5, keyLength: 5, dim: 4 });
const output: Float32Array = worked.output;
const firstWeight: number | undefined = worked.weights?.[0];
void [output, firstWeight];

const scores: Score[] = ['dot', 'scaled_dot', 'general', 'additive'];
const probabilities: ProbabilityName[] = ['softmax', 'sparsemax', 'hardmax'];
const general: GeneralOptions = { weight: new Float32Array(4 * 3), scale: 0.5 };
const additive: AdditiveOptions = {
  hidden: 8, queryWeight: new Float32Array(8 * 4), keyWeight: new Float32Array(8 * 3), v: new Float32Array(8),
  bias: new Float32Array(8), normalize: true, gain: 2,
};
const monotonic: LocalOptions = { mode: 'monotonic', halfWidth: 2 };
const predictive: LocalOptions = { mode: 'predictive', halfWidth: 3, hidden: 4, positionWeight: new Float32Array(16), positionV: new Float32Array(4) };
const noLocal: LocalOptions = { mode: 'none', halfWidth: 0 };

const everything: AttentionOptions = {
  query: new Float32Array(2 * 5 * 4), key: new Float32Array(2 * 6 * 3), value: new Float32Array(2 * 6 * 7),
  heads: 2, queryLength: 5, keyLength: 6, dim: 4, keyDim: 3, valueDim: 7,
  score: scores[2], general, additive,
  validLength: new Int32Array([6, 4]), mask: new Uint8Array(5 * 6).fill(1), causal: true, maskValue: -1e6,
  probability: probabilities[1], temperature: 0.5,
  local: predictive, hard: 'argmax', dropout: 0, seed: 42,
  returnWeights: true, returnScores: true,
};
const full: AttentionResult = attn.attention(everything);
const indices: Int32Array | undefined = full.indices;
const positions: Float32Array | undefined = full.positions;
const rawScores: Float32Array | undefined = full.scores;
void [indices, positions, rawScores];
attn.attention({ ...everything, validLength: 3, local: monotonic, hard: 'sample' });
attn.attention({ ...everything, local: noLocal, hard: 'none', dropout: 0.1, returnWeights: false });

// --- the other functions ---------------------------------------------------------------------

const row = new Float32Array([1, 0.5, -1]);
const soft: Float32Array = attn.softmax(row);
const warm: Float32Array = attn.softmax(row, { temperature: 2 });
const sparse: Float32Array = attn.sparsemax(row, {});
const hard: Float32Array = attn.hardmax(row);
const dropped: Float32Array = attn.dropout(soft, { rate: 0.1, seed: 3 });
void [warm, sparse, hard, dropped];

const masked: MaskedSoftmaxOptions = {
  scores: new Float32Array(16), batch: 2, rows: 2, cols: 4,
  validLength: new Int32Array([1, 3, 2, 4]), mask: new Uint8Array(16), causal: false, maskValue: -Infinity,
  probability: 'softmax', temperature: 1,
};
const maskedWeights: Float32Array = attn.maskedSoftmax(masked);
void maskedWeights;

const multiHead: MultiHeadOptions = {
  queryInput: new Float32Array(5 * 8), keyValueInput: new Float32Array(7 * 6), queryLength: 5, keyLength: 7,
  modelDim: 8, keyValueDim: 6, heads: 2, keyDim: 4, valueDim: 3,
  queryWeight: new Float32Array(8 * 8), keyWeight: new Float32Array(8 * 6), valueWeight: new Float32Array(6 * 6), outputWeight: new Float32Array(8 * 6),
  queryBias: new Float32Array(8), keyBias: new Float32Array(8), valueBias: new Float32Array(6), outputBias: new Float32Array(8),
  score: 'scaled_dot', probability: 'sparsemax', temperature: 1, dropout: 0, seed: 1, returnWeights: true,
  validLength: new Int32Array([7, 3]), causal: false, maskValue: -1e6,
};
const mha: MultiHeadResult = attn.multiHeadAttention(multiHead);
const mhaWeights: Float32Array | undefined = mha.weights;
void mhaWeights;

const pool: PoolOptions = {
  inputs: new Float32Array(6 * 4), length: 6, dim: 4, hidden: 3,
  weight: new Float32Array(12), bias: new Float32Array(3), context: new Float32Array(3), validLength: 5,
};
const { pooled, weights: poolWeights }: { pooled: Float32Array; weights: Float32Array } = attn.attentionPool(pool);
void [pooled, poolWeights];

const aoa: AttentionOverAttentionResult = attn.attentionOverAttention({
  document: new Float32Array(9 * 4), query: new Float32Array(3 * 4), documentLength: 9, queryLength: 3, dim: 4,
});
const aoaParts: Float32Array[] = [aoa.pairwise, aoa.columnSoftmax, aoa.rowSoftmax, aoa.queryAttention, aoa.documentAttention];
void aoaParts;

// --- wrong usage is rejected -------------------------------------------------------------------

const ok = { query: tokens, key: tokens, value: tokens, queryLength: 5, keyLength: 5, dim: 4 };
// @ts-expect-error: there is no cosine score
attn.attention({ ...ok, score: 'cosine' });
// @ts-expect-error: query must be a Float32Array, not number[]
attn.attention({ ...ok, query: [1, 0, 1, 0] });
// @ts-expect-error: queryLength is required
attn.attention({ query: tokens, key: tokens, value: tokens, keyLength: 5, dim: 4 });
// @ts-expect-error: validLength is a number or an Int32Array
attn.attention({ ...ok, validLength: [2, 3] });
// @ts-expect-error: the mask is a Uint8Array
attn.attention({ ...ok, mask: new Float32Array(25) });
// @ts-expect-error: no such probability function
attn.attention({ ...ok, probability: 'entmax' });
// @ts-expect-error: hard attention is 'none', 'argmax' or 'sample'
attn.attention({ ...ok, hard: true });
// @ts-expect-error: typo in an option name
attn.attention({ ...ok, querylength: 5 });
// @ts-expect-error: general needs its weight
attn.attention({ ...ok, score: 'general', general: { scale: 2 } });
// @ts-expect-error: local's mode is one of three names
attn.attention({ ...ok, local: { mode: 'global', halfWidth: 2 } });
// @ts-expect-error: simd is 'relaxed', true, false or 'auto'
void loadAttn({ simd: 'yes' });
// @ts-expect-error: dropout() needs a rate
attn.dropout(row, { seed: 1 });
// @ts-expect-error: hardmax() takes no temperature
attn.hardmax(row, { temperature: 2 });
// @ts-expect-error: multi-head attention has no additive score
attn.multiHeadAttention({ ...multiHead, score: 'additive' });
// @ts-expect-error: attentionPool's validLength is a single number
attn.attentionPool({ ...pool, validLength: new Int32Array([5]) });
// @ts-expect-error: the result's weights may be absent (returnWeights: false)
const notChecked: Float32Array = worked.weights;
void notChecked;
// @ts-expect-error: simd is read-only
attn.simd = false;

// --- translation models ------------------------------------------------------------------
async function models(attn: Attn, bytes: Uint8Array): Promise<void> {
  const model: Model = await attn.loadModel(bytes);
  const reverse = await attn.loadModel(bytes);
  const info: ModelInfo = model.info;
  const direction: string = info.direction;
  const architecture: 'rnn' | 'transformer' = info.architecture;
  const layersAndHeads: number = info.layers * info.heads;
  const maps: Attentions = model.attentions('The cat.', ['El', 'gato', '.'], { pieces: true });
  const cross: Float32Array = maps.cross.data;
  const [crossLayers, crossHeads, rows, cols]: [number, number, number, number] = maps.cross.shape;
  const selfMap: AttentionMap = maps.decoder;
  const sourceLabels: string[] = maps.source;
  // @ts-expect-error: pieces is a boolean
  model.attentions('a', 'b', { pieces: 'yes' });
  const aligned: AlignResult = model.align('The cat.', ['El', 'gato', '.'], { method: 'grow-diag-final-and', reverse, shift: false });
  const firstLink: [number, number] | undefined = aligned.links[0];
  const weights: Float32Array = aligned.weights;
  const translated: TranslateResult = model.translate('The cat.', { beam: 4 });
  const text: string = translated.text;
  const links: Links = attn.extractLinks({ weights, rows: aligned.targetWords.length, cols: aligned.sourceWords.length, method: 'itermax' });
  const score = attn.alignmentError([links.pharaoh], ['0-0']);
  const aer: number = score.aer;
  attn.symmetrize({ forward: '0-0', backward: '0-0', sourceLength: 1, targetLength: 1 });
  // @ts-expect-error: no such alignment method
  model.align('a', 'b', { method: 'median' });
  // @ts-expect-error: loadModel takes bytes, not a path
  await attn.loadModel('models/en-es-additive.safetensors');
  // @ts-expect-error: reverse is a loaded model
  model.align('a', 'b', { reverse: 'es-en' });
  const segmenter = await attn.loadSegmenter(bytes);
  const tokens: string[] = segmenter.cut('我爱北京');
  const zhWords: string[] = segmenter.words('我 爱 北京');
  const segmented: number = segmenter.wordCount + tokens.length + zhWords.length;
  if (segmented < 0) throw new Error('negative count');
  // @ts-expect-error: cut takes a string
  segmenter.cut(['我']);
  segmenter.delete();
  const hmm = await attn.loadStatisticalAligner(bytes);
  const kind: 'ibm2' | 'hmm' = hmm.kind;
  hmm.align('The cat.', 'El gato.', { symmetrize: 'posterior', threshold: 0.35 });
  model.align('The cat.', 'El gato.', { method: 'hybrid', reverse, statistical: hmm, statisticalWeight: 0.6, posteriorThreshold: 0.35, mix: 'linear' });
  // @ts-expect-error: no such symmetrization
  hmm.align('a', 'b', { symmetrize: 'intersection' });
  // @ts-expect-error: mix is linear or geometric
  model.align('a', 'b', { method: 'hybrid', reverse, statistical: hmm, mix: 'cubic' });
  // @ts-expect-error: a statistical aligner alone is the aligner's align(), not a model's
  model.align('a', 'b', { method: 'hmm' });
  // @ts-expect-error: statistical is a loaded aligner, not the name of a kind
  model.align('a', 'b', { method: 'hybrid', reverse, statistical: 'hmm' });
  // @ts-expect-error: extractLinks reads one matrix: no method that needs a second model
  attn.extractLinks({ weights, rows: 1, cols: 1, method: 'union' });
  void [direction, firstLink, text, aer, kind, architecture, layersAndHeads, cross, crossLayers, crossHeads, rows, cols, selfMap, sourceLabels];
  hmm.delete();
  model.delete();
  reverse.delete();
}
void models;

// --- the captioner ----------------------------------------------------------------------------
async function captions(attn: Attn, bytes: Uint8Array, image: ImageLike): Promise<void> {
  const captioner = await attn.loadModel<CaptionerModel>(bytes);
  const info: CaptionerInfo = captioner.info;
  const isCaptioner: boolean = info.architecture === 'captioner';
  const hexcodes: string[] = info.objects.map((object) => object.hexcode);
  const [gridHeight, gridWidth]: readonly [number, number] = info.grid;
  const result: CaptionResult = captioner.caption(image, { beam: 3 });
  const sampled = captioner.caption({ data: new Uint8Array(4), width: 1, height: 1 }, { hard: true, seed: 7 });
  const words: string[] = result.words;
  const maps: Float32Array = result.attention.data;
  const [wordCount, height, width] = result.attention.shape;
  const logProbs: Float32Array = sampled.logProbs;
  const cells: Int32Array = sampled.cells;
  void [isCaptioner, hexcodes, gridHeight, gridWidth, words, maps, wordCount, height, width, logProbs, cells, info.imageSize];
  // @ts-expect-error: an image has width and height
  captioner.caption({ data: new Uint8Array(4) });
  // @ts-expect-error: hard is true or false
  captioner.caption(image, { hard: 'yes' });
  // @ts-expect-error: a captioner does not translate
  captioner.translate('a cat');
  // @ts-expect-error: the objects are read-only
  info.objects = [];
  captioner.delete();
}
void captions;

// --- the alignment rules (attn.alignment) --------------------------------------------------
async function rules(attn: Attn, model: Model, reverse: Model, aligner: StatisticalAligner): Promise<void> {
  const alignment: AlignmentRules = attn.alignment;
  const defaults: AlignDefaults = alignment.defaults;
  const first: AlignMethodRule | undefined = alignment.methods[0];
  const name: AlignMethodName | undefined = first?.name;
  const needs: boolean[] = alignment.methods.flatMap((m) => [m.needsModel, m.needsReverse, m.needsStatistical]);
  const described: string[] = alignment.methods.map((m) => m.description);
  const kinds: readonly StatisticalKind[] = alignment.statisticalKinds;
  const mixes: readonly Mix[] = alignment.mixes;
  const symmetrizations: readonly Symmetrization[] = alignment.symmetrizations;
  const numbers: number[] = [defaults.statisticalWeight, defaults.posteriorThreshold, defaults.threshold];
  // every option of a hybrid alignment, spelled out from the defaults
  const options: AlignOptions = {
    method: defaults.method, reverse, statistical: aligner, statisticalWeight: defaults.statisticalWeight,
    mix: defaults.mix, symmetrize: defaults.symmetrize, posteriorThreshold: defaults.posteriorThreshold,
    shift: true, threshold: defaults.threshold,
  };
  const result: AlignResult = model.align('The cat.', 'El gato.', options);
  const byDefault: AlignResult = aligner.align('The cat.', 'El gato.', { symmetrize: defaults.symmetrize, threshold: defaults.posteriorThreshold });
  const modelMethods: AlignMethod[] = alignment.methods.filter((m) => m.needsModel).map((m) => m.name as AlignMethod);
  const extraction: ExtractMethod = 'itermax';
  void [name, needs, described, kinds, mixes, symmetrizations, numbers, result, byDefault, modelMethods, extraction];
  // a language pair's files and defaults, as the model index lists them too
  const italian: LanguagePair | undefined = alignment.pairs.find((pair) => pair.name === 'en-it');
  const hmmFile: string | undefined = italian?.files.hmm;
  const pairName: PairName = 'en-sl';
  const pairMethod: AlignMethodName | undefined = italian?.method;
  const pairThreshold: number | undefined = italian?.posteriorThreshold;
  void [hmmFile, pairName, pairMethod, pairThreshold];
  // @ts-expect-error: not a shipped pair
  const unknownPair: PairName = 'en-ja';
  void unknownPair;
  // @ts-expect-error: the rules are read-only
  alignment.defaults = defaults;
  // @ts-expect-error: and so are their fields
  defaults.threshold = 0.5;
  // @ts-expect-error: no such kind of aligner
  const unknownKind: StatisticalKind = 'ibm4';
  void unknownKind;
}
void rules;
