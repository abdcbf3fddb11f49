// attention()'s blocked path: every case the fused path does not take (weights or scores asked
// for, the additive score, other probability functions, local, hard and dropped-out attention).
// Scores are made a block of query rows at a time.
#include <algorithm>
#include <cmath>
#include <memory>

#include "attn/core/error.hpp"
#include "attn/core/internal/attention_checks.hpp"
#include "attn/core/internal/attention_paths.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/rng.hpp"

namespace attn::detail {

namespace {

// Local-p's centres for one head: p_t = S * sigmoid(v_p^T tanh(W_p q_t)).
void predictive_positions(const float* query, int query_length, int dim, const LocalWindow& local,
                          const std::vector<float>& position_weight_t, int key_length, float* positions) {
  std::vector<float> hidden(static_cast<std::size_t>(query_length) * local.hidden);
  linear(query, query_length, dim, position_weight_t.data(), nullptr, local.hidden, hidden.data());
  kernels::tanh(hidden.data(), static_cast<int>(hidden.size()));
  for (int t = 0; t < query_length; ++t) {
    double logit = 0.0;
    for (int h = 0; h < local.hidden; ++h)
      logit += double(local.position_v[h]) * hidden[static_cast<std::size_t>(t) * local.hidden + h];
    positions[t] = static_cast<float>(key_length / (1.0 + std::exp(-logit)));
  }
}

// The fused path applies: softmax over dot, scaled-dot or general scores, nothing asked for but

class BlockedAttention final : public AttentionPath {
 public:
  static constexpr int block_rows = attention_block_rows;

  BlockedAttention(const Shape& shape, const AttentionOptions& options, const AttentionOutputs& outputs)
      : shape_(shape),
        options_(options),
        outputs_(outputs),
        value_dim_(shape.resolved_value_dim()),
        ldk_(padded_stride(shape.key_length)),
        rng_(options.seed) {
    prepare_parameters();
    const int key_dim = shape.resolved_key_dim(), query_length = shape.query_length;
    if (reads_keys(options)) keys_t_.resize(static_cast<std::size_t>(key_dim) * ldk_);
    if (options.score == Score::general && !options.general.projected_keys) {
      projected_.resize(static_cast<std::size_t>(query_length) * key_dim);
    }
    if (options.score == Score::additive) {
      projected_.resize(static_cast<std::size_t>(query_length) * options.additive.hidden);
      if (!options.additive.projected_keys) {
        keys_projected_storage_.resize(static_cast<std::size_t>(options.additive.hidden) * shape.key_length);
      }
    }
    if (!outputs.weights)
      block_.resize(static_cast<std::size_t>(std::min(block_rows, query_length)) * shape.key_length);
    if (options.local.mode != Local::none) centres_.resize(query_length);
  }

  void block(int h, const float* q, const float* k, const float* v, int first_row, int rows) override {
    if (h != prepared_head_) {
      prepare_head(h, q, k);
      prepared_head_ = h;
    }
    weigh_block(h, v, first_row, rows);
  }

 private:
  // What every head shares, prepared once: Bahdanau's W_q transposed (unless the caller gave it
  // so) and v (normalized when asked), local-p's W_p transposed.
  void prepare_parameters() {
    const AdditiveScore& additive = options_.additive;
    if (options_.score == Score::additive) {
      query_weight_t_ = additive.transposed_query_weight;
      if (!query_weight_t_) {
        query_weight_t_storage_ = transposed(additive.query_weight, additive.hidden, shape_.dim);
        query_weight_t_ = query_weight_t_storage_.data();
      }
      additive_v_ = additive.v;
      if (additive.normalize) {
        normalized_v_.assign(additive.v, additive.v + additive.hidden);
        double norm = 0.0;
        for (float x : normalized_v_) norm += double(x) * x;
        const float factor = static_cast<float>(additive.gain / std::sqrt(norm));
        for (float& x : normalized_v_) x *= factor;
        additive_v_ = normalized_v_.data();
      }
    }
    const LocalWindow& local = options_.local;
    if (local.mode == Local::predictive)
      position_weight_t_ = transposed(local.position_weight, local.hidden, shape_.dim);
  }

  // One head's side of the scores (transposed keys, projections) and local attention's centres.
  void prepare_head(int h, const float* q, const float* k) {
    const int query_length = shape_.query_length, key_length = shape_.key_length, key_dim = shape_.resolved_key_dim();
    if (options_.score == Score::additive) {
      const AdditiveScore& additive = options_.additive;
      linear(q, query_length, shape_.dim, query_weight_t_, additive.bias, additive.hidden, projected_.data());
      if (additive.projected_keys) {
        keys_projected_t_ = additive.projected_keys + static_cast<std::size_t>(h) * additive.hidden * key_length;
      } else {
        transpose(k, key_length, key_dim, keys_t_.data(), ldk_);
        kernels::matmul(additive.hidden, key_length, key_dim, 1.0f, additive.key_weight, key_dim, keys_t_.data(), ldk_,
                        keys_projected_storage_.data(), key_length, false);
        keys_projected_t_ = keys_projected_storage_.data();
      }
    } else {
      product_ = score_product(shape_, options_, h, q, k, keys_t_.data(), ldk_, projected_.data());
    }
    const LocalWindow& local = options_.local;
    if (local.mode == Local::monotonic) {
      for (int t = 0; t < query_length; ++t) centres_[t] = static_cast<float>(t);
    } else if (local.mode == Local::predictive) {
      predictive_positions(q, query_length, shape_.dim, local, position_weight_t_, key_length, centres_.data());
    }
  }

  // Query rows [first_row, first_row + rows) of head h: scores, weights, and their context.
  void weigh_block(int h, const float* v, int first_row, int rows) {
    const int query_length = shape_.query_length, key_length = shape_.key_length;
    if (outputs_.positions && options_.local.mode != Local::none) {
      std::copy(centres_.begin() + first_row, centres_.begin() + first_row + rows,
                outputs_.positions + static_cast<std::size_t>(h) * query_length + first_row);
    }
    const std::size_t offset = (static_cast<std::size_t>(h) * query_length + first_row) * key_length;
    float* p = outputs_.weights ? outputs_.weights + offset : block_.data();
    if (options_.score == Score::additive) {
      const AdditiveScore& additive = options_.additive;
      for (int r = 0; r < rows; ++r) {
        kernels::additive_scores(projected_.data() + static_cast<std::size_t>(first_row + r) * additive.hidden,
                                 keys_projected_t_, key_length, additive_v_, additive.hidden, key_length,
                                 p + static_cast<std::size_t>(r) * key_length);
      }
    } else {
      multiply_scores(product_, first_row, rows, 0, key_length, p, key_length);
    }
    if (outputs_.scores) std::copy(p, p + static_cast<std::size_t>(rows) * key_length, outputs_.scores + offset);
    for (int r = 0; r < rows; ++r) weigh_row(h, first_row + r, p + static_cast<std::size_t>(r) * key_length);
    kernels::matmul(rows, value_dim_, key_length, 1.0f, p, key_length, v, value_dim_,
                    outputs_.output + (static_cast<std::size_t>(h) * query_length + first_row) * value_dim_, value_dim_,
                    false);
  }

  // The keys query row t of head h may see: masks and causality, narrowed to the local window.
  KeyRange row_range(int h, int t) const {
    KeyRange range = key_range(options_.mask, shape_.heads, h, t, shape_.query_length, shape_.key_length);
    const LocalWindow& local = options_.local;
    if (local.mode != Local::none) {
      const float centre = centres_[t];
      range.first = std::max(range.first, static_cast<int>(std::ceil(centre - local.half_width)));
      range.last = std::min(range.last, static_cast<int>(std::floor(centre + local.half_width)) + 1);
    }
    return range;
  }

  // Turns the scores of query row t into the weights applied to the values: masks, the
  // probability function, local-p's Gaussian, then hard attention's choice or dropout.
  void weigh_row(int h, int t, float* row) {
    const int key_length = shape_.key_length;
    const std::uint8_t* keep_row = nullptr;
    if (options_.mask.keep) {
      const std::size_t matrix = options_.mask.keep_batch == 1 ? 0 : h;
      keep_row = options_.mask.keep + (matrix * shape_.query_length + t) * static_cast<std::size_t>(key_length);
    }
    const int kept = normalize_row(row, key_length, row_range(h, t), keep_row, options_.mask.mask_value,
                                   options_.probability, options_.temperature);
    if (kept > 0 && options_.local.mode == Local::predictive) {
      const float sigma = options_.local.half_width / 2.0f;
      for (int s = 0; s < key_length; ++s) {
        if (row[s] == 0.0f) continue;
        const float distance = s - centres_[t];
        row[s] *= std::exp(-distance * distance / (2.0f * sigma * sigma));
      }
    }
    if (options_.hard != Hard::none) {
      const int choice = kept > 0 ? hard_select(row, key_length, options_.hard, rng_) : -1;
      std::fill(row, row + key_length, 0.0f);
      if (choice >= 0) row[choice] = 1.0f;
      if (outputs_.indices) outputs_.indices[static_cast<std::size_t>(h) * shape_.query_length + t] = choice;
    } else if (options_.dropout > 0.0f) {
      apply_dropout(row, key_length, options_.dropout, rng_);
    }
  }

  const Shape& shape_;
  const AttentionOptions& options_;
  const AttentionOutputs& outputs_;
  const int value_dim_, ldk_;
  Rng rng_;
  const float* query_weight_t_ = nullptr;    // [dim][hidden]: W_q^T (additive)
  const float* additive_v_ = nullptr;        // [hidden]: v, or gain * v / |v|
  const float* keys_projected_t_ = nullptr;  // [hidden][key_length]: the head's W_k k (additive)
  std::vector<float> query_weight_t_storage_, normalized_v_, keys_projected_storage_;  // where the caller gave none
  std::vector<float> position_weight_t_;
  std::vector<float> keys_t_;     // [key_dim][ldk]: the head's keys, transposed
  std::vector<float> projected_;  // [query_length][key_dim or hidden]: q W (general), W_q q + b (additive)
  std::vector<float> block_;      // [block_rows][key_length] when the weights are not kept
  std::vector<float> centres_;    // [query_length]: local attention's p_t
  ScoreProduct product_;
  int prepared_head_ = -1;
};

}  // namespace

std::unique_ptr<AttentionPath> blocked_path(const Shape& shape, const AttentionOptions& options,
                                            const AttentionOutputs& outputs) {
  return std::make_unique<BlockedAttention>(shape, options, outputs);
}

}  // namespace attn::detail
