// attention()'s fused path: FlashAttention's online softmax over tiles of keys, and the score
// product both paths share.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>

#include "attn/core/error.hpp"
#include "attn/core/internal/attention_checks.hpp"
#include "attn/core/internal/attention_paths.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/internal/scratch.hpp"

namespace attn::detail {

// the output, and masks that remove keys exactly (or no masks at all).
bool fusable(const AttentionOptions& options, const AttentionOutputs& outputs) {
  const Masking& mask = options.mask;
  const bool exact_masks = mask.mask_value == -std::numeric_limits<float>::infinity() || !mask.any();
  return options.score != Score::additive && options.probability == Probability::softmax &&
         options.hard == Hard::none && options.dropout == 0.0f && options.local.mode == Local::none &&
         !outputs.weights && !outputs.scores && exact_masks;
}

namespace {

void overflow(float score) {
  fail("a score is ", std::isnan(score) ? "NaN" : "+infinity",
       ": the inputs overflow float32 when multiplied; scale them down");
}

}  // namespace

ScoreProduct score_product(const Shape& shape, const AttentionOptions& options, int h, const float* q, const float* k,
                           float* keys_t, int ldk, float* projected) {
  const int dim = shape.dim, key_dim = shape.resolved_key_dim();
  ScoreProduct product;
  product.query_rows = q;
  product.query_stride = dim;
  if (options.score == Score::general && options.general.projected_keys) {
    product.keys_t = options.general.projected_keys + static_cast<std::size_t>(h) * dim * shape.key_length;
    product.ldk = shape.key_length;
    product.width = dim;
    product.alpha = options.general.scale;
    return product;
  }
  transpose(k, shape.key_length, key_dim, keys_t, ldk);
  product.keys_t = keys_t;
  product.ldk = ldk;
  product.width = key_dim;
  if (options.score == Score::scaled_dot) product.alpha = 1.0f / std::sqrt(static_cast<float>(dim));
  if (options.score == Score::general) {
    kernels::matmul(shape.query_length, key_dim, dim, 1.0f, q, dim, options.general.weight, key_dim, projected, key_dim,
                    false);
    product.query_rows = projected;
    product.query_stride = key_dim;
    product.alpha = options.general.scale;
  }
  return product;
}

void multiply_scores(const ScoreProduct& product, int first_row, int rows, int first_key, int keys, float* scores,
                     int ldc) {
  kernels::matmul(rows, keys, product.width, product.alpha,
                  product.query_rows + static_cast<std::size_t>(first_row) * product.query_stride, product.query_stride,
                  product.keys_t + first_key, product.ldk, scores, ldc, false);
}

namespace {

// FlashAttention's schedule (Dao et al. 2022) with the online softmax of Milakov & Gimelshein
// (2018): a block of query rows meets the keys one tile at a time; each row keeps its running
// maximum m and sum l, rescales what it has accumulated when m grows, and divides by l at the
// end. Scratch is one [block][tile] score tile, the transposed keys and the query projection:
// O(L·d), never the L×S score matrix. Tiles that masks or causality leave empty are skipped.
class FusedAttention final : public AttentionPath {
 public:
  static constexpr int block_rows = attention_block_rows, tile_keys = 256;

  FusedAttention(const Shape& shape, const AttentionOptions& options, const AttentionOutputs& outputs)
      : shape_(shape),
        options_(options),
        outputs_(outputs),
        value_dim_(shape.resolved_value_dim()),
        ldk_(padded_stride(shape.key_length)),  // keys_t's row stride: columns walk many cache sets
        keys_t_(reads_keys(options) ? static_cast<std::size_t>(shape.resolved_key_dim()) * ldk_ : 0),
        projected_(options.score == Score::general && !options.general.projected_keys
                       ? static_cast<std::size_t>(shape.query_length) * shape.resolved_key_dim()
                       : 0),
        tile_(static_cast<std::size_t>(std::min(block_rows, shape.query_length)) *
              std::min(tile_keys, shape.key_length)),
        ranges_(std::min(block_rows, shape.query_length)),
        running_max_(ranges_.size()),
        running_sum_(ranges_.size()) {}

  void block(int h, const float* q, const float* k, const float* v, int first_row, int rows) override {
    float* out_block = outputs_.output + (static_cast<std::size_t>(h) * shape_.query_length + first_row) * value_dim_;
    if (h != prepared_head_) {
      product_ = score_product(shape_, options_, h, q, k, keys_t_.data(), ldk_, projected_.data());
      prepared_head_ = h;
    }
    const ScoreProduct& product = product_;
    const KeyRange seen = start_block(h, first_row, rows);
    // the first tile's product writes the block, later ones add to it
    if (seen.first >= seen.last) std::fill(out_block, out_block + static_cast<std::size_t>(rows) * value_dim_, 0.0f);
    for (int first_key = seen.first; first_key < seen.last; first_key += tile_keys) {
      const int keys = std::min(tile_keys, seen.last - first_key);
      multiply_scores(product, first_row, rows, first_key, keys, tile_.data(), keys);
      for (int r = 0; r < rows; ++r) {
        fold_row(h, first_row + r, r, first_key, keys, tile_.data() + static_cast<std::size_t>(r) * keys,
                 out_block + static_cast<std::size_t>(r) * value_dim_);
      }
      kernels::matmul(rows, value_dim_, keys, 1.0f, tile_.data(), keys,
                      v + static_cast<std::size_t>(first_key) * value_dim_, value_dim_, out_block, value_dim_,
                      first_key != seen.first);
    }
    for (int r = 0; r < rows; ++r) {
      const float sum = running_sum_[r];
      if (std::isnan(sum) || std::isinf(sum)) overflow(sum);
      // sum == 0: every key masked, and the row stays zero, as normalize_row leaves it
      if (sum > 0.0f) kernels::scale(out_block + static_cast<std::size_t>(r) * value_dim_, value_dim_, 1.0f / sum);
    }
  }

 private:
  // Each row's keys (masks and causality), m = -inf and l = 0. Returns the keys that any row of
  // the block sees, [first, last), empty when every row is fully masked.
  KeyRange start_block(int h, int first_row, int rows) {
    KeyRange seen{shape_.key_length, 0};
    for (int r = 0; r < rows; ++r) {
      KeyRange range = key_range(options_.mask, shape_.heads, h, first_row + r, shape_.query_length, shape_.key_length);
      range.first = std::max(range.first, 0);
      range.last = std::min(range.last, shape_.key_length);
      ranges_[r] = range;
      if (range.first < range.last) {
        seen.first = std::min(seen.first, range.first);
        seen.last = std::max(seen.last, range.last);
      }
      running_max_[r] = -std::numeric_limits<float>::infinity();
      running_sum_[r] = 0.0f;
    }
    return seen;
  }

  // Query row t (row r of the block) in one tile of keys [first_key, first_key + keys): its
  // scores become exp(s - m), m the new running maximum, 0 where masked; what the row has
  // accumulated (out_row and l) is rescaled when m grew.
  void fold_row(int h, int t, int r, int first_key, int keys, float* row, float* out_row) {
    const float minus_infinity = -std::numeric_limits<float>::infinity();
    const int begin = std::max(ranges_[r].first - first_key, 0), end = std::min(ranges_[r].last - first_key, keys);
    if (begin >= end) {
      std::fill(row, row + keys, 0.0f);
      return;
    }
    // divided after the product, as normalize_row does: folding 1/T into alpha rounds worse
    if (options_.temperature != 1.0f) kernels::scale(row + begin, end - begin, 1.0f / options_.temperature);
    if (options_.mask.keep) {
      const std::size_t matrix = options_.mask.keep_batch == 1 ? 0 : h;
      const std::uint8_t* keep = options_.mask.keep +
                                 (matrix * shape_.query_length + t) * static_cast<std::size_t>(shape_.key_length) +
                                 first_key;
      for (int j = begin; j < end; ++j) {
        if (!keep[j]) row[j] = minus_infinity;
      }
    }
    const float tile_maximum = kernels::max(row + begin, end - begin);
    if (!(tile_maximum < std::numeric_limits<float>::infinity())) overflow(tile_maximum);  // +inf or NaN
    if (tile_maximum == minus_infinity) {  // every key of this tile is masked for this row
      std::fill(row, row + keys, 0.0f);
      return;
    }
    const float previous = running_max_[r], maximum = std::max(previous, tile_maximum);
    const float sum = kernels::exp_shifted_sum(row + begin, end - begin, maximum);
    std::fill(row, row + begin, 0.0f);
    std::fill(row + end, row + keys, 0.0f);
    if (previous != minus_infinity && previous != maximum) {
      const float correction = static_cast<float>(std::exp(double(previous) - double(maximum)));
      kernels::scale(out_row, value_dim_, correction);
      running_sum_[r] *= correction;
    }
    running_sum_[r] += sum;
    running_max_[r] = maximum;
  }

  const Shape& shape_;
  const AttentionOptions& options_;
  const AttentionOutputs& outputs_;
  const int value_dim_, ldk_;
  Scratch keys_t_, projected_, tile_;
  std::vector<KeyRange> ranges_;
  std::vector<float> running_max_, running_sum_;
  ScoreProduct product_;
  int prepared_head_ = -1;
};

// Every path but the fused one. Scores are made a block of query rows at a time, so without

}  // namespace

std::unique_ptr<AttentionPath> fused_path(const Shape& shape, const AttentionOptions& options,
                                          const AttentionOutputs& outputs) {
  return std::make_unique<FusedAttention>(shape, options, outputs);
}

}  // namespace attn::detail
