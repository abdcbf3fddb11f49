// The captioner's pieces and the captioner itself: the LSTM cell against a double reference.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "attn/core/layers.hpp"
#include "support.hpp"

using namespace attn;
using testing::random_values;

TEST_CASE("LstmCell's step matches PyTorch's LSTM equations in double, gates i, f, g, o", "[captioner]") {
  for (int hidden : {1, 3, 17}) {
    const int input = 5, rows = 3;
    const auto w_ih = random_values(std::size_t(4) * hidden * input, 10 + hidden);
    const auto w_hh = random_values(std::size_t(4) * hidden * hidden, 20 + hidden);
    const auto b_ih = random_values(std::size_t(4) * hidden, 30 + hidden);
    const auto b_hh = random_values(std::size_t(4) * hidden, 40 + hidden);
    const auto x = random_values(std::size_t(rows) * input, 50 + hidden);
    auto h = random_values(std::size_t(rows) * hidden, 60 + hidden);
    auto c = random_values(std::size_t(rows) * hidden, 70 + hidden);
    std::vector<double> want_h(h.size()), want_c(c.size());
    const auto sigmoid = [](double v) { return 1.0 / (1.0 + std::exp(-v)); };
    for (int r = 0; r < rows; ++r) {
      std::vector<double> gate(std::size_t(4) * hidden);
      for (int j = 0; j < 4 * hidden; ++j) {
        double sum = double(b_ih[j]) + b_hh[j];
        for (int k = 0; k < input; ++k) sum += double(w_ih[std::size_t(j) * input + k]) * x[std::size_t(r) * input + k];
        for (int k = 0; k < hidden; ++k)
          sum += double(w_hh[std::size_t(j) * hidden + k]) * h[std::size_t(r) * hidden + k];
        gate[j] = sum;
      }
      for (int k = 0; k < hidden; ++k) {
        const double i = sigmoid(gate[k]), f = sigmoid(gate[hidden + k]), g = std::tanh(gate[2 * hidden + k]),
                     o = sigmoid(gate[3 * hidden + k]);
        const std::size_t at = std::size_t(r) * hidden + k;
        want_c[at] = f * c[at] + i * g;
        want_h[at] = o * std::tanh(want_c[at]);
      }
    }
    const LstmCell cell(w_ih, w_hh, b_ih, b_hh, input, hidden);
    std::vector<float> projected(std::size_t(rows) * 4 * hidden);
    cell.input_projection().forward(x.data(), rows, projected.data());
    cell.step(rows, projected.data(), h.data(), c.data());
    INFO("hidden " << hidden);
    CHECK(testing::max_abs_difference(h, want_h) < 1e-6);
    CHECK(testing::max_abs_difference(c, want_c) < 1e-6);
  }
}

TEST_CASE("LstmCell names a weight of the wrong size", "[captioner]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(LstmCell(random_values(7, 1), random_values(16, 2), {}, {}, 2, 2),
                    Contains("linear weight has 7 elements, expected 16"));
}
