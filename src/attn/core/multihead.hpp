// Multi-head attention with learned projections (Vaswani et al. 2017):
//   head_h = Attention(X_q W_Q,h^T, X_kv W_K,h^T, X_kv W_V,h^T),  output = concat(head_1..H) W_O^T + b_O
// The d_model -> heads x key_dim split: W_Q's rows [h*key_dim, (h+1)*key_dim) belong to head h.
// Weights follow PyTorch's Linear: [out][in], y = x W^T + b.
#pragma once

#include <vector>

#include "attn/core/attention.hpp"

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

class MultiHeadAttention {
 public:
  // Validates every shape and value; throws attn::Error naming the first bad one.
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

  const MultiHeadWeights& weights() const { return weights_; }

 private:
  MultiHeadWeights weights_;
  std::vector<float> query_weight_t_, key_weight_t_, value_weight_t_, output_weight_t_;
};

}  // namespace attn
