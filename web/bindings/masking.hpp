// The options shared by attention(), multiHeadAttention() and maskedSoftmax(). Masks:
//   validLength: number | Int32Array (one per head, or one per query row)
//   mask: Uint8Array [rows][cols] or [batch][rows][cols], nonzero = may attend
//   causal: boolean, maskValue: number (default -Infinity)
#pragma once

#include "attn/core/attention.hpp"
#include "attn/core/probability.hpp"
#include "js_args.hpp"

namespace attn::js {

struct MaskStorage {
  std::vector<std::int32_t> valid_lengths;
  std::vector<std::uint8_t> keep;
};

inline Masking parse_masking(const val& options, int batch, int rows, int cols, MaskStorage& storage) {
  Masking masking;
  if (has(options, "validLength")) {
    const val valid = options["validLength"];
    if (valid.typeOf().as<std::string>() == "number") {
      const int length = integer(options, "validLength", 0);
      storage.valid_lengths.assign(static_cast<std::size_t>(batch), length);
    } else {
      storage.valid_lengths = typed_array<std::int32_t>(options, "validLength", "Int32Array", -1);
    }
    masking.valid_lengths = storage.valid_lengths.data();
    masking.valid_length_count = static_cast<int>(storage.valid_lengths.size());
  }
  if (has(options, "mask")) {
    const long long shared = static_cast<long long>(rows) * cols;
    storage.keep = typed_array<std::uint8_t>(options, "mask", "Uint8Array", -1);
    const long long length = static_cast<long long>(storage.keep.size());
    if (length != shared && length != shared * batch) {
      fail("mask has ", length, " elements, expected ", dims({rows, cols}), " = ", shared, " or ",
           dims({batch, rows, cols}), " = ", shared * batch);
    }
    masking.keep = storage.keep.data();
    masking.keep_batch = length == shared ? 1 : batch;
  }
  masking.causal = boolean(options, "causal", false);
  if (has(options, "maskValue")) {
    const val value = options["maskValue"];
    if (value.typeOf().as<std::string>() != "number") fail("maskValue must be a number");
    masking.mask_value = static_cast<float>(value.as<double>());  // -Infinity allowed
  }
  validate_masking(masking, batch, rows, cols);
  return masking;
}

// The options attention() and multiHeadAttention() share beyond masks: score, probability,
// temperature, dropout and its seed.
inline AttentionOptions parse_common_options(const val& options) {
  const AttentionOptions defaults;  // the core's, which the plain path (plain_attention.cpp) takes too
  AttentionOptions settings;
  settings.score = parse_score(string(options, "score", to_string(defaults.score)));
  settings.probability = parse_probability(string(options, "probability", to_string(defaults.probability)));
  settings.temperature = static_cast<float>(number(options, "temperature", defaults.temperature));
  settings.dropout = static_cast<float>(number(options, "dropout", defaults.dropout));
  settings.seed = static_cast<std::uint64_t>(integer(options, "seed", static_cast<int>(defaults.seed)));
  return settings;
}

}  // namespace attn::js
