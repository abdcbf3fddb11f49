// Probability functions on their own: softmax/sparsemax/hardmax of one row, and d2l's
// masked softmax over [batch][rows][cols].
#include <emscripten/bind.h>

#include "attn/core/probability.hpp"
#include "masking.hpp"

namespace attn::js {
namespace {

// Applies one probability function to a copy of a single row.
val row_function(const char* name, val scores, val options, Probability probability) {
  return guarded([&] {
    auto row = copy_in<float>(scores, "scores", "Float32Array");
    if (row.empty()) fail(name, "() needs at least one score");
    check_finite("scores", row.data(), row.size());
    float temperature = 1.0f;
    if (!options.isUndefined()) {
      check_options(options, name, {"temperature"});
      temperature = static_cast<float>(number(options, "temperature", 1.0));
    }
    apply_probability(probability, row.data(), static_cast<int>(row.size()), temperature);
    return copy_out(row);
  });
}

val softmax_js(val scores, val options) { return row_function("softmax", scores, options, Probability::softmax); }
val sparsemax_js(val scores, val options) { return row_function("sparsemax", scores, options, Probability::sparsemax); }
val hardmax_js(val scores) { return row_function("hardmax", scores, val::undefined(), Probability::hardmax); }

val masked_softmax_js(val options) {
  return guarded([&] {
    check_options(options, "maskedSoftmax",
                  {"scores", "batch", "rows", "cols", "validLength", "mask", "causal", "maskValue", "probability",
                   "temperature"});
    const int batch = integer(options, "batch", 1);
    const int rows = integer(options, "rows", 1);
    const int cols = integer(options, "cols", 0, true);
    check_size("batch", batch);
    check_size("rows", rows);
    check_size("cols", cols);
    auto scores = floats(options, "scores", element_count("scores", {batch, rows, cols}), dims({batch, rows, cols}));
    check_finite("scores", scores.data(), scores.size());
    MaskStorage storage;
    const Masking masking = parse_masking(options, batch, rows, cols, storage);
    masked_probabilities(scores.data(), batch, rows, cols, masking,
                         parse_probability(string(options, "probability", "softmax")),
                         static_cast<float>(number(options, "temperature", 1.0)));
    return copy_out(scores);
  });
}

}  // namespace
}  // namespace attn::js

EMSCRIPTEN_BINDINGS(probability) {
  emscripten::function("softmax", &attn::js::softmax_js);
  emscripten::function("sparsemax", &attn::js::sparsemax_js);
  emscripten::function("hardmax", &attn::js::hardmax_js);
  emscripten::function("maskedSoftmax", &attn::js::masked_softmax_js);
}
