// The mechanisms beyond plain dot products: general and additive scores with their variants,
// multi-head, pooling, local, hard, attention-over-attention and dropout.
#include <catch2/catch.hpp>

#include <numeric>

#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {
using testing::make_shape;

std::vector<float> random_for(const Shape& shape, int length, int dim, std::uint64_t seed, float scale = 1.0f) {
  return testing::random_values(std::size_t(shape.heads) * length * dim, seed, -scale, scale);
}
}  // namespace

TEST_CASE("general score q^T W k with different query and key sizes, and Luong's scale g", "[mechanisms]") {
  const Shape shape = make_shape(3, 9, 17, 5, 3, 4);
  const auto q = random_for(shape, 9, 5, 1), k = random_for(shape, 17, 3, 2), v = random_for(shape, 17, 4, 3);
  const auto w = testing::random_values(5 * 3, 4);
  for (float g : {1.0f, 0.7f, -2.0f}) {
    AttentionOptions options;
    options.score = Score::general;
    options.general.weight = w.data();
    options.general.scale = g;
    const AttentionResult result = attention(shape, q, k, v, options, Returns::weights | Returns::scores);
    const testing::Reference reference = testing::reference_attention(shape, q, k, v, options);
    INFO("g = " << g);
    CHECK(testing::relative_error(result.weights, reference.weights) <= 1e-5);
    CHECK(testing::relative_error(result.output, reference.output) <= 1e-5);
    // the raw score of (0,0) written out by hand
    double score = 0.0;
    for (int a = 0; a < 5; ++a)
      for (int b = 0; b < 3; ++b) score += double(q[a]) * w[a * 3 + b] * k[b];
    CHECK(result.scores[0] == Approx(g * score).margin(1e-5));
  }
}

TEST_CASE("additive score: plain, with bias, and weight-normalized (g v / |v|)", "[mechanisms]") {
  const Shape shape = make_shape(2, 7, 65, 6, 4, 3);
  const auto q = random_for(shape, 7, 6, 11), k = random_for(shape, 65, 4, 12), v = random_for(shape, 65, 3, 13);
  const int hidden = 10;
  const auto wq = testing::random_values(hidden * 6, 14), wk = testing::random_values(hidden * 4, 15);
  const auto vec = testing::random_values(hidden, 16), bias = testing::random_values(hidden, 17);
  for (int variant = 0; variant < 3; ++variant) {
    AttentionOptions options;
    options.score = Score::additive;
    options.additive.hidden = hidden;
    options.additive.query_weight = wq.data();
    options.additive.key_weight = wk.data();
    options.additive.v = vec.data();
    if (variant >= 1) options.additive.bias = bias.data();
    if (variant == 2) {
      options.additive.normalize = true;
      options.additive.gain = 3.5f;
    }
    const AttentionResult result = attention(shape, q, k, v, options, Returns::weights);
    const testing::Reference reference = testing::reference_attention(shape, q, k, v, options);
    INFO("variant " << variant);
    CHECK(testing::relative_error(result.weights, reference.weights) <= 1e-5);
    CHECK(testing::relative_error(result.output, reference.output) <= 1e-5);
    testing::ScalarKernels scalar;
    const AttentionResult plain = attention(shape, q, k, v, options, Returns::weights);
    CHECK(testing::relative_error(plain.output, reference.output) <= 1e-5);
  }
}

TEST_CASE("multi-head attention splits d_model into heads x d_k and matches the reference", "[mechanisms]") {
  const int model = 12, heads = 3, kv_model = 7, lq = 5, lk = 9;
  MultiHeadWeights w;
  w.model_dim = model;
  w.key_value_dim = kv_model;
  w.heads = heads;  // key_dim = 12 / 3 = 4
  w.value_dim = 2;
  w.query_weight = testing::random_values(heads * 4 * model, 1);
  w.key_weight = testing::random_values(heads * 4 * kv_model, 2);
  w.value_weight = testing::random_values(heads * 2 * kv_model, 3);
  w.output_weight = testing::random_values(model * heads * 2, 4);
  w.query_bias = testing::random_values(heads * 4, 5);
  w.output_bias = testing::random_values(model, 6);
  const auto xq = testing::random_values(lq * model, 7), xkv = testing::random_values(lk * kv_model, 8);
  const MultiHeadAttention mha(w);
  std::vector<float> out(lq * model), weights(heads * lq * lk);
  AttentionOptions options;
  mha.forward(xq.data(), lq, xkv.data(), lk, options, out.data(), weights.data());

  using testing::Matrix;
  using testing::to_matrix;
  Matrix Q = to_matrix(xq.data(), lq, model) * to_matrix(w.query_weight.data(), heads * 4, model).transpose();
  Q.rowwise() += to_matrix(w.query_bias.data(), 1, heads * 4).row(0);
  const Matrix K =
      to_matrix(xkv.data(), lk, kv_model) * to_matrix(w.key_weight.data(), heads * 4, kv_model).transpose();
  const Matrix V =
      to_matrix(xkv.data(), lk, kv_model) * to_matrix(w.value_weight.data(), heads * 2, kv_model).transpose();
  Matrix concat(lq, heads * 2);
  for (int h = 0; h < heads; ++h) {
    Matrix S = Q.middleCols(h * 4, 4) * K.middleCols(h * 4, 4).transpose() / 2.0;
    for (int i = 0; i < lq; ++i) {
      std::vector<double> row(S.row(i).data(), S.row(i).data() + lk);
      testing::reference_softmax(row, std::vector<bool>(lk, true));
      for (int j = 0; j < lk; ++j) {
        S(i, j) = row[j];
        CHECK(weights[(h * lq + i) * lk + j] == Approx(row[j]).margin(1e-6));
      }
    }
    concat.middleCols(h * 2, 2) = S * V.middleCols(h * 2, 2);
  }
  Matrix expected = concat * to_matrix(w.output_weight.data(), model, heads * 2).transpose();
  expected.rowwise() += to_matrix(w.output_bias.data(), 1, model).row(0);
  std::vector<double> flat(expected.data(), expected.data() + expected.size());
  CHECK(testing::relative_error(out, flat) <= 1e-5);
}

TEST_CASE("multi-head self-attention is forward(x, x), and causal masking reaches every head", "[mechanisms]") {
  MultiHeadWeights w;
  w.model_dim = 8;
  w.heads = 2;
  w.query_weight = testing::random_values(64, 1);
  w.key_weight = testing::random_values(64, 2);
  w.value_weight = testing::random_values(64, 3);
  w.output_weight = testing::random_values(64, 4);
  const MultiHeadAttention mha(w);
  const auto x = testing::random_values(6 * 8, 5);
  AttentionOptions options;
  options.mask.causal = true;
  std::vector<float> a(48), b(48), weights(2 * 36);
  mha.self_attention(x.data(), 6, options, a.data(), weights.data());
  mha.forward(x.data(), 6, x.data(), 6, options, b.data());
  CHECK(testing::relative_error(a, b) <= 1e-6);  // with weights: the blocked path; without: the fused one
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 6; ++i)
      for (int j = i + 1; j < 6; ++j) CHECK(weights[(h * 6 + i) * 6 + j] == 0.0f);
  MultiHeadWeights bad = w;
  bad.output_weight.pop_back();
  CHECK_THROWS_WITH(MultiHeadAttention(bad), Contains("output_weight has 63 elements, expected [8][8]"));
  bad = w;
  bad.model_dim = 9;
  CHECK_THROWS_WITH(MultiHeadAttention(bad), Contains("not divisible by heads"));
}

TEST_CASE("multi-head attend_self has the bits of project_keys_values and attend, on one thread or two",
          "[mechanisms]") {
  // The Transformer's self-attention sublayer with its three projections in one job: the same
  // queries, keys and values (a projection written to the wrong buffer or head changes them), the
  // same weights and the same residual sum, causal or not. 70 rows of 256 make the projections
  // large enough for two threads; heads of 64 write the heads' layout straight from the product.
  MultiHeadWeights w;
  w.model_dim = 256;
  w.heads = 4;
  w.query_weight = testing::random_values(256 * 256, 11);
  w.key_weight = testing::random_values(256 * 256, 12);
  w.value_weight = testing::random_values(256 * 256, 13);
  w.output_weight = testing::random_values(256 * 256, 14);
  w.query_bias = testing::random_values(256, 15);
  w.key_bias = testing::random_values(256, 16);
  w.value_bias = testing::random_values(256, 17);
  w.output_bias = testing::random_values(256, 18);
  const MultiHeadAttention mha(w);
  for (int rows : {1, 70}) {
    const auto x = testing::random_values(std::size_t(rows) * 256, 19 + rows);
    const auto residual = testing::random_values(x.size(), 20 + rows);
    for (bool causal : {false, true}) {
      AttentionOptions options;
      options.score = Score::scaled_dot;
      options.mask.causal = causal;
      std::vector<float> keys(x.size()), values(x.size()), want = residual, want_weights(std::size_t(4) * rows * rows);
      mha.project_keys_values(x.data(), rows, keys.data(), values.data());
      mha.attend(x.data(), rows, keys.data(), values.data(), rows, options, want.data(), want_weights.data());
      for (int threads : {1, 2}) {
        if (threads > 1 && !threads_supported()) continue;
        std::vector<float> got = residual, got_weights(want_weights.size(), -1.0f);
        set_threads(threads);
        mha.attend_self(x.data(), rows, options, got.data(), got_weights.data());
        set_threads(1);
        INFO(rows << " rows, " << threads << " thread(s)" << (causal ? ", causal" : ""));
        CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
        CHECK(std::memcmp(want_weights.data(), got_weights.data(), want_weights.size() * sizeof(float)) == 0);
      }
    }
  }
  std::vector<float> x(2 * 256, 0.5f), out(x.size());
  AttentionOptions additive;
  additive.score = Score::additive;
  CHECK_THROWS_WITH(mha.attend_self(x.data(), 2, additive, out.data()), Contains("dot or scaled_dot"));
  AttentionOptions checked;
  checked.check_finite = true;
  x[3] = std::nanf("");
  CHECK_THROWS_WITH(mha.attend_self(x.data(), 2, checked, out.data()), Contains("input"));
  MultiHeadWeights cross = w;
  cross.key_value_dim = 128;
  cross.key_weight = testing::random_values(256 * 128, 21);
  cross.value_weight = testing::random_values(256 * 128, 22);
  CHECK_THROWS_WITH(MultiHeadAttention(cross).attend_self(x.data(), 2, AttentionOptions{}, out.data()),
                    Contains("key_value_dim is 128"));
}

TEST_CASE("attention pooling with a learned context vector (hierarchical attention networks)", "[mechanisms]") {
  const int length = 11, dim = 6, hidden = 5;
  const auto h = testing::random_values(length * dim, 1);
  const auto w = testing::random_values(hidden * dim, 2), b = testing::random_values(hidden, 3),
             u = testing::random_values(hidden, 4);
  PoolingWeights weights{hidden, w.data(), b.data(), u.data()};
  for (int valid : {-1, 4, 0}) {
    std::vector<float> pooled(dim), alpha(length);
    attention_pool(h.data(), length, dim, weights, pooled.data(), alpha.data(), valid);
    const int used = valid < 0 ? length : valid;
    std::vector<double> scores(length);
    for (int i = 0; i < length; ++i) {
      double s = 0.0;
      for (int k = 0; k < hidden; ++k) {
        double pre = b[k];
        for (int d = 0; d < dim; ++d) pre += double(w[k * dim + d]) * h[i * dim + d];
        s += u[k] * std::tanh(pre);
      }
      scores[i] = s;
    }
    std::vector<bool> kept(length);
    for (int i = 0; i < length; ++i) kept[i] = i < used;
    testing::reference_softmax(scores, kept);
    INFO("valid length " << valid);
    CHECK(testing::max_abs_difference(alpha, scores) < 1e-6);
    for (int d = 0; d < dim; ++d) {
      double expected = 0.0;
      for (int i = 0; i < length; ++i) expected += scores[i] * h[i * dim + d];
      CHECK(pooled[d] == Approx(expected).margin(1e-6));
    }
  }
}

TEST_CASE("local-m attends to [t - D, t + D] around p_t = t", "[mechanisms][local]") {
  const Shape shape = make_shape(1, 5, 5, 2, 0, 2);
  const std::vector<float> zeros(10, 0.0f);  // equal scores: weights are uniform over the window
  const auto v = testing::random_values(10, 1);
  AttentionOptions options;
  options.local.mode = Local::monotonic;
  options.local.half_width = 1;
  const AttentionResult result = attention(shape, zeros, zeros, v, options, Returns::weights);
  const double expected[5][5] = {{.5, .5, 0, 0, 0},
                                 {1 / 3., 1 / 3., 1 / 3., 0, 0},
                                 {0, 1 / 3., 1 / 3., 1 / 3., 0},
                                 {0, 0, 1 / 3., 1 / 3., 1 / 3.},
                                 {0, 0, 0, .5, .5}};
  for (int t = 0; t < 5; ++t) {
    CHECK(result.positions[t] == float(t));
    for (int s = 0; s < 5; ++s) CHECK(result.weights[t * 5 + s] == Approx(expected[t][s]).margin(1e-6));
  }
}

TEST_CASE("local-p predicts p_t = S sigmoid(v_p^T tanh(W_p h_t)) and applies a Gaussian with sigma = D/2",
          "[mechanisms][local]") {
  const Shape shape = make_shape(1, 3, 8, 2, 0, 1);
  const std::vector<float> keys(16, 0.0f);
  const std::vector<float> values(8, 1.0f);
  const std::vector<float> query{0, 0, 1, -1, -2, 0.5f};
  const std::vector<float> wp{0.5f, -1.0f, 2.0f, 0.25f};  // W_p [2][2]
  const std::vector<float> vp{1.5f, -0.5f};
  AttentionOptions options;
  options.local.mode = Local::predictive;
  options.local.half_width = 2;
  options.local.hidden = 2;
  options.local.position_weight = wp.data();
  options.local.position_v = vp.data();
  const AttentionResult result = attention(shape, query, keys, values, options, Returns::weights);
  for (int t = 0; t < 3; ++t) {
    double logit = 0.0;
    for (int k = 0; k < 2; ++k) logit += vp[k] * std::tanh(wp[k * 2] * query[t * 2] + wp[k * 2 + 1] * query[t * 2 + 1]);
    const double centre = 8.0 / (1.0 + std::exp(-logit));
    INFO("t = " << t << ", p_t = " << centre);
    CHECK(result.positions[t] == Approx(centre).margin(1e-5));
    std::vector<int> window;
    for (int s = 0; s < 8; ++s)
      if (std::abs(s - centre) <= 2.0) window.push_back(s);
    for (int s = 0; s < 8; ++s) {
      const bool inside = std::find(window.begin(), window.end(), s) != window.end();
      const double gaussian = std::exp(-(s - centre) * (s - centre) / 2.0);  // 2 sigma^2 = 2
      CHECK(result.weights[t * 8 + s] == Approx(inside ? gaussian / window.size() : 0.0).margin(1e-6));
    }
  }
  CHECK(result.positions[0] == Approx(4.0));  // W_p h = 0 gives the middle
  options.local.half_width = 0;
  CHECK_THROWS_WITH(attention(shape, query, keys, values, options), Contains("local.half_width must be at least 1"));
}

TEST_CASE("hard attention: argmax picks the best key's value; sampling follows the weights", "[mechanisms][hard]") {
  // dot scores log(0.2), log(0.5), log(0.3) from keys [log w, 0] and query [1, 0]
  const int rows = 3000;
  Shape shape = make_shape(1, rows, 3, 2, 0, 1);
  std::vector<float> query;
  for (int i = 0; i < rows; ++i) query.insert(query.end(), {1.0f, 0.0f});
  const std::vector<float> keys{std::log(0.2f), 0, std::log(0.5f), 0, std::log(0.3f), 0};
  const std::vector<float> values{10, 20, 30};
  AttentionOptions options;
  options.score = Score::dot;
  options.hard = Hard::argmax;
  AttentionResult result = attention(shape, query, keys, values, options, Returns::weights);
  CHECK(result.indices[0] == 1);
  CHECK(result.output[0] == 20.0f);
  CHECK(result.weights[0] == 0.0f);
  CHECK(result.weights[1] == 1.0f);

  options.hard = Hard::sample;
  options.seed = 7;
  result = attention(shape, query, keys, values, options, Returns::weights);
  int counts[3] = {0, 0, 0};
  for (int i = 0; i < rows; ++i) {
    REQUIRE(result.indices[i] >= 0);
    counts[result.indices[i]]++;
    CHECK(result.output[i] == values[result.indices[i]]);
  }
  CHECK(counts[0] / double(rows) == Approx(0.2).margin(0.03));
  CHECK(counts[1] / double(rows) == Approx(0.5).margin(0.03));
  CHECK(counts[2] / double(rows) == Approx(0.3).margin(0.03));
  const AttentionResult again = attention(shape, query, keys, values, options);
  CHECK(again.indices == result.indices);
  options.seed = 8;
  CHECK(attention(shape, query, keys, values, options).indices != result.indices);
}

TEST_CASE("attention-over-attention: column and row softmax, averaged query attention, and their product",
          "[mechanisms]") {
  const int n = 7, m = 4, dim = 5;
  const auto document = testing::random_values(n * dim, 1, -2.0f, 2.0f),
             query = testing::random_values(m * dim, 2, -2.0f, 2.0f);
  const AttentionOverAttention aoa = attention_over_attention(document.data(), n, query.data(), m, dim);
  const testing::Matrix M =
      testing::to_matrix(document.data(), n, dim) * testing::to_matrix(query.data(), m, dim).transpose();
  testing::Matrix alpha = M, beta = M;
  for (int j = 0; j < m; ++j)
    alpha.col(j) =
        (M.col(j).array() - M.col(j).maxCoeff()).exp() / (M.col(j).array() - M.col(j).maxCoeff()).exp().sum();
  for (int i = 0; i < n; ++i)
    beta.row(i) = (M.row(i).array() - M.row(i).maxCoeff()).exp() / (M.row(i).array() - M.row(i).maxCoeff()).exp().sum();
  const Eigen::VectorXd beta_avg = beta.colwise().mean().transpose();
  const Eigen::VectorXd s = alpha * beta_avg;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) {
      CHECK(aoa.pairwise[i * m + j] == Approx(M(i, j)).margin(1e-5));
      CHECK(aoa.column_softmax[i * m + j] == Approx(alpha(i, j)).margin(1e-6));
      CHECK(aoa.row_softmax[i * m + j] == Approx(beta(i, j)).margin(1e-6));
    }
    CHECK(aoa.document_attention[i] == Approx(s(i)).margin(1e-6));
  }
  for (int j = 0; j < m; ++j) CHECK(aoa.query_attention[j] == Approx(beta_avg(j)).margin(1e-6));
  CHECK(std::accumulate(aoa.document_attention.begin(), aoa.document_attention.end(), 0.0) == Approx(1.0));
}

TEST_CASE("dropout on the weights is off unless asked, seeded, and scales survivors by 1/(1-p)", "[mechanisms]") {
  std::vector<float> ones(20000, 1.0f);
  auto dropped = ones;
  dropout(dropped.data(), dropped.size(), 0.25f, 3);
  int zeros = 0;
  for (float x : dropped) {
    CHECK((x == 0.0f || x == Approx(1.0f / 0.75f)));
    zeros += x == 0.0f;
  }
  CHECK(zeros / 20000.0 == Approx(0.25).margin(0.015));
  auto again = ones;
  dropout(again.data(), again.size(), 0.25f, 3);
  CHECK(again == dropped);
  CHECK_THROWS_WITH(dropout(again.data(), 3, 1.0f, 3), Contains("dropout must be in [0, 1)"));

  const Shape shape = make_shape(2, 6, 9, 4, 0, 3);
  const auto q = random_for(shape, 6, 4, 1), k = random_for(shape, 9, 4, 2), v = random_for(shape, 9, 3, 3);
  AttentionOptions options;
  const AttentionResult plain = attention(shape, q, k, v, options, Returns::weights);
  options.dropout = 0.5f;
  options.seed = 11;
  const AttentionResult with = attention(shape, q, k, v, options, Returns::weights);
  CHECK(with.weights != plain.weights);
  int zeroed = 0;
  for (std::size_t i = 0; i < with.weights.size(); ++i) {
    if (with.weights[i] == 0.0f)
      ++zeroed;
    else
      CHECK(with.weights[i] == Approx(2.0f * plain.weights[i]));
  }
  CHECK(zeroed > 20);
  for (int row = 0; row < 12; ++row) {  // the output uses the dropped weights
    for (int d = 0; d < 3; ++d) {
      double sum = 0.0;
      for (int j = 0; j < 9; ++j) sum += double(with.weights[row * 9 + j]) * v[((row / 6) * 9 + j) * 3 + d];
      CHECK(with.output[row * 3 + d] == Approx(sum).margin(1e-5));
    }
  }
  CHECK(attention(shape, q, k, v, options, Returns::weights).weights == with.weights);
}

namespace {
// W k of every key of every head, one row per row of W: [heads][weight_rows][key_length], with the
// kernel attention() uses inside, so that the results can be compared bit for bit.
std::vector<float> project_keys(const std::vector<float>& weight, int weight_rows, const std::vector<float>& keys,
                                const Shape& shape) {
  const int key_length = shape.key_length, key_dim = shape.resolved_key_dim();
  std::vector<float> projected(std::size_t(shape.heads) * weight_rows * key_length),
      keys_t(std::size_t(key_dim) * key_length);
  for (int h = 0; h < shape.heads; ++h) {
    for (int j = 0; j < key_length; ++j)
      for (int i = 0; i < key_dim; ++i)
        keys_t[std::size_t(i) * key_length + j] = keys[(std::size_t(h) * key_length + j) * key_dim + i];
    kernels::matmul(weight_rows, key_length, key_dim, 1.0f, weight.data(), key_dim, keys_t.data(), key_length,
                    projected.data() + std::size_t(h) * weight_rows * key_length, key_length, false);
  }
  return projected;
}

std::vector<float> transpose_of(const std::vector<float>& matrix, int rows, int cols) {
  std::vector<float> out(matrix.size());
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[std::size_t(c) * rows + r] = matrix[std::size_t(r) * cols + c];
  return out;
}

// Masks for case i: none, valid lengths per query row, a boolean mask per head with causality.
struct MaskCase {
  std::vector<std::int32_t> lengths;
  std::vector<std::uint8_t> keep;
};
void set_mask(int i, const Shape& shape, Rng& rng, MaskCase& storage, Masking& mask) {
  if (i % 3 == 1) {
    for (int r = 0; r < shape.heads * shape.query_length; ++r)
      storage.lengths.push_back(testing::random_int(rng, 0, shape.key_length));
    mask.valid_lengths = storage.lengths.data();
    mask.valid_length_count = static_cast<int>(storage.lengths.size());
  } else if (i % 3 == 2) {
    for (int e = 0; e < shape.heads * shape.query_length * shape.key_length; ++e)
      storage.keep.push_back(rng.next() % 4 != 0);
    mask.keep = storage.keep.data();
    mask.keep_batch = shape.heads;
    mask.causal = true;
  }
}

struct Outcome {
  std::vector<float> output, weights;
};
Outcome run(const Shape& shape, const float* q, const float* k, const float* v, const AttentionOptions& options,
            bool weights) {
  Outcome outcome;
  outcome.output.assign(std::size_t(shape.heads) * shape.query_length * shape.resolved_value_dim(), -7.0f);
  if (weights) outcome.weights.assign(std::size_t(shape.heads) * shape.query_length * shape.key_length, -7.0f);
  AttentionOutputs outputs;
  outputs.output = outcome.output.data();
  outputs.weights = weights ? outcome.weights.data() : nullptr;
  attention(shape, q, k, v, options, outputs);
  return outcome;
}
}  // namespace

TEST_CASE(
    "additive score: precomputed key projections and a transposed W_q give what computing them gives, bit for bit",
    "[mechanisms][precomputed]") {
  const int sizes[] = {1, 2, 3, 7, 17, 63, 64, 65, 127};
  Rng rng(42);
  for (int i = 0; i < 9; ++i) {
    const Shape shape = make_shape(i % 3 + 1, sizes[i], sizes[(i + 4) % 9], sizes[(i + 2) % 9] % 20 + 1,
                                   sizes[(i + 7) % 9] % 24 + 1, sizes[(i + 5) % 9] % 9 + 1);
    const int hidden = sizes[(i + 3) % 9];
    const int key_dim = shape.key_dim, dim = shape.dim;
    const auto q = random_for(shape, shape.query_length, dim, rng.next()),
               k = random_for(shape, shape.key_length, key_dim, rng.next());
    const auto v = random_for(shape, shape.key_length, shape.value_dim, rng.next());
    const auto wq = testing::random_values(std::size_t(hidden) * dim, rng.next()),
               wk = testing::random_values(std::size_t(hidden) * key_dim, rng.next());
    const auto vec = testing::random_values(hidden, rng.next()), bias = testing::random_values(hidden, rng.next());
    AttentionOptions options;
    options.score = Score::additive;
    options.additive.hidden = hidden;
    options.additive.query_weight = wq.data();
    options.additive.key_weight = wk.data();
    options.additive.v = vec.data();
    if (i % 2) options.additive.bias = bias.data();
    if (i % 4 == 3) {
      options.additive.normalize = true;
      options.additive.gain = 1.5f;
    }
    MaskCase storage;
    set_mask(i, shape, rng, storage, options.mask);
    INFO("case " << i << ": heads " << shape.heads << " lq " << shape.query_length << " lk " << shape.key_length
                 << " dim " << dim << " key_dim " << key_dim << " hidden " << hidden);
    const Outcome computed = run(shape, q.data(), k.data(), v.data(), options, true);

    const auto wq_t = transpose_of(wq, hidden, dim), projected = project_keys(wk, hidden, k, shape);
    AttentionOptions given = options;
    given.additive.query_weight = nullptr;
    given.additive.key_weight = nullptr;
    given.additive.transposed_query_weight = wq_t.data();
    given.additive.projected_keys = projected.data();
    const Outcome precomputed = run(shape, q.data(), nullptr, v.data(), given, true);  // the keys are not read
    CHECK(precomputed.weights == computed.weights);
    CHECK(precomputed.output == computed.output);
    const Outcome output_only = run(shape, q.data(), nullptr, v.data(), given, false);
    CHECK(output_only.output == computed.output);  // additive attention has no fused path: the same blocks
    CHECK(testing::relative_error(computed.output, testing::reference_attention(shape, q, k, v, options).output) <=
          1e-5);
  }
}

TEST_CASE("general score: precomputed projected keys W k give g q^T (W k) on the fused and the blocked path",
          "[mechanisms][precomputed]") {
  const int sizes[] = {1, 2, 3, 7, 17, 63, 64, 65, 127};
  Rng rng(43);
  for (int i = 0; i < 9; ++i) {
    // up to 600 keys: three tiles of the fused path
    const Shape shape =
        make_shape(i % 3 + 1, sizes[i], i % 2 ? sizes[(i + 4) % 9] : 300 + 37 * i, sizes[(i + 2) % 9] % 20 + 1,
                   sizes[(i + 7) % 9] % 24 + 1, sizes[(i + 5) % 9] % 9 + 1);
    const auto q = random_for(shape, shape.query_length, shape.dim, rng.next());
    const auto k = random_for(shape, shape.key_length, shape.key_dim, rng.next());
    const auto v = random_for(shape, shape.key_length, shape.value_dim, rng.next());
    const auto w = testing::random_values(std::size_t(shape.dim) * shape.key_dim, rng.next());
    AttentionOptions options;
    options.score = Score::general;
    options.general.weight = w.data();  // the reference reads it; attention() reads the projection
    options.general.scale = i % 2 ? 1.0f : 0.5f;
    MaskCase storage;
    set_mask(i, shape, rng, storage, options.mask);
    const auto projected = project_keys(w, shape.dim, k, shape);
    options.general.projected_keys = projected.data();
    INFO("case " << i << ": heads " << shape.heads << " lq " << shape.query_length << " lk " << shape.key_length
                 << " dim " << shape.dim << " key_dim " << shape.key_dim);
    const testing::Reference reference = testing::reference_attention(shape, q, k, v, options);
    const Outcome blocked = run(shape, q.data(), nullptr, v.data(), options, true);
    const Outcome fused = run(shape, q.data(), nullptr, v.data(), options, false);
    CHECK(testing::relative_error(blocked.weights, reference.weights) <= 1e-5);
    CHECK(testing::relative_error(blocked.output, reference.output) <= 1e-5);
    CHECK(testing::relative_error(fused.output, reference.output) <= 1e-5);

    // the same product as the dot score over the projected keys, [key_length][dim] per head
    Shape dot_shape = shape;
    dot_shape.key_dim = 0;
    std::vector<float> projected_rows;
    for (int h = 0; h < shape.heads; ++h) {
      const std::vector<float> head(projected.begin() + std::size_t(h) * shape.dim * shape.key_length,
                                    projected.begin() + std::size_t(h + 1) * shape.dim * shape.key_length);
      const auto rows = transpose_of(head, shape.dim, shape.key_length);
      projected_rows.insert(projected_rows.end(), rows.begin(), rows.end());
    }
    AttentionOptions dot = options;
    dot.score = Score::dot;
    dot.temperature = 1.0f / options.general.scale;  // g = 1/T; exact for g = 1
    if (options.general.scale == 1.0f) {
      CHECK(run(dot_shape, q.data(), projected_rows.data(), v.data(), dot, true).weights == blocked.weights);
      CHECK(run(dot_shape, q.data(), projected_rows.data(), v.data(), dot, false).output == fused.output);
    }
  }
}

TEST_CASE("check_finite off skips the scan for NaN and infinity; on, the error names the array",
          "[mechanisms][precomputed][errors]") {
  const Shape shape = make_shape(1, 3, 4, 2, 0, 2);
  const auto q = random_for(shape, 3, 2, 1), k = random_for(shape, 4, 2, 2);
  auto v = random_for(shape, 4, 2, 3);
  v[3] = std::nanf("");
  AttentionOptions options;
  CHECK_THROWS_WITH(run(shape, q.data(), k.data(), v.data(), options, true), Contains("value contains NaN at index 3"));
  options.check_finite = false;
  const Outcome unchecked = run(shape, q.data(), k.data(), v.data(), options, true);
  CHECK(std::isnan(unchecked.output[1]));  // the NaN went through, unnamed
  CHECK(std::isfinite(unchecked.weights[0]));

  v[3] = 0.5f;
  const std::vector<float> weight(6, 0.5f), vec(3, 1.0f);
  std::vector<float> projected(3 * 4, 0.25f);
  projected[5] = std::numeric_limits<float>::infinity();
  AttentionOptions additive;
  additive.score = Score::additive;
  additive.additive.hidden = 3;
  additive.additive.query_weight = weight.data();
  additive.additive.v = vec.data();
  CHECK_THROWS_WITH(run(shape, q.data(), k.data(), v.data(), additive, true),
                    Contains("additive.key_weight is required"));
  additive.additive.projected_keys = projected.data();
  CHECK_THROWS_WITH(run(shape, q.data(), nullptr, v.data(), additive, true),
                    Contains("additive.projected_keys contains an infinite value at index 5"));
  AttentionOptions plain;
  CHECK_THROWS_WITH(run(shape, q.data(), nullptr, v.data(), plain, true), Contains("key is required"));
}
