// Median wall time of repeated runs, for the benchmarks (never for tests).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace attn::bench {

// The middle of the values (the upper one of an even count).
inline double median(std::vector<double> values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Wall milliseconds of one call of body.
template <class Body>
double elapsed_ms(Body&& body) {
  const auto start = std::chrono::steady_clock::now();
  body();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// Runs body once to warm up, then `reps` times; returns the median in milliseconds.
template <class Body>
double median_ms(int reps, Body&& body) {
  body();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) times.push_back(elapsed_ms(body));
  return median(std::move(times));
}

}  // namespace attn::bench
