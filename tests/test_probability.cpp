// Probability functions and masks, with d2l's worked examples.
#include <catch2/catch.hpp>

#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {
const float inf = std::numeric_limits<float>::infinity();

void check_row(const float* row, std::initializer_list<double> expected, double margin = 1e-6) {
  int j = 0;
  for (double e : expected) {
    INFO("column " << j);
    CHECK(row[j++] == Approx(e).margin(margin));
  }
}
}  // namespace

TEST_CASE("softmax is stable at +-1e4 and sums to one", "[probability]") {
  std::vector<float> row{1e4f, -1e4f, 9999.0f, 0.0f, 1e4f};
  softmax(row.data(), 5);
  const double e = std::exp(-1.0);
  const double total = 2.0 + e;
  check_row(row.data(), {1 / total, 0.0, e / total, 0.0, 1 / total});
  std::vector<float> low(17, -1e4f);
  low[3] = -9998.0f;
  softmax(low.data(), 17);
  double sum = 0.0;
  for (float x : low) {
    REQUIRE(std::isfinite(x));
    sum += x;
  }
  CHECK(sum == Approx(1.0));
  CHECK(low[3] > 0.3f);
}

TEST_CASE("temperature divides the scores before softmax", "[probability]") {
  std::vector<float> hot{1.0f, 2.0f, 3.0f}, cold = hot, plain{0.5f, 1.0f, 1.5f};
  softmax(hot.data(), 3, 2.0f);
  softmax(plain.data(), 3);
  CHECK(testing::max_abs_difference(hot, plain) < 1e-7);
  softmax(cold.data(), 3, 0.01f);
  check_row(cold.data(), {0.0, 0.0, 1.0});
  CHECK_THROWS_WITH(softmax(cold.data(), 3, 0.0f), Contains("temperature"));
  CHECK_THROWS_WITH(softmax(cold.data(), 3, -1.0f), Contains("temperature"));
}

TEST_CASE("d2l: masked softmax on (2,2,4) with valid lengths [2,3] zeroes the columns past each length",
          "[probability][d2l]") {
  auto x = testing::random_values(16, 42);
  const auto original = x;
  const std::int32_t lengths[] = {2, 3};
  Masking masking;
  masking.valid_lengths = lengths;
  masking.valid_length_count = 2;
  masked_softmax(x.data(), 2, 2, 4, masking);
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 2; ++i) {
      const float* row = x.data() + (b * 2 + i) * 4;
      const float* in = original.data() + (b * 2 + i) * 4;
      double norm = 0.0;
      for (int j = 0; j < lengths[b]; ++j) norm += std::exp(double(in[j]));
      for (int j = 0; j < 4; ++j) {
        INFO("b=" << b << " i=" << i << " j=" << j);
        if (j < lengths[b]) {
          CHECK(row[j] == Approx(std::exp(double(in[j])) / norm).margin(1e-6));
        } else {
          CHECK(row[j] == 0.0f);
        }
      }
    }
  }
}

TEST_CASE("d2l: valid lengths per query row ([[1,3],[2,4]]) mask each row separately", "[probability][d2l]") {
  auto x = testing::random_values(16, 5);
  const std::int32_t lengths[] = {1, 3, 2, 4};
  Masking masking;
  masking.valid_lengths = lengths;
  masking.valid_length_count = 4;
  masked_softmax(x.data(), 2, 2, 4, masking);
  for (int row = 0; row < 4; ++row) {
    double sum = 0.0;
    for (int j = 0; j < 4; ++j) {
      if (j >= lengths[row]) CHECK(x[row * 4 + j] == 0.0f);
      sum += x[row * 4 + j];
    }
    CHECK(sum == Approx(1.0));
  }
  CHECK(x[0] == 1.0f);  // one valid key gets all the weight
}

TEST_CASE("a fully masked row gives zero weights, not NaN, whatever the mask value", "[probability]") {
  for (float mask_value : {-inf, -1e6f, 0.0f}) {
    auto x = testing::random_values(12, 3);
    const std::int32_t lengths[] = {0, 2};
    Masking masking;
    masking.valid_lengths = lengths;
    masking.valid_length_count = 2;
    masking.mask_value = mask_value;
    for (Probability p : {Probability::softmax, Probability::sparsemax, Probability::hardmax}) {
      auto y = x;
      masked_probabilities(y.data(), 2, 2, 3, masking, p);
      INFO("mask value " << mask_value << ", " << to_string(p));
      for (int j = 0; j < 6; ++j) CHECK(y[j] == 0.0f);
      for (int row = 2; row < 4; ++row) {
        CHECK(y[row * 3] + y[row * 3 + 1] + y[row * 3 + 2] == Approx(1.0));
        if (mask_value <= -1e6f) CHECK(y[row * 3 + 2] == 0.0f);
      }
    }
  }
}

TEST_CASE("the mask value takes part in softmax the way d2l's -1e6 does", "[probability]") {
  std::vector<float> x{1.0f, 2.0f, 3.0f};
  const std::int32_t lengths[] = {2};
  Masking masking;
  masking.valid_lengths = lengths;
  masking.valid_length_count = 1;
  masking.mask_value = 2.0f;  // a masked score as large as a kept one gets weight like it
  masked_softmax(x.data(), 1, 1, 3, masking);
  const double total = std::exp(1.0) + 2 * std::exp(2.0);
  check_row(x.data(), {std::exp(1.0) / total, std::exp(2.0) / total, std::exp(2.0) / total});
}

TEST_CASE("boolean masks, shared or per batch entry, combine with valid lengths and causality", "[probability]") {
  std::vector<float> x(2 * 3 * 3, 0.0f);
  const std::uint8_t shared[] = {1, 0, 1, 1, 1, 1, 0, 1, 1};
  Masking masking;
  masking.keep = shared;
  masking.keep_batch = 1;
  masking.causal = true;
  masked_softmax(x.data(), 2, 3, 3, masking);
  for (int b = 0; b < 2; ++b) {
    const float* m = x.data() + b * 9;
    check_row(m, {1.0, 0.0, 0.0});
    check_row(m + 3, {0.5, 0.5, 0.0});
    check_row(m + 6, {0.0, 0.5, 0.5});
  }
  std::vector<float> y(2 * 3 * 3, 0.0f);
  const std::uint8_t per_batch[] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0};
  masking.keep = per_batch;
  masking.keep_batch = 2;
  masking.causal = false;
  masked_softmax(y.data(), 2, 3, 3, masking);
  check_row(y.data(), {1 / 3.0, 1 / 3.0, 1 / 3.0});
  check_row(y.data() + 9, {0.0, 0.0, 0.0});
  check_row(y.data() + 12, {0.0, 0.0, 1.0});
  check_row(y.data() + 15, {1.0, 0.0, 0.0});
}

TEST_CASE("causal masking lets query i see keys 0..i", "[probability]") {
  std::vector<float> x(4 * 4, 1.0f);
  Masking masking;
  masking.causal = true;
  masked_softmax(x.data(), 1, 4, 4, masking);
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < 4; ++j) CHECK(x[i * 4 + j] == Approx(j <= i ? 1.0 / (i + 1) : 0.0));
  }
}

TEST_CASE("sparsemax matches its worked example and is sparse", "[probability]") {
  std::vector<float> x{1.0f, 0.5f, -1.0f};
  sparsemax(x.data(), 3);
  check_row(x.data(), {0.75, 0.25, 0.0});
  std::vector<float> far{3.0f, 0.0f, 0.0f};
  sparsemax(far.data(), 3);
  check_row(far.data(), {1.0, 0.0, 0.0});
  std::vector<float> even{0.2f, 0.2f, 0.2f, 0.2f};
  sparsemax(even.data(), 4);
  check_row(even.data(), {0.25, 0.25, 0.25, 0.25});
  auto random = testing::random_values(65, 11, -3.0f, 3.0f);
  sparsemax(random.data(), 65);
  double sum = 0.0;
  int zeros = 0;
  for (float p : random) {
    CHECK(p >= 0.0f);
    sum += p;
    zeros += p == 0.0f;
  }
  CHECK(sum == Approx(1.0).margin(1e-5));
  CHECK(zeros > 50);
}

TEST_CASE("hardmax puts all weight on the largest score and splits exact ties", "[probability]") {
  std::vector<float> x{0.1f, 2.0f, -3.0f, 1.9f};
  hardmax(x.data(), 4);
  check_row(x.data(), {0.0, 1.0, 0.0, 0.0});
  std::vector<float> tie{2.0f, 1.0f, 2.0f};
  hardmax(tie.data(), 3);
  check_row(tie.data(), {0.5, 0.0, 0.5});
}

TEST_CASE("probability names parse, and unknown names are named in the error", "[probability]") {
  CHECK(parse_probability("sparsemax") == Probability::sparsemax);
  CHECK_THROWS_WITH(parse_probability("softermax"), Contains("softermax") && Contains("softmax, sparsemax or hardmax"));
}

TEST_CASE("bad masks are rejected with the reason", "[probability]") {
  std::vector<float> x(8, 0.0f);
  const std::int32_t too_long[] = {5};
  Masking masking;
  masking.valid_lengths = too_long;
  masking.valid_length_count = 1;
  CHECK_THROWS_WITH(masked_softmax(x.data(), 1, 2, 4, masking), Contains("valid_lengths[0] = 5"));
  const std::int32_t three[] = {1, 1, 1};
  masking.valid_lengths = three;
  masking.valid_length_count = 3;
  CHECK_THROWS_WITH(masked_softmax(x.data(), 1, 2, 4, masking), Contains("one entry per head"));
  Masking nan_mask;
  nan_mask.mask_value = std::nanf("");
  CHECK_THROWS_WITH(masked_softmax(x.data(), 1, 2, 4, nan_mask), Contains("mask_value"));
}

TEST_CASE("log_sum_exp_in_place is the double log-normalizer to 1e-5 over a vocabulary, on both twins",
          "[probability]") {
  for (bool simd : {false, true}) {
    kernels::set_simd(simd);
    for (int n : {1, 7, 64, 8192}) {
      std::vector<float> row = testing::random_values(static_cast<std::size_t>(n), 900 + n);
      for (float& x : row) x *= 12.0f;  // logits spread over +-12
      row[n / 2] = 40.0f;               // one far above the rest: the shift must hold
      double top = row[0], sum = 0.0;
      for (float x : row) top = std::max<double>(top, x);
      for (float x : row) sum += std::exp(double(x) - top);
      const double expected = top + std::log(sum);
      INFO("n=" << n << " simd=" << simd);
      CHECK(std::abs(log_sum_exp_in_place(row.data(), n) - expected) < 1e-5);
      CHECK(row[n / 2] == 1.0f);  // the row now holds exp(x - max)
    }
  }
  kernels::set_simd(true);
}
