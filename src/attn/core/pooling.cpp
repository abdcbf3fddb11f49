#include "attn/core/pooling.hpp"

#include <vector>

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/probability.hpp"

namespace attn {

void attention_pool(const float* inputs, int length, int dim, const PoolingWeights& weights, float* pooled,
                    float* attention_weights, int valid_length) {
  check_size("length", length);
  check_size("dim", dim);
  check_size("hidden", weights.hidden);
  if (!inputs || !pooled || !weights.weight || !weights.context)
    fail("attention pooling needs inputs, weight, context and an output");
  check_finite("inputs", inputs, element_count("inputs", {length, dim}));
  check_finite("weight", weights.weight, element_count("weight", {weights.hidden, dim}));
  check_finite("context", weights.context, weights.hidden);
  if (weights.bias) check_finite("bias", weights.bias, weights.hidden);
  if (valid_length > length)
    fail(Field{"valid_length"}, " (", valid_length, ") exceeds the ", Field{"length"}, " (", length, ")");
  if (valid_length < 0) valid_length = length;

  // The score u_w^T tanh(W h_i + b) is Bahdanau's additive score with b in the query's place.
  std::vector<float> inputs_t = transposed(inputs, length, dim);
  std::vector<float> projected_t(static_cast<std::size_t>(weights.hidden) * length);
  kernels::matmul(weights.hidden, length, dim, 1.0f, weights.weight, dim, inputs_t.data(), length, projected_t.data(),
                  length, false);
  std::vector<float> zeros;
  const float* bias = weights.bias;
  if (!bias) {
    zeros.assign(weights.hidden, 0.0f);
    bias = zeros.data();
  }
  std::vector<float> scores(length);
  kernels::additive_scores(bias, projected_t.data(), length, weights.context, weights.hidden, length, scores.data());
  detail::normalize_row(scores.data(), length, {0, valid_length}, nullptr, -std::numeric_limits<float>::infinity(),
                        Probability::softmax, 1.0f);
  kernels::matmul(1, dim, length, 1.0f, scores.data(), length, inputs, dim, pooled, dim, false);
  if (attention_weights) std::copy(scores.begin(), scores.end(), attention_weights);
}

}  // namespace attn
