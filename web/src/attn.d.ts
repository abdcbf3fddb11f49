// Types of web/dist/attn.mjs, attnscope's WebAssembly module. Hand-written; checked by
// `tsc --noEmit` against tests/js/typed_usage.ts. Shapes are row-major, in brackets.

export type Score = 'dot' | 'scaled_dot' | 'general' | 'additive';
export type ProbabilityName = 'softmax' | 'sparsemax' | 'hardmax';

export interface LoadOptions {
  /** Which build to load: 'auto' (default) picks SIMD128 where the engine validates it. */
  simd?: boolean | 'auto';
  /** Where the module's stdout/stderr lines go (default: dropped / console.warn). */
  print?: (text: string) => void;
  printErr?: (text: string) => void;
  /** Run a few milliseconds of attention at load so that V8 starts optimizing the kernels before
   * the first real call (default true). */
  warmUp?: boolean;
}

export interface MaskOptions {
  /** Keys at index >= the length are masked: one number for all, or one per head (or per query row). */
  validLength?: number | Int32Array;
  /** Nonzero = may attend: [queryLength][keyLength] shared by heads, or [heads][queryLength][keyLength]. */
  mask?: Uint8Array;
  /** Query i sees keys 0..i (top-left aligned). */
  causal?: boolean;
  /** Score given to masked keys (default -Infinity; d2l uses -1e6). Fully masked rows are all zeros. */
  maskValue?: number;
}

export interface GeneralOptions {
  /** W [dim][keyDim]: score = scale * q^T W k */
  weight: Float32Array;
  /** Luong's scaled form g (default 1). */
  scale?: number;
}

export interface AdditiveOptions {
  hidden: number;
  /** W_q [hidden][dim] */
  queryWeight: Float32Array;
  /** W_k [hidden][keyDim] */
  keyWeight: Float32Array;
  /** v [hidden]: score = v^T tanh(W_q q + W_k k + b) */
  v: Float32Array;
  /** b [hidden] inside the tanh */
  bias?: Float32Array;
  /** Weight-normalized form: v replaced by gain * v / |v|. */
  normalize?: boolean;
  gain?: number;
}

export interface LocalOptions {
  /** local-m (p_t = t) or local-p (p_t = S sigmoid(v_p^T tanh(W_p q_t)), Gaussian sigma = D/2). */
  /** Default 'monotonic'. */
  mode?: 'none' | 'monotonic' | 'predictive';
  /** D: keys in [p_t - D, p_t + D]; required unless mode is 'none'. */
  halfWidth?: number;
  /** local-p only: W_p [hidden][dim], v_p [hidden] */
  hidden?: number;
  positionWeight?: Float32Array;
  positionV?: Float32Array;
}

export interface AttentionOptions extends MaskOptions {
  /** [heads][queryLength][dim] */
  query: Float32Array;
  /** [heads][keyLength][keyDim] */
  key: Float32Array;
  /** [heads][keyLength][valueDim] */
  value: Float32Array;
  heads?: number;
  queryLength: number;
  keyLength: number;
  dim: number;
  /** Defaults to dim. */
  valueDim?: number;
  /** Defaults to dim; only general and additive scores allow another size. */
  keyDim?: number;
  /** Default 'scaled_dot'. */
  score?: Score;
  general?: GeneralOptions;
  additive?: AdditiveOptions;
  /** Default 'softmax'. */
  probability?: ProbabilityName;
  /** Scores are divided by it before the probability function (default 1). */
  temperature?: number;
  local?: LocalOptions;
  /** Hard attention: one key per query, by argmax or sampled from the weights with `seed`. */
  hard?: 'none' | 'argmax' | 'sample';
  /** Dropout rate on the weights (default 0: off). */
  dropout?: number;
  /** Seed for dropout and sampling (default 0). */
  seed?: number;
  /** Default true. */
  returnWeights?: boolean;
  /** The score function's values before masking (default false). */
  returnScores?: boolean;
}

export interface AttentionResult {
  /** [heads][queryLength][valueDim] */
  output: Float32Array;
  /** [heads][queryLength][keyLength], unless returnWeights is false */
  weights?: Float32Array;
  /** [heads][queryLength][keyLength], with returnScores */
  scores?: Float32Array;
  /** [heads][queryLength]: the chosen key of hard attention, -1 for a fully masked row */
  indices?: Int32Array;
  /** [heads][queryLength]: local attention's centre p_t */
  positions?: Float32Array;
}

export interface MaskedSoftmaxOptions extends MaskOptions {
  /** [batch][rows][cols] */
  scores: Float32Array;
  batch?: number;
  rows?: number;
  cols: number;
  probability?: ProbabilityName;
  temperature?: number;
}

export interface MultiHeadOptions extends MaskOptions {
  /** [queryLength][modelDim] */
  queryInput: Float32Array;
  /** [keyLength][keyValueDim]; omit for self-attention */
  keyValueInput?: Float32Array;
  queryLength: number;
  keyLength?: number;
  modelDim: number;
  keyValueDim?: number;
  heads: number;
  /** Per head; default modelDim / heads. */
  keyDim?: number;
  /** Per head; default keyDim. */
  valueDim?: number;
  /** [heads*keyDim][modelDim] (PyTorch Linear layout: [out][in]) */
  queryWeight: Float32Array;
  /** [heads*keyDim][keyValueDim] */
  keyWeight: Float32Array;
  /** [heads*valueDim][keyValueDim] */
  valueWeight: Float32Array;
  /** [modelDim][heads*valueDim] */
  outputWeight: Float32Array;
  queryBias?: Float32Array;
  keyBias?: Float32Array;
  valueBias?: Float32Array;
  outputBias?: Float32Array;
  score?: 'dot' | 'scaled_dot';
  probability?: ProbabilityName;
  temperature?: number;
  dropout?: number;
  seed?: number;
  returnWeights?: boolean;
}

export interface MultiHeadResult {
  /** [queryLength][modelDim] */
  output: Float32Array;
  /** [heads][queryLength][keyLength] */
  weights?: Float32Array;
}

export interface PoolOptions {
  /** [length][dim] */
  inputs: Float32Array;
  length: number;
  dim: number;
  hidden: number;
  /** W [hidden][dim] */
  weight: Float32Array;
  /** b [hidden] */
  bias?: Float32Array;
  /** u_w [hidden], the learned context vector */
  context: Float32Array;
  validLength?: number;
}

export interface AttentionOverAttentionOptions {
  /** [documentLength][dim] */
  document: Float32Array;
  /** [queryLength][dim] */
  query: Float32Array;
  documentLength: number;
  queryLength: number;
  dim: number;
}

export interface AttentionOverAttentionResult {
  /** M = D Q^T [documentLength][queryLength] */
  pairwise: Float32Array;
  /** alpha: softmax down each column */
  columnSoftmax: Float32Array;
  /** beta: softmax along each row */
  rowSoftmax: Float32Array;
  /** mean of beta's rows [queryLength] */
  queryAttention: Float32Array;
  /** alpha x queryAttention [documentLength] */
  documentAttention: Float32Array;
}

export type AlignMethod =
  | 'argmax' | 'threshold' | 'itermax'
  | 'intersection' | 'union' | 'grow-diag-final-and' | 'soft-itermax'
  /** attention mixed with a statistical aligner's posteriors (needs reverse and statistical) */
  | 'hybrid';

export interface ModelInfo {
  /** 'attnscope-rnn-v1' */
  format: string;
  attention: 'additive' | 'general';
  /** 'en-es' or 'es-en' */
  direction: string;
  source_language?: string;
  target_language?: string;
  /** JSON strings from the file's metadata */
  architecture: string;
  training?: string;
  embeddingDim: number;
  encoderHidden: number;
  decoderHidden: number;
  attentionDim: number;
  vocabSize: number;
  [key: string]: string | number | undefined;
}

export interface WordAttention {
  sourceWords: string[];
  targetWords: string[];
  /** [targetWords][sourceWords]: attention summed over source pieces, averaged over target pieces */
  weights: Float32Array;
  /** [targetWords]: attention on the source end-of-sentence (no source word) */
  nullWeights: Float32Array;
}

export interface AlignResult extends WordAttention {
  /** [source, target] word index pairs */
  links: Array<[number, number]>;
  /** the links as 'source-target' pairs, space separated */
  pharaoh: string;
  /** [targetWords][sourceWords] from the reverse model, for symmetrized methods */
  reverseWeights?: Float32Array;
}

export interface TranslateResult extends WordAttention {
  text: string;
  logProb: number;
}

export interface AlignOptions {
  /** Default 'argmax'; the symmetrized ones need `reverse`. */
  method?: AlignMethod;
  /** The model of the other direction (es-en for an en-es model). */
  reverse?: Model;
  /** The statistical aligner, for 'hybrid'. */
  statistical?: StatisticalAligner;
  /** Weight of its posteriors in the 'hybrid' mix (default 0.5; attn align uses 0.6 with the HMM). */
  statisticalWeight?: number;
  /** 'linear' (default): (1-w)·attention + w·posteriors; 'geometric': attention^(1-w)·posteriors^w. */
  mix?: 'linear' | 'geometric';
  /** 'hybrid': link where the mean of both directions' mixed weights reaches this, in (0, 1],
   * instead of argmax per direction and grow-diag-final-and (attn align: 0.35). */
  posteriorThreshold?: number;
  /** Read each target word's attention where it is the decoder input (Chen et al. 2020). */
  shift?: boolean;
  /** For 'threshold' (default 0.3). */
  threshold?: number;
}

/** A sentence: text (split by the model's word tokenizer) or an array of words taken as given. */
export type Sentence = string | string[];

export interface Model {
  readonly info: ModelInfo;
  translate(text: Sentence, options?: { beam?: number }): TranslateResult;
  align(source: Sentence, target: Sentence, options?: AlignOptions): AlignResult;
  /** Frees the model's WebAssembly memory; the model cannot be used afterwards. */
  delete(): void;
}

/** A statistical aligner, both directions: IBM Model 2 with fast_align's diagonal prior, or the
 * HMM aligner (Vogel et al. 1996 with Och & Ney's NULL states). */
export interface StatisticalAligner {
  /** Which model the file held. */
  readonly kind: 'ibm2' | 'hmm';
  /** Links (grow-diag-final-and unless the HMM is asked for 'posterior': every pair whose mean
   * posterior reaches `threshold`, default 0.5); weights are the mean of both directions'
   * posteriors [target][source]. */
  align(source: Sentence, target: Sentence, options?: { symmetrize?: 'grow-diag-final-and' | 'posterior'; threshold?: number }): AlignResult;
  delete(): void;
}

export interface Links {
  links: Array<[number, number]>;
  pharaoh: string;
}

export interface Attn {
  /** Which build is running. */
  readonly simd: boolean;
  /** The instruction set its kernels were compiled for ('sse4.1' maps to SIMD128; 'scalar'). */
  readonly instructionSet: string;
  /** Current size of the WebAssembly memory in bytes. */
  heapBytes(): number;
  /** Live Embind handles; constant across calls when nothing leaks. */
  liveHandles(): number;

  attention(options: AttentionOptions): AttentionResult;
  softmax(scores: Float32Array, options?: { temperature?: number }): Float32Array;
  sparsemax(scores: Float32Array, options?: { temperature?: number }): Float32Array;
  hardmax(scores: Float32Array): Float32Array;
  maskedSoftmax(options: MaskedSoftmaxOptions): Float32Array;
  multiHeadAttention(options: MultiHeadOptions): MultiHeadResult;
  attentionPool(options: PoolOptions): { pooled: Float32Array; weights: Float32Array };
  attentionOverAttention(options: AttentionOverAttentionOptions): AttentionOverAttentionResult;
  /** Inverted dropout: zero each weight with probability `rate`, scale the rest by 1/(1-rate). */
  dropout(weights: Float32Array, options: { rate: number; seed?: number }): Float32Array;

  /** Loads an attnscope-rnn-v1 safetensors file; rejects with an Error naming what is wrong. */
  loadModel(bytes: Uint8Array): Promise<Model>;
  /** Loads an attnscope-ibm2-v1 or attnscope-hmm-v1 file (models/ibm2-en-es.safetensors, models/hmm-en-es.safetensors). */
  loadStatisticalAligner(bytes: Uint8Array): Promise<StatisticalAligner>;
  /** Links from a [rows = target][cols = source] matrix. */
  extractLinks(options: { weights: Float32Array; rows: number; cols: number; method?: 'argmax' | 'threshold' | 'itermax'; threshold?: number }): Links;
  /** Combines a forward and a backward alignment given as Pharaoh strings. */
  symmetrize(options: {
    forward: string; backward: string; sourceLength?: number; targetLength?: number;
    method?: 'intersection' | 'union' | 'grow-diag-final-and';
  }): Links;
  /** Alignment error rate over sentences of Pharaoh strings; in gold, 's?t' marks a possible link. */
  alignmentError(predicted: string[], gold: string[]): { aer: number; precision: number; recall: number };
}

/** True when this engine validates WebAssembly SIMD128. */
export function simdSupported(): boolean;

export default function loadAttn(options?: LoadOptions): Promise<Attn>;
