// Attention: score functions, masks, probability functions, and the weighted sum of values,
// batched over heads. Shapes are row-major and written in brackets:
//   query  [heads][query_length][dim]
//   key    [heads][key_length][key_dim]
//   value  [heads][key_length][value_dim]
//   output [heads][query_length][value_dim]       weights, scores [heads][query_length][key_length]
// Self-attention is the case query = key = value; cross-attention passes another sequence as
// key and value (key_length may differ from query_length).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attn/core/probability.hpp"

namespace attn {

enum class Score { dot, scaled_dot, general, additive };
// "dot" | "scaled_dot" | "general" | "additive"
Score parse_score(const std::string& name);
const char* to_string(Score score);

struct Shape {
  int heads = 1;
  int query_length = 0;
  int key_length = 0;
  int dim = 0;        // query vector size
  int key_dim = 0;    // key vector size; 0 means dim (dot products need key_dim == dim)
  int value_dim = 0;  // value vector size; 0 means dim

  int resolved_key_dim() const { return key_dim ? key_dim : dim; }
  int resolved_value_dim() const { return value_dim ? value_dim : dim; }
};

// Luong's general (bilinear) score g * q^T W k, shared by all heads. W: [dim][key_dim].
// scale is Luong's scaled form (g; 1 gives the plain score).
// projected_keys: W k of every key, for a caller that attends to the same keys many times (a
// decoder, at every step) and computes it once: [heads][dim][key_length], one row per query
// dimension. attention() then scores g * q^T (W k) without reading weight or the keys (both may
// be null).
struct GeneralScore {
  const float* weight = nullptr;
  float scale = 1.0f;
  const float* projected_keys = nullptr;
};

// Bahdanau's additive (concat) score v^T tanh(W_q q + W_k k + b), shared by all heads.
//   query_weight [hidden][dim], key_weight [hidden][key_dim], v [hidden], bias [hidden] or null.
// normalize: the weight-normalized form, v replaced by gain * v / |v|.
// A caller that attends many times with the same parameters and keys (a decoder, at every step)
// can hand over what does not change, as Bahdanau et al. (2015, appendix A.1.2) precompute U_a h_j:
//   transposed_query_weight: W_q^T [dim][hidden], read instead of query_weight (then may be null);
//   projected_keys: W_k k of every key, [heads][hidden][key_length] (one row per hidden unit),
//     read instead of key_weight and the keys (both may then be null).
struct AdditiveScore {
  int hidden = 0;
  const float* query_weight = nullptr;
  const float* key_weight = nullptr;
  const float* v = nullptr;
  const float* bias = nullptr;
  bool normalize = false;
  float gain = 1.0f;
  const float* transposed_query_weight = nullptr;
  const float* projected_keys = nullptr;
};

// Luong et al. 2015's local attention. Each query t attends to keys in [p_t - D, p_t + D].
//   monotonic (local-m): p_t = t.
//   predictive (local-p): p_t = S * sigmoid(v_p^T tanh(W_p q_t)), S the key length, and the
//   weights are multiplied by exp(-(s - p_t)^2 / (2 sigma^2)) with sigma = D / 2.
enum class Local { none, monotonic, predictive };
Local parse_local(const std::string& name);  // "none" | "monotonic" | "predictive"

struct LocalWindow {
  Local mode = Local::none;
  int half_width = 0;                      // D
  int hidden = 0;                          // local-p only:
  const float* position_weight = nullptr;  //   W_p [hidden][dim]
  const float* position_v = nullptr;       //   v_p [hidden]
};

// Hard attention replaces the soft weights of each row by a one-hot choice of one key.
enum class Hard { none, argmax, sample };
Hard parse_hard(const std::string& name);  // "none" | "argmax" | "sample"

struct AttentionOptions {
  Score score = Score::scaled_dot;
  GeneralScore general;
  AdditiveScore additive;
  Probability probability = Probability::softmax;
  float temperature = 1.0f;  // scores are divided by it before the probability function
  Masking mask;              // valid lengths, boolean mask, causal, mask value (batch = heads)
  LocalWindow local;
  Hard hard = Hard::none;
  float dropout = 0.0f;    // probability of zeroing a weight (survivors scaled by 1/(1-p))
  std::uint64_t seed = 0;  // for dropout and for sampled hard attention
  // Scan the inputs and parameters for NaN and infinity, and name the first one found (as
  // scipy.linalg's check_finite). A caller that attends many times to inputs it has checked
  // already (a decoder, at every step) may turn the scan off; a non-finite input then goes
  // unnamed (a NaN value gives a NaN output, a NaN score an overflow error).
  bool check_finite = true;
};

// Where attention() writes; every pointer but output may be null.
struct AttentionOutputs {
  float* output = nullptr;          // [heads][query_length][value_dim]
  float* weights = nullptr;         // [heads][query_length][key_length], as applied to the values
  float* scores = nullptr;          // [heads][query_length][key_length], the score function's values
  std::int32_t* indices = nullptr;  // [heads][query_length], hard attention's key; -1 if none
  float* positions = nullptr;       // [heads][query_length], local attention's centre p_t
};

// Throws attn::Error unless every size is positive and every buffer the shape implies
// (query, key, value, weights, output) stays below max_elements. Cheap: call it before allocating.
void validate_shape(const Shape& shape);

// Computes attention. Throws attn::Error (message naming the argument) for bad shapes, sizes,
// options or non-finite inputs (unless options.check_finite is off). A fully masked row gets
// all-zero weights and a zero output.
void attention(const Shape& shape, const float* query, const float* key, const float* value,
               const AttentionOptions& options, const AttentionOutputs& outputs);

// What the allocating attention() returns besides the output, as flags to combine with |.
// Asking for neither lets softmax attention take the fused path, which never holds the
// [query_length][key_length] matrix (FlashAttention's online softmax).
enum class Returns : unsigned { output = 0, weights = 1u << 0, scores = 1u << 1 };
constexpr Returns operator|(Returns a, Returns b) {
  return static_cast<Returns>(static_cast<unsigned>(a) | static_cast<unsigned>(b));
}
constexpr bool includes(Returns set, Returns part) {
  return (static_cast<unsigned>(set) & static_cast<unsigned>(part)) != 0;
}

// Convenience form that allocates: checks the vector sizes against the shape. weights and
// scores are filled when `returns` asks for them and empty otherwise; indices (hard attention)
// and positions (local attention) whenever the options produce them.
struct AttentionResult {
  std::vector<float> output;
  std::vector<float> weights;
  std::vector<float> scores;
  std::vector<std::int32_t> indices;
  std::vector<float> positions;
};
AttentionResult attention(const Shape& shape, const std::vector<float>& query, const std::vector<float>& key,
                          const std::vector<float>& value, const AttentionOptions& options = {},
                          Returns returns = Returns::output);

// Zeroes each of weights[0..count) with probability p and scales the rest by 1/(1-p)
// (inverted dropout, as in d2l's DotProductAttention in training mode). Seeded.
void dropout(float* weights, std::size_t count, float p, std::uint64_t seed);

// Index of the chosen key in one row of weights: the first largest weight (argmax), or a draw
// from the row as a distribution (sample). Returns -1 for an all-zero row.
class Rng;
int hard_select(const float* weights, int n, Hard mode, Rng& rng);

}  // namespace attn
