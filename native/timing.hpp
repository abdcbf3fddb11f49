// Median wall time of repeated runs, for the benchmarks (never for tests).
#pragma once

#include <algorithm>
#include <chrono>
#include <vector>

namespace attn::bench {

// Runs body once to warm up, then `reps` times; returns the median in milliseconds.
template <class Body>
double median_ms(int reps, Body&& body) {
  body();
  std::vector<double> times;
  for (int r = 0; r < reps; ++r) {
    const auto start = std::chrono::steady_clock::now();
    body();
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::nth_element(times.begin(), times.begin() + times.size() / 2, times.end());
  return times[times.size() / 2];
}

}  // namespace attn::bench
