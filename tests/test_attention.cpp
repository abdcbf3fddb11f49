// attention(): the tutorials' worked examples, random shapes against a double reference for both
// kernels, masks, large magnitudes and bad input.
#include <catch2/catch.hpp>

#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {
// The five 4-d tokens of the self-attention tutorials.
const std::vector<float> tokens{1, 0, 1, 0, 0, 1, 0, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0.5f, 0.5f, 0};

Shape self_shape(int length, int dim) {
  Shape shape;
  shape.query_length = shape.key_length = length;
  shape.dim = dim;
  return shape;
}

// attention() with only the output requested, which takes the fused online-softmax path.
std::vector<float> output_only(const Shape& shape, const std::vector<float>& q, const std::vector<float>& k,
                               const std::vector<float>& v, const AttentionOptions& options) {
  std::vector<float> output(std::size_t(shape.heads) * shape.query_length * shape.resolved_value_dim(), -7.0f);
  AttentionOutputs outputs;
  outputs.output = output.data();
  attention(shape, q.data(), k.data(), v.data(), options, outputs);
  return output;
}
}  // namespace

TEST_CASE("tutorial: scaled dot-product self-attention over five 4-d tokens", "[attention][worked]") {
  const AttentionResult result =
      attention(self_shape(5, 4), tokens, tokens, tokens, {}, Returns::weights | Returns::scores);
  const double row1[] = {0.2976, 0.1095, 0.1805, 0.1805, 0.2318};
  const double row5[] = {0.2374, 0.1440, 0.2374, 0.1440, 0.2374};
  for (int j = 0; j < 5; ++j) {
    CHECK(result.weights[j] == Approx(row1[j]).margin(5e-5));
    CHECK(result.weights[20 + j] == Approx(row5[j]).margin(5e-5));
  }
  // output = weights x values
  for (int i = 0; i < 5; ++i) {
    for (int d = 0; d < 4; ++d) {
      double sum = 0.0;
      for (int j = 0; j < 5; ++j) sum += double(result.weights[i * 5 + j]) * tokens[j * 4 + d];
      CHECK(result.output[i * 4 + d] == Approx(sum).margin(1e-6));
    }
  }
  // the raw scores are q.k / 2
  CHECK(result.scores[0] == Approx(1.0));
  CHECK(result.scores[4] == Approx(0.75));
}

namespace {
struct D2lExample {
  Shape shape;
  std::vector<float> query, key, value;
  std::int32_t lengths[2] = {2, 6};
};

D2lExample d2l_example(int query_dim) {
  D2lExample e;
  e.shape.heads = 2;  // d2l's batch of 2 plays the role of heads here: one valid length each
  e.shape.query_length = 1;
  e.shape.key_length = 10;
  e.shape.dim = query_dim;
  e.shape.key_dim = 2;
  e.shape.value_dim = 4;
  e.query = query_dim == 2 ? std::vector<float>(4, 1.0f) : testing::random_values(2 * query_dim, 17);
  e.key.assign(2 * 10 * 2, 1.0f);
  for (int b = 0; b < 2; ++b) {
    for (int i = 0; i < 40; ++i) e.value.push_back(static_cast<float>(i));
  }
  return e;
}

void check_d2l_output(const AttentionResult& result) {
  const float first[] = {2, 3, 4, 5}, second[] = {10, 11, 12, 13};
  for (int d = 0; d < 4; ++d) {
    CHECK(result.output[d] == Approx(first[d]).epsilon(1e-6));
    CHECK(result.output[4 + d] == Approx(second[d]).epsilon(1e-6));
  }
}
}  // namespace

TEST_CASE("d2l: dot-product attention with valid lengths [2, 6] gives [2,3,4,5] and [10,11,12,13]",
          "[attention][worked][d2l]") {
  D2lExample e = d2l_example(2);
  AttentionOptions options;
  options.score = Score::dot;
  options.mask.valid_lengths = e.lengths;
  options.mask.valid_length_count = 2;
  check_d2l_output(attention(e.shape, e.query, e.key, e.value, options));
  options.score = Score::scaled_dot;
  check_d2l_output(attention(e.shape, e.query, e.key, e.value, options));
}

TEST_CASE("d2l: additive attention with any weights gives the same", "[attention][worked][d2l]") {
  D2lExample e = d2l_example(20);  // d2l's queries are 20-d, keys 2-d, hidden 8
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    const auto wq = testing::random_values(8 * 20, seed * 10 + 1);
    const auto wk = testing::random_values(8 * 2, seed * 10 + 2);
    const auto v = testing::random_values(8, seed * 10 + 3);
    AttentionOptions options;
    options.score = Score::additive;
    options.additive.hidden = 8;
    options.additive.query_weight = wq.data();
    options.additive.key_weight = wk.data();
    options.additive.v = v.data();
    options.mask.valid_lengths = e.lengths;
    options.mask.valid_length_count = 2;
    const AttentionResult result = attention(e.shape, e.query, e.key, e.value, options, Returns::weights);
    check_d2l_output(result);
    for (int j = 0; j < 10; ++j) CHECK(result.weights[j] == Approx(j < 2 ? 0.5 : 0.0));
  }
}

TEST_CASE("random shapes: SIMD and scalar kernels both match the double reference to 1e-5", "[attention][random]") {
  Rng rng(42);
  for (int trial = 0; trial < 40; ++trial) {
    Shape shape;
    shape.heads = testing::random_int(rng, 1, 8);
    shape.query_length = testing::random_int(rng, 1, 130);
    shape.key_length = testing::random_int(rng, 1, 130);
    shape.dim = testing::random_int(rng, 1, 130);
    shape.value_dim = testing::random_int(rng, 1, 130);
    AttentionOptions options;
    options.score = trial % 3 == 0 ? Score::dot : Score::scaled_dot;
    std::vector<std::int32_t> lengths;
    std::vector<std::uint8_t> keep;
    if (trial % 4 == 1) {  // valid lengths per head, some zero (fully masked)
      for (int h = 0; h < shape.heads; ++h) lengths.push_back(testing::random_int(rng, 0, shape.key_length));
      options.mask.valid_lengths = lengths.data();
      options.mask.valid_length_count = static_cast<int>(lengths.size());
    } else if (trial % 4 == 2) {  // boolean mask per head plus causality
      for (std::size_t i = 0; i < std::size_t(shape.heads) * shape.query_length * shape.key_length; ++i)
        keep.push_back(rng.next() % 5 != 0);
      options.mask.keep = keep.data();
      options.mask.keep_batch = shape.heads;
      options.mask.causal = true;
    } else if (trial % 4 == 3) {
      options.temperature = 0.5f + rng.uniform();
    }
    const auto q = testing::random_values(std::size_t(shape.heads) * shape.query_length * shape.dim, rng.next());
    const auto k = testing::random_values(std::size_t(shape.heads) * shape.key_length * shape.dim, rng.next());
    const auto v = testing::random_values(std::size_t(shape.heads) * shape.key_length * shape.value_dim, rng.next());
    const testing::Reference reference = testing::reference_attention(shape, q, k, v, options);
    const AttentionResult fast = attention(shape, q, k, v, options, Returns::weights);
    AttentionResult plain;
    {
      testing::ScalarKernels scalar;
      plain = attention(shape, q, k, v, options, Returns::weights);
    }
    INFO("trial " << trial << ": heads " << shape.heads << " lq " << shape.query_length << " lk " << shape.key_length
                  << " dim " << shape.dim << " value_dim " << shape.value_dim);
    CHECK(testing::relative_error(fast.weights, reference.weights) <= 1e-5);
    CHECK(testing::relative_error(fast.output, reference.output) <= 1e-5);
    CHECK(testing::relative_error(plain.weights, reference.weights) <= 1e-5);
    CHECK(testing::relative_error(plain.output, reference.output) <= 1e-5);
    CHECK(testing::relative_error(fast.output, plain.output) <= 1e-5);
  }
}

TEST_CASE("+-1e4 magnitudes neither overflow nor lose the reference", "[attention][random]") {
  Shape shape = self_shape(33, 16);
  shape.heads = 2;
  const auto q = testing::random_values(2 * 33 * 16, 1, -1e4f, 1e4f);
  const auto k = testing::random_values(2 * 33 * 16, 2, -1e4f, 1e4f);
  const auto v = testing::random_values(2 * 33 * 16, 3, -1e4f, 1e4f);
  // scores reach 1e8..1e9: softmax turns one-hot, but nothing may become inf or NaN
  for (Score score : {Score::dot, Score::scaled_dot}) {
    AttentionOptions options;
    options.score = score;
    const AttentionResult result = attention(shape, q, k, v, options, Returns::weights);
    for (float w : result.weights) REQUIRE(std::isfinite(w));
    for (float o : result.output) REQUIRE(std::isfinite(o));
    const testing::Reference reference = testing::reference_attention(shape, q, k, v, options);
    CHECK(testing::relative_error(result.output, reference.output) <= 1e-5);
  }
  // scores near +-1e4 keep a real distribution, which must match
  const auto small_q = testing::random_values(2 * 33 * 16, 4, -25.0f, 25.0f);
  const auto small_k = testing::random_values(2 * 33 * 16, 5, -25.0f, 25.0f);
  AttentionOptions options;
  options.score = Score::dot;
  const AttentionResult result = attention(shape, small_q, small_k, v, options, Returns::weights);
  const testing::Reference reference = testing::reference_attention(shape, small_q, small_k, v, options);
  CHECK(testing::relative_error(result.weights, reference.weights) <= 1e-5);
  CHECK(testing::relative_error(result.output, reference.output) <= 1e-5);
}

TEST_CASE("a fully masked row gives a zero context, never NaN", "[attention]") {
  Shape shape = self_shape(3, 4);
  shape.heads = 2;
  const auto x = testing::random_values(2 * 3 * 4, 8);
  const std::int32_t lengths[] = {0, 3};
  AttentionOptions options;
  options.mask.valid_lengths = lengths;
  options.mask.valid_length_count = 2;
  for (Probability p : {Probability::softmax, Probability::sparsemax, Probability::hardmax}) {
    options.probability = p;
    const AttentionResult result = attention(shape, x, x, x, options, Returns::weights);
    for (int i = 0; i < 12; ++i) CHECK(result.output[i] == 0.0f);
    for (int i = 0; i < 9; ++i) CHECK(result.weights[i] == 0.0f);
    for (float o : result.output) CHECK(std::isfinite(o));
    // only the output asked for: softmax takes the fused path, which must agree
    const std::vector<float> output = output_only(shape, x, x, x, options);
    for (int i = 0; i < 12; ++i) CHECK(output[i] == 0.0f);
    for (float o : output) CHECK(std::isfinite(o));
  }
}

TEST_CASE("cross-attention: queries and keys of different lengths", "[attention]") {
  Shape shape;
  shape.query_length = 3;
  shape.key_length = 7;
  shape.dim = 5;
  shape.value_dim = 2;
  const auto q = testing::random_values(15, 1), k = testing::random_values(35, 2), v = testing::random_values(14, 3);
  const AttentionResult result = attention(shape, q, k, v, {}, Returns::weights);
  const testing::Reference reference = testing::reference_attention(shape, q, k, v, AttentionOptions{});
  CHECK(result.weights.size() == 21);
  CHECK(result.output.size() == 6);
  CHECK(testing::relative_error(result.output, reference.output) <= 1e-5);
}

TEST_CASE("requesting weights or not gives the same output (fused path and blocked path)", "[attention]") {
  Shape shape = self_shape(150, 8);  // more rows than one block
  const auto x = testing::random_values(150 * 8, 4);
  AttentionOptions options;
  options.mask.causal = true;
  std::vector<float> with(150 * 8), without(150 * 8), weights(150 * 150);
  AttentionOutputs outputs;
  outputs.output = with.data();
  outputs.weights = weights.data();
  attention(shape, x.data(), x.data(), x.data(), options, outputs);
  outputs.output = without.data();
  outputs.weights = nullptr;
  attention(shape, x.data(), x.data(), x.data(), options, outputs);
  CHECK(testing::relative_error(without, with) <= 1e-6);
}

TEST_CASE(
    "the allocating attention() takes the fused path when only the output is asked for, and returns weights when asked",
    "[attention][fused]") {
  Shape shape;
  shape.query_length = 150;  // three blocks of query rows
  shape.key_length = 600;    // three key tiles: the online softmax rescales, so its rounding differs
  shape.dim = 16;
  shape.value_dim = 5;
  const auto q = testing::random_values(150 * 16, 21, -3.0f, 3.0f),
             k = testing::random_values(600 * 16, 22, -3.0f, 3.0f);
  const auto v = testing::random_values(600 * 5, 23);
  AttentionOptions options;
  options.mask.causal = true;
  // the pointer form with weights requested is the blocked path; without, the fused one
  std::vector<float> blocked(150 * 5), weights(150 * 600);
  AttentionOutputs outputs;
  outputs.output = blocked.data();
  outputs.weights = weights.data();
  attention(shape, q.data(), k.data(), v.data(), options, outputs);
  const std::vector<float> fused = output_only(shape, q, k, v, options);
  REQUIRE(fused != blocked);  // so that the checks below can tell the two paths apart

  const AttentionResult output = attention(shape, q, k, v, options);
  CHECK(output.weights.empty());
  CHECK(output.scores.empty());
  CHECK(output.output == fused);
  CHECK(testing::relative_error(output.output, blocked) <= 1e-6);

  const AttentionResult seen = attention(shape, q, k, v, options, Returns::weights);
  CHECK(seen.output == blocked);
  CHECK(seen.weights == weights);
  CHECK(seen.scores.empty());
  const AttentionResult everything = attention(shape, q, k, v, options, Returns::weights | Returns::scores);
  CHECK(everything.output == blocked);
  CHECK(everything.weights == weights);
  CHECK(everything.scores.size() == 150u * 600u);
  double score = 0.0;  // the raw score of query 0 and key 1, masked by causality only afterwards
  for (int i = 0; i < 16; ++i) score += double(q[i]) * k[16 + i] / 4.0;
  CHECK(everything.scores[1] == Approx(score).margin(1e-5));
}

TEST_CASE("fused online softmax: several key tiles and query blocks, every mask, both kernels", "[attention][fused]") {
  Rng rng(7);
  for (int trial = 0; trial < 24; ++trial) {
    Shape shape;
    shape.heads = testing::random_int(rng, 1, 3);
    shape.query_length = testing::random_int(rng, 1, 150);  // up to three blocks of 64 rows
    shape.key_length =
        trial % 3 == 0 ? testing::random_int(rng, 1, 20) : testing::random_int(rng, 250, 700);  // up to three tiles
    shape.dim = testing::random_int(rng, 1, 70);
    shape.value_dim = testing::random_int(rng, 1, 70);
    AttentionOptions options;
    options.score = trial % 4 == 0 ? Score::dot : Score::scaled_dot;
    std::vector<float> general;
    if (trial % 4 == 3) {
      options.score = Score::general;
      general = testing::random_values(std::size_t(shape.dim) * shape.dim, rng.next());
      options.general.weight = general.data();
      options.general.scale = 0.5f;
    }
    std::vector<std::int32_t> lengths;
    std::vector<std::uint8_t> keep;
    switch (trial % 5) {
      case 1:  // valid lengths per query row, some zero
        for (int i = 0; i < shape.heads * shape.query_length; ++i)
          lengths.push_back(testing::random_int(rng, 0, shape.key_length));
        options.mask.valid_lengths = lengths.data();
        options.mask.valid_length_count = static_cast<int>(lengths.size());
        break;
      case 2:  // causal, queries and keys of different lengths
        options.mask.causal = true;
        break;
      case 3:  // a shared boolean mask, whole tiles masked for some rows
        for (int i = 0; i < shape.query_length; ++i)
          for (int j = 0; j < shape.key_length; ++j) keep.push_back(i % 7 == 3 ? j >= 256 : rng.next() % 3 != 0);
        options.mask.keep = keep.data();
        options.mask.keep_batch = 1;
        break;
      case 4: options.temperature = 0.3f + rng.uniform(); break;
      default: break;
    }
    // large scores: the running maximum moves from tile to tile
    const float spread = trial % 2 ? 1.0f : 6.0f;
    const auto q =
        testing::random_values(std::size_t(shape.heads) * shape.query_length * shape.dim, rng.next(), -spread, spread);
    const auto k =
        testing::random_values(std::size_t(shape.heads) * shape.key_length * shape.dim, rng.next(), -spread, spread);
    const auto v = testing::random_values(std::size_t(shape.heads) * shape.key_length * shape.value_dim, rng.next());
    const testing::Reference reference = testing::reference_attention(shape, q, k, v, options);
    INFO("trial " << trial << ": heads " << shape.heads << " lq " << shape.query_length << " lk " << shape.key_length
                  << " dim " << shape.dim << " value_dim " << shape.value_dim);
    // float32 scores of magnitude |s| carry absolute errors near |s|·2^-24·dim, which exp turns into
    // relative errors of the weights: the blocked path (weights requested) sets the bar
    const double blocked =
        testing::relative_error(attention(shape, q, k, v, options, Returns::weights).output, reference.output);
    const double bar = std::max(1e-5, 2 * blocked);
    INFO("the blocked path's error: " << blocked);
    CHECK(testing::relative_error(output_only(shape, q, k, v, options), reference.output) <= bar);
    testing::ScalarKernels scalar;
    CHECK(testing::relative_error(output_only(shape, q, k, v, options), reference.output) <= bar);
  }
}

TEST_CASE("fused online softmax: overflow is an error", "[attention][fused][errors]") {
  const std::vector<float> q{-1e19f, 1e19f, -1e19f, 1e19f, -5e18f, 5e18f, -5e18f, 5e18f};
  AttentionOptions dot;
  dot.score = Score::dot;
  CHECK_THROWS_WITH(output_only(self_shape(2, 4), q, q, q, dot), Contains("overflow float32"));
}

TEST_CASE("bad input is rejected with an error that names the problem", "[attention][errors]") {
  Shape shape = self_shape(5, 4);
  CHECK_THROWS_WITH(attention(shape, tokens, tokens, std::vector<float>(19)),
                    Contains("value has 19 elements, expected 20"));
  Shape negative = shape;
  negative.query_length = -1;
  CHECK_THROWS_WITH(attention(negative, tokens, tokens, tokens), Contains("query_length must be at least 1"));
  Shape huge = shape;
  huge.key_length = 1 << 30;
  CHECK_THROWS_WITH(attention(huge, tokens, tokens, tokens), Contains("key_length is too large"));
  Shape wide = shape;
  wide.query_length = 1 << 20;
  wide.key_length = 1 << 20;
  CHECK_THROWS_WITH(attention(wide, tokens, tokens, tokens), Contains("too large"));
  auto with_nan = tokens;
  with_nan[6] = std::nanf("");
  CHECK_THROWS_WITH(attention(shape, with_nan, tokens, tokens), Contains("query contains NaN at index 6"));
  auto with_inf = tokens;
  with_inf[0] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(attention(shape, tokens, with_inf, tokens), Contains("key contains an infinite value"));
  Shape mismatched = shape;
  mismatched.key_dim = 3;
  CHECK_THROWS_WITH(attention(mismatched, tokens, std::vector<float>(15), tokens),
                    Contains("key_dim (3) must equal dim (4)"));
  AttentionOptions general;
  general.score = Score::general;
  CHECK_THROWS_WITH(attention(shape, tokens, tokens, tokens, general), Contains("general.weight is required"));
  AttentionOptions cold;
  cold.temperature = 0.0f;
  CHECK_THROWS_WITH(attention(shape, tokens, tokens, tokens, cold), Contains("temperature"));
  CHECK_THROWS_WITH(parse_score("cosine"), Contains("unknown score 'cosine'"));
  // and the library keeps working afterwards
  CHECK(attention(shape, tokens, tokens, tokens, {}, Returns::weights).weights[0] == Approx(0.2976).margin(5e-5));
}

TEST_CASE("errors name the C++ fields and record where each one stands in the message", "[attention][errors]") {
  Shape shape = self_shape(5, 4);
  const std::vector<float> weight(3 * 4, 0.5f);
  AttentionOptions options;
  options.score = Score::additive;
  options.additive.hidden = 3;
  options.additive.query_weight = weight.data();
  options.local.mode = Local::monotonic;
  options.local.half_width = -1;
  try {
    attention(shape, tokens, tokens, tokens, options);
    FAIL("no error");
  } catch (const Error& error) {
    const std::string message = error.what();
    CHECK(message == "additive.key_weight is required");
    REQUIRE(error.fields().size() == 1);
    CHECK(message.substr(error.fields()[0].offset, error.fields()[0].length) == "additive.key_weight");
  }
  options.additive.key_weight = weight.data();
  options.additive.v = weight.data();
  CHECK_THROWS_WITH(attention(shape, tokens, tokens, tokens, options), Contains("local.half_width must be at least 0"));
  shape.key_dim = 3;
  options.score = Score::dot;
  try {
    attention(shape, tokens, std::vector<float>(15), tokens, options);
    FAIL("no error");
  } catch (const Error& error) {
    const std::string message = error.what();
    REQUIRE(error.fields().size() == 2);
    CHECK(message.substr(error.fields()[0].offset, error.fields()[0].length) == "key_dim");
    CHECK(message.substr(error.fields()[1].offset, error.fields()[1].length) == "dim");
    CHECK(message.find("key_dim (3) must equal dim (4)") == 0);
  }
}

TEST_CASE("finite inputs whose scores overflow float32 are an error, not NaN", "[attention][errors]") {
  const std::vector<float> q{-1e19f, 1e19f, -1e19f, 1e19f, -5e18f, 5e18f, -5e18f, 5e18f};
  Shape shape = self_shape(2, 4);
  AttentionOptions options;
  options.score = Score::dot;
  CHECK_THROWS_WITH(attention(shape, q, q, q, options, Returns::weights), Contains("overflow float32"));
  std::vector<float> scores{1.0f, std::numeric_limits<float>::infinity()};
  CHECK_THROWS_WITH(masked_softmax(scores.data(), 1, 1, 2, Masking{}), Contains("+infinity"));
  std::vector<float> masked{1.0f, -std::numeric_limits<float>::infinity()};  // -inf is a mask
  masked_softmax(masked.data(), 1, 1, 2, Masking{});
  CHECK(masked[0] == 1.0f);
  CHECK(masked[1] == 0.0f);
}
