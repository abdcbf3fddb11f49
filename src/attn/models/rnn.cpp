#include "attn/models/rnn.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "attn/core/error.hpp"
#include "attn/core/probability.hpp"
#include "attn/models/internal/decoding.hpp"
#include "attn/models/internal/loader.hpp"

namespace attn {

std::string RnnModel::metadata_value(const std::string& key) const { return detail::metadata_value(metadata_, key); }

RnnArchitecture RnnModel::read_architecture(const SafeTensors& file) {
  const nlohmann::json architecture = detail::architecture_json(file);
  RnnArchitecture a;
  a.embedding_dim = detail::architecture_field(architecture, "embedding_dim", 1, 4096);
  a.encoder_hidden = detail::architecture_field(architecture, "encoder_hidden", 1, 4096);
  a.decoder_hidden = detail::architecture_field(architecture, "decoder_hidden", 1, 4096);
  a.attention_dim = detail::architecture_field(architecture, "attention_dim", 1, 4096);
  a.vocab_size = detail::architecture_field(architecture, "vocab_size", 1, 1 << 20);
  return a;
}

RnnModel RnnModel::load(std::string bytes) { return load(SafeTensors::parse(std::move(bytes))); }

RnnModel RnnModel::load(const SafeTensors& file) {
  RnnModel model;
  model.metadata_ = file.metadata();
  detail::check_format(model.metadata_, "attnscope-rnn-v1");
  const RnnArchitecture& a = model.architecture_ = read_architecture(file);
  const std::string attention = file.meta("attention");
  if (attention != "additive" && attention != "general") {
    fail("unknown attention '", attention, "' (expected additive or general)");
  }
  model.attention_ = parse_score(attention);
  model.tokenizer_ = detail::read_tokenizer(file, a.vocab_size);

  const int E = a.embedding_dim, H = a.encoder_hidden, D = a.decoder_hidden, A = a.attention_dim, V = a.vocab_size;
  const bool additive = model.attention_ == Score::additive;
  detail::TensorReader loader(file);
  model.embedding_ = loader.take("embedding", {V, E});
  model.encoder_forward_ = loader.gru("encoder.forward.", E, H);
  model.encoder_backward_ = loader.gru("encoder.backward.", E, H);
  model.decoder_ = loader.gru("decoder.", E + 2 * H, D);
  model.init_ = loader.linear("init", H, D);
  model.key_ = Linear(loader.take("attention.key", {additive ? A : D, 2 * H}), {}, 2 * H, additive ? A : D);
  if (additive) {
    model.query_weight_t_ = transposed(loader.take("attention.query", {A, D}).data(), A, D);
    model.score_ = loader.take("attention.score", {A});
  }
  model.output_ = loader.linear("output", D + 2 * H + E, E);
  model.vocabulary_ = Linear(model.embedding_, loader.take("output.vocab_bias", {V}), E, V);
  loader.refuse_unexpected(std::string("a ") + attention + " attnscope-rnn-v1 model");
  return model;
}

RnnModel::Encoding RnnModel::encode(const std::vector<int>& source_ids) const {
  const RnnArchitecture& a = architecture_;
  if (source_ids.empty()) fail("the source sentence is empty");
  std::vector<int> ids = source_ids;
  ids.push_back(Bpe::end_id);
  const int S = static_cast<int>(ids.size()), E = a.embedding_dim, H = a.encoder_hidden, D = a.decoder_hidden;
  element_count("source pieces", {S, 2 * H});
  std::vector<float> embedded(static_cast<std::size_t>(S) * E);
  embed(embedding_, E, ids.data(), S, embedded.data());
  Encoding encoding;
  encoding.length = S;
  encoding.keys.assign(static_cast<std::size_t>(S) * 2 * H, 0.0f);
  std::vector<float> inputs(static_cast<std::size_t>(S) * 3 * H), state(H);
  for (int direction = 0; direction < 2; ++direction) {
    const GruCell& gru = direction == 0 ? encoder_forward_ : encoder_backward_;
    gru.input_projection().forward(embedded.data(), S, inputs.data());
    std::fill(state.begin(), state.end(), 0.0f);
    for (int step = 0; step < S; ++step) {
      const int j = direction == 0 ? step : S - 1 - step;
      gru.step(1, inputs.data() + static_cast<std::size_t>(j) * 3 * H, state.data());
      std::copy(state.begin(), state.end(),
                encoding.keys.begin() + static_cast<std::size_t>(j) * 2 * H + direction * H);
    }
  }
  encoding.start.resize(D);
  init_.forward(encoding.keys.data() + H, 1, encoding.start.data());
  tanh_in_place(encoding.start.data(), D);
  // every key through W_k once, stored [A or D][S] as the attention's projected_keys are
  std::vector<float> projected(static_cast<std::size_t>(S) * key_.out());
  key_.forward(encoding.keys.data(), S, projected.data());
  encoding.projected_t = transposed(projected.data(), S, key_.out());
  return encoding;
}

void RnnModel::attend(const Encoding& encoding, int rows, const float* states, float* weights, float* contexts) const {
  const RnnArchitecture& a = architecture_;
  Shape shape;
  shape.query_length = rows;  // the hypotheses of a beam are query rows of one head: the keys are shared
  shape.key_length = encoding.length;
  shape.dim = a.decoder_hidden;
  shape.key_dim = shape.value_dim = 2 * a.encoder_hidden;
  AttentionOptions options;
  options.score = attention_;
  // The key side of the score was computed once per sentence in encode(), and every input was
  // checked already (the weights at load; the states come out of tanh and sigmoids).
  options.check_finite = false;
  if (attention_ == Score::additive) {
    options.additive.hidden = a.attention_dim;
    options.additive.transposed_query_weight = query_weight_t_.data();
    options.additive.projected_keys = encoding.projected_t.data();
    options.additive.v = score_.data();
  } else {
    options.general.projected_keys = encoding.projected_t.data();
  }
  AttentionOutputs outputs;
  outputs.output = contexts;
  outputs.weights = weights;
  attn::attention(shape, states, encoding.keys.data(), encoding.keys.data(), options, outputs);
}

void RnnModel::decoder_step(const Encoding& encoding, int rows, const int* previous, float* states, float* attention,
                            float* logits, const float* embedded) const {
  const RnnArchitecture& a = architecture_;
  const int E = a.embedding_dim, H = a.encoder_hidden, D = a.decoder_hidden;
  // attention from the previous states s_{t-1}; the decoder input is [e(y_{t-1}) ; c_t]
  const int input_width = E + 2 * H;
  std::vector<float> contexts(static_cast<std::size_t>(rows) * 2 * H);
  attend(encoding, rows, states, attention, contexts.data());
  std::vector<float> input(static_cast<std::size_t>(rows) * input_width);
  for (int r = 0; r < rows; ++r) {
    float* x = input.data() + static_cast<std::size_t>(r) * input_width;
    embed(embedding_, E, previous + r, 1, x);
    std::copy_n(contexts.data() + static_cast<std::size_t>(r) * 2 * H, 2 * H, x + E);
  }
  std::vector<float> projected(static_cast<std::size_t>(rows) * 3 * D);
  if (embedded) {
    // [e ; c] W^T + b = (e W_e^T + b) + c W_c^T: the contexts' part of the product continues the sum
    std::copy_n(embedded, projected.size(), projected.begin());
    decoder_.input_projection().add_part(contexts.data(), rows, E, 2 * H, projected.data());
  } else {
    decoder_.input_projection().forward(input.data(), rows, projected.data());
  }
  decoder_.step(rows, projected.data(), states);
  if (!logits) return;
  // o_t = tanh(W_o [s_t ; c_t ; e(y_{t-1})] + b_o), logits = E o_t + b_V
  const int output_width = D + 2 * H + E;
  std::vector<float> output_input(static_cast<std::size_t>(rows) * output_width),
      out(static_cast<std::size_t>(rows) * E);
  for (int r = 0; r < rows; ++r) {
    float* o = output_input.data() + static_cast<std::size_t>(r) * output_width;
    const float* x = input.data() + static_cast<std::size_t>(r) * input_width;
    std::copy_n(states + static_cast<std::size_t>(r) * D, D, o);
    std::copy_n(x + E, 2 * H, o + D);
    std::copy_n(x, E, o + D + 2 * H);
  }
  output_.forward(output_input.data(), rows, out.data());
  tanh_in_place(out.data(), static_cast<int>(out.size()));
  vocabulary_.forward(out.data(), rows, logits);
}

std::vector<float> RnnModel::force(const Encoding& encoding, const std::vector<int>& target_ids, double* log_prob,
                                   std::vector<float>* log_probs) const {
  double sum = 0.0;
  if (log_probs && !log_prob) log_prob = &sum;
  if (target_ids.empty()) fail("the target sentence is empty");
  std::vector<int> ids = target_ids;
  ids.push_back(Bpe::end_id);
  for (int id : ids) {
    if (id < 0 || id >= architecture_.vocab_size) fail("piece id ", id, " is outside the vocabulary");
  }
  const int S = encoding.length, steps = static_cast<int>(ids.size());
  std::vector<float> weights(element_count("attention matrix", {steps, S}));
  std::vector<float> state = encoding.start;
  std::vector<float> logits(log_prob ? architecture_.vocab_size : 0);
  if (log_prob) *log_prob = 0.0;
  if (log_probs) log_probs->clear();
  // Every step's previous piece is known: the embedding part of the decoder's input projection is
  // one matrix product over all steps, not a matrix-vector product per step.
  const int E = architecture_.embedding_dim, D = architecture_.decoder_hidden;
  std::vector<int> previous_ids{Bpe::start_id};
  previous_ids.insert(previous_ids.end(), ids.begin(), ids.end() - 1);
  std::vector<float> embedded(static_cast<std::size_t>(steps) * E), projected(static_cast<std::size_t>(steps) * 3 * D);
  embed(embedding_, E, previous_ids.data(), steps, embedded.data());
  decoder_.input_projection().forward_part(embedded.data(), steps, 0, E, projected.data());
  for (int t = 0; t < steps; ++t) {
    decoder_step(encoding, 1, &previous_ids[t], state.data(), weights.data() + static_cast<std::size_t>(t) * S,
                 log_prob ? logits.data() : nullptr, projected.data() + static_cast<std::size_t>(t) * 3 * D);
    if (log_prob) {
      log_softmax(logits.data(), architecture_.vocab_size);
      *log_prob += logits[ids[t]];
      if (log_probs) log_probs->push_back(logits[ids[t]]);
    }
  }
  return weights;
}

RnnModel::Translation RnnModel::translate(const Encoding& encoding, int beam, int max_length) const {
  const int S = encoding.length, D = architecture_.decoder_hidden, V = architecture_.vocab_size;
  // a hypothesis carries its decoder state s_t [D]; a step runs the beam's states as one batch
  auto advance = [&](std::vector<std::vector<float>*>& states, const int* previous, float* log_probs, float* maps) {
    const int rows = static_cast<int>(states.size());
    std::vector<float> batch(static_cast<std::size_t>(rows) * D);
    for (int r = 0; r < rows; ++r) std::copy_n(states[r]->data(), D, batch.data() + static_cast<std::size_t>(r) * D);
    decoder_step(encoding, rows, previous, batch.data(), maps, log_probs);
    for (int r = 0; r < rows; ++r) {
      log_softmax(log_probs + static_cast<std::size_t>(r) * V, V);
      std::copy_n(batch.data() + static_cast<std::size_t>(r) * D, D, states[r]->data());
    }
  };
  return detail::translation_of(
      detail::beam_search(encoding.start, advance, V, static_cast<std::size_t>(S), S, beam, max_length, Bpe::start_id),
      &Translation::attention);
}

}  // namespace attn
