// The plain case of attention() through a C entry point instead of Embind: the loader copies the
// typed arrays into the WebAssembly heap and calls this directly. Embind's option parsing costs
// tens of microseconds per call (a JS crossing per option read and per copied array), which
// dominates attention over short sentences; this path costs about one. The loader takes it only
// for calls it can fully check itself (web/src/attn.mjs, plainAttention) and for anything else,
// or when this returns an error, goes through Embind, whose messages name the problem.
#include <emscripten/emscripten.h>

#include <exception>

#include "attn/core/attention.hpp"
#include "attn/core/threads.hpp"

extern "C" {

// score: 0 dot, 1 scaled_dot. weights may be null. Returns 0, or 1 when attention() refused.
EMSCRIPTEN_KEEPALIVE int attn_plain_attention(const float* query, const float* key, const float* value, float* output,
                                              float* weights, int heads, int query_length, int key_length, int dim,
                                              int value_dim, int score, int causal, float temperature) {
  try {
    attn::Shape shape;
    shape.heads = heads;
    shape.query_length = query_length;
    shape.key_length = key_length;
    shape.dim = dim;
    shape.value_dim = value_dim;
    attn::AttentionOptions options;
    options.score = score == 0 ? attn::Score::dot : attn::Score::scaled_dot;
    options.mask.causal = causal != 0;
    options.temperature = temperature;
    attn::AttentionOutputs outputs;
    outputs.output = output;
    outputs.weights = weights;
    attn::attention(shape, query, key, value, options, outputs);
    return 0;
  } catch (const std::exception&) {
    return 1;
  }
}

// Called by the loader before it copies a call's inputs into the heap: when attention over this
// shape will run on several threads, they wake now (attn::wake_threads) and are up when it starts.
EMSCRIPTEN_KEEPALIVE void attn_plain_attention_expect(int heads, int query_length, int key_length, int dim,
                                                      int value_dim) {
  const double rows = double(heads) * query_length;  // the loader checked that the inputs fit the heap
  if (attn::workers_for(static_cast<int>(rows), double(key_length) * (dim + value_dim)) > 1) attn::wake_threads();
}

}  // extern "C"
