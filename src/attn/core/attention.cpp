#include "attn/core/attention.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/rng.hpp"

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

void validate(const Shape& shape, const float* query, const float* key, const float* value,
              const AttentionOptions& options, const AttentionOutputs& outputs) {
  validate_shape(shape);
  const int key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
  const std::size_t query_count = static_cast<std::size_t>(shape.heads) * shape.query_length * shape.dim;
  const std::size_t key_count = static_cast<std::size_t>(shape.heads) * shape.key_length * key_dim;
  const std::size_t value_count = static_cast<std::size_t>(shape.heads) * shape.key_length * value_dim;
  require(query, "query");
  require(key, "key");
  require(value, "value");
  require(outputs.output, "outputs.output");
  check_finite("query", query, query_count);
  check_finite("key", key, key_count);
  check_finite("value", value, value_count);

  switch (options.score) {
    case Score::dot:
    case Score::scaled_dot:
      if (key_dim != shape.dim) {
        fail(Field{"key_dim"}, " (", key_dim, ") must equal ", Field{"dim"}, " (", shape.dim, ") for the ", to_string(options.score),
             " score; general and additive scores allow different sizes");
      }
      break;
    case Score::general:
      require(options.general.weight, "general.weight");
      check_finite("general.weight", options.general.weight, element_count("general.weight", {shape.dim, key_dim}));
      element_count("projected queries", {shape.query_length, key_dim});
      if (!std::isfinite(options.general.scale)) fail(Field{"general.scale"}, " must be finite");
      break;
    case Score::additive: {
      const AdditiveScore& additive = options.additive;
      check_size("additive.hidden", additive.hidden);
      require(additive.query_weight, "additive.query_weight");
      require(additive.key_weight, "additive.key_weight");
      require(additive.v, "additive.v");
      check_finite("additive.query_weight", additive.query_weight, element_count("additive.query_weight", {additive.hidden, shape.dim}));
      check_finite("additive.key_weight", additive.key_weight, element_count("additive.key_weight", {additive.hidden, key_dim}));
      check_finite("additive.v", additive.v, additive.hidden);
      element_count("projected queries", {shape.query_length, additive.hidden});
      element_count("projected keys", {additive.hidden, shape.key_length});
      if (additive.bias) check_finite("additive.bias", additive.bias, additive.hidden);
      if (!std::isfinite(additive.gain)) fail(Field{"additive.gain"}, " must be finite");
      if (additive.normalize) {
        double norm = 0.0;
        for (int h = 0; h < additive.hidden; ++h) norm += double(additive.v[h]) * additive.v[h];
        if (norm == 0.0) fail(Field{"additive.v"}, " must not be all zeros when ", Field{"additive.normalize"}, " is on");
      }
      break;
    }
  }
  validate_masking(options.mask, shape.heads, shape.query_length, shape.key_length);
  if (!(options.temperature > 0.0f) || !std::isfinite(options.temperature)) {
    fail(Field{"temperature"}, " must be a positive finite number, got ", options.temperature);
  }
  const LocalWindow& local = options.local;
  if (local.mode != Local::none) {
    check_size("local.half_width", local.half_width, local.mode == Local::predictive ? 1 : 0);
  }
  if (local.mode == Local::predictive) {
    check_size("local.hidden", local.hidden);
    require(local.position_weight, "local.position_weight");
    require(local.position_v, "local.position_v");
    check_finite("local.position_weight", local.position_weight, element_count("local.position_weight", {local.hidden, shape.dim}));
    check_finite("local.position_v", local.position_v, local.hidden);
    element_count("local hidden states", {shape.query_length, local.hidden});
  }
  if (!(options.dropout >= 0.0f && options.dropout < 1.0f)) fail(Field{"dropout"}, " must be in [0, 1), got ", options.dropout);
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
    for (int h = 0; h < local.hidden; ++h) logit += double(local.position_v[h]) * hidden[static_cast<std::size_t>(t) * local.hidden + h];
    positions[t] = static_cast<float>(key_length / (1.0 + std::exp(-logit)));
  }
}

// The fused path applies: softmax over dot, scaled-dot or general scores, nothing asked for but
// the output, and masks that remove keys exactly (or no masks at all).
bool fusable(const AttentionOptions& options, const AttentionOutputs& outputs) {
  const Masking& mask = options.mask;
  const bool exact_masks = mask.mask_value == -std::numeric_limits<float>::infinity() || !mask.any();
  return options.score != Score::additive && options.probability == Probability::softmax && options.hard == Hard::none &&
         options.dropout == 0.0f && options.local.mode == Local::none && !outputs.weights && !outputs.scores &&
         exact_masks;
}

void overflow(float score) {
  fail("a score is ", std::isnan(score) ? "NaN" : "+infinity", ": the inputs overflow float32 when multiplied; scale them down");
}

// FlashAttention's schedule (Dao et al. 2022) with the online softmax of Milakov & Gimelshein
// (2018): a block of query rows meets the keys one tile at a time; each row keeps its running
// maximum m and sum l, rescales what it has accumulated when m grows, and divides by l at the
// end. Scratch is one [block][tile] score tile, the transposed keys and the query projection:
// O(L·d), never the L×S score matrix. Tiles that masks or causality leave empty are skipped.
void fused_attention(const Shape& shape, const float* query, const float* key, const float* value,
                     const AttentionOptions& options, float* output) {
  constexpr int block_rows = 64, tile_keys = 256;
  const int heads = shape.heads, query_length = shape.query_length, key_length = shape.key_length;
  const int dim = shape.dim, key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
  const float minus_infinity = -std::numeric_limits<float>::infinity();
  const int rows_max = std::min(block_rows, query_length), tile_max = std::min(tile_keys, key_length);
  const int ldk = padded_stride(key_length);  // keys_t's row stride: columns walk many cache sets
  std::vector<float> keys_t(static_cast<std::size_t>(key_dim) * ldk);
  std::vector<float> projected(options.score == Score::general ? static_cast<std::size_t>(query_length) * key_dim : 0);
  std::vector<float> tile(static_cast<std::size_t>(rows_max) * tile_max);
  std::vector<float> running_max(rows_max), running_sum(rows_max);
  std::vector<detail::KeyRange> ranges(rows_max);

  for (int h = 0; h < heads; ++h) {
    const float* q = query + static_cast<std::size_t>(h) * query_length * dim;
    const float* k = key + static_cast<std::size_t>(h) * key_length * key_dim;
    const float* v = value + static_cast<std::size_t>(h) * key_length * value_dim;
    float* out = output + static_cast<std::size_t>(h) * query_length * value_dim;
    transpose(k, key_length, key_dim, keys_t.data(), ldk);
    const float* query_rows = q;
    int query_stride = dim;
    float alpha = 1.0f;
    if (options.score == Score::scaled_dot) alpha = 1.0f / std::sqrt(static_cast<float>(dim));
    if (options.score == Score::general) {
      kernels::matmul(query_length, key_dim, dim, 1.0f, q, dim, options.general.weight, key_dim, projected.data(), key_dim, false);
      query_rows = projected.data();
      query_stride = key_dim;
      alpha = options.general.scale;
    }

    for (int first_row = 0; first_row < query_length; first_row += block_rows) {
      const int rows = std::min(block_rows, query_length - first_row);
      float* out_block = out + static_cast<std::size_t>(first_row) * value_dim;
      std::fill(out_block, out_block + static_cast<std::size_t>(rows) * value_dim, 0.0f);
      int block_first = key_length, block_last = 0;
      for (int r = 0; r < rows; ++r) {
        detail::KeyRange range = detail::key_range(options.mask, heads, h, first_row + r, query_length, key_length);
        range.first = std::max(range.first, 0);
        range.last = std::min(range.last, key_length);
        ranges[r] = range;
        if (range.first < range.last) {
          block_first = std::min(block_first, range.first);
          block_last = std::max(block_last, range.last);
        }
        running_max[r] = minus_infinity;
        running_sum[r] = 0.0f;
      }
      for (int first_key = block_first; first_key < block_last; first_key += tile_keys) {
        const int keys = std::min(tile_keys, block_last - first_key);
        kernels::matmul(rows, keys, key_dim, alpha, query_rows + static_cast<std::size_t>(first_row) * query_stride,
                        query_stride, keys_t.data() + first_key, ldk, tile.data(), keys, false);
        for (int r = 0; r < rows; ++r) {
          float* row = tile.data() + static_cast<std::size_t>(r) * keys;
          const int begin = std::max(ranges[r].first - first_key, 0), end = std::min(ranges[r].last - first_key, keys);
          if (begin >= end) {
            std::fill(row, row + keys, 0.0f);
            continue;
          }
          // divided after the product, as normalize_row does: folding 1/T into alpha rounds worse
          if (options.temperature != 1.0f) kernels::scale(row + begin, end - begin, 1.0f / options.temperature);
          if (options.mask.keep) {
            const std::size_t matrix = options.mask.keep_batch == 1 ? 0 : h;
            const std::uint8_t* keep = options.mask.keep +
                (matrix * query_length + first_row + r) * static_cast<std::size_t>(key_length) + first_key;
            for (int j = begin; j < end; ++j) {
              if (!keep[j]) row[j] = minus_infinity;
            }
          }
          const float tile_maximum = kernels::max(row + begin, end - begin);
          if (!(tile_maximum < std::numeric_limits<float>::infinity())) overflow(tile_maximum);  // +inf or NaN
          if (tile_maximum == minus_infinity) {  // every key of this tile is masked for this row
            std::fill(row, row + keys, 0.0f);
            continue;
          }
          const float previous = running_max[r], maximum = std::max(previous, tile_maximum);
          const float sum = kernels::exp_shifted_sum(row + begin, end - begin, maximum);
          std::fill(row, row + begin, 0.0f);
          std::fill(row + end, row + keys, 0.0f);
          if (previous != minus_infinity && previous != maximum) {
            const float correction = static_cast<float>(std::exp(double(previous) - double(maximum)));
            kernels::scale(out_block + static_cast<std::size_t>(r) * value_dim, value_dim, correction);
            running_sum[r] *= correction;
          }
          running_sum[r] += sum;
          running_max[r] = maximum;
        }
        kernels::matmul(rows, value_dim, keys, 1.0f, tile.data(), keys, v + static_cast<std::size_t>(first_key) * value_dim,
                        value_dim, out_block, value_dim, true);
      }
      for (int r = 0; r < rows; ++r) {
        const float sum = running_sum[r];
        if (std::isnan(sum) || std::isinf(sum)) overflow(sum);
        // sum == 0: every key masked, and the row stays zero, as normalize_row leaves it
        if (sum > 0.0f) kernels::scale(out_block + static_cast<std::size_t>(r) * value_dim, value_dim, 1.0f / sum);
      }
    }
  }
}

}  // namespace

void attention(const Shape& shape, const float* query, const float* key, const float* value,
               const AttentionOptions& options, const AttentionOutputs& outputs) {
  validate(shape, query, key, value, options, outputs);
  if (fusable(options, outputs)) {
    fused_attention(shape, query, key, value, options, outputs.output);
    return;
  }
  const int heads = shape.heads, query_length = shape.query_length, key_length = shape.key_length;
  const int dim = shape.dim, key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
  const AdditiveScore& additive = options.additive;
  const LocalWindow& local = options.local;

  // Parameters shared by all heads, prepared once.
  std::vector<float> query_weight_t, additive_v, position_weight_t;
  if (options.score == Score::additive) {
    query_weight_t = transposed(additive.query_weight, additive.hidden, dim);
    additive_v.assign(additive.v, additive.v + additive.hidden);
    if (additive.normalize) {
      double norm = 0.0;
      for (float x : additive_v) norm += double(x) * x;
      const float factor = static_cast<float>(additive.gain / std::sqrt(norm));
      for (float& x : additive_v) x *= factor;
    }
  }
  if (local.mode == Local::predictive) position_weight_t = transposed(local.position_weight, local.hidden, dim);

  // Scores are made a block of query rows at a time, so without requested weights the
  // scratch stays [block][key_length] rather than the whole score matrix.
  constexpr int block_rows = 64;
  const int projected_width = options.score == Score::additive ? additive.hidden : key_dim;
  const int ldk = padded_stride(key_length);
  std::vector<float> keys_t(static_cast<std::size_t>(key_dim) * ldk);
  std::vector<float> projected;
  std::vector<float> keys_projected_t;
  std::vector<float> block(outputs.weights ? 0 : static_cast<std::size_t>(std::min(block_rows, query_length)) * key_length);
  std::vector<float> centres(local.mode != Local::none ? query_length : 0);
  if (options.score == Score::general || options.score == Score::additive) {
    projected.resize(static_cast<std::size_t>(query_length) * projected_width);
  }
  if (options.score == Score::additive) keys_projected_t.resize(static_cast<std::size_t>(additive.hidden) * key_length);

  Rng rng(options.seed);

  for (int h = 0; h < heads; ++h) {
    const float* q = query + static_cast<std::size_t>(h) * query_length * dim;
    const float* k = key + static_cast<std::size_t>(h) * key_length * key_dim;
    const float* v = value + static_cast<std::size_t>(h) * key_length * value_dim;
    transpose(k, key_length, key_dim, keys_t.data(), ldk);

    // Rows that multiply keys_t: the query itself, or the query through W (general).
    const float* query_rows = q;
    int query_stride = dim;
    float alpha = 1.0f;
    switch (options.score) {
      case Score::dot: break;
      case Score::scaled_dot: alpha = 1.0f / std::sqrt(static_cast<float>(dim)); break;
      case Score::general:
        kernels::matmul(query_length, key_dim, dim, 1.0f, q, dim, options.general.weight, key_dim,
                        projected.data(), key_dim, false);
        query_rows = projected.data();
        query_stride = key_dim;
        alpha = options.general.scale;
        break;
      case Score::additive:
        linear(q, query_length, dim, query_weight_t.data(), additive.bias, additive.hidden, projected.data());
        kernels::matmul(additive.hidden, key_length, key_dim, 1.0f, additive.key_weight, key_dim,
                        keys_t.data(), ldk, keys_projected_t.data(), key_length, false);
        break;
    }

    if (local.mode == Local::monotonic) {
      for (int t = 0; t < query_length; ++t) centres[t] = static_cast<float>(t);
    } else if (local.mode == Local::predictive) {
      predictive_positions(q, query_length, dim, local, position_weight_t, key_length, centres.data());
    }
    if (outputs.positions && local.mode != Local::none) {
      std::copy(centres.begin(), centres.end(), outputs.positions + static_cast<std::size_t>(h) * query_length);
    }

    for (int first_row = 0; first_row < query_length; first_row += block_rows) {
      const int rows = std::min(block_rows, query_length - first_row);
      const std::size_t offset = (static_cast<std::size_t>(h) * query_length + first_row) * key_length;
      float* p = outputs.weights ? outputs.weights + offset : block.data();

      if (options.score == Score::additive) {
        for (int r = 0; r < rows; ++r) {
          kernels::additive_scores(projected.data() + static_cast<std::size_t>(first_row + r) * additive.hidden,
                                   keys_projected_t.data(), key_length, additive_v.data(), additive.hidden,
                                   key_length, p + static_cast<std::size_t>(r) * key_length);
        }
      } else {
        kernels::matmul(rows, key_length, key_dim, alpha, query_rows + static_cast<std::size_t>(first_row) * query_stride,
                        query_stride, keys_t.data(), ldk, p, key_length, false);
      }
      if (outputs.scores) std::copy(p, p + static_cast<std::size_t>(rows) * key_length, outputs.scores + offset);

      for (int r = 0; r < rows; ++r) {
        const int t = first_row + r;
        float* row = p + static_cast<std::size_t>(r) * key_length;
        detail::KeyRange range = detail::key_range(options.mask, heads, h, t, query_length, key_length);
        if (local.mode != Local::none) {
          const float centre = centres[t];
          range.first = std::max(range.first, static_cast<int>(std::ceil(centre - local.half_width)));
          range.last = std::min(range.last, static_cast<int>(std::floor(centre + local.half_width)) + 1);
        }
        const std::uint8_t* keep_row = nullptr;
        if (options.mask.keep) {
          const std::size_t matrix = options.mask.keep_batch == 1 ? 0 : h;
          keep_row = options.mask.keep + (matrix * query_length + t) * static_cast<std::size_t>(key_length);
        }
        const int kept = detail::normalize_row(row, key_length, range, keep_row, options.mask.mask_value,
                                               options.probability, options.temperature);
        if (kept > 0 && local.mode == Local::predictive) {
          const float sigma = local.half_width / 2.0f;
          for (int s = 0; s < key_length; ++s) {
            if (row[s] == 0.0f) continue;
            const float distance = s - centres[t];
            row[s] *= std::exp(-distance * distance / (2.0f * sigma * sigma));
          }
        }
        if (options.hard != Hard::none) {
          const int choice = kept > 0 ? hard_select(row, key_length, options.hard, rng) : -1;
          std::fill(row, row + key_length, 0.0f);
          if (choice >= 0) row[choice] = 1.0f;
          if (outputs.indices) outputs.indices[static_cast<std::size_t>(h) * query_length + t] = choice;
        } else if (options.dropout > 0.0f) {
          apply_dropout(row, key_length, options.dropout, rng);
        }
      }
      kernels::matmul(rows, value_dim, key_length, 1.0f, p, key_length, v, value_dim,
                      outputs.output + (static_cast<std::size_t>(h) * query_length + first_row) * value_dim,
                      value_dim, false);
    }
  }
}

AttentionResult attention(const Shape& shape, const std::vector<float>& query,
                          const std::vector<float>& key, const std::vector<float>& value,
                          const AttentionOptions& options) {
  validate_shape(shape);
  const auto expect = [](const char* name, const std::vector<float>& data, std::size_t count) {
    if (data.size() != count) fail(name, " has ", data.size(), " elements, expected ", count);
  };
  expect("query", query, element_count("query", {shape.heads, shape.query_length, shape.dim}));
  expect("key", key, element_count("key", {shape.heads, shape.key_length, shape.resolved_key_dim()}));
  expect("value", value, element_count("value", {shape.heads, shape.key_length, shape.resolved_value_dim()}));
  AttentionResult result;
  const std::size_t rows = static_cast<std::size_t>(shape.heads) * shape.query_length;
  result.output.resize(rows * shape.resolved_value_dim());
  result.weights.resize(rows * shape.key_length);
  result.scores.resize(rows * shape.key_length);
  if (options.hard != Hard::none) result.indices.assign(rows, -1);
  if (options.local.mode != Local::none) result.positions.resize(rows);
  AttentionOutputs outputs;
  outputs.output = result.output.data();
  outputs.weights = result.weights.data();
  outputs.scores = result.scores.data();
  outputs.indices = result.indices.empty() ? nullptr : result.indices.data();
  outputs.positions = result.positions.empty() ? nullptr : result.positions.data();
  attention(shape, query.data(), key.data(), value.data(), options, outputs);
  return result;
}

}  // namespace attn
