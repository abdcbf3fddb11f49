#include "attn/core/multihead.hpp"

#include <algorithm>

#include "attn/core/error.hpp"
#include "attn/core/internal/scratch.hpp"

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

}  // namespace

MultiHeadAttention::MultiHeadAttention(MultiHeadWeights weights) {
  MultiHeadWeights& w = weights;
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
  shape_ = {w.model_dim, w.key_value_dim, w.heads, w.key_dim, w.value_dim};
  query_ = Linear(w.query_weight, std::move(w.query_bias), w.model_dim, projected_keys);
  key_ = Linear(w.key_weight, std::move(w.key_bias), w.key_value_dim, projected_keys);
  value_ = Linear(w.value_weight, std::move(w.value_bias), w.key_value_dim, projected_values);
  output_ = Linear(w.output_weight, std::move(w.output_bias), projected_values, w.model_dim);
}

void MultiHeadAttention::project_keys_values(const float* key_value_input, int length, float* keys,
                                             float* values) const {
  // (forward_heads checks every output's size before any is written: size_t is 32-bit in wasm)
  const Linear::HeadsOutput outputs[] = {{&key_, keys}, {&value_, values}};
  Linear::forward_heads(key_value_input, length, shape_.heads, outputs, 2);
}

void MultiHeadAttention::contexts(const float* query_input, int rows, const float* keys, const float* values,
                                  int key_length, const AttentionOptions& options, float* context,
                                  float* weights) const {
  check_score(options);
  element_count("weights", {shape_.heads, rows, key_length});
  Scratch queries(element_count("projected queries", {rows, shape_.heads * shape_.key_dim}));
  query_.forward_heads(query_input, rows, shape_.heads, queries.data());
  projected_contexts(queries.data(), rows, keys, values, key_length, options, context, weights);
}

void MultiHeadAttention::check_score(const AttentionOptions& options) {
  if (options.score != Score::dot && options.score != Score::scaled_dot) {
    fail("multi-head attention projects queries and keys itself; its ", Field{"score"}, " must be dot or scaled_dot");
  }
}

void MultiHeadAttention::projected_contexts(const float* queries, int rows, const float* keys, const float* values,
                                            int key_length, const AttentionOptions& options, float* context,
                                            float* weights) const {
  const MultiHeadShape& w = shape_;  // (the weights' size checked by the callers, before projecting)
  Shape shape;
  shape.heads = w.heads;
  shape.query_length = rows;
  shape.key_length = key_length;
  shape.dim = w.key_dim;
  shape.value_dim = w.value_dim;
  Scratch per_head(element_count("contexts", {w.heads, rows, w.value_dim}));
  AttentionOutputs outputs;
  outputs.output = per_head.data();
  outputs.weights = weights;
  attention(shape, queries, keys, values, options, outputs);
  merge_heads(per_head.data(), rows, w.heads, w.value_dim, context);
}

void MultiHeadAttention::attend(const float* query_input, int rows, const float* keys, const float* values,
                                int key_length, const AttentionOptions& options, float* residual,
                                float* weights) const {
  check_size("query rows", rows);
  check_size("key_length", key_length);
  if (!query_input || !keys || !values || !residual) fail("multi-head attention needs its inputs and an output buffer");
  if (options.check_finite)
    check_finite("query_input", query_input, element_count("query_input", {rows, shape_.model_dim}));
  Scratch context(element_count("contexts", {rows, shape_.heads * shape_.value_dim}));
  contexts(query_input, rows, keys, values, key_length, options, context.data(), weights);
  output_.add_to(context.data(), rows, residual);
}

void MultiHeadAttention::attend_self(const float* input, int rows, const AttentionOptions& options, float* residual,
                                     float* weights) const {
  const MultiHeadShape& w = shape_;
  check_size("rows", rows);
  if (!input || !residual) fail("multi-head attention needs its input and an output buffer");
  if (w.key_value_dim != w.model_dim) {
    fail("self-attention needs keys and values of the model's width: key_value_dim is ", w.key_value_dim,
         ", model_dim ", w.model_dim);
  }
  check_score(options);
  if (options.check_finite) check_finite("input", input, element_count("input", {rows, w.model_dim}));
  element_count("weights", {w.heads, rows, rows});
  Scratch queries(element_count("projected queries", {rows, w.heads * w.key_dim}));
  Scratch keys(element_count("projected keys", {rows, w.heads * w.key_dim}));
  Scratch values(element_count("projected values", {rows, w.heads * w.value_dim}));
  const Linear::HeadsOutput projections[] = {{&query_, queries.data()}, {&key_, keys.data()}, {&value_, values.data()}};
  Linear::forward_heads(input, rows, w.heads, projections, 3);
  Scratch context(element_count("contexts", {rows, w.heads * w.value_dim}));
  projected_contexts(queries.data(), rows, keys.data(), values.data(), rows, options, context.data(), weights);
  output_.add_to(context.data(), rows, residual);
}

void MultiHeadAttention::forward(const float* query_input, int query_length, const float* key_value_input,
                                 int key_length, const AttentionOptions& options, float* output, float* weights) const {
  const MultiHeadShape& w = shape_;
  check_size("query_length", query_length);
  check_size("key_length", key_length);
  if (!query_input || !key_value_input || !output) fail("multi-head attention needs its inputs and an output buffer");
  check_score(options);
  check_finite("query_input", query_input, element_count("query_input", {query_length, w.model_dim}));
  check_finite("key_value_input", key_value_input, element_count("key_value_input", {key_length, w.key_value_dim}));
  Scratch keys(element_count("projected keys", {key_length, w.heads * w.key_dim}));
  Scratch values(element_count("projected values", {key_length, w.heads * w.value_dim}));
  element_count("weights", {w.heads, query_length, key_length});
  project_keys_values(key_value_input, key_length, keys.data(), values.data());
  Scratch context(element_count("contexts", {query_length, w.heads * w.value_dim}));
  contexts(query_input, query_length, keys.data(), values.data(), key_length, options, context.data(), weights);
  output_.forward(context.data(), query_length, output);
}

KeyValueCache::KeyValueCache(int heads, int key_dim, int value_dim)
    : heads_(heads), key_dim_(key_dim), value_dim_(value_dim) {
  check_size("heads", heads);
  check_size("key_dim", key_dim);
  check_size("value_dim", value_dim);
}

namespace {

// cache [heads][length][width] grows by one row per head: added [heads][width]
void append_heads(std::vector<float>& cache, int length, int heads, int width, const float* added) {
  std::vector<float> grown(element_count("key/value cache", {heads, length + 1, width}));
  for (int h = 0; h < heads; ++h) {
    float* row = grown.data() + static_cast<std::size_t>(h) * (length + 1) * width;
    std::copy_n(cache.data() + static_cast<std::size_t>(h) * length * width, static_cast<std::size_t>(length) * width,
                row);
    std::copy_n(added + static_cast<std::size_t>(h) * width, width, row + static_cast<std::size_t>(length) * width);
  }
  cache = std::move(grown);
}

}  // namespace

void KeyValueCache::append(const float* key, const float* value) {
  if (heads_ == 0) fail("the key/value cache was not given its sizes");
  append_heads(keys_, length_, heads_, key_dim_, key);
  append_heads(values_, length_, heads_, value_dim_, value);
  ++length_;
}

}  // namespace attn
