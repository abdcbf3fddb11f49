// The arithmetic of the benchmarks' rows, in floating-point operations (a multiply-add counts two),
// so that a time reads as GFLOP/s beside the machine's peak (tools/bench/peak_loops.mjs). Only the
// matrix products count: layer norms, softmaxes and embeddings are a few percent of the time.

/**
 * Forced decoding of a multilingual Transformer as `model.attentions(source, target, { pieces: true })`
 * runs it (docs/BENCHMARKS.md: every map, the last decoder layer's feed-forward and the output layer
 * skipped), or with `logProbs` the whole model: S source and T target pieces.
 * @param {{model_dim: number, ff_dim: number, encoder_layers: number, decoder_layers: number, vocab_size: number}} arch
 */
export function forcedDecodingFlops(arch, S, T, { logProbs = false } = {}) {
  const { model_dim: d, ff_dim: f, encoder_layers: encoders, decoder_layers: decoders, vocab_size: vocab } = arch;
  const linear = (rows, inputs, outputs) => 2 * rows * inputs * outputs;
  const attend = (queries, keys) => 2 * 2 * queries * keys * d;  // Q K^T and the weights times V, every head
  const feedForward = (rows) => linear(rows, d, f) + linear(rows, f, d);
  const encoder = linear(S, d, 3 * d) + attend(S, S) + linear(S, d, d) + feedForward(S);
  const decoder = linear(T, d, 3 * d) + attend(T, T) + linear(T, d, d)          // self-attention
    + linear(T, d, d) + linear(S, d, 2 * d) + attend(T, S) + linear(T, d, d);   // cross-attention
  return encoders * encoder + decoders * decoder + (logProbs ? decoders : decoders - 1) * feedForward(T)
    + (logProbs ? linear(T, d, vocab) : 0);
}

/** softmax(Q K^T / sqrt(D)) V over B x H heads of L queries and S keys: 4·L·S·D + 5·L·S a head. */
export const attentionFlops = ([B, H, L, S, D]) => B * H * (4 * L * S * D + 5 * L * S);
