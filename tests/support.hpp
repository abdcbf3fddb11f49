// Shared helpers for the Catch2 suite: seeded inputs and a double-precision reference.
#pragma once

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "attn/attn.hpp"
#include "attn/core/internal/kernels.hpp"

namespace testing {

// Uniform values in [low, high) from attn::Rng, so native and wasm runs see the same inputs.
inline std::vector<float> random_values(std::size_t count, std::uint64_t seed, float low = -1.0f, float high = 1.0f) {
  attn::Rng rng(seed);
  std::vector<float> values(count);
  for (float& x : values) x = low + (high - low) * rng.uniform();
  return values;
}

// The float with these bits (a NaN's sign and payload, a -0, a subnormal, as a test needs them).
inline float from_bits(std::uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}

// A Shape from its sizes (key_dim, value_dim 0: dim).
inline attn::Shape make_shape(int heads, int query_length, int key_length, int dim, int key_dim = 0,
                              int value_dim = 0) {
  attn::Shape shape;
  shape.heads = heads;
  shape.query_length = query_length;
  shape.key_length = key_length;
  shape.dim = dim;
  shape.key_dim = key_dim;
  shape.value_dim = value_dim;
  return shape;
}

inline int random_int(attn::Rng& rng, int low, int high) {  // inclusive
  return low + static_cast<int>(rng.next() % static_cast<std::uint64_t>(high - low + 1));
}

// max |a - b| / max |b|: error relative to the reference's scale.
template <class A, class B>
double relative_error(const A& actual, const B& reference) {
  double worst = 0.0, scale = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    worst = std::max(worst, std::abs(double(actual[i]) - double(reference[i])));
    scale = std::max(scale, std::abs(double(reference[i])));
  }
  return scale > 0.0 ? worst / scale : worst;
}

template <class A, class B>
double max_abs_difference(const A& actual, const B& reference) {
  double worst = 0.0;
  for (std::size_t i = 0; i < reference.size(); ++i)
    worst = std::max(worst, std::abs(double(actual[i]) - double(reference[i])));
  return worst;
}

using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

inline Matrix to_matrix(const float* data, int rows, int cols) {
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(data, rows, cols)
      .cast<double>();
}

// Softmax of the kept entries of a double row; all-masked rows give zeros.
inline void reference_softmax(std::vector<double>& row, const std::vector<bool>& kept) {
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < row.size(); ++j)
    if (kept[j]) top = std::max(top, row[j]);
  double sum = 0.0;
  for (std::size_t j = 0; j < row.size(); ++j) {
    row[j] = kept[j] ? std::exp(row[j] - top) : 0.0;
    sum += row[j];
  }
  for (double& x : row) x = sum > 0.0 ? x / sum : 0.0;
}

struct Reference {
  std::vector<double> output, weights;
};

// softmax attention in double precision, written straight from the definitions.
inline Reference reference_attention(const attn::Shape& shape, const std::vector<float>& query,
                                     const std::vector<float>& key, const std::vector<float>& value,
                                     const attn::AttentionOptions& options) {
  const int H = shape.heads, Lq = shape.query_length, Lk = shape.key_length, D = shape.dim;
  const int Dk = shape.resolved_key_dim(), Dv = shape.resolved_value_dim();
  Reference result;
  result.output.assign(static_cast<std::size_t>(H) * Lq * Dv, 0.0);
  result.weights.assign(static_cast<std::size_t>(H) * Lq * Lk, 0.0);
  for (int h = 0; h < H; ++h) {
    const Matrix Q = to_matrix(query.data() + static_cast<std::size_t>(h) * Lq * D, Lq, D);
    const Matrix K = to_matrix(key.data() + static_cast<std::size_t>(h) * Lk * Dk, Lk, Dk);
    const Matrix V = to_matrix(value.data() + static_cast<std::size_t>(h) * Lk * Dv, Lk, Dv);
    Matrix S(Lq, Lk);
    switch (options.score) {
      case attn::Score::dot: S = Q * K.transpose(); break;
      case attn::Score::scaled_dot: S = Q * K.transpose() / std::sqrt(double(D)); break;
      case attn::Score::general:
        S = options.general.scale * Q * to_matrix(options.general.weight, D, Dk) * K.transpose();
        break;
      case attn::Score::additive: {
        const auto& a = options.additive;
        Matrix Wq = to_matrix(a.query_weight, a.hidden, D), Wk = to_matrix(a.key_weight, a.hidden, Dk);
        Eigen::VectorXd v = to_matrix(a.v, a.hidden, 1);
        if (a.normalize) v = a.gain * v / v.norm();
        Eigen::VectorXd b = a.bias ? Eigen::VectorXd(to_matrix(a.bias, a.hidden, 1)) : Eigen::VectorXd::Zero(a.hidden);
        for (int i = 0; i < Lq; ++i) {
          for (int j = 0; j < Lk; ++j) {
            Eigen::VectorXd inner = Wq * Q.row(i).transpose() + Wk * K.row(j).transpose() + b;
            S(i, j) = v.dot(inner.array().tanh().matrix());
          }
        }
        break;
      }
    }
    S /= options.temperature;
    for (int i = 0; i < Lq; ++i) {
      std::vector<double> row(S.row(i).data(), S.row(i).data() + Lk);
      std::vector<bool> kept(Lk, true);
      const auto& m = options.mask;
      int last = Lk;
      if (m.valid_lengths) {
        last = m.valid_length_count == H * Lq ? m.valid_lengths[h * Lq + i] : m.valid_lengths[h];
      }
      if (m.causal) last = std::min(last, i + 1);
      for (int j = 0; j < Lk; ++j) {
        if (j >= last) kept[j] = false;
        if (m.keep && !m.keep[(static_cast<std::size_t>(m.keep_batch == 1 ? 0 : h) * Lq + i) * Lk + j]) kept[j] = false;
      }
      reference_softmax(row, kept);
      for (int j = 0; j < Lk; ++j) result.weights[(static_cast<std::size_t>(h) * Lq + i) * Lk + j] = row[j];
      for (int d = 0; d < Dv; ++d) {
        double sum = 0.0;
        for (int j = 0; j < Lk; ++j) sum += row[j] * V(j, d);
        result.output[(static_cast<std::size_t>(h) * Lq + i) * Dv + d] = sum;
      }
    }
  }
  return result;
}

// Runs a block with the SIMD kernels switched off, restoring the previous state.
struct ScalarKernels {
  bool previous = attn::kernels::simd_enabled();
  ScalarKernels() { attn::kernels::set_simd(false); }
  ~ScalarKernels() { attn::kernels::set_simd(previous); }
};

// The shipped pair catalogue (models/pairs.json), read as the command line reads it.
inline const attn::PairCatalogue& shipped_pairs() {
  static const attn::PairCatalogue pairs = [] {
    std::ifstream in(std::string(ATTN_MODELS_DIR) + "/pairs.json", std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return attn::PairCatalogue::parse(text.str());
  }();
  return pairs;
}

}  // namespace testing
