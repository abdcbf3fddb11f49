// Multi-head attention with learned projections (Vaswani et al. 2017):
//   head_h = Attention(X_q W_Q,h^T, X_kv W_K,h^T, X_kv W_V,h^T),  output = concat(head_1..H) W_O^T + b_O
// The d_model -> heads x key_dim split: W_Q's rows [h*key_dim, (h+1)*key_dim) belong to head h.
// Weights follow PyTorch's Linear: [out][in], y = x W^T + b.
#pragma once

#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/layers.hpp"

namespace attn {

struct MultiHeadWeights {
  int model_dim = 0;      // d_model: width of the query input and of the output
  int key_value_dim = 0;  // width of the key/value input; 0 means model_dim (self-attention)
  int heads = 0;
  int key_dim = 0;                                                   // per head; 0 means model_dim / heads
  int value_dim = 0;                                                 // per head; 0 means key_dim
  std::vector<float> query_weight;                                   // [heads*key_dim][model_dim]
  std::vector<float> key_weight;                                     // [heads*key_dim][key_value_dim]
  std::vector<float> value_weight;                                   // [heads*value_dim][key_value_dim]
  std::vector<float> output_weight;                                  // [model_dim][heads*value_dim]
  std::vector<float> query_bias, key_bias, value_bias, output_bias;  // empty, or one per output row
};

// The sizes of a MultiHeadAttention, defaults resolved.
struct MultiHeadShape {
  int model_dim = 0, key_value_dim = 0, heads = 0, key_dim = 0, value_dim = 0;
};

class MultiHeadAttention {
 public:
  MultiHeadAttention() = default;
  // Validates every shape and value; throws attn::Error naming the first bad one. The weights are
  // packed for the matmul kernel (attn/core/layers.hpp's Linear) and not kept as given.
  explicit MultiHeadAttention(MultiHeadWeights weights);

  // query_input [query_length][model_dim], key_value_input [key_length][key_value_dim]
  // -> output [query_length][model_dim]; weights [heads][query_length][key_length] if not null.
  // options: the score must be dot or scaled_dot (the Transformer's); masks are per head.
  void forward(const float* query_input, int query_length, const float* key_value_input, int key_length,
               const AttentionOptions& options, float* output, float* weights = nullptr) const;

  // Self-attention: queries, keys and values all come from x [length][model_dim].
  void self_attention(const float* x, int length, const AttentionOptions& options, float* output,
                      float* weights = nullptr) const {
    forward(x, length, x, length, options, output, weights);
  }

  // Keys and values of key_value_input [length][key_value_dim], projected and in head layout:
  // keys [heads][length][key_dim], values [heads][length][value_dim]. A decoder computes them once
  // per sentence (cross-attention) or one position at a time (KeyValueCache).
  void project_keys_values(const float* key_value_input, int length, float* keys, float* values) const;
  // Attention of query_input [rows][model_dim] over keys and values already projected, in head
  // layout, as project_keys_values gives them; the output [rows][model_dim] is added to residual
  // (x + MultiHead(x, ...), the Transformer's sublayer). weights [heads][rows][key_length] if not
  // null. options as forward's; check_finite covers query_input only.
  void attend(const float* query_input, int rows, const float* keys, const float* values, int key_length,
              const AttentionOptions& options, float* residual, float* weights = nullptr) const;

  // Self-attention as a Transformer's sublayer: residual += MultiHead(input) over input
  // [rows][model_dim] itself, weights [heads][rows][rows] if not null. The same bits as
  // project_keys_values(input) and then attend(input, ...), with the queries', keys' and values'
  // projections together (Linear::forward_heads of the three: one job on the threads where the
  // heads are a whole number of Linear::output_alignment() wide, the Transformers' 64 are).
  // Needs key_value_dim == model_dim; options as attend's (check_finite covers input).
  void attend_self(const float* input, int rows, const AttentionOptions& options, float* residual,
                   float* weights = nullptr) const;

  const MultiHeadShape& shape() const { return shape_; }
  // The projections, each d_in -> d_out: a decoder step projects a new position's key and value
  // with these and appends them to its KeyValueCache.
  const Linear& key_projection() const { return key_; }
  const Linear& value_projection() const { return value_; }

 private:
  // Projected queries in head layout attend to keys and values; the heads' contexts, side by side,
  // land in context [rows][heads * value_dim].
  void contexts(const float* query_input, int rows, const float* keys, const float* values, int key_length,
                const AttentionOptions& options, float* context, float* weights) const;
  // contexts() for queries already projected, in head layout [heads][rows][key_dim]
  void projected_contexts(const float* queries, int rows, const float* keys, const float* values, int key_length,
                          const AttentionOptions& options, float* context, float* weights) const;
  // fails unless the score is dot or scaled_dot
  static void check_score(const AttentionOptions& options);

  MultiHeadShape shape_;
  Linear query_, key_, value_, output_;
};

// The keys and values a decoder's self-attention has seen, in head layout [heads][length][head_dim]
// (what MultiHeadAttention::attend reads), growing by one position per step.
class KeyValueCache {
 public:
  KeyValueCache() = default;
  KeyValueCache(int heads, int key_dim, int value_dim);
  int length() const { return length_; }
  // One new position: key [heads * key_dim] and value [heads * value_dim], heads side by side (as
  // the projections write them).
  void append(const float* key, const float* value);
  const float* keys() const { return keys_.data(); }
  const float* values() const { return values_.data(); }

 private:
  int heads_ = 0, key_dim_ = 0, value_dim_ = 0, length_ = 0;
  std::vector<float> keys_, values_;
};

}  // namespace attn
