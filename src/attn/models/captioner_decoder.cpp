// The captioner's decoder: one LSTM step of every live hypothesis at a time, attending to the grid
// through attn::attention's additive score, under the translation models' beam search.
#include <algorithm>
#include <cmath>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/probability.hpp"
#include "attn/models/captioner.hpp"
#include "attn/models/internal/decoding.hpp"

namespace attn {
namespace {

struct DecoderState {
  std::vector<float> hidden, cell;  // [n] each
};

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// What stays the same at every step of one image's decoding.
struct Grid {
  const CaptionerModel::Decoder& decoder;
  const CaptionerArchitecture& architecture;
  const std::vector<float>& annotations;  // [cells][D]
  std::vector<float> keys_t;              // (annotation.weight a_i + bias)^T [A][cells]
};

// alpha [rows][cells] from hidden [rows][n], and each row's soft context sum_i alpha_i a_i [rows][D]
void attend(const Grid& grid, int rows, const float* hidden, float* alpha, float* contexts) {
  const CaptionerArchitecture& a = grid.architecture;
  Shape shape;
  shape.query_length = rows;  // a beam's hypotheses are query rows of one head: the grid is shared
  shape.key_length = a.cells();
  shape.dim = a.hidden_size;
  shape.key_dim = shape.value_dim = a.annotation_dim;
  AttentionOptions options;
  options.score = Score::additive;
  options.additive.hidden = a.attention_dim;
  options.additive.transposed_query_weight = grid.decoder.hidden_t.data();
  options.additive.projected_keys = grid.keys_t.data();
  options.additive.v = grid.decoder.score.data();
  options.check_finite = false;  // the weights were checked at load; the states come out of tanh and sigmoids
  AttentionOutputs outputs;
  outputs.output = contexts;
  outputs.weights = alpha;
  attention(shape, hidden, grid.annotations.data(), grid.annotations.data(), options, outputs);
}

// One step of every state: log p(. | ...) [rows][V] and alpha [rows][cells]. With a sampler (hard
// attention, one row), the context is the sampled cell's annotation, its index pushed to `cells`.
void step(const Grid& grid, std::vector<DecoderState*>& states, const int* previous, float* log_probs, float* alpha,
          Rng* sampler, std::vector<int>* cells) {
  const CaptionerModel::Decoder& d = grid.decoder;
  const CaptionerArchitecture& a = grid.architecture;
  const int rows = static_cast<int>(states.size()), n = a.hidden_size, E = a.embedding_dim, D = a.annotation_dim;
  const int V = a.vocab_size;
  std::vector<float> hidden(static_cast<std::size_t>(rows) * n), cell(hidden.size());
  for (int r = 0; r < rows; ++r) {
    std::copy(states[r]->hidden.begin(), states[r]->hidden.end(), hidden.begin() + static_cast<std::size_t>(r) * n);
    std::copy(states[r]->cell.begin(), states[r]->cell.end(), cell.begin() + static_cast<std::size_t>(r) * n);
  }
  std::vector<float> contexts(static_cast<std::size_t>(rows) * D);
  attend(grid, rows, hidden.data(), alpha, contexts.data());
  std::vector<float> embedded(static_cast<std::size_t>(rows) * E), input(static_cast<std::size_t>(rows) * (E + D));
  embed(d.embedding, E, previous, rows, embedded.data());
  for (int r = 0; r < rows; ++r) {
    float* z = contexts.data() + static_cast<std::size_t>(r) * D;
    if (sampler) {  // hard: the sampled cell's annotation replaces the weighted mean
      const int chosen =
          sample_cell(alpha + static_cast<std::size_t>(r) * a.cells(), a.cells(), sampler->uniform_double());
      cells->push_back(chosen);
      std::copy_n(grid.annotations.data() + static_cast<std::size_t>(chosen) * D, D, z);
    }
    double gate = d.gate_bias;
    for (int k = 0; k < n; ++k) gate += double(d.gate[k]) * hidden[static_cast<std::size_t>(r) * n + k];
    const float beta = sigmoid(static_cast<float>(gate));
    for (int k = 0; k < D; ++k) z[k] *= beta;
    float* row = input.data() + static_cast<std::size_t>(r) * (E + D);
    std::copy_n(embedded.data() + static_cast<std::size_t>(r) * E, E, row);
    std::copy_n(z, D, row + E);
  }
  std::vector<float> projected(static_cast<std::size_t>(rows) * 4 * n);
  d.lstm.input_projection().forward(input.data(), rows, projected.data());
  d.lstm.step(rows, projected.data(), hidden.data(), cell.data());
  // logits = output(emb + output.hidden(h) + output.context(z))
  d.output_hidden.add_to(hidden.data(), rows, embedded.data());
  d.output_context.add_to(contexts.data(), rows, embedded.data());
  d.output.forward(embedded.data(), rows, log_probs);
  for (int r = 0; r < rows; ++r) {
    log_softmax(log_probs + static_cast<std::size_t>(r) * V, V);
    std::copy_n(hidden.data() + static_cast<std::size_t>(r) * n, n, states[r]->hidden.data());
    std::copy_n(cell.data() + static_cast<std::size_t>(r) * n, n, states[r]->cell.data());
  }
}

}  // namespace

Caption CaptionerModel::decode(const std::vector<float>& annotations, const CaptionOptions& options) const {
  const CaptionerArchitecture& a = architecture_;
  const int cells = a.cells(), D = a.annotation_dim, n = a.hidden_size;
  if (annotations.size() != static_cast<std::size_t>(cells) * D)
    fail("the annotations have ", annotations.size(), " values, the grid needs ", cells, " x ", D);
  if (options.beam < 1 || options.beam > 64) fail("beam must be in 1..64, got ", options.beam);
  if (options.hard && options.beam != 1)
    fail("hard attention samples one caption: beam must be 1 with it, got ", options.beam);
  const Decoder& d = options.hard ? hard_ : soft_;
  Grid grid{d, a, annotations, {}};
  std::vector<float> keys(static_cast<std::size_t>(cells) * a.attention_dim);
  d.annotation.forward(annotations.data(), cells, keys.data());
  grid.keys_t = transposed(keys.data(), cells, a.attention_dim);
  // h_0 = tanh(init_h(s)), c_0 = tanh(init_c(s)), s the mean annotation (in double), followed by
  // the maximum over the cells where the architecture starts from mean+max
  std::vector<float> summary(static_cast<std::size_t>(a.start_dim()));
  for (int k = 0; k < D; ++k) {
    double sum = 0.0;
    float top = annotations[static_cast<std::size_t>(k)];
    for (int i = 0; i < cells; ++i) {
      const float value = annotations[static_cast<std::size_t>(i) * D + k];
      sum += value;
      top = std::max(top, value);
    }
    summary[static_cast<std::size_t>(k)] = static_cast<float>(sum / cells);
    if (a.start_max) summary[static_cast<std::size_t>(D + k)] = top;
  }
  DecoderState start{std::vector<float>(n), std::vector<float>(n)};
  d.init_h.forward(summary.data(), 1, start.hidden.data());
  d.init_c.forward(summary.data(), 1, start.cell.data());
  tanh_in_place(start.hidden.data(), n);
  tanh_in_place(start.cell.data(), n);
  Rng sampler(options.seed);
  std::vector<int> sampled;
  const auto advance = [&](std::vector<DecoderState*>& states, const int* previous, float* log_probs, float* alpha) {
    step(grid, states, previous, log_probs, alpha, options.hard ? &sampler : nullptr, &sampled);
  };
  detail::Decoded decoded =
      detail::beam_search(std::move(start), advance, a.vocab_size, static_cast<std::size_t>(cells), 0, options.beam,
                          a.max_words, bos_id_, eos_id_);
  Caption caption;
  const std::size_t words = decoded.ids.size();
  for (int id : decoded.ids) caption.words.push_back(vocabulary_[static_cast<std::size_t>(id)]);
  caption.alpha.assign(decoded.maps.begin(), decoded.maps.begin() + static_cast<std::ptrdiff_t>(words * cells));
  caption.log_probs.assign(decoded.log_probs.begin(), decoded.log_probs.begin() + static_cast<std::ptrdiff_t>(words));
  caption.finished = decoded.finished;
  caption.attention.assign(caption.alpha.size(), 0.0f);
  for (std::size_t t = 0; t < words; ++t) {
    const float* row = caption.alpha.data() + t * cells;
    const int cell = options.hard ? sampled[t] : static_cast<int>(std::max_element(row, row + cells) - row);
    caption.cells.push_back(cell);
    if (options.hard)
      caption.attention[t * cells + static_cast<std::size_t>(cell)] = 1.0f;
    else
      std::copy_n(row, cells, caption.attention.data() + t * cells);
  }
  return caption;
}

}  // namespace attn
