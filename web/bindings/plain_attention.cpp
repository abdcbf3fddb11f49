// The plain case of attention() through a C entry point instead of Embind: the module's own
// JavaScript (web/src/plain_attention.js, its --post-js) copies the typed arrays into the
// WebAssembly heap and calls this directly. Embind's option parsing costs tens of microseconds per
// call (a JS crossing per option read and per copied array), which dominates attention over short
// sentences; this path costs about one. Which calls take it is decided here alone: the loader
// reads the option table (attn_plain_options) once, passes each call's values as numbers, and
// attn_plain_prepare says whether the call is plain, with its defaults applied and its sizes; for
// anything else, or when the call returns an error, the loader goes through Embind, whose messages
// name the problem.
#include <emscripten/emscripten.h>

#include <atomic>
#include <cmath>
#include <exception>
#include <functional>
#include <vector>

#include "attention_defaults.hpp"
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

// The loader's feed (web/src/plain_attention.js): copies the call's inputs in, head by head, storing each
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
// its parts end (reading `left`, the heap address of parts_left), watching for at most 0.2 ms (the
// heads still under way are copied after the call); never throws.
EM_JS(void, attn_drain_plain_output, (const std::atomic<int>* left), {
  var drain = Module['attnDrain'];
  if (drain) drain(left);
});

// The plain options, each with its kind, in the order of a call's slots (attn_plain_prepare):
// floats (a Float32Array; its slot holds its length), integer, number (finite), boolean (0 or 1),
// or the strings it may be ('a|b': its slot holds the string's index). Any other option, or a
// value not of its option's kind, takes Embind.
constexpr const char* plain_options =
    "query:floats key:floats value:floats heads:integer queryLength:integer keyLength:integer dim:integer "
    "valueDim:integer keyDim:integer score:dot|scaled_dot causal:boolean probability:softmax temperature:number "
    "returnWeights:boolean returnScores:boolean";
constexpr attn::Score plain_scores[] = {attn::Score::dot, attn::Score::scaled_dot};  // the table's order
constexpr int entries(const char* table) {
  int count = 1;
  for (; *table; ++table) count += *table == ' ';
  return count;
}
namespace slot {
enum : int {
  query,
  key,
  value,
  heads,
  query_length,
  key_length,
  dim,
  value_dim,
  key_dim,
  score,
  causal,
  probability,
  temperature,
  return_weights,
  return_scores,
  counts,  // written by attn_plain_prepare: the floats of query, key, value, output and weights
  size = counts + 5
};
}  // namespace slot
static_assert(entries(plain_options) == slot::counts, "one slot for each option of the table, in its order");

// A call's slots, NaN where an option was not given, as attn_plain_prepare reads them.
struct Plain {
  double* values;
  bool given(int i) const { return !std::isnan(values[i]); }
  double get(int i, double otherwise) const { return given(i) ? values[i] : otherwise; }
  int count(int i) const { return static_cast<int>(values[i]); }
};

// Applies the defaults to a call's slots and checks that the plain path can run it: a shape in
// range, arrays of its sizes, returnScores false, keyDim dim, a positive finite temperature, at
// most a quarter of attn::max_elements floats through the heap (2^26, 256 MiB: a scratch area
// never dominates the heap; larger calls take Embind, which reads the arrays in place). Writes
// the counts; false to take Embind.
bool prepare(Plain p) {
  using namespace slot;
  double* s = p.values;
  for (int i : {query_length, key_length, dim})
    if (!p.given(i)) return false;
  const attn::Shape shape;  // the core's defaults, which Embind's path takes too (masking.hpp)
  const attn::AttentionOptions options;
  s[heads] = p.get(heads, shape.heads);
  if (p.get(value_dim, 0) == 0) s[value_dim] = s[dim];
  if (p.get(key_dim, 0) != 0 && s[key_dim] != s[dim]) return false;
  s[score] = p.get(score, options.score == plain_scores[0] ? 0 : 1);
  if (options.score != plain_scores[0] && options.score != plain_scores[1]) return false;
  if (options.probability != attn::Probability::softmax) return false;  // the table's only one
  s[causal] = p.get(causal, options.mask.causal ? 1 : 0);
  s[temperature] = p.get(temperature, options.temperature);
  s[return_weights] = p.get(return_weights, attn::js::default_return_weights ? 1 : 0);
  if (p.get(return_scores, attn::js::default_return_scores ? 1 : 0) != 0) return false;
  if (!(s[temperature] > 0) || !std::isfinite(s[temperature])) return false;
  for (int i : {heads, query_length, key_length, dim, value_dim})
    if (!(s[i] >= 1 && s[i] <= 0x7fffffff)) return false;
  const double H = s[heads], L = s[query_length], S = s[key_length], D = s[dim], Dv = s[value_dim];
  const double sizes[5] = {H * L * D, H * S * D, H * S * Dv, H * L * Dv, s[return_weights] != 0 ? H * L * S : 0};
  double total = 0;
  for (int i = 0; i < 5; ++i) {
    if (i < 3 && s[query + i] != sizes[i]) return false;
    s[counts + i] = sizes[i];
    total += sizes[i];
  }
  return total <= double(attn::max_elements / 4);
}

int plain_attention(const float* query_data, const float* key_data, const float* value_data, float* output,
                    float* weights, const double* values, bool fed) {
  try {
    const Plain p{const_cast<double*>(values)};
    attn::Shape shape;
    shape.heads = p.count(slot::heads);
    shape.query_length = p.count(slot::query_length);
    shape.key_length = p.count(slot::key_length);
    shape.dim = p.count(slot::dim);
    shape.value_dim = p.count(slot::value_dim);
    attn::AttentionOptions options;
    options.score = plain_scores[values[slot::score] == 0 ? 0 : 1];
    options.mask.causal = values[slot::causal] != 0;
    options.temperature = static_cast<float>(values[slot::temperature]);
    attn::AttentionOutputs outputs;
    outputs.output = output;
    outputs.weights = weights;
    if (fed) {
      if (parts_left.size() < static_cast<std::size_t>(shape.heads))
        parts_left = std::vector<std::atomic<int>>(shape.heads);
      attn::web::Feeding feeding;
      feeding.feed = [] { attn_feed_plain_inputs(); };
      feeding.heads_ready = &heads_fed;
      feeding.drain = [] { attn_drain_plain_output(parts_left.data()); };
      feeding.parts_left = parts_left.data();
      attn::web::fed_attention(shape, query_data, key_data, value_data, options, outputs, feeding);
    } else {
      attn::attention(shape, query_data, key_data, value_data, options, outputs);
    }
    return 0;
  } catch (const std::exception&) {
    return 1;
  }
}

}  // namespace

extern "C" {

// The plain options (plain_options above), read once by the loader.
EMSCRIPTEN_KEEPALIVE const char* attn_plain_options() { return plain_options; }

// How many doubles a call's slots take (the options', then the five counts).
EMSCRIPTEN_KEEPALIVE int attn_plain_slots() { return slot::size; }

// 1 when the plain path takes the call whose slots the loader wrote (NaN for an option not given),
// with the defaults written into them and the floats of each array after them; 0 to take Embind.
EMSCRIPTEN_KEEPALIVE int attn_plain_prepare(double* values) { return prepare(Plain{values}) ? 1 : 0; }

// The call that attn_plain_prepare took (its slots), the arrays at the given heap addresses;
// weights may be null. Returns 0, or 1 when attention() refused.
EMSCRIPTEN_KEEPALIVE int attn_plain_attention(const float* query, const float* key, const float* value, float* output,
                                              float* weights, const double* values) {
  return plain_attention(query, key, value, output, weights, values, false);
}

// attn_plain_attention whose inputs the loader copies in while the pool's threads start: it calls
// Module.attnFeed once they have their parts (attn::web::fed_attention), and each part waits
// for its head; then Module.attnDrain, which copies the output out head by head as the other
// threads finish. Returns 1, without calling either, when the shape or options are refused.
EMSCRIPTEN_KEEPALIVE int attn_plain_attention_fed(const float* query, const float* key, const float* value,
                                                  float* output, float* weights, const double* values) {
  return plain_attention(query, key, value, output, weights, values, true);
}

// Where the count of heads fed lives in the heap (bytes).
EMSCRIPTEN_KEEPALIVE int* attn_plain_heads_fed() { return reinterpret_cast<int*>(&heads_fed); }

// Called by the loader before it copies a call's inputs into the heap (its prepared slots): when
// attention over this shape will run on several threads, they wake now (attn::wake_threads) and
// are up when it starts.
EMSCRIPTEN_KEEPALIVE void attn_plain_attention_expect(const double* values) {
  const double rows = values[slot::heads] * values[slot::query_length];  // prepared: the inputs fit the heap
  const double work = values[slot::key_length] * (values[slot::dim] + values[slot::value_dim]);
  if (attn::workers_for(static_cast<int>(rows), work) > 1) attn::wake_threads();
}

}  // extern "C"
