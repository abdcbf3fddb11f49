// attention()'s argument checks: shapes, sizes, the options of each score, masks, local windows.
#include <cmath>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/internal/attention_checks.hpp"

namespace attn {

namespace {

void require(const void* pointer, const char* name) {
  if (!pointer) fail(Field{name}, " is required");
}

}  // namespace

void validate_shape(const Shape& shape) {
  check_size("heads", shape.heads);
  check_size("query_length", shape.query_length);
  check_size("key_length", shape.key_length);
  check_size("dim", shape.dim);
  check_size("key_dim", shape.key_dim, 0);
  check_size("value_dim", shape.value_dim, 0);
  const int key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
  element_count("query", {shape.heads, shape.query_length, shape.dim});
  element_count("key", {shape.heads, shape.key_length, key_dim});
  element_count("value", {shape.heads, shape.key_length, value_dim});
  element_count("weights", {shape.heads, shape.query_length, shape.key_length});
  element_count("output", {shape.heads, shape.query_length, value_dim});
}

namespace detail {
namespace {

// check_finite, unless the caller has turned the scan off.
void check_values(const AttentionOptions& options, const char* name, const float* data, std::size_t count) {
  if (options.check_finite) check_finite(name, data, count);
}

}  // namespace

bool reads_keys(const AttentionOptions& options) {
  if (options.score == Score::general) return !options.general.projected_keys;
  if (options.score == Score::additive) return !options.additive.projected_keys;
  return true;
}

namespace {

// The arrays every call reads, and the output: present.
void require_inputs(const float* query, const float* key, const float* value, const AttentionOptions& options,
                    const AttentionOutputs& outputs) {
  require(query, "query");
  if (reads_keys(options)) require(key, "key");
  require(value, "value");
  require(outputs.output, "outputs.output");
}

}  // namespace

void validate_inputs(const Shape& shape, const float* query, const float* key, const float* value,
                     const AttentionOptions& options, const AttentionOutputs& outputs) {
  require_inputs(query, key, value, options, outputs);
  check_values(options, "query", query, element_count("query", {shape.heads, shape.query_length, shape.dim}));
  if (reads_keys(options)) {
    check_values(options, "key", key, element_count("key", {shape.heads, shape.key_length, shape.resolved_key_dim()}));
  }
  check_values(options, "value", value,
               element_count("value", {shape.heads, shape.key_length, shape.resolved_value_dim()}));
}

namespace {

void validate_general(const Shape& shape, const AttentionOptions& options) {
  const GeneralScore& general = options.general;
  const int key_dim = shape.resolved_key_dim();
  if (general.projected_keys) {
    check_values(options, "general.projected_keys", general.projected_keys,
                 element_count("general.projected_keys", {shape.heads, shape.dim, shape.key_length}));
  } else {
    require(general.weight, "general.weight");
    check_values(options, "general.weight", general.weight, element_count("general.weight", {shape.dim, key_dim}));
    element_count("projected queries", {shape.query_length, key_dim});
  }
  if (!std::isfinite(general.scale)) fail(Field{"general.scale"}, " must be finite");
}

void validate_additive(const Shape& shape, const AttentionOptions& options) {
  const AdditiveScore& additive = options.additive;
  check_size("additive.hidden", additive.hidden);
  if (additive.transposed_query_weight) {
    check_values(options, "additive.transposed_query_weight", additive.transposed_query_weight,
                 element_count("additive.transposed_query_weight", {shape.dim, additive.hidden}));
  } else {
    require(additive.query_weight, "additive.query_weight");
    check_values(options, "additive.query_weight", additive.query_weight,
                 element_count("additive.query_weight", {additive.hidden, shape.dim}));
  }
  if (additive.projected_keys) {
    check_values(options, "additive.projected_keys", additive.projected_keys,
                 element_count("additive.projected_keys", {shape.heads, additive.hidden, shape.key_length}));
  } else {
    require(additive.key_weight, "additive.key_weight");
    check_values(options, "additive.key_weight", additive.key_weight,
                 element_count("additive.key_weight", {additive.hidden, shape.resolved_key_dim()}));
  }
  require(additive.v, "additive.v");
  check_values(options, "additive.v", additive.v, additive.hidden);
  element_count("projected queries", {shape.query_length, additive.hidden});
  element_count("projected keys", {additive.hidden, shape.key_length});
  if (additive.bias) check_values(options, "additive.bias", additive.bias, additive.hidden);
  if (!std::isfinite(additive.gain)) fail(Field{"additive.gain"}, " must be finite");
  if (additive.normalize) {
    double norm = 0.0;
    for (int h = 0; h < additive.hidden; ++h) norm += double(additive.v[h]) * additive.v[h];
    if (norm == 0.0) fail(Field{"additive.v"}, " must not be all zeros when ", Field{"additive.normalize"}, " is on");
  }
}

void validate_score(const Shape& shape, const AttentionOptions& options) {
  switch (options.score) {
    case Score::dot:
    case Score::scaled_dot:
      if (shape.resolved_key_dim() != shape.dim) {
        fail(Field{"key_dim"}, " (", shape.resolved_key_dim(), ") must equal ", Field{"dim"}, " (", shape.dim,
             ") for the ", to_string(options.score), " score; general and additive scores allow different sizes");
      }
      return;
    case Score::general: validate_general(shape, options); return;
    case Score::additive: validate_additive(shape, options); return;
  }
}

void validate_local(const Shape& shape, const AttentionOptions& options) {
  const LocalWindow& local = options.local;
  if (local.mode != Local::none) {
    check_size("local.half_width", local.half_width, local.mode == Local::predictive ? 1 : 0);
  }
  if (local.mode == Local::predictive) {
    check_size("local.hidden", local.hidden);
    require(local.position_weight, "local.position_weight");
    require(local.position_v, "local.position_v");
    check_values(options, "local.position_weight", local.position_weight,
                 element_count("local.position_weight", {local.hidden, shape.dim}));
    check_values(options, "local.position_v", local.position_v, local.hidden);
    element_count("local hidden states", {shape.query_length, local.hidden});
  }
}

}  // namespace

void validate(const Shape& shape, const float* query, const float* key, const float* value,
              const AttentionOptions& options, const AttentionOutputs& outputs) {
  validate_shape(shape);
  require_inputs(query, key, value, options, outputs);
  validate_score(shape, options);
  validate_masking(options.mask, shape.heads, shape.query_length, shape.key_length);
  if (!(options.temperature > 0.0f) || !std::isfinite(options.temperature)) {
    fail(Field{"temperature"}, " must be a positive finite number, got ", options.temperature);
  }
  validate_local(shape, options);
  if (!(options.dropout >= 0.0f && options.dropout < 1.0f))
    fail(Field{"dropout"}, " must be in [0, 1), got ", options.dropout);
  if (options.dropout > 0.0f && options.hard != Hard::none) {
    fail(Field{"dropout"}, " applies to soft attention; ", Field{"hard"}, " attention picks one key per query");
  }
}

}  // namespace detail

}  // namespace attn
