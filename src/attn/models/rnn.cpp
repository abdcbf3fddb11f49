#include "attn/models/rnn.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/models/internal/decoding.hpp"
#include "attn/models/internal/words.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

}  // namespace

std::string RnnModel::metadata_value(const std::string& key) const {
  const auto found = metadata_.find(key);
  return found == metadata_.end() ? std::string() : found->second;
}

RnnArchitecture RnnModel::read_architecture(const SafeTensors& file) {
  nlohmann::json architecture;
  try {
    architecture = nlohmann::json::parse(file.meta("architecture"));
  } catch (const nlohmann::json::exception& e) {
    fail("the model architecture is not valid JSON (", e.what(), ")");
  }
  if (!architecture.is_object()) fail("the model architecture must be a JSON object");
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
  const std::string format = model.metadata_value("format");
  if (format != "attnscope-rnn-v1") fail("not an attnscope-rnn-v1 model (format '", format, "')");
  const RnnArchitecture& a = model.architecture_ = read_architecture(file);
  const std::string attention = file.meta("attention");
  if (attention != "additive" && attention != "general") {
    fail("unknown attention '", attention, "' (expected additive or general)");
  }
  model.attention_ = parse_score(attention);
  model.tokenizer_ = Bpe::from_json(file.meta("tokenizer"));
  if (model.tokenizer_.size() != a.vocab_size) {
    fail("the tokenizer has ", model.tokenizer_.size(), " pieces, the architecture says ", a.vocab_size);
  }

  const long long E = a.embedding_dim, H = a.encoder_hidden, D = a.decoder_hidden, A = a.attention_dim,
                  V = a.vocab_size;
  const bool additive = model.attention_ == Score::additive;
  std::vector<std::string> expected;
  auto take = [&](const std::string& name, std::vector<std::int64_t> shape) {
    expected.push_back(name);
    return file.floats(name, shape);
  };
  auto transpose_of = [](const std::vector<float>& w, long long rows, long long cols) {
    return transposed(w.data(), static_cast<int>(rows), static_cast<int>(cols));
  };
  auto load_gru = [&](const std::string& prefix, long long input, long long hidden) {
    Gru gru;
    gru.hidden = static_cast<int>(hidden);
    gru.input = static_cast<int>(input);
    gru.input_weight_t = transpose_of(take(prefix + "weight_ih", {3 * hidden, input}), 3 * hidden, input);
    gru.recurrent_weight_t = transpose_of(take(prefix + "weight_hh", {3 * hidden, hidden}), 3 * hidden, hidden);
    gru.input_bias = take(prefix + "bias_ih", {3 * hidden});
    gru.recurrent_bias = take(prefix + "bias_hh", {3 * hidden});
    return gru;
  };
  model.embedding_ = take("embedding", {V, E});
  model.embedding_t_ = transpose_of(model.embedding_, V, E);
  model.encoder_forward_ = load_gru("encoder.forward.", E, H);
  model.encoder_backward_ = load_gru("encoder.backward.", E, H);
  model.decoder_ = load_gru("decoder.", E + 2 * H, D);
  model.init_weight_t_ = transpose_of(take("init.weight", {D, H}), D, H);
  model.init_bias_ = take("init.bias", {D});
  model.key_weight_ = take("attention.key", {additive ? A : D, 2 * H});
  if (additive) {
    model.query_weight_t_ = transpose_of(take("attention.query", {A, D}), A, D);
    model.score_ = take("attention.score", {A});
  }
  model.output_weight_t_ = transpose_of(take("output.weight", {E, D + 2 * H + E}), E, D + 2 * H + E);
  model.output_bias_ = take("output.bias", {E});
  model.vocab_bias_ = take("output.vocab_bias", {V});
  for (const auto& [name, info] : file.tensors()) {
    if (std::find(expected.begin(), expected.end(), name) == expected.end()) {
      fail("unexpected tensor '", name, "' for a ", attention, " attnscope-rnn-v1 model");
    }
  }
  return model;
}

void RnnModel::gru_step(const Gru& gru, int rows, const float* input_projected, float* state) {
  const int K = gru.hidden;
  std::vector<float> recurrent(static_cast<std::size_t>(rows) * 3 * K);
  linear(state, rows, K, gru.recurrent_weight_t.data(), gru.recurrent_bias.data(), 3 * K, recurrent.data());
  for (int r = 0; r < rows; ++r) {
    const float* x = input_projected + static_cast<std::size_t>(r) * 3 * K;
    const float* h = recurrent.data() + static_cast<std::size_t>(r) * 3 * K;
    float* s = state + static_cast<std::size_t>(r) * K;
    for (int k = 0; k < K; ++k) {
      const float reset = sigmoid(x[k] + h[k]);
      const float update = sigmoid(x[K + k] + h[K + k]);
      const float candidate = std::tanh(x[2 * K + k] + reset * h[2 * K + k]);
      s[k] = (1.0f - update) * candidate + update * s[k];
    }
  }
}

RnnModel::Encoding RnnModel::encode(const std::vector<int>& source_ids) const {
  const RnnArchitecture& a = architecture_;
  if (source_ids.empty()) fail("the source sentence is empty");
  std::vector<int> ids = source_ids;
  ids.push_back(Bpe::end_id);
  const int S = static_cast<int>(ids.size()), E = a.embedding_dim, H = a.encoder_hidden, D = a.decoder_hidden;
  element_count("source pieces", {S, 2 * H});
  std::vector<float> embedded(static_cast<std::size_t>(S) * E);
  for (int j = 0; j < S; ++j) {
    if (ids[j] < 0 || ids[j] >= a.vocab_size) fail("piece id ", ids[j], " is outside the vocabulary");
    std::copy_n(embedding_.data() + static_cast<std::size_t>(ids[j]) * E, E,
                embedded.data() + static_cast<std::size_t>(j) * E);
  }
  Encoding encoding;
  encoding.length = S;
  encoding.keys.assign(static_cast<std::size_t>(S) * 2 * H, 0.0f);
  std::vector<float> inputs(static_cast<std::size_t>(S) * 3 * H), state(H);
  for (int direction = 0; direction < 2; ++direction) {
    const Gru& gru = direction == 0 ? encoder_forward_ : encoder_backward_;
    linear(embedded.data(), S, E, gru.input_weight_t.data(), gru.input_bias.data(), 3 * H, inputs.data());
    std::fill(state.begin(), state.end(), 0.0f);
    for (int step = 0; step < S; ++step) {
      const int j = direction == 0 ? step : S - 1 - step;
      gru_step(gru, 1, inputs.data() + static_cast<std::size_t>(j) * 3 * H, state.data());
      std::copy(state.begin(), state.end(),
                encoding.keys.begin() + static_cast<std::size_t>(j) * 2 * H + direction * H);
    }
  }
  encoding.start.resize(D);
  linear(encoding.keys.data() + H, 1, H, init_weight_t_.data(), init_bias_.data(), D, encoding.start.data());
  kernels::tanh(encoding.start.data(), D);
  const int projected = static_cast<int>(key_weight_.size() / (2 * H));  // A or D
  const std::vector<float> keys_t = transposed(encoding.keys.data(), S, 2 * H);
  encoding.projected_t.resize(static_cast<std::size_t>(projected) * S);
  kernels::matmul(projected, S, 2 * H, 1.0f, key_weight_.data(), 2 * H, keys_t.data(), S, encoding.projected_t.data(),
                  S, false);
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
    std::copy_n(embedding_.data() + static_cast<std::size_t>(previous[r]) * E, E, x);
    std::copy_n(contexts.data() + static_cast<std::size_t>(r) * 2 * H, 2 * H, x + E);
  }
  std::vector<float> projected(static_cast<std::size_t>(rows) * 3 * D);
  if (embedded) {
    // [e ; c] W^T + b = (e W_e^T + b) + c W_c^T: the contexts' rows of W^T continue the sum
    std::copy_n(embedded, projected.size(), projected.begin());
    parallel_matmul(rows, 3 * D, 2 * H, 1.0f, contexts.data(), 2 * H,
                    decoder_.input_weight_t.data() + static_cast<std::size_t>(E) * 3 * D, 3 * D, projected.data(),
                    3 * D, true);
  } else {
    linear(input.data(), rows, input_width, decoder_.input_weight_t.data(), decoder_.input_bias.data(), 3 * D,
           projected.data());
  }
  gru_step(decoder_, rows, projected.data(), states);
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
  linear(output_input.data(), rows, output_width, output_weight_t_.data(), output_bias_.data(), E, out.data());
  kernels::tanh(out.data(), static_cast<int>(out.size()));
  linear(out.data(), rows, E, embedding_t_.data(), vocab_bias_.data(), a.vocab_size, logits);
}

std::vector<float> RnnModel::force(const Encoding& encoding, const std::vector<int>& target_ids,
                                   double* log_prob) const {
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
  // Every step's previous piece is known: the embedding part of the decoder's input projection is
  // one matrix product over all steps, not a matrix-vector product per step.
  const int E = architecture_.embedding_dim, D = architecture_.decoder_hidden;
  std::vector<int> previous_ids{Bpe::start_id};
  previous_ids.insert(previous_ids.end(), ids.begin(), ids.end() - 1);
  std::vector<float> embedded(static_cast<std::size_t>(steps) * E), projected(static_cast<std::size_t>(steps) * 3 * D);
  for (int t = 0; t < steps; ++t) {
    std::copy_n(embedding_.data() + static_cast<std::size_t>(previous_ids[t]) * E, E,
                embedded.data() + static_cast<std::size_t>(t) * E);
  }
  linear(embedded.data(), steps, E, decoder_.input_weight_t.data(), decoder_.input_bias.data(), 3 * D,
         projected.data());
  for (int t = 0; t < steps; ++t) {
    decoder_step(encoding, 1, &previous_ids[t], state.data(), weights.data() + static_cast<std::size_t>(t) * S,
                 log_prob ? logits.data() : nullptr, projected.data() + static_cast<std::size_t>(t) * 3 * D);
    if (log_prob) {
      detail::log_softmax(logits.data(), architecture_.vocab_size);
      *log_prob += logits[ids[t]];
    }
  }
  return weights;
}

namespace {

struct Hypothesis {
  std::vector<int> ids;
  std::vector<float> attention;
  double score = 0.0;
  bool finished = false;
};

}  // namespace

RnnModel::Translation RnnModel::translate(const Encoding& encoding, int beam, int max_length) const {
  if (beam < 1 || beam > 64) fail("beam must be in 1..64, got ", beam);
  if (max_length < 0) fail("max_length must not be negative");
  const int S = encoding.length, D = architecture_.decoder_hidden, V = architecture_.vocab_size;
  if (max_length == 0) max_length = 2 * S + 10;
  std::vector<Hypothesis> alive(1), finished;
  std::vector<float> states = encoding.start;
  for (int step = 0; step < max_length && !alive.empty(); ++step) {
    const int rows = static_cast<int>(alive.size());
    std::vector<int> previous(rows);
    for (int r = 0; r < rows; ++r) previous[r] = alive[r].ids.empty() ? Bpe::start_id : alive[r].ids.back();
    std::vector<float> attention(static_cast<std::size_t>(rows) * S), logits(static_cast<std::size_t>(rows) * V);
    decoder_step(encoding, rows, previous.data(), states.data(), attention.data(), logits.data());
    // the best continuations fill the beam: those ending in </s> finish, the others go on
    std::vector<Hypothesis> next;
    std::vector<float> next_states;
    for (int r = 0; r < rows; ++r) detail::log_softmax(logits.data() + static_cast<std::size_t>(r) * V, V);
    for (const detail::BeamCandidate& c : detail::best_continuations(alive, logits.data(), V, beam)) {
      if (static_cast<int>(next.size() + finished.size()) >= beam) break;
      Hypothesis h = alive[c.row];
      h.score = c.score;
      h.attention.insert(h.attention.end(), attention.begin() + static_cast<std::size_t>(c.row) * S,
                         attention.begin() + static_cast<std::size_t>(c.row + 1) * S);
      if (c.token == Bpe::end_id) {
        h.finished = true;
        finished.push_back(std::move(h));
      } else {
        h.ids.push_back(c.token);
        next.push_back(std::move(h));
        next_states.insert(next_states.end(), states.begin() + static_cast<std::size_t>(c.row) * D,
                           states.begin() + static_cast<std::size_t>(c.row + 1) * D);
      }
    }
    alive = std::move(next);
    states = std::move(next_states);
  }
  for (Hypothesis& h : alive) finished.push_back(std::move(h));  // ran out of length
  const auto best = std::max_element(finished.begin(), finished.end(), [](const Hypothesis& x, const Hypothesis& y) {
    return detail::length_normalized(x) < detail::length_normalized(y);
  });
  Translation translation;
  translation.ids = best->ids;
  translation.attention = best->attention;
  translation.log_prob = best->score;
  translation.finished = best->finished;
  return translation;
}

WordAttention align_words(const RnnModel& model, const std::vector<std::string>& source_words,
                          const std::vector<std::string>& target_words, bool shift, bool with_log_prob) {
  detail::check_words(source_words, "source");
  detail::check_words(target_words, "target");
  const Pieces source = detail::encode_given_words(model.tokenizer(), source_words);
  const Pieces target = detail::encode_given_words(model.tokenizer(), target_words);
  const RnnModel::Encoding encoding = model.encode(source.ids);
  double log_prob = 0.0;
  // attention alone skips the output layer, most of a decoder step's work
  const std::vector<float> pieces = model.force(encoding, target.ids, with_log_prob ? &log_prob : nullptr);
  WordAttention words =
      detail::aggregate(pieces, encoding.length, source.word_of_piece, static_cast<int>(source_words.size()),
                        target.word_of_piece, static_cast<int>(target_words.size()), shift);
  words.source_words = nfc(source_words);  // as the pieces were encoded
  words.target_words = nfc(target_words);
  words.log_prob = log_prob;
  return words;
}

WordTranslation translate_words(const RnnModel& model, const std::vector<std::string>& source_words, int beam) {
  detail::check_words(source_words, "source");
  const Pieces source = detail::encode_given_words(model.tokenizer(), source_words);
  const RnnModel::Encoding encoding = model.encode(source.ids);
  const RnnModel::Translation translation = model.translate(encoding, beam);
  WordTranslation result;
  const std::vector<std::string> target_words = model.tokenizer().decode_words(translation.ids);
  result.attention = detail::aggregate(
      translation.attention, encoding.length, source.word_of_piece, static_cast<int>(source_words.size()),
      model.tokenizer().word_of_pieces(translation.ids), static_cast<int>(target_words.size()), false);
  result.attention.source_words = nfc(source_words);
  result.attention.target_words = target_words;
  result.attention.log_prob = translation.log_prob;
  result.cross = result.attention.weights;
  for (const std::string& word : target_words) result.text += (result.text.empty() ? "" : " ") + word;
  return result;
}

}  // namespace attn
