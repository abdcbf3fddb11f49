#include "attn/core/attention.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>

#include "attn/core/error.hpp"
#include "attn/core/internal/fed_attention.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/rng.hpp"
#include "attn/core/threads.hpp"

namespace attn {

Score parse_score(const std::string& name) {
  if (name == "dot") return Score::dot;
  if (name == "scaled_dot") return Score::scaled_dot;
  if (name == "general") return Score::general;
  if (name == "additive") return Score::additive;
  fail("unknown score '", name, "' (expected dot, scaled_dot, general or additive)");
}

const char* to_string(Score score) {
  switch (score) {
    case Score::dot: return "dot";
    case Score::scaled_dot: return "scaled_dot";
    case Score::general: return "general";
    case Score::additive: return "additive";
  }
  return "?";
}

Local parse_local(const std::string& name) {
  if (name == "none") return Local::none;
  if (name == "monotonic") return Local::monotonic;
  if (name == "predictive") return Local::predictive;
  fail("unknown local attention '", name, "' (expected none, monotonic or predictive)");
}

Hard parse_hard(const std::string& name) {
  if (name == "none") return Hard::none;
  if (name == "argmax") return Hard::argmax;
  if (name == "sample") return Hard::sample;
  fail("unknown hard attention '", name, "' (expected none, argmax or sample)");
}

namespace {
// Inverted dropout drawing from a running generator, so attention() can go row by row.
void apply_dropout(float* weights, std::size_t count, float p, Rng& rng) {
  const float keep_scale = 1.0f / (1.0f - p);
  for (std::size_t i = 0; i < count; ++i) weights[i] = rng.uniform() < p ? 0.0f : weights[i] * keep_scale;
}
}  // namespace

void dropout(float* weights, std::size_t count, float p, std::uint64_t seed) {
  if (!(p >= 0.0f && p < 1.0f)) fail(Field{"dropout"}, " must be in [0, 1), got ", p);
  if (p == 0.0f) return;
  Rng rng(seed);
  apply_dropout(weights, count, p, rng);
}

int hard_select(const float* weights, int n, Hard mode, Rng& rng) {
  if (mode == Hard::argmax) {
    int best = -1;
    float best_weight = 0.0f;
    for (int j = 0; j < n; ++j) {
      if (weights[j] > best_weight) {
        best = j;
        best_weight = weights[j];
      }
    }
    return best;
  }
  double total = 0.0;
  for (int j = 0; j < n; ++j) total += weights[j];
  if (!(total > 0.0)) return -1;
  const double target = rng.uniform() * total;
  double cumulative = 0.0;
  int last_positive = -1;
  for (int j = 0; j < n; ++j) {
    if (weights[j] <= 0.0f) continue;
    cumulative += weights[j];
    last_positive = j;
    if (target < cumulative) return j;
  }
  return last_positive;  // rounding left target at the very end
}

namespace {

void require(const void* pointer, const char* name) {
  if (!pointer) fail(Field{name}, " is required");
}

}  // namespace

void validate_shape(const Shape& shape) {
  check_size("heads", shape.heads);
  check_size("query_length", shape.query_length);
  check_size("key_length", shape.key_length);
  check_size("dim", shape.dim);
  check_size("key_dim", shape.key_dim, 0);
  check_size("value_dim", shape.value_dim, 0);
  const int key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
  element_count("query", {shape.heads, shape.query_length, shape.dim});
  element_count("key", {shape.heads, shape.key_length, key_dim});
  element_count("value", {shape.heads, shape.key_length, value_dim});
  element_count("weights", {shape.heads, shape.query_length, shape.key_length});
  element_count("output", {shape.heads, shape.query_length, value_dim});
}

namespace {

// check_finite, unless the caller has turned the scan off.
void check_values(const AttentionOptions& options, const char* name, const float* data, std::size_t count) {
  if (options.check_finite) check_finite(name, data, count);
}

// Whether the score reads the keys: not when the caller gave them already projected.
bool reads_keys(const AttentionOptions& options) {
  if (options.score == Score::general) return !options.general.projected_keys;
  if (options.score == Score::additive) return !options.additive.projected_keys;
  return true;
}

// The arrays every call reads, and the output: present.
void require_inputs(const float* query, const float* key, const float* value, const AttentionOptions& options,
                    const AttentionOutputs& outputs) {
  require(query, "query");
  if (reads_keys(options)) require(key, "key");
  require(value, "value");
  require(outputs.output, "outputs.output");
}

// The arrays every call reads: present, and free of NaN and infinity.
void validate_inputs(const Shape& shape, const float* query, const float* key, const float* value,
                     const AttentionOptions& options, const AttentionOutputs& outputs) {
  require_inputs(query, key, value, options, outputs);
  check_values(options, "query", query, element_count("query", {shape.heads, shape.query_length, shape.dim}));
  if (reads_keys(options)) {
    check_values(options, "key", key, element_count("key", {shape.heads, shape.key_length, shape.resolved_key_dim()}));
  }
  check_values(options, "value", value,
               element_count("value", {shape.heads, shape.key_length, shape.resolved_value_dim()}));
}

void validate_general(const Shape& shape, const AttentionOptions& options) {
  const GeneralScore& general = options.general;
  const int key_dim = shape.resolved_key_dim();
  if (general.projected_keys) {
    check_values(options, "general.projected_keys", general.projected_keys,
                 element_count("general.projected_keys", {shape.heads, shape.dim, shape.key_length}));
  } else {
    require(general.weight, "general.weight");
    check_values(options, "general.weight", general.weight, element_count("general.weight", {shape.dim, key_dim}));
    element_count("projected queries", {shape.query_length, key_dim});
  }
  if (!std::isfinite(general.scale)) fail(Field{"general.scale"}, " must be finite");
}

void validate_additive(const Shape& shape, const AttentionOptions& options) {
  const AdditiveScore& additive = options.additive;
  check_size("additive.hidden", additive.hidden);
  if (additive.transposed_query_weight) {
    check_values(options, "additive.transposed_query_weight", additive.transposed_query_weight,
                 element_count("additive.transposed_query_weight", {shape.dim, additive.hidden}));
  } else {
    require(additive.query_weight, "additive.query_weight");
    check_values(options, "additive.query_weight", additive.query_weight,
                 element_count("additive.query_weight", {additive.hidden, shape.dim}));
  }
  if (additive.projected_keys) {
    check_values(options, "additive.projected_keys", additive.projected_keys,
                 element_count("additive.projected_keys", {shape.heads, additive.hidden, shape.key_length}));
  } else {
    require(additive.key_weight, "additive.key_weight");
    check_values(options, "additive.key_weight", additive.key_weight,
                 element_count("additive.key_weight", {additive.hidden, shape.resolved_key_dim()}));
  }
  require(additive.v, "additive.v");
  check_values(options, "additive.v", additive.v, additive.hidden);
  element_count("projected queries", {shape.query_length, additive.hidden});
  element_count("projected keys", {additive.hidden, shape.key_length});
  if (additive.bias) check_values(options, "additive.bias", additive.bias, additive.hidden);
  if (!std::isfinite(additive.gain)) fail(Field{"additive.gain"}, " must be finite");
  if (additive.normalize) {
    double norm = 0.0;
    for (int h = 0; h < additive.hidden; ++h) norm += double(additive.v[h]) * additive.v[h];
    if (norm == 0.0) fail(Field{"additive.v"}, " must not be all zeros when ", Field{"additive.normalize"}, " is on");
  }
}

void validate_score(const Shape& shape, const AttentionOptions& options) {
  switch (options.score) {
    case Score::dot:
    case Score::scaled_dot:
      if (shape.resolved_key_dim() != shape.dim) {
        fail(Field{"key_dim"}, " (", shape.resolved_key_dim(), ") must equal ", Field{"dim"}, " (", shape.dim,
             ") for the ", to_string(options.score), " score; general and additive scores allow different sizes");
      }
      return;
    case Score::general: validate_general(shape, options); return;
    case Score::additive: validate_additive(shape, options); return;
  }
}

void validate_local(const Shape& shape, const AttentionOptions& options) {
  const LocalWindow& local = options.local;
  if (local.mode != Local::none) {
    check_size("local.half_width", local.half_width, local.mode == Local::predictive ? 1 : 0);
  }
  if (local.mode == Local::predictive) {
    check_size("local.hidden", local.hidden);
    require(local.position_weight, "local.position_weight");
    require(local.position_v, "local.position_v");
    check_values(options, "local.position_weight", local.position_weight,
                 element_count("local.position_weight", {local.hidden, shape.dim}));
    check_values(options, "local.position_v", local.position_v, local.hidden);
    element_count("local hidden states", {shape.query_length, local.hidden});
  }
}

// Everything but the scan of the inputs for NaN and infinity, which attention() runs inside the
// parts of the work (on every thread) and, when a part finds a bad value, again in full with
// validate_inputs to name it.
void validate(const Shape& shape, const float* query, const float* key, const float* value,
              const AttentionOptions& options, const AttentionOutputs& outputs) {
  validate_shape(shape);
  require_inputs(query, key, value, options, outputs);
  validate_score(shape, options);
  validate_masking(options.mask, shape.heads, shape.query_length, shape.key_length);
  if (!(options.temperature > 0.0f) || !std::isfinite(options.temperature)) {
    fail(Field{"temperature"}, " must be a positive finite number, got ", options.temperature);
  }
  validate_local(shape, options);
  if (!(options.dropout >= 0.0f && options.dropout < 1.0f))
    fail(Field{"dropout"}, " must be in [0, 1), got ", options.dropout);
  if (options.dropout > 0.0f && options.hard != Hard::none) {
    fail(Field{"dropout"}, " applies to soft attention; ", Field{"hard"}, " attention picks one key per query");
  }
}

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
// the output, and masks that remove keys exactly (or no masks at all).
bool fusable(const AttentionOptions& options, const AttentionOutputs& outputs) {
  const Masking& mask = options.mask;
  const bool exact_masks = mask.mask_value == -std::numeric_limits<float>::infinity() || !mask.any();
  return options.score != Score::additive && options.probability == Probability::softmax &&
         options.hard == Hard::none && options.dropout == 0.0f && options.local.mode == Local::none &&
         !outputs.weights && !outputs.scores && exact_masks;
}

void overflow(float score) {
  fail("a score is ", std::isnan(score) ? "NaN" : "+infinity",
       ": the inputs overflow float32 when multiplied; scale them down");
}

// Dot, scaled-dot and general scores of one head as one matrix product:
// scores[t][j] = alpha * sum over i < width of query_rows[t][i] * keys_t[i][j].
struct ScoreProduct {
  const float* query_rows = nullptr;
  int query_stride = 0;
  const float* keys_t = nullptr;
  int ldk = 0;
  int width = 0;
  float alpha = 1.0f;
};

// One head's ScoreProduct. Dot and scaled-dot scores multiply its queries q with its keys k,
// transposed into keys_t ([key_dim][ldk]); the general score q through W (into projected,
// [query_length][key_dim]) with the same, or q with the caller's projected keys W k.
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

// scores [rows][keys] = the product's rows [first_row, first_row + rows) against keys
// [first_key, first_key + keys).
void multiply_scores(const ScoreProduct& product, int first_row, int rows, int first_key, int keys, float* scores,
                     int ldc) {
  kernels::matmul(rows, keys, product.width, product.alpha,
                  product.query_rows + static_cast<std::size_t>(first_row) * product.query_stride, product.query_stride,
                  product.keys_t + first_key, product.ldk, scores, ldc, false);
}

// Floats that every use writes before it reads, so left uninitialized: a std::vector<float> would
// clear them on every call, a memset a few percent as long as a sentence's attention.
class Scratch {
 public:
  explicit Scratch(std::size_t size) : data_(size > 0 ? new float[size] : nullptr) {}
  float* data() { return data_.get(); }

 private:
  std::unique_ptr<float[]> data_;
};

// FlashAttention's schedule (Dao et al. 2022) with the online softmax of Milakov & Gimelshein
// (2018): a block of query rows meets the keys one tile at a time; each row keeps its running
// maximum m and sum l, rescales what it has accumulated when m grows, and divides by l at the
// end. Scratch is one [block][tile] score tile, the transposed keys and the query projection:
// O(L·d), never the L×S score matrix. Tiles that masks or causality leave empty are skipped.
class FusedAttention {
 public:
  static constexpr int block_rows = 64, tile_keys = 256;

  FusedAttention(const Shape& shape, const AttentionOptions& options)
      : shape_(shape),
        options_(options),
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

  // Query rows [first_row, first_row + rows) of head h (whose queries, keys and values start at
  // q, k, v), written to out_block. The head's side of the scores is prepared when h changes.
  void block(int h, const float* q, const float* k, const float* v, int first_row, int rows, float* out_block) {
    if (h != prepared_head_) {
      product_ = score_product(shape_, options_, h, q, k, keys_t_.data(), ldk_, projected_.data());
      prepared_head_ = h;
    }
    const ScoreProduct& product = product_;
    const detail::KeyRange seen = start_block(h, first_row, rows);
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
  detail::KeyRange start_block(int h, int first_row, int rows) {
    detail::KeyRange seen{shape_.key_length, 0};
    for (int r = 0; r < rows; ++r) {
      detail::KeyRange range =
          detail::key_range(options_.mask, shape_.heads, h, first_row + r, shape_.query_length, shape_.key_length);
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
  const int value_dim_, ldk_;
  Scratch keys_t_, projected_, tile_;
  std::vector<detail::KeyRange> ranges_;
  std::vector<float> running_max_, running_sum_;
  ScoreProduct product_;
  int prepared_head_ = -1;
};

// Every path but the fused one. Scores are made a block of query rows at a time, so without
// requested weights the scratch stays [block][key_length] rather than the whole score matrix.
class BlockedAttention {
 public:
  static constexpr int block_rows = 64;

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

  // Query rows [first_row, first_row + rows) of head h, whose queries, keys and values start at
  // q, k, v. The head's side of the scores is prepared when h changes.
  void block(int h, const float* q, const float* k, const float* v, int first_row, int rows) {
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
  detail::KeyRange row_range(int h, int t) const {
    detail::KeyRange range =
        detail::key_range(options_.mask, shape_.heads, h, t, shape_.query_length, shape_.key_length);
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
    const int kept = detail::normalize_row(row, key_length, row_range(h, t), keep_row, options_.mask.mask_value,
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

namespace {

// attention(), or fed_attention() where feeding is given.
void attend(const Shape& shape, const float* query, const float* key, const float* value,
            const AttentionOptions& options, const AttentionOutputs& outputs, const detail::Feeding* feeding) {
  const std::function<void()>* feed = feeding ? &feeding->feed : nullptr;
  std::atomic<int>* heads_ready = feeding ? feeding->heads_ready : nullptr;
  std::atomic<int>* parts_left = feeding && feeding->drain ? feeding->parts_left : nullptr;
  validate(shape, query, key, value, options, outputs);
  // The work goes in parts of one head's block of query rows, the same parts whatever the thread
  // count, so every row is computed alike on one thread or many. Dropout and sampled hard
  // attention draw from one generator in order, so they stay on one thread.
  static_assert(FusedAttention::block_rows == BlockedAttention::block_rows, "both paths split rows alike");
  const int block_rows = FusedAttention::block_rows;
  const int key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
  const int blocks = (shape.query_length + block_rows - 1) / block_rows;
  const int parts = shape.heads * blocks;
  const bool fused = fusable(options, outputs);
  const bool ordered = options.dropout > 0.0f || options.hard == Hard::sample;
  const double work = double(std::min(block_rows, shape.query_length)) * shape.key_length * (key_dim + value_dim);
  const int workers = ordered ? 1 : workers_for(parts, work);
  // whole heads to each thread while there are enough of them to go round: a head's blocks share
  // its transposed keys
  const int grain = shape.heads >= 2 * workers ? blocks : 1;
  // The scan for NaN and infinity runs in the parts, so the threads share it like the rest (on
  // the calling thread of a 2-thread call it was a twentieth of the call): a thread scans a head's
  // queries, keys and values when it takes up that head, before it reads them (a head split
  // between threads is scanned by each). A part that finds a bad value computes nothing, nor does
  // any part after it; the full scan then runs on the calling thread to name the first bad value.
  const bool scan = options.check_finite, scan_keys = reads_keys(options);
  std::atomic<bool> bad_input{false};
  std::vector<int> scanned_head(static_cast<std::size_t>(workers), -1);  // by worker
  // what the calling thread does once the threads have their parts: the feed, if any, which must
  // release every head (a part that waits for one holds its thread); a feed that fails, or stops
  // short, releases them all here and its error is the call's
  bool feed_failed = false;
  if (feed) heads_ready->store(0, std::memory_order_relaxed);  // published with the job
  if (parts_left) {
    for (int h = 0; h < shape.heads; ++h) parts_left[h].store(blocks, std::memory_order_relaxed);
  }
  // each part, however it ends, counts itself off its head (the drain copies finished heads out)
  struct PartDone {
    std::atomic<int>* left;
    ~PartDone() {
      if (left) left->fetch_sub(1, std::memory_order_release);
    }
  };
  const auto release_every_head = [&] {
    feed_failed = true;
    heads_ready->store(shape.heads, std::memory_order_release);
  };
  const std::function<void()> lead = [&] {
    if (!feed) return;
    try {
      (*feed)();
    } catch (...) {
      release_every_head();
      throw;
    }
    const int fed = heads_ready->load(std::memory_order_relaxed);
    if (fed < shape.heads) {
      release_every_head();
      fail("attention: the feed put ", fed, " of ", shape.heads, " heads in place");
    }
  };
  const std::function<void()> no_drain;
  // A part may have thrown (an overflowing score) before the part that scans a bad value ran, or
  // with it: a bad value is what to name, as when the scan came first.
  const auto run = [&](auto& scratch, auto&& make, auto&& part) {
    try {
      parallel_for(
          parts, workers,
          [&](int item, int worker) {
            const int h = item / blocks, first_row = (item % blocks) * block_rows;
            const PartDone done{parts_left ? parts_left + h : nullptr};
            if (bad_input.load(std::memory_order_relaxed)) return;
            if (heads_ready) {  // the head's inputs are still being fed
              while (heads_ready->load(std::memory_order_acquire) <= h) {
              }
            }
            const int rows = std::min(block_rows, shape.query_length - first_row);
            const float* q = query + static_cast<std::size_t>(h) * shape.query_length * shape.dim;
            const float* k = scan_keys ? key + static_cast<std::size_t>(h) * shape.key_length * key_dim : nullptr;
            const float* v = value + static_cast<std::size_t>(h) * shape.key_length * value_dim;
            if (scan && scanned_head[worker] != h) {
              scanned_head[worker] = h;
              if (!all_finite(q, static_cast<std::size_t>(shape.query_length) * shape.dim) ||
                  (k && !all_finite(k, static_cast<std::size_t>(shape.key_length) * key_dim)) ||
                  !all_finite(v, static_cast<std::size_t>(shape.key_length) * value_dim)) {
                bad_input.store(true, std::memory_order_relaxed);
                return;
              }
            }
            if (!scratch[worker]) scratch[worker] = make();
            part(*scratch[worker], h, q, k, v, first_row, rows);
          },
          grain, lead, feeding ? feeding->drain : no_drain);
    } catch (const Error&) {
      if (!feed_failed) validate_inputs(shape, query, key, value, options, outputs);  // unfed inputs: not named
      throw;
    }
    if (bad_input.load()) {
      validate_inputs(shape, query, key, value, options, outputs);
      fail("attention: a non-finite input");  // not reached: the full scan finds what a part found
    }
  };
  if (fused) {
    std::vector<std::unique_ptr<FusedAttention>> scratch(workers);
    run(
        scratch, [&] { return std::make_unique<FusedAttention>(shape, options); },
        [&](FusedAttention& attention, int h, const float* q, const float* k, const float* v, int first_row, int rows) {
          attention.block(h, q, k, v, first_row, rows,
                          outputs.output + (static_cast<std::size_t>(h) * shape.query_length + first_row) * value_dim);
        });
  } else {
    std::vector<std::unique_ptr<BlockedAttention>> scratch(workers);
    run(
        scratch, [&] { return std::make_unique<BlockedAttention>(shape, options, outputs); },
        [&](BlockedAttention& attention, int h, const float* q, const float* k, const float* v, int first_row,
            int rows) { attention.block(h, q, k, v, first_row, rows); });
  }
}

}  // namespace

void attention(const Shape& shape, const float* query, const float* key, const float* value,
               const AttentionOptions& options, const AttentionOutputs& outputs) {
  attend(shape, query, key, value, options, outputs, nullptr);
}

namespace detail {

void fed_attention(const Shape& shape, const float* query, const float* key, const float* value,
                   const AttentionOptions& options, const AttentionOutputs& outputs, const Feeding& feeding) {
  attend(shape, query, key, value, options, outputs, &feeding);
}

}  // namespace detail

AttentionResult attention(const Shape& shape, const std::vector<float>& query, const std::vector<float>& key,
                          const std::vector<float>& value, const AttentionOptions& options, Returns returns) {
  validate_shape(shape);
  const auto expect = [](const char* name, const std::vector<float>& data, std::size_t count) {
    if (data.size() != count) fail(Field{name}, " has ", data.size(), " elements, expected ", count);
  };
  expect("query", query, element_count("query", {shape.heads, shape.query_length, shape.dim}));
  expect("key", key, element_count("key", {shape.heads, shape.key_length, shape.resolved_key_dim()}));
  expect("value", value, element_count("value", {shape.heads, shape.key_length, shape.resolved_value_dim()}));
  AttentionResult result;
  const std::size_t rows = static_cast<std::size_t>(shape.heads) * shape.query_length;
  result.output.resize(rows * shape.resolved_value_dim());
  if (includes(returns, Returns::weights)) result.weights.resize(rows * shape.key_length);
  if (includes(returns, Returns::scores)) result.scores.resize(rows * shape.key_length);
  if (options.hard != Hard::none) result.indices.assign(rows, -1);
  if (options.local.mode != Local::none) result.positions.resize(rows);
  const auto data_or_null = [](auto& buffer) { return buffer.empty() ? nullptr : buffer.data(); };
  AttentionOutputs outputs;
  outputs.output = result.output.data();
  outputs.weights = data_or_null(result.weights);
  outputs.scores = data_or_null(result.scores);
  outputs.indices = data_or_null(result.indices);
  outputs.positions = data_or_null(result.positions);
  attention(shape, query.data(), key.data(), value.data(), options, outputs);
  return result;
}

}  // namespace attn
