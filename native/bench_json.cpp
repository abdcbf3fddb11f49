// The speed of `attn attentions`'s JSON numbers (never a test): the maps of a 60-word line, 3
// layers x 4 heads x 130 x 140 softmax weights (218,400), written by json_weights.hpp's
// append_nested (std::to_chars), beside the snprintf("%.6g") + strtod + nlohmann::json path that
// writes the same numbers; the median of --reps runs, one JSON line each.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "json_weights.hpp"
#include "timing.hpp"

int main(int argc, char** argv) {
  int reps = 21;
  for (int i = 1; i + 1 < argc; i += 2)
    if (std::string(argv[i]) == "--reps") reps = std::max(1, std::atoi(argv[i + 1]));
  const int layers = 3, heads = 4, rows = 130, cols = 140;
  // weights: [layers][heads][rows][cols], each row a softmax of N(0, 3) logits (seed 42)
  std::vector<float> weights(static_cast<std::size_t>(layers) * heads * rows * cols);
  std::mt19937 rng(42);
  std::normal_distribution<float> logit(0.0f, 3.0f);
  for (std::size_t row = 0; row < weights.size(); row += cols) {
    float* x = weights.data() + row;
    float sum = 0.0f;
    for (int c = 0; c < cols; ++c) sum += x[c] = std::exp(logit(rng));
    for (int c = 0; c < cols; ++c) x[c] /= sum;
  }
  std::size_t bytes = 0, nlohmann_bytes = 0;
  const double to_chars_ms = attn::bench::median_ms(reps, [&] {
    std::string out;
    attn::cli::append_nested(out, weights, layers, heads, rows, cols);
    bytes = out.size();
  });
  const double nlohmann_ms = attn::bench::median_ms(std::max(1, reps / 4), [&] {
    nlohmann::json numbers = nlohmann::json::array();
    for (float w : weights) {
      char text[32];
      std::snprintf(text, sizeof text, "%.6g", double(w));
      numbers.push_back(std::strtod(text, nullptr));
    }
    nlohmann_bytes = numbers.dump().size();
  });
  std::printf(
      "{\"impl\":\"attn-native\",\"case\":\"json weights, to_chars\",\"numbers\":%zu,\"bytes\":%zu,\"ms\":%.2f}\n",
      weights.size(), bytes, to_chars_ms);
  std::printf("{\"impl\":\"snprintf-nlohmann\",\"case\":\"json weights\",\"numbers\":%zu,\"bytes\":%zu,\"ms\":%.2f}\n",
              weights.size(), nlohmann_bytes, nlohmann_ms);
}
