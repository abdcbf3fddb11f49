// The plain case of attention() through a C entry point instead of Embind: the module's own
// JavaScript (web/src/plain_attention.js, its --post-js) copies the typed arrays into the
// WebAssembly heap and calls this directly. Embind's option parsing costs tens of microseconds per
// call (a JS crossing per option read and per copied array), which dominates attention over short
// sentences; this path costs about one. It is taken only for calls whose options are plain data
// of the right types, and for anything else, or when this returns an error, the loader goes
// through Embind, whose messages name the problem.
#include <emscripten/emscripten.h>

#include <atomic>
#include <exception>
#include <functional>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/threads.hpp"
#include "fed_attention.hpp"

namespace {

// How many heads of the call under way the loader has copied in (attn_plain_attention_fed): the
// loader stores into it with Atomics.store on the heap, where this int lives.
std::atomic<int> heads_fed{0};
static_assert(sizeof(std::atomic<int>) == sizeof(int) && std::atomic<int>::is_always_lock_free,
              "JavaScript's Atomics reach it as an Int32Array element");

// The loader's feed (web/src/attn.mjs): copies the call's inputs in, head by head, storing each
// count into heads_fed, and never throws (a JavaScript exception would pass through the pool's
// C++ frames without unwinding them); it ends with every head released.
// (A feed that is missing feeds nothing: fed_attention then fails, naming the heads it was fed.)
EM_JS(void, attn_feed_plain_inputs, (), {
  var feed = Module['attnFeed'];
  if (feed) feed();
});

// Each head's parts not yet ended, for the call under way (attn::web::Feeding::parts_left).
std::vector<std::atomic<int>> parts_left;

// The loader's drain: once the calling thread has no part left, copies each head's output out as
// its parts end (reading `left`, the heap address of parts_left), until every head is out; never
// throws.
EM_JS(void, attn_drain_plain_output, (const std::atomic<int>* left), {
  var drain = Module['attnDrain'];
  if (drain) drain(left);
});

int plain_attention(const float* query, const float* key, const float* value, float* output, float* weights, int heads,
                    int query_length, int key_length, int dim, int value_dim, int score, int causal, float temperature,
                    bool fed) {
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
    if (fed) {
      if (parts_left.size() < static_cast<std::size_t>(heads)) parts_left = std::vector<std::atomic<int>>(heads);
      attn::web::Feeding feeding;
      feeding.feed = [] { attn_feed_plain_inputs(); };
      feeding.heads_ready = &heads_fed;
      feeding.drain = [] { attn_drain_plain_output(parts_left.data()); };
      feeding.parts_left = parts_left.data();
      attn::web::fed_attention(shape, query, key, value, options, outputs, feeding);
    } else {
      attn::attention(shape, query, key, value, options, outputs);
    }
    return 0;
  } catch (const std::exception&) {
    return 1;
  }
}

}  // namespace

extern "C" {

// score: 0 dot, 1 scaled_dot. weights may be null. Returns 0, or 1 when attention() refused.
EMSCRIPTEN_KEEPALIVE int attn_plain_attention(const float* query, const float* key, const float* value, float* output,
                                              float* weights, int heads, int query_length, int key_length, int dim,
                                              int value_dim, int score, int causal, float temperature) {
  return plain_attention(query, key, value, output, weights, heads, query_length, key_length, dim, value_dim, score,
                         causal, temperature, false);
}

// attn_plain_attention whose inputs the loader copies in while the pool's threads start: it calls
// Module.attnFeed once they have their parts (attn::web::fed_attention), and each part waits
// for its head; then Module.attnDrain, which copies the output out head by head as the other
// threads finish. Returns 1, without calling either, when the shape or options are refused.
EMSCRIPTEN_KEEPALIVE int attn_plain_attention_fed(const float* query, const float* key, const float* value,
                                                  float* output, float* weights, int heads, int query_length,
                                                  int key_length, int dim, int value_dim, int score, int causal,
                                                  float temperature) {
  return plain_attention(query, key, value, output, weights, heads, query_length, key_length, dim, value_dim, score,
                         causal, temperature, true);
}

// The most floats (inputs, output and weights together) a call copies through the heap; larger
// calls take the Embind path, which reads the arrays in place. 2^26 floats (256 MiB), a quarter of
// the core's limit (attn::max_elements), so that a scratch area never dominates the heap.
EMSCRIPTEN_KEEPALIVE double attn_plain_max_elements() { return double(attn::max_elements / 4); }

// Where the count of heads fed lives in the heap (bytes).
EMSCRIPTEN_KEEPALIVE int* attn_plain_heads_fed() { return reinterpret_cast<int*>(&heads_fed); }

// Called by the loader before it copies a call's inputs into the heap: when attention over this
// shape will run on several threads, they wake now (attn::wake_threads) and are up when it starts.
EMSCRIPTEN_KEEPALIVE void attn_plain_attention_expect(int heads, int query_length, int key_length, int dim,
                                                      int value_dim) {
  const double rows = double(heads) * query_length;  // the loader checked that the inputs fit the heap
  if (attn::workers_for(static_cast<int>(rows), double(key_length) * (dim + value_dim)) > 1) attn::wake_threads();
}

}  // extern "C"
