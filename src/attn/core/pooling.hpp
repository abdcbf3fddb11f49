// Attention pooling with a learned context vector: the word level of hierarchical attention
// networks (Yang et al. 2016):
//   u_i = tanh(W h_i + b),  alpha = softmax_i(u_i^T u_w),  s = sum_i alpha_i h_i
#pragma once

namespace attn {

struct PoolingWeights {
  int hidden = 0;
  const float* weight = nullptr;   // W   [hidden][dim]
  const float* bias = nullptr;     // b   [hidden], or null
  const float* context = nullptr;  // u_w [hidden]
};

// inputs [length][dim] -> pooled [dim], weights [length] (may be null). valid_length < 0 means
// all of them; positions at or past it are masked (valid_length 0 gives zeros).
void attention_pool(const float* inputs, int length, int dim, const PoolingWeights& weights, float* pooled,
                    float* attention_weights = nullptr, int valid_length = -1);

}  // namespace attn
