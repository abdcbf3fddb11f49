// Probability functions over score rows, and the masks that decide which keys a query may see.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace attn {

enum class Probability { softmax, sparsemax, hardmax };

// "softmax" | "sparsemax" | "hardmax"; throws attn::Error naming the valid choices otherwise.
Probability parse_probability(const std::string& name);
const char* to_string(Probability probability);

// Which keys each query may attend to. Every part is optional and they combine (a key must pass
// all of them). Shapes use b for the batch index (a head, in attention) and i for the query row.
struct Masking {
  // d2l's valid lengths: keys at index >= the length are masked. One length per batch entry
  // (count == batch) or one per query row (count == batch * rows). Each in [0, cols].
  const std::int32_t* valid_lengths = nullptr;
  int valid_length_count = 0;
  // Boolean mask, nonzero = may attend: [keep_batch][rows][cols], keep_batch 1 (shared) or batch.
  const std::uint8_t* keep = nullptr;
  int keep_batch = 0;
  // Causal (top-left aligned, like PyTorch's is_causal): query i sees keys 0..i.
  bool causal = false;
  // The score that masked keys receive before the probability function. -inf removes them
  // exactly; d2l uses -1e6. A row whose keys are all masked gives all-zero weights whatever
  // this value is, never NaN and never a uniform row.
  float mask_value = -std::numeric_limits<float>::infinity();

  bool any() const { return valid_lengths || keep || causal; }
};

// Throws attn::Error unless the masking fits x [batch][rows][cols].
void validate_masking(const Masking& masking, int batch, int rows, int cols);

// In place on one row of n scores, after dividing by temperature (> 0):
// softmax, numerically stable (subtracts the max); entries equal to -inf get 0.
void softmax(float* row, int n, float temperature = 1.0f);
// sparsemax (Martins & Astudillo 2016): Euclidean projection onto the simplex; sparse output.
void sparsemax(float* row, int n, float temperature = 1.0f);
// hardmax: 1 on the largest score, split evenly between exact ties, 0 elsewhere.
void hardmax(float* row, int n);
// log softmax of one row of n, in place: log p_i = x_i - log sum_j exp(x_j), the sum in double
// (a vocabulary's scores are many). Inline: a decoder calls it on every row of every step, and
// out of line (in the core's library) beam search ran 10% slower.
inline void log_softmax(float* row, int n) {
  const float top = *std::max_element(row, row + n);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(double(row[i]) - top);
  const float log_sum = top + static_cast<float>(std::log(sum));
  for (int i = 0; i < n; ++i) row[i] -= log_sum;
}
// log sum_j exp(x_j) over one row of n >= 1 finite scores: what log_softmax subtracts, for a
// caller that needs a few entries' log-probabilities (forced decoding: one a row; log p_i =
// x_i - log_sum_exp), by the SIMD exponential with the sum in float (within about 1e-6 of the
// double sum for a vocabulary of 8192). Overwrites the row with exp(x_j - max): read x_i first.
float log_sum_exp_in_place(float* row, int n);
void apply_probability(Probability probability, float* row, int n, float temperature = 1.0f);

// The probability function on every row of x [batch][rows][cols], in place, with masking.
// Fully masked rows become all zeros.
void masked_probabilities(float* x, int batch, int rows, int cols, const Masking& masking,
                          Probability probability = Probability::softmax, float temperature = 1.0f);

// d2l's masked_softmax: softmax over the unmasked keys of each row of x [batch][rows][cols].
inline void masked_softmax(float* x, int batch, int rows, int cols, const Masking& masking) {
  masked_probabilities(x, batch, rows, cols, masking, Probability::softmax, 1.0f);
}

namespace detail {
// The half-open interval of keys [first, last) that the interval-shaped masks (valid length,
// causal, a local window) leave to row i of batch entry b.
struct KeyRange {
  int first = 0;
  int last = 0;
};
KeyRange key_range(const Masking& masking, int batch, int b, int i, int rows, int cols) noexcept;
// Divides one row of scores by the temperature, masks it (range plus the boolean mask), applies
// the probability function, and writes zeros for a fully masked row. Returns the keys left.
int normalize_row(float* row, int cols, KeyRange range, const std::uint8_t* keep_row, float mask_value,
                  Probability probability, float temperature);
}  // namespace detail

}  // namespace attn
