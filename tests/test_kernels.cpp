// Every SIMD kernel against its scalar twin and a double-precision reference, over odd sizes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "attn/core/internal/kernels.hpp"
#include "attn/core/layers.hpp"
#include "attn/core/threads.hpp"
#include "support.hpp"

using namespace attn;
using testing::from_bits;
using testing::random_values;

namespace {
const int odd_sizes[] = {1, 2, 3, 7, 17, 63, 64, 65, 127};

// Both versions of a kernel where the build has SIMD, the scalar one alone where it does not.
struct Versions {
  const char* name;
  bool simd;
};
std::vector<Versions> versions() {
  std::vector<Versions> all{{"scalar", false}};
#if ATTN_SIMD
  all.push_back({"simd", true});
#endif
  return all;
}
}  // namespace

TEST_CASE("the build reports the kernels it runs", "[kernels]") {
#if ATTN_SIMD
  CHECK(kernels::simd_enabled());
  CHECK(std::string(kernels::instruction_set()) != "scalar");
#else
  CHECK_FALSE(kernels::simd_enabled());
  CHECK(std::string(kernels::instruction_set()) == "scalar");
#endif
}

TEST_CASE("matmul matches a double reference for every odd size and both kernels", "[kernels]") {
  std::uint64_t seed = 42;
  for (int m : {1, 3, 4, 5, 9}) {
    for (int n : odd_sizes) {
      for (int k : {1, 7, 64, 65}) {
        const auto a = random_values(static_cast<std::size_t>(m) * k, ++seed);
        const auto b = random_values(static_cast<std::size_t>(k) * n, ++seed);
        const auto c0 = random_values(static_cast<std::size_t>(m) * n, ++seed);
        const testing::Matrix expected = 0.5 * testing::to_matrix(a.data(), m, k) * testing::to_matrix(b.data(), k, n);
        for (bool accumulate : {false, true}) {
          std::vector<double> reference(expected.data(), expected.data() + expected.size());
          if (accumulate)
            for (std::size_t i = 0; i < reference.size(); ++i) reference[i] += c0[i];
          std::vector<float> simd_out = c0, scalar_out = c0;
          kernels::scalar::matmul(m, n, k, 0.5f, a.data(), k, b.data(), n, scalar_out.data(), n, accumulate);
          INFO("m=" << m << " n=" << n << " k=" << k << " accumulate=" << accumulate);
          CHECK(testing::max_abs_difference(scalar_out, reference) < 1e-5);
#if ATTN_SIMD
          kernels::simd::matmul(m, n, k, 0.5f, a.data(), k, b.data(), n, simd_out.data(), n, accumulate);
          CHECK(testing::max_abs_difference(simd_out, reference) < 1e-5);
          CHECK(testing::max_abs_difference(simd_out, scalar_out) < 1e-5);
#endif
        }
      }
    }
  }
}

TEST_CASE("matmul gives a row the same bits whatever panel it falls in and however wide the product", "[kernels]") {
  // Rows go through full panels, four-row or padded short panels or alone, and columns through
  // whole tiles, single vectors or the padded edge, by the product's height and width: none of
  // that may change an element (parallel_matmul splits columns by thread count; attention's
  // blocks end in short panels), with an alpha that is not a power of two, over a K that goes in
  // two chunks.
  const int K = 300, wide = 100;
  const float alpha = 0.3f;
  const auto A = random_values(std::size_t(17) * K, 61);
  const auto B = random_values(std::size_t(K) * wide, 62);
  std::vector<float> reference(std::size_t(17) * wide);
  kernels::matmul(17, wide, K, alpha, A.data(), K, B.data(), wide, reference.data(), wide, false);
  int differ = 0;
  for (int m : {1, 2, 4, 5, 6, 7, 10, 12, 16}) {
    for (int first = 0; first + m <= 17; first += m) {
      for (int n : {1, 7, 8, 16, 32, 64, 65, 100}) {
        std::vector<float> C(std::size_t(m) * n);
        kernels::matmul(m, n, K, alpha, A.data() + std::size_t(first) * K, K, B.data(), wide, C.data(), n, false);
        for (int r = 0; r < m; ++r)
          for (int c = 0; c < n; ++c) {
            const float want = reference[std::size_t(first + r) * wide + c], got = C[std::size_t(r) * n + c];
            if (std::memcmp(&want, &got, sizeof want) != 0 && ++differ <= 3) {
              UNSCOPED_INFO("m=" << m << " rows from " << first << " n=" << n << " at " << r << "," << c << ": " << got
                                 << " vs " << want);
            }
          }
      }
    }
  }
  CHECK(differ == 0);
}

TEST_CASE("matmul_packed gives matmul's bits for every shape, part of K and run of panels", "[kernels]") {
  // A model's weights are packed once (Linear); the product over them must be the unpacked one to
  // the bit, on both twins: heights through every panel kind, widths through whole and padded
  // panels, K in one and two chunks, a part of K as Linear::forward_part reads it (rows `first`
  // on of B, panels a whole K apart), a run of panels as the pool cuts it, and accumulation.
  const int P = kernels::packed_width();
  CHECK(P >= 4);
  std::uint64_t seed = 700;
  int differ = 0, products = 0;
  for (const Versions& v : versions()) {
    kernels::set_simd(v.simd);
    for (int K : {1, 5, 64, 256, 300, 600}) {
      for (int n : {1, 3, P - 1, P, P + 1, 2 * P + 5, 100}) {
        const auto B = random_values(std::size_t(K) * n, ++seed);
        std::vector<float> packed(static_cast<std::size_t>(kernels::packed_size(K, n)), -1.0f);
        kernels::pack_columns(K, n, B.data(), n, packed.data());
        const int first = K > 1 ? K / 3 : 0, width = K - first;  // a part of K: rows first.. of B
        for (int m : {1, 2, 3, 4, 5, 6, 7, 13, 33, 70}) {
          const auto A = random_values(std::size_t(m) * K, ++seed);
          const auto C0 = random_values(std::size_t(m) * n, ++seed);
          for (bool accumulate : {false, true}) {
            std::vector<float> want = C0, got = C0, want_part = C0, got_part = C0;
            kernels::matmul(m, n, K, 1.0f, A.data(), K, B.data(), n, want.data(), n, accumulate);
            kernels::matmul_packed(m, n, K, A.data(), K, packed.data(), long(K) * P, got.data(), n, accumulate);
            kernels::matmul(m, n, width, 1.0f, A.data() + first, K, B.data() + std::size_t(first) * n, n,
                            want_part.data(), n, accumulate);
            kernels::matmul_packed(m, n, width, A.data() + first, K, packed.data() + std::size_t(first) * P,
                                   long(K) * P, got_part.data(), n, accumulate);
            ++products;
            if (std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) != 0 ||
                std::memcmp(want_part.data(), got_part.data(), want.size() * sizeof(float)) != 0) {
              if (++differ <= 3)
                UNSCOPED_INFO(v.name << " m=" << m << " n=" << n << " K=" << K << " accumulate=" << accumulate);
            }
          }
        }
        if (n > P) {  // the panels from the second on, as one part of the pool
          const int m = 9, cols = n - P;
          const auto A = random_values(std::size_t(m) * K, ++seed);
          std::vector<float> want(std::size_t(m) * n), got(std::size_t(m) * n);
          kernels::matmul(m, n, K, 1.0f, A.data(), K, B.data(), n, want.data(), n, false);
          kernels::matmul_packed(m, cols, K, A.data(), K, packed.data() + long(K) * P, long(K) * P, got.data() + P, n,
                                 false);
          for (int r = 0; r < m; ++r)
            if (std::memcmp(&want[std::size_t(r) * n + P], &got[std::size_t(r) * n + P], cols * sizeof(float)) != 0)
              ++differ;
        }
      }
    }
  }
  kernels::set_simd(true);
  CHECK(products > 0);
  CHECK(differ == 0);
}

TEST_CASE("pack_columns lays B out panel by panel, zeros past the last column", "[kernels]") {
  const int P = kernels::packed_width(), K = 3, n = P + 2;
  std::vector<float> B(std::size_t(K) * n);
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = float(i + 1);
  REQUIRE(kernels::packed_size(K, n) == 2L * K * P);
  std::vector<float> packed(static_cast<std::size_t>(kernels::packed_size(K, n)), -1.0f);
  kernels::pack_columns(K, n, B.data(), n, packed.data());
  for (int k = 0; k < K; ++k)
    for (int j = 0; j < n; ++j) CHECK(packed[std::size_t(j / P) * K * P + k * P + j % P] == B[std::size_t(k) * n + j]);
  for (int k = 0; k < K; ++k)
    for (int j = 2; j < P; ++j) CHECK(packed[std::size_t(K) * P + k * P + j] == 0.0f);
}

TEST_CASE("matmul honours leading dimensions wider than the rows", "[kernels]") {
  const int m = 5, n = 9, k = 6, lda = 11, ldb = 13, ldc = 10;
  const auto a = random_values(static_cast<std::size_t>(m) * lda, 1);
  const auto b = random_values(static_cast<std::size_t>(k) * ldb, 2);
  std::vector<float> c(static_cast<std::size_t>(m) * ldc, 7.0f);
  kernels::matmul(m, n, k, 1.0f, a.data(), lda, b.data(), ldb, c.data(), ldc, false);
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < ldc; ++j) {
      if (j >= n) {
        CHECK(c[i * ldc + j] == 7.0f);  // padding untouched
        continue;
      }
      double sum = 0.0;
      for (int x = 0; x < k; ++x) sum += double(a[i * lda + x]) * b[x * ldb + j];
      CHECK(c[i * ldc + j] == Approx(sum).margin(1e-5));
    }
  }
}

TEST_CASE("exp is accurate to a few ulp over the whole float range softmax uses", "[kernels]") {
  // x - max <= 0 in softmax, but the kernel must also be right for positive inputs.
  std::vector<float> inputs;
  for (float x = -87.0f; x <= 88.0f; x += 0.0137f) inputs.push_back(x);
  for (Versions version : versions()) {
    std::vector<float> values = inputs;
    if (version.simd) {
#if ATTN_SIMD
      kernels::simd::exp_shifted_sum(values.data(), static_cast<int>(values.size()), 0.0f);
#endif
    } else {
      kernels::scalar::exp_shifted_sum(values.data(), static_cast<int>(values.size()), 0.0f);
    }
    double worst = 0.0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const double exact = std::exp(double(inputs[i]));
      worst = std::max(worst, std::abs(values[i] - exact) / exact);
    }
    INFO(version.name);
    CHECK(worst < 4e-7);
  }
}

TEST_CASE("exp of -inf and of very negative inputs is exactly zero", "[kernels]") {
  for (Versions version : versions()) {
    for (int n : odd_sizes) {
      std::vector<float> values(n, -std::numeric_limits<float>::infinity());
      for (int i = 0; i < n; i += 3) values[i] = -1e4f;
      values[n / 2] = 0.0f;
      float sum = 0.0f;
      if (version.simd) {
#if ATTN_SIMD
        sum = kernels::simd::exp_shifted_sum(values.data(), n, 0.0f);
#endif
      } else {
        sum = kernels::scalar::exp_shifted_sum(values.data(), n, 0.0f);
      }
      INFO(version.name << " n=" << n);
      CHECK(sum == 1.0f);
      for (int i = 0; i < n; ++i) CHECK(values[i] == (i == n / 2 ? 1.0f : 0.0f));
    }
  }
}

TEST_CASE("exp_shifted_sum, max and scale agree with their scalar twins on odd sizes", "[kernels]") {
  std::uint64_t seed = 7;
  for (int n : odd_sizes) {
    const auto x = random_values(n, ++seed, -30.0f, 30.0f);
    const float top = kernels::scalar::max(x.data(), n);
    CHECK(top == *std::max_element(x.begin(), x.end()));
    std::vector<float> scalar_values = x;
    const float scalar_sum = kernels::scalar::exp_shifted_sum(scalar_values.data(), n, top);
    double reference_sum = 0.0;
    for (float v : x) reference_sum += std::exp(double(v) - top);
    CHECK(scalar_sum == Approx(reference_sum).epsilon(1e-6));
#if ATTN_SIMD
    CHECK(kernels::simd::max(x.data(), n) == top);
    std::vector<float> simd_values = x;
    const float simd_sum = kernels::simd::exp_shifted_sum(simd_values.data(), n, top);
    CHECK(simd_sum == Approx(reference_sum).epsilon(1e-6));
    CHECK(testing::relative_error(simd_values, scalar_values) < 1e-6);
    std::vector<float> scaled = x, scaled_scalar = x;
    kernels::simd::scale(scaled.data(), n, 0.37f);
    kernels::scalar::scale(scaled_scalar.data(), n, 0.37f);
    CHECK(scaled == scaled_scalar);
#endif
  }
}

TEST_CASE("tanh is accurate near zero and saturates cleanly", "[kernels]") {
  std::vector<float> inputs{0.0f, 1e-7f, -1e-7f, 1e-3f, 0.1f,  0.5f, 0.624f, 0.626f,
                            1.0f, 3.0f,  9.0f,   20.0f, 50.0f, 1e4f, -1e4f};
  for (float x = -12.0f; x <= 12.0f; x += 0.031f) inputs.push_back(x);
  for (Versions version : versions()) {
    std::vector<float> values = inputs;
    if (version.simd) {
#if ATTN_SIMD
      kernels::simd::tanh(values.data(), static_cast<int>(values.size()));
#endif
    } else {
      kernels::scalar::tanh(values.data(), static_cast<int>(values.size()));
    }
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const double exact = std::tanh(double(inputs[i]));
      INFO(version.name << " x=" << inputs[i]);
      CHECK(std::abs(values[i] - exact) <= 3e-7 * std::max(std::abs(exact), 1e-30) + 1e-37);
    }
  }
}

TEST_CASE("additive scores match the double reference for odd key counts", "[kernels]") {
  std::uint64_t seed = 99;
  for (int keys : odd_sizes) {
    for (int hidden : {1, 5, 32}) {
      const auto q = random_values(hidden, ++seed, -2.0f, 2.0f);
      const auto kt = random_values(static_cast<std::size_t>(hidden) * keys, ++seed, -2.0f, 2.0f);
      const auto v = random_values(hidden, ++seed);
      std::vector<double> reference(keys, 0.0);
      for (int j = 0; j < keys; ++j) {
        for (int h = 0; h < hidden; ++h) reference[j] += double(v[h]) * std::tanh(double(q[h]) + kt[h * keys + j]);
      }
      std::vector<float> scalar_scores(keys);
      kernels::scalar::additive_scores(q.data(), kt.data(), keys, v.data(), hidden, keys, scalar_scores.data());
      INFO("keys=" << keys << " hidden=" << hidden);
      CHECK(testing::max_abs_difference(scalar_scores, reference) < 1e-5);
#if ATTN_SIMD
      std::vector<float> simd_scores(keys);
      kernels::simd::additive_scores(q.data(), kt.data(), keys, v.data(), hidden, keys, simd_scores.data());
      CHECK(testing::max_abs_difference(simd_scores, reference) < 1e-5);
#endif
    }
  }
}

TEST_CASE("transpose moves every element for odd sizes and leaves the row padding alone", "[kernels]") {
  std::uint64_t seed = 123;
  for (int rows : odd_sizes) {
    for (int cols : {1, 3, 4, 7, 17, 64, 65}) {
      const auto in = random_values(static_cast<std::size_t>(rows) * cols, ++seed);
      const long ldo = rows + 5;
      for (Versions version : versions()) {
        std::vector<float> out(static_cast<std::size_t>(cols) * ldo, 7.0f);
        if (version.simd) {
#if ATTN_SIMD
          kernels::simd::transpose(in.data(), rows, cols, out.data(), ldo);
#endif
        } else {
          kernels::scalar::transpose(in.data(), rows, cols, out.data(), ldo);
        }
        INFO(version.name << " rows=" << rows << " cols=" << cols);
        bool exact = true;
        for (int c = 0; c < cols; ++c) {
          for (long r = 0; r < ldo; ++r) {
            const float want = r < rows ? in[static_cast<std::size_t>(r) * cols + c] : 7.0f;
            exact = exact && out[static_cast<std::size_t>(c) * ldo + r] == want;
          }
        }
        CHECK(exact);
      }
    }
  }
}

TEST_CASE("Linear::forward_outputs gives forward's columns to the bit and refuses a block off its alignment",
          "[kernels]") {
  // The Transformer's forced decoding computes its vocabulary's logits a block at a time: each block
  // must be those columns of the whole product, bias included, on both twins and for rows of every
  // panel height.
  const int P = Linear::output_alignment();
  CHECK(P == kernels::packed_width());
  CHECK(256 % P == 0);
  const int in = 37, out = 3 * P + 5;
  const Linear layer(random_values(std::size_t(out) * in, 801), random_values(out, 802), in, out);
  const Linear no_bias(random_values(std::size_t(out) * in, 803), {}, in, out);
  int differ = 0, blocks = 0;
  for (const Versions& v : versions()) {
    kernels::set_simd(v.simd);
    for (int rows : {1, 3, 5, 17, 40}) {
      const auto x = random_values(std::size_t(rows) * in, 804 + rows);
      for (const Linear* l : {&layer, &no_bias}) {
        std::vector<float> whole(std::size_t(rows) * out);
        l->forward(x.data(), rows, whole.data());
        for (int first = 0; first < out; first += P) {
          for (int count : {P, out - first}) {
            if (first + count > out) continue;
            std::vector<float> part(std::size_t(rows) * count, -1.0f);
            l->forward_outputs(x.data(), rows, first, count, part.data());
            ++blocks;
            for (int r = 0; r < rows; ++r)
              if (std::memcmp(&part[std::size_t(r) * count], &whole[std::size_t(r) * out + first],
                              count * sizeof(float)) != 0)
                ++differ;
          }
        }
      }
    }
  }
  kernels::set_simd(true);
  CHECK(blocks > 0);
  CHECK(differ == 0);
  std::vector<float> y(std::size_t(2) * out);
  const auto x = random_values(std::size_t(2) * in, 810);
  if (P > 1) CHECK_THROWS_WITH(layer.forward_outputs(x.data(), 2, 1, P, y.data()), Catch::Contains("multiple of"));
  CHECK_THROWS_WITH(layer.forward_outputs(x.data(), 2, 0, out + 1, y.data()), Catch::Contains("outputs 0.."));
  CHECK_THROWS_WITH(layer.forward_outputs(x.data(), 2, 0, 0, y.data()), Catch::Contains("outputs"));
  CHECK_THROWS_WITH(layer.forward_outputs(x.data(), 2, -P, P, y.data()), Catch::Contains("outputs"));
}

namespace {

// x < 0 ? 0 : x, written so that no compiler turns it into a max instruction (which WebAssembly's
// f32.max is: +0 for -0, a NaN of its own): the reference the kernels' ReLU is held to.
float exact_relu(float x) { return std::signbit(x) && !std::isnan(x) && x != 0.0f ? 0.0f : x; }

}  // namespace

TEST_CASE("ReLU keeps -0 and a NaN's bits, scalar and in loops", "[kernels]") {
  // kernels::relu (every scalar ReLU of the core) and relu_in_place (a loop the compiler
  // vectorizes): x < 0 ? 0 : x on the bits, where WebAssembly's f32.max would give +0 for -0 and
  // a NaN of its own.
  const std::vector<std::uint32_t> specials = {
      0x00000000u,  // +0
      0x80000000u,  // -0
      0x3f800000u,  // 1
      0xbf800000u,  // -1
      0x00000001u,  // the smallest denormal
      0x80000001u,  // its negative
      0x7f7fffffu,  // the largest float
      0xff7fffffu,  // its negative
      0x7f800000u,  // +inf
      0xff800000u,  // -inf
      0x7fc00000u,  // quiet NaN
      0xffc00000u,  // the same with the sign set
      0xff812345u,  // a signalling NaN with a payload and the sign set
      0x7fa00001u,  // a signalling NaN with a payload
  };
  std::vector<float> values;
  for (int round = 0; round < 5; ++round)  // 70 values: whole vectors and a tail, every alignment
    for (std::uint32_t bits : specials) values.push_back(from_bits(bits));
  std::vector<float> looped = values;
  relu_in_place(looped.data(), looped.size());
  int differ = 0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const float want = values[i] < 0.0f ? 0.0f : values[i];  // what the comparison says ...
    const float scalar = kernels::relu(values[i]);
    std::uint32_t w, s, l;
    std::memcpy(&w, &values[i], sizeof w);  // ... and, where it keeps x, x's own bits
    if (want == 0.0f && values[i] < 0.0f) w = 0u;
    std::memcpy(&s, &scalar, sizeof s);
    std::memcpy(&l, &looped[i], sizeof l);
    if ((s != w || l != w) && ++differ <= 3) UNSCOPED_INFO(std::hex << "in " << w << " scalar " << s << " loop " << l);
    std::uint32_t reference;
    const float r = exact_relu(values[i]);
    std::memcpy(&reference, &r, sizeof reference);
    CHECK(reference == w);  // the epilogue test's reference agrees
  }
  CHECK(differ == 0);
  // the specials themselves: -0 stays -0, a negative becomes +0, a signed NaN keeps its sign
  CHECK(std::signbit(kernels::relu(-0.0f)));
  CHECK_FALSE(std::signbit(kernels::relu(-1.0f)));
  CHECK(std::signbit(kernels::relu(from_bits(0xffc00000u))));
}

TEST_CASE("matmul_packed's epilogue gives the bits of a bias filled before and a ReLU after", "[kernels]") {
  // A layer's bias and activation go with the sums as the product stores them; the result must be
  // the separate passes' to the bit on both twins: the bias as if C had held it (or had had it
  // added, accumulating), in one chunk of K or two, whole and padded panels, every panel height;
  // ReLU as x < 0 ? 0 : x (-0 and NaN stay), on every build: the empty sum (K = 0) with a -0
  // bias and with a signed NaN in C, where no arithmetic touches either, shows std::max's
  // f32.max in WebAssembly; a sum is never -0, so the other paths rest on the ReLU test above.
  const int P = kernels::packed_width();
  std::uint64_t seed = 900;
  int differ = 0, products = 0;
  for (const Versions& v : versions()) {
    kernels::set_simd(v.simd);
    for (int K : {0, 1, 64, 300, 600}) {  // no sum (a -0 bias stays -0 through ReLU); 1, 2 and 3 chunks
      for (int n : {1, 3, P - 1, P, P + 1, 2 * P + 5}) {
        const auto B = random_values(std::size_t(K) * n, ++seed);
        std::vector<float> packed(static_cast<std::size_t>(std::max(1L, kernels::packed_size(K, n))));
        if (K > 0) kernels::pack_columns(K, n, B.data(), n, packed.data());
        auto bias = random_values(n, ++seed);
        bias[0] = -0.0f;
        for (int m : {1, 4, 5, 13, 33, 70}) {
          const auto A = random_values(std::size_t(m) * K, ++seed);
          auto C0 = random_values(std::size_t(m) * n, ++seed);
          C0[C0.size() / 2] = from_bits(0xffc12345u);  // a NaN with its sign set and a payload
          for (int mode = 0; mode < 8; ++mode) {
            const bool accumulate = mode & 1, with_bias = mode & 2, relu = mode & 4;
            std::vector<float> want = C0, got = C0;
            for (int r = 0; r < m && with_bias; ++r)
              for (int j = 0; j < n; ++j) {
                float& c = want[std::size_t(r) * n + j];
                c = accumulate ? c + bias[j] : bias[j];
              }
            kernels::matmul_packed(m, n, K, A.data(), K, packed.data(), long(K) * P, want.data(), n,
                                   accumulate || with_bias);
            if (relu)
              for (float& c : want) c = exact_relu(c);
            kernels::Epilogue epilogue;
            epilogue.bias = with_bias ? bias.data() : nullptr;
            epilogue.relu = relu;
            kernels::matmul_packed(m, n, K, A.data(), K, packed.data(), long(K) * P, got.data(), n, accumulate,
                                   epilogue);
            ++products;
            // the same bits, but a NaN's sign and payload where arithmetic touched it: WebAssembly
            // leaves them open. Where none does (no sum, no bias) the NaN must come out as it went
            // in, through ReLU too (f32.max would return a NaN of its own).
            const bool exact = K == 0 && !with_bias;
            bool same = true;
            for (std::size_t i = 0; i < want.size(); ++i)
              same = same && (std::memcmp(&want[i], &got[i], sizeof(float)) == 0 ||
                              (!exact && std::isnan(want[i]) && std::isnan(got[i])));
            if (!same && ++differ <= 3)
              UNSCOPED_INFO(v.name << " m=" << m << " n=" << n << " K=" << K << " mode=" << mode);
          }
        }
      }
    }
  }
  kernels::set_simd(true);
  CHECK(differ == 0);
  CHECK(products > 0);
}

TEST_CASE("Linear's forward_relu and add_to: the bits of separate passes, on one thread or two", "[kernels]") {
  // Each part of a product on the pool takes its own columns of the bias; 70 rows of 300 inputs
  // make parts large enough that two threads run them.
  const int in = 300, out = 16 * Linear::output_alignment() + 3, rows = 70;
  const auto bias = random_values(out, 951);
  const Linear layer(random_values(std::size_t(out) * in, 950), bias, in, out);
  const auto x = random_values(std::size_t(rows) * in, 952), y0 = random_values(std::size_t(rows) * out, 953);
  std::vector<float> want_relu(y0.size()), want_add = y0;
  layer.forward(x.data(), rows, want_relu.data());
  relu_in_place(want_relu.data(), want_relu.size());
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) want_add[std::size_t(r) * out + o] += bias[o];
  layer.add_part(x.data(), rows, 0, in, want_add.data());
  for (int count : {1, 2}) {
    if (count > 1 && !threads_supported()) continue;
    set_threads(count);
    std::vector<float> got_relu(y0.size(), -1.0f), got_add = y0;
    layer.forward_relu(x.data(), rows, got_relu.data());
    layer.add_to(x.data(), rows, got_add.data());
    set_threads(1);
    INFO(count << " thread(s)");
    CHECK(std::memcmp(want_relu.data(), got_relu.data(), want_relu.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(want_add.data(), got_add.data(), want_add.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("Linear's forward_heads: the bits of forward and split_heads, on one thread or two", "[kernels]") {
  // The product writes each head's columns as a matrix of its own: parts never cross a head, each
  // takes its own columns of the bias. Heads one panel wide, five (the four-lane builds' parts of
  // 32 columns then end short, inside a head), 64 columns, and not a whole number of panels (the
  // product, then the copy); 70 rows of 300 inputs make the parts large enough for two threads.
  const int P = Linear::output_alignment(), in = 300;
  int differ = 0, products = 0;
  for (const Versions& v : versions()) {
    kernels::set_simd(v.simd);
    for (int width : {P, 5 * P, P + 3, 64}) {
      for (int heads : {1, 3, 4}) {
        const int out = width * heads;
        const auto bias = random_values(out, 970 + width + heads);
        const Linear layer(random_values(std::size_t(out) * in, 971 + width), bias, in, out);
        const Linear no_bias(random_values(std::size_t(out) * in, 972 + width), {}, in, out);
        for (int rows : {1, 3, 70}) {
          const auto x = random_values(std::size_t(rows) * in, 973 + rows);
          for (const Linear* l : {&layer, &no_bias}) {
            std::vector<float> side_by_side(std::size_t(rows) * out), want(side_by_side.size());
            l->forward(x.data(), rows, side_by_side.data());
            split_heads(side_by_side.data(), rows, heads, width, want.data());
            for (int count : {1, 2}) {
              if (count > 1 && !threads_supported()) continue;
              set_threads(count);
              std::vector<float> got(want.size(), -1.0f);
              l->forward_heads(x.data(), rows, heads, got.data());
              set_threads(1);
              ++products;
              if (std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) != 0 && ++differ <= 3)
                UNSCOPED_INFO(v.name << " width=" << width << " heads=" << heads << " rows=" << rows
                                     << " threads=" << count << (l == &no_bias ? " no bias" : ""));
            }
          }
        }
      }
    }
  }
  kernels::set_simd(true);
  CHECK(products > 0);
  CHECK(differ == 0);
  const Linear layer(random_values(std::size_t(12) * in, 979), {}, in, 12);
  std::vector<float> y(std::size_t(2) * 12);
  const auto x = random_values(std::size_t(2) * in, 980);
  CHECK_THROWS_WITH(layer.forward_heads(x.data(), 2, 5, y.data()), Catch::Contains("heads") && Catch::Contains("12"));
  CHECK_THROWS_WITH(layer.forward_heads(x.data(), 2, 0, y.data()), Catch::Contains("heads"));
}

TEST_CASE("Linear's forward_heads of several layers at once: each layer's own bits, on one thread or two",
          "[kernels]") {
  // One job for every layer's parts: an item mapped to the wrong layer, head or bias offset
  // changes some layer's output. Layers of heads one and five panels wide, one whose heads need
  // the copy, eleven layers (more than the eight that go in one job); 70 rows of 300 inputs make
  // the parts large enough for two threads.
  const int P = Linear::output_alignment(), in = 300, heads = 4;
  const int widths[] = {P, 5 * P, P + 3, 2 * P, P, 64, 3 * P, P, 5 * P, 2 * P, P};
  std::vector<Linear> layers;
  for (int i = 0; i < 11; ++i) {
    const int out = widths[i] * heads;
    layers.emplace_back(random_values(std::size_t(out) * in, 990 + i),
                        i % 3 == 1 ? std::vector<float>{} : random_values(out, 1010 + i), in, out);
  }
  int differ = 0, products = 0;
  for (const Versions& v : versions()) {
    kernels::set_simd(v.simd);
    for (int rows : {1, 70}) {
      const auto x = random_values(std::size_t(rows) * in, 1030 + rows);
      for (int count : {1, 3, 11}) {
        std::vector<std::vector<float>> want, got;
        std::vector<Linear::HeadsOutput> outputs;
        set_threads(1);  // the reference: each layer alone, on one thread
        for (int i = 0; i < count; ++i) {
          want.emplace_back(std::size_t(rows) * layers[i].out());
          layers[i].forward_heads(x.data(), rows, heads, want.back().data());
          got.emplace_back(want.back().size(), -1.0f);
        }
        for (int i = 0; i < count; ++i) outputs.push_back({&layers[i], got[i].data()});
        for (int threads : {1, 2}) {
          if (threads > 1 && !threads_supported()) continue;
          for (auto& g : got) std::fill(g.begin(), g.end(), -1.0f);
          set_threads(threads);
          Linear::forward_heads(x.data(), rows, heads, outputs.data(), count);
          set_threads(1);
          for (int i = 0; i < count; ++i) {
            ++products;
            if (std::memcmp(want[i].data(), got[i].data(), want[i].size() * sizeof(float)) != 0 && ++differ <= 3)
              UNSCOPED_INFO(v.name << " layer " << i << " of " << count << " rows=" << rows << " threads=" << threads);
          }
        }
      }
    }
  }
  kernels::set_simd(true);
  CHECK(products > 0);
  CHECK(differ == 0);
  const auto x = random_values(std::size_t(2) * in, 1040);
  std::vector<float> y(std::size_t(2) * 12 * P), z(y.size());
  const Linear narrow(random_values(std::size_t(12) * (in - 1), 1041), {}, in - 1, 12);
  Linear::HeadsOutput mismatched[] = {{&layers[0], y.data()}, {&narrow, z.data()}};
  CHECK_THROWS_WITH(Linear::forward_heads(x.data(), 2, heads, mismatched, 2),
                    Catch::Contains("layer 1 takes 299 inputs") && Catch::Contains("300"));
  Linear::HeadsOutput missing[] = {{&layers[0], y.data()}, {nullptr, z.data()}};
  CHECK_THROWS_WITH(Linear::forward_heads(x.data(), 2, heads, missing, 2), Catch::Contains("output 1"));
  // a bad layer after a good one: refused before the good one's output is written
  const Linear twelve(random_values(std::size_t(12) * in, 1042), {}, in, 12);
  std::fill(y.begin(), y.end(), -1.0f);
  Linear::HeadsOutput indivisible[] = {{&layers[0], y.data()}, {&twelve, z.data()}};
  CHECK_THROWS_WITH(Linear::forward_heads(x.data(), 2, 8, indivisible, 2),
                    Catch::Contains("heads") && Catch::Contains("12 outputs") && Catch::Contains("layer 1"));
  CHECK(std::all_of(y.begin(), y.end(), [](float v) { return v == -1.0f; }));
  CHECK_THROWS_WITH(Linear::forward_heads(x.data(), 2, heads, mismatched, -1), Catch::Contains("negative"));
  CHECK_THROWS_WITH(Linear::forward_heads(x.data(), 2, heads, nullptr, 2), Catch::Contains("outputs are missing"));
  CHECK_THROWS_WITH(Linear::forward_heads(nullptr, 2, heads, missing, 1), Catch::Contains("input x is missing"));
  Linear::forward_heads(x.data(), 2, heads, nullptr, 0);  // nothing to do
}

TEST_CASE("PositionTable's embed gives embed_with_positions' bits, on one thread or two", "[kernels]") {
  // A long sentence's rows are embedded in groups on the threads (100 rows of 300: enough for two);
  // each row must be the uncached function's, the last group's short tail and positions past the
  // cache (the uncached path) included.
  const int dim = 300, vocabulary = 50, rows = 100;
  const auto table = random_values(std::size_t(vocabulary) * dim, 965);
  std::vector<int> ids(rows);
  for (int r = 0; r < rows; ++r) ids[r] = (r * 7 + 3) % vocabulary;
  const PositionTable positions(dim, 120);
  for (int first : {0, 5, 60}) {  // 60 + 100 rows go past the 120 cached positions
    std::vector<float> want(std::size_t(rows) * dim);
    embed_with_positions(table, dim, ids.data(), rows, first, 17.3, want.data());
    for (int count : {1, 2}) {
      if (count > 1 && !threads_supported()) continue;
      set_threads(count);
      std::vector<float> got(want.size(), -1.0f);
      positions.embed(table, ids.data(), rows, first, 17.3, got.data());
      set_threads(1);
      INFO("first position " << first << ", " << count << " thread(s)");
      CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
    }
  }
  ids[rows - 1] = vocabulary;  // outside the vocabulary: named, before any row is written
  std::vector<float> x(std::size_t(rows) * dim);
  CHECK_THROWS_WITH(positions.embed(table, ids.data(), rows, 0, 1.0, x.data()), Catch::Contains("vocabulary"));
}

TEST_CASE("LayerNorm gives the same bits on one thread or two", "[kernels]") {
  // A long sentence's rows are normalized in groups on the threads (70 rows of 300: enough work
  // for two); each row must be what it is alone, the last group's short tail included.
  const int d = 300, rows = 70;
  const LayerNorm norm(random_values(d, 960), random_values(d, 961));
  const auto x = random_values(std::size_t(rows) * d, 962);
  std::vector<float> one(x.size(), -1.0f), alone(d);
  norm.forward(x.data(), rows, one.data());
  norm.forward(x.data() + std::size_t(rows - 1) * d, 1, alone.data());
  CHECK(std::memcmp(alone.data(), &one[std::size_t(rows - 1) * d], d * sizeof(float)) == 0);
  if (threads_supported()) {
    set_threads(2);
    std::vector<float> two(x.size(), -1.0f);
    norm.forward(x.data(), rows, two.data());
    set_threads(1);
    CHECK(std::memcmp(one.data(), two.data(), one.size() * sizeof(float)) == 0);
  }
}
