#include "attn/core/attention.hpp"

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>

#include "attn/core/error.hpp"
#include "attn/core/internal/attention_checks.hpp"
#include "attn/core/internal/attention_hooks.hpp"
#include "attn/core/internal/attention_paths.hpp"
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

namespace detail {
void apply_dropout(float* weights, std::size_t count, float p, Rng& rng) {
  const float keep_scale = 1.0f / (1.0f - p);
  for (std::size_t i = 0; i < count; ++i) weights[i] = rng.uniform() < p ? 0.0f : weights[i] * keep_scale;
}
}  // namespace detail

void dropout(float* weights, std::size_t count, float p, std::uint64_t seed) {
  if (!(p >= 0.0f && p < 1.0f)) fail(Field{"dropout"}, " must be in [0, 1), got ", p);
  if (p == 0.0f) return;
  Rng rng(seed);
  detail::apply_dropout(weights, count, p, rng);
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

// How a call's work is cut and shared. The work goes in parts of one head's block of query rows,
// the same parts whatever the thread count, so every row is computed alike on one thread or many.
// Dropout and sampled hard attention draw from one generator in order, so they stay on one thread.
struct Plan {
  int blocks = 0;   // blocks of query rows per head
  int parts = 0;    // heads x blocks
  int workers = 1;  // threads, the calling one included
  int grain = 1;    // parts a thread takes at a time
};

Plan plan_of(const Shape& shape, const AttentionOptions& options) {
  const int block_rows = detail::attention_block_rows;
  Plan plan;
  plan.blocks = (shape.query_length + block_rows - 1) / block_rows;
  plan.parts = shape.heads * plan.blocks;
  const bool ordered = options.dropout > 0.0f || options.hard == Hard::sample;
  const double work = double(std::min(block_rows, shape.query_length)) * shape.key_length *
                      (shape.resolved_key_dim() + shape.resolved_value_dim());
  plan.workers = ordered ? 1 : workers_for(plan.parts, work);
  // whole heads to each thread while there are enough of them to go round: a head's blocks share
  // its transposed keys
  plan.grain = shape.heads >= 2 * plan.workers ? plan.blocks : 1;
  return plan;
}

// attention(), with hooks where a caller gave them. The scan for NaN and infinity runs in
// the parts, so the threads share it like the rest: a thread scans a head's queries, keys and
// values when it takes up that head, before it reads them (a head split between threads is scanned
// by each). A part that finds a bad value computes nothing, nor does any part after it; the full
// scan then runs on the calling thread to name the first bad value.
void attend(const Shape& shape, const float* query, const float* key, const float* value,
            const AttentionOptions& options, const AttentionOutputs& outputs, const detail::AttentionHooks* hooks) {
  detail::validate(shape, query, key, value, options, outputs);
  const Plan plan = plan_of(shape, options);
  if (hooks && hooks->start) hooks->start(plan.blocks);
  const bool enter = hooks && hooks->enter, leave = hooks && hooks->leave;
  const bool fused = detail::fusable(options, outputs);
  const bool scan = options.check_finite, scan_keys = detail::reads_keys(options);
  const int key_dim = shape.resolved_key_dim(), value_dim = shape.resolved_value_dim();
  std::atomic<bool> bad_input{false};
  std::vector<int> scanned_head(static_cast<std::size_t>(plan.workers), -1);  // by worker
  std::vector<std::unique_ptr<detail::AttentionPath>> paths(static_cast<std::size_t>(plan.workers));
  const auto part = [&](int item, int worker) {
    const int h = item / plan.blocks, first_row = (item % plan.blocks) * detail::attention_block_rows;
    if (bad_input.load(std::memory_order_relaxed)) return;
    const int rows = std::min(detail::attention_block_rows, shape.query_length - first_row);
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
    std::unique_ptr<detail::AttentionPath>& path = paths[worker];
    if (!path)
      path = fused ? detail::fused_path(shape, options, outputs) : detail::blocked_path(shape, options, outputs);
    path->block(h, q, k, v, first_row, rows);
  };
  // With hooks, a part enters its head first and leaves it when it ends (not when it throws: the
  // call then fails; no cleanup around the part, which WebAssembly's exceptions would make a call
  // through JavaScript for every part).
  const auto hooked_part = [&](int item, int worker) {
    const int h = item / plan.blocks;
    if (!bad_input.load(std::memory_order_relaxed)) {
      if (enter) hooks->enter(h);
      part(item, worker);
    }
    if (leave) hooks->leave(h);
  };
  // A part may have thrown (an overflowing score) before the part that scans a bad value ran, or
  // with it: a bad value is what to name, as when the scan came first.
  try {
    if (hooks)
      parallel_for(plan.parts, plan.workers, hooked_part, plan.grain, hooks->lead, hooks->trail);
    else
      parallel_for(plan.parts, plan.workers, part, plan.grain);
  } catch (const Error&) {
    if (!hooks || !hooks->inputs_readable || hooks->inputs_readable())
      detail::validate_inputs(shape, query, key, value, options, outputs);
    throw;
  }
  if (bad_input.load()) {
    detail::validate_inputs(shape, query, key, value, options, outputs);
    fail("attention: a non-finite input");  // not reached: the full scan finds what a part found
  }
}

}  // namespace

void attention(const Shape& shape, const float* query, const float* key, const float* value,
               const AttentionOptions& options, const AttentionOutputs& outputs) {
  attend(shape, query, key, value, options, outputs, nullptr);
}

namespace detail {

void hooked_attention(const Shape& shape, const float* query, const float* key, const float* value,
                      const AttentionOptions& options, const AttentionOutputs& outputs, const AttentionHooks& hooks) {
  attend(shape, query, key, value, options, outputs, &hooks);
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
