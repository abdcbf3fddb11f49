// What the translation models (rnn.cpp, transformer.cpp) share to read their architecture and to
// decode: not part of the public API.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numeric>
#include <vector>

#include "attn/core/error.hpp"

namespace attn::detail {

// The architecture's integer `name`, in low..limit, or an error naming it.
inline int architecture_field(const nlohmann::json& json, const char* name, int low, int limit) {
  if (!json.contains(name) || !json[name].is_number_integer()) {
    fail("the model architecture needs an integer '", name, "'");
  }
  const long long value = json[name].get<long long>();
  if (value < low || value > limit)
    fail("the model architecture's ", name, " = ", value, " is outside ", low, "..", limit);
  return static_cast<int>(value);
}

// log softmax of one row of n, in place (the sum in double: vocabularies are large).
inline void log_softmax(float* row, int n) {
  const float top = *std::max_element(row, row + n);
  double sum = 0.0;
  for (int i = 0; i < n; ++i) sum += std::exp(double(row[i]) - top);
  const float log_sum = top + static_cast<float>(std::log(sum));
  for (int i = 0; i < n; ++i) row[i] -= log_sum;
}

struct BeamCandidate {
  double score;
  int row, token;
};

// The `beam` best continuations of each live hypothesis (row r of log_probs [rows][V]), best
// first; equal scores keep row order, and a row's lowest id first. Hypothesis has a `score`.
template <class Hypothesis>
std::vector<BeamCandidate> best_continuations(const std::vector<Hypothesis>& alive, const float* log_probs, int V,
                                              int beam) {
  std::vector<BeamCandidate> candidates;
  std::vector<int> order(V);
  const int keep = std::min(beam, V);
  for (int r = 0; r < static_cast<int>(alive.size()); ++r) {
    const float* row = log_probs + static_cast<std::size_t>(r) * V;
    std::iota(order.begin(), order.end(), 0);
    std::partial_sort(order.begin(), order.begin() + keep, order.end(),
                      [&](int x, int y) { return row[x] != row[y] ? row[x] > row[y] : x < y; });
    for (int k = 0; k < keep; ++k) candidates.push_back({alive[r].score + row[order[k]], r, order[k]});
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const BeamCandidate& x, const BeamCandidate& y) { return x.score > y.score; });
  return candidates;
}

// GNMT's length penalty ((5 + |Y|) / 6)^0.6 keeps beam search from preferring short outputs;
// |Y| counts the end token. Hypothesis has `score` and `ids`.
template <class Hypothesis>
double length_normalized(const Hypothesis& h) {
  return h.score / std::pow((5.0 + h.ids.size() + 1) / 6.0, 0.6);
}

}  // namespace attn::detail
