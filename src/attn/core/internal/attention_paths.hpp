// attention()'s two paths, each computing a block of one head's query rows, for attention.cpp's
// scheduler: the fused online-softmax path (attention_fused.cpp) and the blocked path, every other
// case (attention_blocked.cpp). Internal: not part of the public API.
#pragma once

#include <memory>

#include "attn/core/attention.hpp"

namespace attn {

class Rng;

namespace detail {

// Both paths split a head's query rows into blocks of this many, the parts of the work.
constexpr int attention_block_rows = 64;

// One thread's scratch and state for one call: block() computes query rows [first_row, first_row +
// rows) of head h, whose queries, keys and values start at q, k, v (k null when the score does
// not read keys), into the call's outputs. A head's side of the scores is prepared when h changes.
class AttentionPath {
 public:
  virtual ~AttentionPath() = default;
  virtual void block(int h, const float* q, const float* k, const float* v, int first_row, int rows) = 0;
};

// The fused path applies: softmax over dot, scaled-dot or general scores, nothing asked for but
// the output, and masks that remove keys exactly (or no masks at all).
bool fusable(const AttentionOptions& options, const AttentionOutputs& outputs);
std::unique_ptr<AttentionPath> fused_path(const Shape& shape, const AttentionOptions& options,
                                          const AttentionOutputs& outputs);
std::unique_ptr<AttentionPath> blocked_path(const Shape& shape, const AttentionOptions& options,
                                            const AttentionOutputs& outputs);

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
                           float* keys_t, int ldk, float* projected);

// scores [rows][keys] = the product's rows [first_row, first_row + rows) against keys
// [first_key, first_key + keys).
void multiply_scores(const ScoreProduct& product, int first_row, int rows, int first_key, int keys, float* scores,
                     int ldc);

// Inverted dropout drawing from a running generator, so attention() can go row by row.
void apply_dropout(float* weights, std::size_t count, float p, Rng& rng);

}  // namespace detail

}  // namespace attn
