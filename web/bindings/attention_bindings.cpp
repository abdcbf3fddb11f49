// attention(options): the contract of web/dist/attn.d.ts, parsed into attn::attention().
#include <emscripten/bind.h>
#include <emscripten/heap.h>

#include "attention_defaults.hpp"
#include "attn/core/attention.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/threads.hpp"
#include "masking.hpp"

namespace attn::js {
namespace {

Shape read_shape(const val& options) {
  Shape shape;
  shape.heads = integer(options, "heads", Shape{}.heads);
  shape.query_length = integer(options, "queryLength", 0, true);
  shape.key_length = integer(options, "keyLength", 0, true);
  shape.dim = integer(options, "dim", 0, true);
  shape.key_dim = integer(options, "keyDim", 0);
  shape.value_dim = integer(options, "valueDim", 0);
  validate_shape(shape);  // before any allocation: sizes in wasm32 size_t would wrap
  return shape;
}

// The option objects' typed arrays, copied into the wasm heap for the length of one call, and
// the AttentionOptions that point into them.
struct Settings {
  AttentionOptions options;
  std::vector<float> general_weight, query_weight, key_weight, additive_v, additive_bias, position_weight, position_v;
  MaskStorage mask;
};

void read_general(const val& options, const Shape& shape, Settings& settings) {
  const val general = options["general"];
  if (!is_object(general)) fail("score 'general' needs general: { weight } with weight [dim][keyDim]");
  check_options(general, "attention.general", {"weight", "scale"});
  const int key_dim = shape.resolved_key_dim();
  settings.general_weight =
      floats(general, "weight", element_count("general.weight", {shape.dim, key_dim}), dims({shape.dim, key_dim}));
  settings.options.general.weight = settings.general_weight.data();
  settings.options.general.scale = static_cast<float>(number(general, "scale", 1.0));
}

void read_additive(const val& options, const Shape& shape, Settings& settings) {
  const val additive = options["additive"];
  if (!is_object(additive)) fail("score 'additive' needs additive: { hidden, queryWeight, keyWeight, v }");
  check_options(additive, "attention.additive",
                {"hidden", "queryWeight", "keyWeight", "v", "bias", "normalize", "gain"});
  const int hidden = integer(additive, "hidden", 0, true), key_dim = shape.resolved_key_dim();
  check_size("additive.hidden", hidden);
  settings.query_weight =
      floats(additive, "queryWeight", element_count("queryWeight", {hidden, shape.dim}), dims({hidden, shape.dim}));
  settings.key_weight =
      floats(additive, "keyWeight", element_count("keyWeight", {hidden, key_dim}), dims({hidden, key_dim}));
  settings.additive_v = floats(additive, "v", hidden, dims({hidden}));
  AdditiveScore& score = settings.options.additive;
  score.hidden = hidden;
  score.query_weight = settings.query_weight.data();
  score.key_weight = settings.key_weight.data();
  score.v = settings.additive_v.data();
  if (has(additive, "bias")) {
    settings.additive_bias = floats(additive, "bias", hidden, dims({hidden}));
    score.bias = settings.additive_bias.data();
  }
  score.normalize = boolean(additive, "normalize", false);
  score.gain = static_cast<float>(number(additive, "gain", 1.0));
}

void read_local(const val& options, const Shape& shape, Settings& settings) {
  const val local = options["local"];
  check_options(local, "attention.local", {"mode", "halfWidth", "hidden", "positionWeight", "positionV"});
  LocalWindow& window = settings.options.local;
  window.mode = parse_local(string(local, "mode", "monotonic"));
  window.half_width = integer(local, "halfWidth", 0, window.mode != Local::none);
  if (window.mode != Local::predictive) return;
  const int hidden = integer(local, "hidden", 0, true);
  check_size("local.hidden", hidden);
  settings.position_weight =
      floats(local, "positionWeight", element_count("positionWeight", {hidden, shape.dim}), dims({hidden, shape.dim}));
  settings.position_v = floats(local, "positionV", hidden, dims({hidden}));
  window.hidden = hidden;
  window.position_weight = settings.position_weight.data();
  window.position_v = settings.position_v.data();
}

// Runs attention() and returns { output, weights?, scores?, indices?, positions? }.
val run_attention(const Shape& shape, const std::vector<float>& query, const std::vector<float>& key,
                  const std::vector<float>& value, const AttentionOptions& settings, bool return_weights,
                  bool return_scores) {
  const std::size_t rows = static_cast<std::size_t>(shape.heads) * shape.query_length;
  std::vector<float> output(rows * shape.resolved_value_dim());
  std::vector<float> weights(return_weights ? rows * shape.key_length : 0);
  std::vector<float> scores(return_scores ? rows * shape.key_length : 0);
  std::vector<std::int32_t> indices(settings.hard != Hard::none ? rows : 0, -1);
  std::vector<float> positions(settings.local.mode != Local::none ? rows : 0);
  AttentionOutputs outputs;
  outputs.output = output.data();
  outputs.weights = return_weights ? weights.data() : nullptr;
  outputs.scores = return_scores ? scores.data() : nullptr;
  outputs.indices = indices.empty() ? nullptr : indices.data();
  outputs.positions = positions.empty() ? nullptr : positions.data();
  attention(shape, query.data(), key.data(), value.data(), settings, outputs);

  val result = val::object();
  result.set("output", copy_out(output));
  if (return_weights) result.set("weights", copy_out(weights));
  if (return_scores) result.set("scores", copy_out(scores));
  if (!indices.empty()) result.set("indices", copy_out(indices));
  if (!positions.empty()) result.set("positions", copy_out(positions));
  return result;
}

val attention_js(val options) {
  return guarded([&] {
    check_options(options, "attention",
                  {"query",       "key",      "value",   "heads",     "queryLength",   "keyLength",
                   "dim",         "valueDim", "keyDim",  "score",     "general",       "additive",
                   "validLength", "mask",     "causal",  "maskValue", "probability",   "temperature",
                   "local",       "hard",     "dropout", "seed",      "returnWeights", "returnScores"});
    const Shape shape = read_shape(options);
    const int key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
    const auto query = floats(options, "query", element_count("query", {shape.heads, shape.query_length, shape.dim}),
                              dims({shape.heads, shape.query_length, shape.dim}));
    const auto key = floats(options, "key", element_count("key", {shape.heads, shape.key_length, key_dim}),
                            dims({shape.heads, shape.key_length, key_dim}));
    const auto value = floats(options, "value", element_count("value", {shape.heads, shape.key_length, value_dim}),
                              dims({shape.heads, shape.key_length, value_dim}));

    Settings settings;
    settings.options = parse_common_options(options);
    settings.options.hard = parse_hard(string(options, "hard", "none"));
    if (settings.options.score == Score::general) read_general(options, shape, settings);
    if (settings.options.score == Score::additive) read_additive(options, shape, settings);
    if (has(options, "local")) read_local(options, shape, settings);
    settings.options.mask = parse_masking(options, shape.heads, shape.query_length, shape.key_length, settings.mask);
    const bool return_weights = boolean(options, "returnWeights", default_return_weights);
    const bool return_scores = boolean(options, "returnScores", default_return_scores);
    return run_attention(shape, query, key, value, settings.options, return_weights, return_scores);
  });
}

val build_info() {
  val info = val::object();
  info.set("simd", kernels::simd_enabled());
  info.set("instructionSet", std::string(kernels::instruction_set()));
  info.set("threads", threads());                     // what set_threads gave (setThreads from JS)
  info.set("threadsSupported", threads_supported());  // only the threads builds run more than one
  info.set("maxThreads", max_threads);
  return info;
}

double heap_bytes() { return static_cast<double>(emscripten_get_heap_size()); }

}  // namespace
}  // namespace attn::js

EMSCRIPTEN_BINDINGS(attention) {
  emscripten::function("attention", &attn::js::attention_js);
  emscripten::function("buildInfo", &attn::js::build_info);
  emscripten::function("heapBytes", &attn::js::heap_bytes);
}
