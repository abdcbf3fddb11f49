#include "attn/core/multihead.hpp"

#include "attn/core/error.hpp"
#include "attn/core/internal/linalg.hpp"

namespace attn {

namespace {

void check_matrix(const char* name, const std::vector<float>& data, int rows, int cols) {
  const std::size_t expected = element_count(name, {rows, cols});
  if (data.size() != expected)
    fail(Field{name}, " has ", data.size(), " elements, expected [", rows, "][", cols, "] = ", expected);
  check_finite(name, data.data(), data.size());
}

void check_bias(const char* name, const std::vector<float>& data, int size) {
  if (data.empty()) return;
  if (data.size() != static_cast<std::size_t>(size))
    fail(Field{name}, " has ", data.size(), " elements, expected ", size);
  check_finite(name, data.data(), data.size());
}

// [length][heads*width] (heads side by side) <-> [heads][length][width]
void split_heads(const float* in, int length, int heads, int width, float* out) {
  for (int t = 0; t < length; ++t) {
    for (int h = 0; h < heads; ++h) {
      std::copy(in + (static_cast<std::size_t>(t) * heads + h) * width,
                in + (static_cast<std::size_t>(t) * heads + h + 1) * width,
                out + (static_cast<std::size_t>(h) * length + t) * width);
    }
  }
}

void merge_heads(const float* in, int length, int heads, int width, float* out) {
  for (int h = 0; h < heads; ++h) {
    for (int t = 0; t < length; ++t) {
      std::copy(in + (static_cast<std::size_t>(h) * length + t) * width,
                in + (static_cast<std::size_t>(h) * length + t + 1) * width,
                out + (static_cast<std::size_t>(t) * heads + h) * width);
    }
  }
}

}  // namespace

MultiHeadAttention::MultiHeadAttention(MultiHeadWeights weights) : weights_(std::move(weights)) {
  MultiHeadWeights& w = weights_;
  check_size("model_dim", w.model_dim);
  check_size("heads", w.heads);
  if (w.key_value_dim == 0) w.key_value_dim = w.model_dim;
  check_size("key_value_dim", w.key_value_dim);
  if (w.key_dim == 0) {
    if (w.model_dim % w.heads != 0)
      fail(Field{"model_dim"}, " (", w.model_dim, ") is not divisible by ", Field{"heads"}, " (", w.heads, "); give ",
           Field{"key_dim"});
    w.key_dim = w.model_dim / w.heads;
  }
  check_size("key_dim", w.key_dim);
  if (w.value_dim == 0) w.value_dim = w.key_dim;
  check_size("value_dim", w.value_dim);
  const int projected_keys = static_cast<int>(element_count("heads*key_dim", {w.heads, w.key_dim}));
  const int projected_values = static_cast<int>(element_count("heads*value_dim", {w.heads, w.value_dim}));
  check_matrix("query_weight", w.query_weight, projected_keys, w.model_dim);
  check_matrix("key_weight", w.key_weight, projected_keys, w.key_value_dim);
  check_matrix("value_weight", w.value_weight, projected_values, w.key_value_dim);
  check_matrix("output_weight", w.output_weight, w.model_dim, projected_values);
  check_bias("query_bias", w.query_bias, projected_keys);
  check_bias("key_bias", w.key_bias, projected_keys);
  check_bias("value_bias", w.value_bias, projected_values);
  check_bias("output_bias", w.output_bias, w.model_dim);
  query_weight_t_ = transposed(w.query_weight.data(), projected_keys, w.model_dim);
  key_weight_t_ = transposed(w.key_weight.data(), projected_keys, w.key_value_dim);
  value_weight_t_ = transposed(w.value_weight.data(), projected_values, w.key_value_dim);
  output_weight_t_ = transposed(w.output_weight.data(), w.model_dim, projected_values);
}

void MultiHeadAttention::forward(const float* query_input, int query_length, const float* key_value_input,
                                 int key_length, const AttentionOptions& options, float* output, float* weights) const {
  const MultiHeadWeights& w = weights_;
  check_size("query_length", query_length);
  check_size("key_length", key_length);
  if (!query_input || !key_value_input || !output) fail("multi-head attention needs its inputs and an output buffer");
  if (options.score != Score::dot && options.score != Score::scaled_dot) {
    fail("multi-head attention projects queries and keys itself; its ", Field{"score"}, " must be dot or scaled_dot");
  }
  check_finite("query_input", query_input, element_count("query_input", {query_length, w.model_dim}));
  check_finite("key_value_input", key_value_input, element_count("key_value_input", {key_length, w.key_value_dim}));
  const int projected_keys = w.heads * w.key_dim, projected_values = w.heads * w.value_dim;

  auto bias = [](const std::vector<float>& b) { return b.empty() ? nullptr : b.data(); };
  // every buffer's size is checked before allocation (size_t is 32-bit in wasm and would wrap)
  std::vector<float> side_by_side(element_count(
      "projected inputs", {std::max(query_length, key_length), std::max(projected_keys, projected_values)}));
  std::vector<float> queries(element_count("projected queries", {query_length, projected_keys}));
  std::vector<float> keys(element_count("projected keys", {key_length, projected_keys}));
  std::vector<float> values(element_count("projected values", {key_length, projected_values}));
  element_count("weights", {w.heads, query_length, key_length});
  linear(query_input, query_length, w.model_dim, query_weight_t_.data(), bias(w.query_bias), projected_keys,
         side_by_side.data());
  split_heads(side_by_side.data(), query_length, w.heads, w.key_dim, queries.data());
  linear(key_value_input, key_length, w.key_value_dim, key_weight_t_.data(), bias(w.key_bias), projected_keys,
         side_by_side.data());
  split_heads(side_by_side.data(), key_length, w.heads, w.key_dim, keys.data());
  linear(key_value_input, key_length, w.key_value_dim, value_weight_t_.data(), bias(w.value_bias), projected_values,
         side_by_side.data());
  split_heads(side_by_side.data(), key_length, w.heads, w.value_dim, values.data());

  Shape shape;
  shape.heads = w.heads;
  shape.query_length = query_length;
  shape.key_length = key_length;
  shape.dim = w.key_dim;
  shape.value_dim = w.value_dim;
  std::vector<float> contexts(element_count("contexts", {w.heads, query_length, w.value_dim}));
  AttentionOutputs outputs;
  outputs.output = contexts.data();
  outputs.weights = weights;
  attention(shape, queries.data(), keys.data(), values.data(), options, outputs);

  merge_heads(contexts.data(), query_length, w.heads, w.value_dim, side_by_side.data());
  linear(side_by_side.data(), query_length, projected_values, output_weight_t_.data(), bias(w.output_bias), w.model_dim,
         output);
}

}  // namespace attn
