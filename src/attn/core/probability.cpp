#include "attn/core/probability.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"

namespace attn {

Probability parse_probability(const std::string& name) {
  if (name == "softmax") return Probability::softmax;
  if (name == "sparsemax") return Probability::sparsemax;
  if (name == "hardmax") return Probability::hardmax;
  fail("unknown probability '", name, "' (expected softmax, sparsemax or hardmax)");
}

const char* to_string(Probability probability) {
  switch (probability) {
    case Probability::softmax: return "softmax";
    case Probability::sparsemax: return "sparsemax";
    case Probability::hardmax: return "hardmax";
  }
  return "?";
}

static void check_temperature(float temperature) {
  if (!(temperature > 0.0f) || !std::isfinite(temperature)) {
    fail(Field{"temperature"}, " must be a positive finite number, got ", temperature);
  }
}

float log_sum_exp_in_place(float* row, int n) {
  const float top = kernels::max(row, n);
  return top + std::log(kernels::exp_shifted_sum(row, n, top));
}

void softmax(float* row, int n, float temperature) {
  check_temperature(temperature);
  if (n <= 0) return;
  if (temperature != 1.0f) kernels::scale(row, n, 1.0f / temperature);
  const float top = kernels::max(row, n);
  if (top == -std::numeric_limits<float>::infinity()) {  // nothing to attend to
    std::fill(row, row + n, 0.0f);
    return;
  }
  const float sum = kernels::exp_shifted_sum(row, n, top);
  kernels::scale(row, n, 1.0f / sum);  // sum >= 1: the max contributes exp(0)
}

void sparsemax(float* row, int n, float temperature) {
  check_temperature(temperature);
  std::vector<float> sorted;
  sorted.reserve(n);
  for (int j = 0; j < n; ++j) {
    row[j] /= temperature;
    if (row[j] != -std::numeric_limits<float>::infinity()) sorted.push_back(row[j]);
  }
  if (sorted.empty()) {
    std::fill(row, row + n, 0.0f);
    return;
  }
  std::sort(sorted.begin(), sorted.end(), [](float a, float b) { return a > b; });
  // support size k: the largest k with 1 + k*z_(k) > sum of the k largest
  double cumulative = 0.0, support_sum = 0.0;
  int support = 0;
  for (int k = 1; k <= static_cast<int>(sorted.size()); ++k) {
    cumulative += sorted[k - 1];
    if (1.0 + k * static_cast<double>(sorted[k - 1]) > cumulative) {
      support = k;
      support_sum = cumulative;
    }
  }
  const double threshold = (support_sum - 1.0) / support;
  for (int j = 0; j < n; ++j) row[j] = static_cast<float>(std::max(0.0, row[j] - threshold));
}

void hardmax(float* row, int n) {
  if (n <= 0) return;
  const float top = *std::max_element(row, row + n);
  if (top == -std::numeric_limits<float>::infinity()) {
    std::fill(row, row + n, 0.0f);
    return;
  }
  const auto ties = std::count(row, row + n, top);
  const float share = 1.0f / static_cast<float>(ties);
  for (int j = 0; j < n; ++j) row[j] = row[j] == top ? share : 0.0f;
}

void apply_probability(Probability probability, float* row, int n, float temperature) {
  switch (probability) {
    case Probability::softmax: softmax(row, n, temperature); return;
    case Probability::sparsemax: sparsemax(row, n, temperature); return;
    case Probability::hardmax:
      check_temperature(temperature);
      hardmax(row, n);
      return;
  }
}

void validate_masking(const Masking& masking, int batch, int rows, int cols) {
  if (masking.valid_lengths) {
    const long long per_batch = batch, per_row = static_cast<long long>(batch) * rows;
    if (masking.valid_length_count != per_batch && masking.valid_length_count != per_row) {
      fail(Field{"valid_lengths"}, " must have one entry per head (", per_batch, ") or per query row (", per_row,
           "), got ", masking.valid_length_count);
    }
    for (int k = 0; k < masking.valid_length_count; ++k) {
      const int length = masking.valid_lengths[k];
      if (length < 0 || length > cols) {
        fail(Field{"valid_lengths"}, "[", k, "] = ", length, " is outside 0..", cols, " (the key length)");
      }
    }
  }
  if (masking.keep && masking.keep_batch != 1 && masking.keep_batch != batch) {
    fail(Field{"keep"}, " must be [", rows, "][", cols, "] or [", batch, "][", rows, "][", cols, "], got ",
         masking.keep_batch, " matrices (", Field{"keep_batch"}, ")");
  }
  if (std::isnan(masking.mask_value) || masking.mask_value == std::numeric_limits<float>::infinity()) {
    fail(Field{"mask_value"}, " must be a number below +infinity, got ", masking.mask_value);
  }
}

namespace detail {

KeyRange key_range(const Masking& masking, int batch, int b, int i, int rows, int cols) noexcept {
  KeyRange range{0, cols};
  if (masking.valid_lengths) {
    const bool per_row = masking.valid_length_count == static_cast<long long>(batch) * rows;
    range.last = per_row ? masking.valid_lengths[static_cast<long long>(b) * rows + i] : masking.valid_lengths[b];
  }
  if (masking.causal) range.last = std::min(range.last, i + 1);
  return range;
}

int normalize_row(float* row, int cols, KeyRange range, const std::uint8_t* keep_row, float mask_value,
                  Probability probability, float temperature) {
  check_temperature(temperature);
  for (int j = 0; j < cols; ++j) {
    // +inf or NaN: finite inputs whose products overflow float32 (-inf is a mask, and fine)
    if (!(row[j] < std::numeric_limits<float>::infinity())) {
      fail("a score is ", std::isnan(row[j]) ? "NaN" : "+infinity",
           ": the inputs overflow float32 when multiplied; scale them down");
    }
  }
  range.first = std::max(range.first, 0);
  range.last = std::min(range.last, cols);
  if (temperature != 1.0f) kernels::scale(row, cols, 1.0f / temperature);
  int kept = 0;
  if (range.first < range.last) {
    if (keep_row) {
      for (int j = range.first; j < range.last; ++j) {
        if (keep_row[j]) {
          ++kept;
        } else {
          row[j] = mask_value;
        }
      }
    } else {
      kept = range.last - range.first;
    }
  }
  if (kept == 0) {
    std::fill(row, row + cols, 0.0f);
    return 0;
  }
  const bool exact = mask_value == -std::numeric_limits<float>::infinity();
  if (exact) {  // masked keys contribute exactly nothing: normalize the range only
    std::fill(row, row + range.first, 0.0f);
    std::fill(row + range.last, row + cols, 0.0f);
    apply_probability(probability, row + range.first, range.last - range.first);
  } else {  // d2l semantics: masked keys score mask_value and take part
    for (int j = 0; j < range.first; ++j) row[j] = mask_value;
    for (int j = range.last; j < cols; ++j) row[j] = mask_value;
    apply_probability(probability, row, cols);
  }
  return kept;
}

}  // namespace detail

void masked_probabilities(float* x, int batch, int rows, int cols, const Masking& masking, Probability probability,
                          float temperature) {
  check_size("batch", batch);
  check_size("rows", rows);
  check_size("cols", cols);
  element_count("scores", {batch, rows, cols});
  validate_masking(masking, batch, rows, cols);
  check_temperature(temperature);
  for (int b = 0; b < batch; ++b) {
    for (int i = 0; i < rows; ++i) {
      float* row = x + (static_cast<long long>(b) * rows + i) * cols;
      const std::uint8_t* keep_row =
          masking.keep ? masking.keep + ((masking.keep_batch == 1 ? 0LL : b) * rows + i) * static_cast<long long>(cols)
                       : nullptr;
      detail::normalize_row(row, cols, detail::key_range(masking, batch, b, i, rows, cols), keep_row,
                            masking.mask_value, probability, temperature);
    }
  }
}

}  // namespace attn
