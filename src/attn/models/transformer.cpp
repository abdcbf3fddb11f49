#include "attn/models/transformer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/models/internal/decoding.hpp"

namespace attn {

namespace {

constexpr float norm_epsilon = 1e-5f;  // PyTorch's LayerNorm default

// x [rows][heads * head_dim] -> out [heads][rows][head_dim]
void to_heads(const float* x, int rows, int heads, int head_dim, float* out) {
  for (int r = 0; r < rows; ++r) {
    for (int h = 0; h < heads; ++h) {
      std::copy_n(x + (static_cast<std::size_t>(r) * heads + h) * head_dim, head_dim,
                  out + (static_cast<std::size_t>(h) * rows + r) * head_dim);
    }
  }
}

// x [heads][rows][head_dim] -> out [rows][heads * head_dim]
void from_heads(const float* x, int rows, int heads, int head_dim, float* out) {
  for (int h = 0; h < heads; ++h) {
    for (int r = 0; r < rows; ++r) {
      std::copy_n(x + (static_cast<std::size_t>(h) * rows + r) * head_dim, head_dim,
                  out + (static_cast<std::size_t>(r) * heads + h) * head_dim);
    }
  }
}

// cache [heads][length][head_dim] grows by one row per head: added [heads][head_dim]
void append_heads(std::vector<float>& cache, int length, int heads, int head_dim, const float* added) {
  std::vector<float> grown(static_cast<std::size_t>(heads) * (length + 1) * head_dim);
  for (int h = 0; h < heads; ++h) {
    const std::size_t old_row = static_cast<std::size_t>(h) * length * head_dim;
    float* row = grown.data() + static_cast<std::size_t>(h) * (length + 1) * head_dim;
    std::copy_n(cache.data() + old_row, static_cast<std::size_t>(length) * head_dim, row);
    std::copy_n(added + static_cast<std::size_t>(h) * head_dim, head_dim,
                row + static_cast<std::size_t>(length) * head_dim);
  }
  cache = std::move(grown);
}

}  // namespace

// Reads tensors by name, checking shapes, and remembers which were read.
class TransformerModel::Loader {
 public:
  explicit Loader(const SafeTensors& file) : file_(file) {}

  std::vector<float> take(const std::string& name, std::vector<std::int64_t> shape) {
    expected_.push_back(name);
    const std::string& dtype = file_.info(name).dtype;
    if (dtype != "F32" && dtype != "F16") fail("tensor '", name, "' is ", dtype, "; the model stores F32 or F16");
    return file_.floats(name, shape);
  }
  Linear linear(const std::string& prefix, int in, int out) {
    Linear l;
    l.weight_t = transposed(take(prefix + ".weight", {out, in}).data(), out, in);
    l.bias = take(prefix + ".bias", {out});
    return l;
  }
  Norm norm(const std::string& prefix, int dim) {
    return {take(prefix + ".weight", {dim}), take(prefix + ".bias", {dim})};
  }
  Attention attention(const std::string& prefix, int dim) {
    return {linear(prefix + ".query", dim, dim), linear(prefix + ".key", dim, dim), linear(prefix + ".value", dim, dim),
            linear(prefix + ".output", dim, dim)};
  }
  FeedForward feed_forward(const std::string& prefix, int dim, int ff_dim) {
    return {linear(prefix + ".input", dim, ff_dim), linear(prefix + ".output", ff_dim, dim)};
  }
  void refuse_unexpected() const {
    for (const auto& entry : file_.tensors()) {
      if (std::find(expected_.begin(), expected_.end(), entry.first) == expected_.end()) {
        fail("unexpected tensor '", entry.first, "' for this attnscope-transformer-v1 architecture");
      }
    }
  }

 private:
  const SafeTensors& file_;
  std::vector<std::string> expected_;
};

std::string TransformerModel::metadata_value(const std::string& key) const {
  const auto found = metadata_.find(key);
  return found == metadata_.end() ? std::string() : found->second;
}

TransformerArchitecture TransformerModel::read_architecture(const SafeTensors& file) {
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(file.meta("architecture"));
  } catch (const nlohmann::json::exception& e) {
    fail("the model architecture is not valid JSON (", e.what(), ")");
  }
  if (!json.is_object()) fail("the model architecture must be a JSON object");
  TransformerArchitecture a;
  a.encoder_layers = detail::architecture_field(json, "encoder_layers", 1, 64);
  a.decoder_layers = detail::architecture_field(json, "decoder_layers", 1, 64);
  a.heads = detail::architecture_field(json, "heads", 1, 256);
  a.model_dim = detail::architecture_field(json, "model_dim", 1, 8192);
  a.ff_dim = detail::architecture_field(json, "ff_dim", 1, 65536);
  a.vocab_size = detail::architecture_field(json, "vocab_size", 1, 1 << 20);
  a.alignment_layer = detail::architecture_field(json, "alignment_layer", 0, a.decoder_layers - 1);
  a.alignment_head = detail::architecture_field(json, "alignment_head", 0, a.heads - 1);
  // optional (files before it read as 0)
  if (json.contains("alignment_shift")) a.alignment_shift = detail::architecture_field(json, "alignment_shift", 0, 1);
  if (a.model_dim % a.heads != 0)
    fail("the model architecture's model_dim = ", a.model_dim, " is not a multiple of heads = ", a.heads);
  return a;
}

namespace {

// The metadata's "language_tags" ({"en": 7997, "fr": 8001, ...}), checked: language codes of 2 to
// 3 lowercase letters, each tag a piece of the vocabulary that is not a special, byte or word piece.
std::map<std::string, int> read_language_tags(const std::map<std::string, std::string>& metadata, const Bpe& bpe) {
  std::map<std::string, int> tags;
  const auto found = metadata.find("language_tags");
  if (found == metadata.end()) return tags;
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(found->second);
  } catch (const nlohmann::json::exception& e) {
    fail("the model's language_tags are not valid JSON (", e.what(), ")");
  }
  if (!json.is_object() || json.empty()) fail("the model's language_tags must be a non-empty JSON object");
  for (const auto& [language, id] : json.items()) {
    const bool code = language.size() >= 2 && language.size() <= 3 &&
                      std::all_of(language.begin(), language.end(), [](char c) { return c >= 'a' && c <= 'z'; });
    if (!code) fail("the model's language_tags name '", language, "', which is not a language code (2-3 letters a-z)");
    if (!id.is_number_integer() || id.get<long long>() < 260 || id.get<long long>() >= bpe.size())
      fail("the model's language tag of '", language, "' must be a piece id in [260, ", bpe.size(), ")");
    const int piece = id.get<int>();
    if (bpe.piece(piece) != "<2" + language + ">")
      fail("the model's language tag of '", language, "' is piece ", piece, " ('", bpe.piece(piece), "'), not <2",
           language, ">");
    tags.emplace(language, piece);
  }
  return tags;
}

}  // namespace

TransformerModel TransformerModel::load(std::string bytes) { return load(SafeTensors::parse(std::move(bytes))); }

TransformerModel TransformerModel::load(const SafeTensors& file) {
  TransformerModel model;
  model.metadata_ = file.metadata();
  const std::string format = model.metadata_value("format");
  if (format != "attnscope-transformer-v1") fail("not an attnscope-transformer-v1 model (format '", format, "')");
  const TransformerArchitecture& a = model.architecture_ = read_architecture(file);
  model.tokenizer_ = Bpe::from_json(file.meta("tokenizer"));
  if (model.tokenizer_.size() != a.vocab_size) {
    fail("the tokenizer has ", model.tokenizer_.size(), " pieces, the architecture says ", a.vocab_size);
  }
  model.language_tags_ = read_language_tags(model.metadata_, model.tokenizer_);
  const int d = a.model_dim, F = a.ff_dim, V = a.vocab_size;
  Loader loader(file);
  model.embedding_ = loader.take("embedding", {V, d});
  model.embedding_t_ = transposed(model.embedding_.data(), V, d);
  model.output_bias_ = loader.take("output.bias", {V});
  for (int l = 0; l < a.encoder_layers; ++l) {
    const std::string prefix = "encoder.layers." + std::to_string(l) + ".";
    model.encoder_.push_back({loader.norm(prefix + "self_norm", d), loader.norm(prefix + "feed_forward_norm", d),
                              loader.attention(prefix + "self_attention", d),
                              loader.feed_forward(prefix + "feed_forward", d, F)});
  }
  for (int l = 0; l < a.decoder_layers; ++l) {
    const std::string prefix = "decoder.layers." + std::to_string(l) + ".";
    model.decoder_.push_back(
        {loader.norm(prefix + "self_norm", d), loader.norm(prefix + "cross_norm", d),
         loader.norm(prefix + "feed_forward_norm", d), loader.attention(prefix + "self_attention", d),
         loader.attention(prefix + "cross_attention", d), loader.feed_forward(prefix + "feed_forward", d, F)});
  }
  model.encoder_norm_ = loader.norm("encoder.norm", d);
  model.decoder_norm_ = loader.norm("decoder.norm", d);
  loader.refuse_unexpected();
  return model;
}

void TransformerModel::embed(const std::vector<int>& ids, int first_position, float* x) const {
  const int d = architecture_.model_dim;
  const double scale = std::sqrt(static_cast<double>(d));
  for (std::size_t r = 0; r < ids.size(); ++r) {
    if (ids[r] < 0 || ids[r] >= architecture_.vocab_size) fail("piece id ", ids[r], " is outside the vocabulary");
    const float* e = embedding_.data() + static_cast<std::size_t>(ids[r]) * d;
    const double position = first_position + static_cast<double>(r);
    for (int c = 0; c < d; ++c) {
      // PE[p][2i] = sin(p / 10000^(2i/d)), PE[p][2i+1] = cos(p / 10000^(2i/d))
      const double angle = position * std::exp((c / 2 * 2) * (-std::log(10000.0) / d));
      x[r * d + c] = static_cast<float>(e[c] * scale + (c % 2 == 0 ? std::sin(angle) : std::cos(angle)));
    }
  }
}

void TransformerModel::norm(const Norm& norm, const float* x, int rows, float* out) const {
  const int d = architecture_.model_dim;
  for (int r = 0; r < rows; ++r) {
    const float* in = x + static_cast<std::size_t>(r) * d;
    double mean = 0.0, variance = 0.0;
    for (int c = 0; c < d; ++c) mean += in[c];
    mean /= d;
    for (int c = 0; c < d; ++c) variance += (in[c] - mean) * (in[c] - mean);
    const double inverse = 1.0 / std::sqrt(variance / d + norm_epsilon);
    float* o = out + static_cast<std::size_t>(r) * d;
    for (int c = 0; c < d; ++c) o[c] = static_cast<float>((in[c] - mean) * inverse * norm.weight[c] + norm.bias[c]);
  }
}

void TransformerModel::feed_forward(const Norm& norm_weights, const FeedForward& ff, float* x, int rows) const {
  const int d = architecture_.model_dim, F = architecture_.ff_dim;
  std::vector<float> y(static_cast<std::size_t>(rows) * d), hidden(static_cast<std::size_t>(rows) * F);
  norm(norm_weights, x, rows, y.data());
  linear(y.data(), rows, d, ff.input.weight_t.data(), ff.input.bias.data(), F, hidden.data());
  for (float& h : hidden) h = std::max(h, 0.0f);
  // x + W_2 relu(...) + b_2: the residual is the matmul's accumulator
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < d; ++c) x[static_cast<std::size_t>(r) * d + c] += ff.output.bias[c];
  }
  parallel_matmul(rows, d, F, 1.0f, hidden.data(), F, ff.output.weight_t.data(), d, x, d, true);
}

void TransformerModel::attend(const Attention& attention, const float* queries, int rows, const float* keys,
                              const float* values, int key_length, bool causal, float* x, float* weights) const {
  const int d = architecture_.model_dim, h = architecture_.heads, dk = architecture_.head_dim();
  std::vector<float> projected(static_cast<std::size_t>(rows) * d), query(projected.size()), context(projected.size());
  linear(queries, rows, d, attention.query.weight_t.data(), attention.query.bias.data(), d, projected.data());
  to_heads(projected.data(), rows, h, dk, query.data());
  Shape shape;
  shape.heads = h;
  shape.query_length = rows;
  shape.key_length = key_length;
  shape.dim = dk;
  AttentionOptions options;
  options.score = Score::scaled_dot;
  options.mask.causal = causal;
  options.check_finite = false;  // the weights were checked at load; the inputs come out of layer norms
  AttentionOutputs outputs;
  outputs.output = context.data();
  outputs.weights = weights;
  attn::attention(shape, query.data(), keys, values, options, outputs);
  from_heads(context.data(), rows, h, dk, projected.data());
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < d; ++c) x[static_cast<std::size_t>(r) * d + c] += attention.output.bias[c];
  }
  parallel_matmul(rows, d, d, 1.0f, projected.data(), d, attention.output.weight_t.data(), d, x, d, true);
}

void TransformerModel::output(const float* x, int rows, float* log_probs) const {
  const int d = architecture_.model_dim, V = architecture_.vocab_size;
  std::vector<float> y(static_cast<std::size_t>(rows) * d);
  norm(decoder_norm_, x, rows, y.data());
  linear(y.data(), rows, d, embedding_t_.data(), output_bias_.data(), V, log_probs);
  for (int r = 0; r < rows; ++r) detail::log_softmax(log_probs + static_cast<std::size_t>(r) * V, V);
}

namespace {

// keys and values [heads][rows][head_dim] of y [rows][d] under two projections
void project_heads(const float* y, int rows, int d, int heads, const std::vector<float>& weight_t,
                   const std::vector<float>& bias, float* out) {
  std::vector<float> projected(static_cast<std::size_t>(rows) * d);
  linear(y, rows, d, weight_t.data(), bias.data(), d, projected.data());
  to_heads(projected.data(), rows, heads, d / heads, out);
}

}  // namespace

void TransformerModel::self_attend(const Attention& attention, const Norm& norm_weights, float* x, int rows,
                                   bool causal, float* weights) const {
  const int d = architecture_.model_dim, h = architecture_.heads;
  const std::size_t states = static_cast<std::size_t>(rows) * d;
  std::vector<float> y(states), keys(states), values(states);
  norm(norm_weights, x, rows, y.data());
  project_heads(y.data(), rows, d, h, attention.key.weight_t, attention.key.bias, keys.data());
  project_heads(y.data(), rows, d, h, attention.value.weight_t, attention.value.bias, values.data());
  attend(attention, y.data(), rows, keys.data(), values.data(), rows, causal, x, weights);
}

TransformerModel::Encoding TransformerModel::encode(const std::vector<int>& source_ids) const {
  const TransformerArchitecture& a = architecture_;
  if (source_ids.empty()) fail("the source sentence is empty");
  std::vector<int> ids = source_ids;
  ids.push_back(Bpe::end_id);
  const int S = static_cast<int>(ids.size()), d = a.model_dim, h = a.heads;
  const std::size_t map = element_count("source pieces", {h, S, S}), states = element_count("source pieces", {S, d});
  std::vector<float> x(states);
  embed(ids, 0, x.data());
  Encoding encoding;
  encoding.length = S;
  encoding.attention.resize(map * a.encoder_layers);
  for (int l = 0; l < a.encoder_layers; ++l) {
    const EncoderLayer& layer = encoder_[l];
    self_attend(layer.self_attention, layer.self_norm, x.data(), S, false, encoding.attention.data() + l * map);
    feed_forward(layer.feed_forward_norm, layer.feed_forward, x.data(), S);
  }
  encoding.memory.resize(states);
  norm(encoder_norm_, x.data(), S, encoding.memory.data());
  // every decoder layer's cross-attention keys and values, once per sentence
  encoding.cross_keys.resize(states * a.decoder_layers);
  encoding.cross_values.resize(states * a.decoder_layers);
  for (int l = 0; l < a.decoder_layers; ++l) {
    const Attention& cross = decoder_[l].cross_attention;
    project_heads(encoding.memory.data(), S, d, h, cross.key.weight_t, cross.key.bias,
                  encoding.cross_keys.data() + l * states);
    project_heads(encoding.memory.data(), S, d, h, cross.value.weight_t, cross.value.bias,
                  encoding.cross_values.data() + l * states);
  }
  return encoding;
}

TransformerModel::Forced TransformerModel::force(const std::vector<int>& source_ids, const std::vector<int>& target_ids,
                                                 bool with_log_probs, int layers, int start) const {
  return force(encode(source_ids), target_ids, with_log_probs, layers, start);
}

TransformerModel::Forced TransformerModel::force(const Encoding& encoding, const std::vector<int>& target_ids,
                                                 bool with_log_probs, int layers, int start) const {
  const TransformerArchitecture& a = architecture_;
  if (target_ids.empty()) fail("the target sentence is empty");
  if (layers < 0 || layers > a.decoder_layers) {
    fail("layers must be in [0, ", a.decoder_layers, "] (0: all), got ", layers);
  }
  if (layers == 0) layers = a.decoder_layers;
  if (with_log_probs && layers < a.decoder_layers) fail("log probabilities need every decoder layer");
  if (start < 0 || start >= a.vocab_size) fail("the start piece ", start, " is outside the vocabulary");
  std::vector<int> inputs{start};
  inputs.insert(inputs.end(), target_ids.begin(), target_ids.end());
  const int T = static_cast<int>(inputs.size()), S = encoding.length, d = a.model_dim, h = a.heads, V = a.vocab_size;
  const std::size_t states = element_count("target pieces", {T, d}),
                    self_map = element_count("target pieces", {h, T, T});
  const std::size_t cross_map = element_count("target pieces", {h, T, S}), memory = static_cast<std::size_t>(S) * d;
  std::vector<float> x(states), y(states);
  embed(inputs, 0, x.data());
  Forced forced;
  forced.encoder = encoding.attention;
  forced.decoder.resize(self_map * layers);
  forced.cross.resize(cross_map * layers);
  for (int l = 0; l < layers; ++l) {
    const DecoderLayer& layer = decoder_[l];
    self_attend(layer.self_attention, layer.self_norm, x.data(), T, true, forced.decoder.data() + l * self_map);
    norm(layer.cross_norm, x.data(), T, y.data());
    attend(layer.cross_attention, y.data(), T, encoding.cross_keys.data() + l * memory,
           encoding.cross_values.data() + l * memory, S, false, x.data(), forced.cross.data() + l * cross_map);
    if (!with_log_probs && l + 1 == layers) break;  // every map of this layer is out; nothing reads its output
    feed_forward(layer.feed_forward_norm, layer.feed_forward, x.data(), T);
  }
  if (!with_log_probs) return forced;  // the maps alone skip the output layer, a large part of the work
  std::vector<float> log_probs(element_count("target pieces", {T, V}));
  output(x.data(), T, log_probs.data());
  forced.log_probs.resize(T);
  for (int t = 0; t < T; ++t) {
    const int next = t + 1 < T ? inputs[t + 1] : Bpe::end_id;
    forced.log_probs[t] = log_probs[static_cast<std::size_t>(t) * V + next];
    forced.log_prob += forced.log_probs[t];
  }
  return forced;
}

TransformerModel::Cache TransformerModel::start_cache() const {
  Cache cache;
  cache.keys.resize(architecture_.decoder_layers);
  cache.values.resize(architecture_.decoder_layers);
  return cache;
}

void TransformerModel::step(const Encoding& encoding, Cache& cache, int previous, float* log_probs, float* cross,
                            float* self_attention) const {
  Cache* caches[] = {&cache};
  step(encoding, caches, 1, &previous, log_probs, cross, self_attention);
}

void TransformerModel::step(const Encoding& encoding, Cache* const* caches, int rows, const int* previous,
                            float* log_probs, float* cross, float* self_attention) const {
  const TransformerArchitecture& a = architecture_;
  const int d = a.model_dim, h = a.heads, dk = a.head_dim(), S = encoding.length, t = caches[0]->length;
  for (int r = 0; r < rows; ++r) {
    if (static_cast<int>(caches[r]->keys.size()) != a.decoder_layers) fail("the cache was not made by start_cache()");
    if (caches[r]->length != t) fail("the caches of one step must have the same length");
  }
  const std::size_t memory = static_cast<std::size_t>(S) * d, states = static_cast<std::size_t>(rows) * d;
  std::vector<float> x(states), y(states), keys(states), values(states), weights(states / d * h * S);
  for (int r = 0; r < rows; ++r) embed({previous[r]}, t, x.data() + r * d);
  for (int l = 0; l < a.decoder_layers; ++l) {
    const DecoderLayer& layer = decoder_[l];
    const Attention& self = layer.self_attention;
    norm(layer.self_norm, x.data(), rows, y.data());
    // row r of [rows][d] is that hypothesis's new key in head layout [h][d_k]
    linear(y.data(), rows, d, self.key.weight_t.data(), self.key.bias.data(), d, keys.data());
    linear(y.data(), rows, d, self.value.weight_t.data(), self.value.bias.data(), d, values.data());
    for (int r = 0; r < rows; ++r) {
      Cache& cache = *caches[r];
      append_heads(cache.keys[l], t, h, dk, keys.data() + r * d);
      append_heads(cache.values[l], t, h, dk, values.data() + r * d);
      // one query over the pieces so far: no mask needed
      float* self_weights = self_attention
                                ? self_attention + (static_cast<std::size_t>(r) * a.decoder_layers + l) * h * (t + 1)
                                : nullptr;
      attend(self, y.data() + r * d, 1, cache.keys[l].data(), cache.values[l].data(), t + 1, false, x.data() + r * d,
             self_weights);
    }
    // the hypotheses share the source: one query row each over the same keys
    norm(layer.cross_norm, x.data(), rows, y.data());
    attend(layer.cross_attention, y.data(), rows, encoding.cross_keys.data() + l * memory,
           encoding.cross_values.data() + l * memory, S, false, x.data(), weights.data());
    for (int r = 0; cross && r < rows; ++r) {
      for (int head = 0; head < h; ++head) {
        std::copy_n(weights.data() + (static_cast<std::size_t>(head) * rows + r) * S, S,
                    cross + ((static_cast<std::size_t>(r) * a.decoder_layers + l) * h + head) * S);
      }
    }
    feed_forward(layer.feed_forward_norm, layer.feed_forward, x.data(), rows);
  }
  for (int r = 0; r < rows; ++r) caches[r]->length = t + 1;
  if (log_probs) output(x.data(), rows, log_probs);
}

namespace {

struct Hypothesis {
  std::vector<int> ids;
  std::vector<float> cross;
  TransformerModel::Cache cache;
  double score = 0.0;
  bool finished = false;
};

}  // namespace

TransformerModel::Translation TransformerModel::translate(const Encoding& encoding, int beam, int max_length,
                                                          int start) const {
  if (beam < 1 || beam > 64) fail("beam must be in 1..64, got ", beam);
  if (start < 0 || start >= architecture_.vocab_size) fail("the start piece ", start, " is outside the vocabulary");
  if (max_length < 0) fail("max_length must not be negative");
  const int V = architecture_.vocab_size;
  const std::size_t step_map =
      static_cast<std::size_t>(architecture_.decoder_layers) * architecture_.heads * encoding.length;
  if (max_length == 0) max_length = 2 * encoding.length + 10;
  std::vector<Hypothesis> alive(1), finished;
  alive[0].cache = start_cache();
  for (int step_index = 0; step_index < max_length && !alive.empty(); ++step_index) {
    const int rows = static_cast<int>(alive.size());
    std::vector<float> log_probs(static_cast<std::size_t>(rows) * V), cross(rows * step_map);
    std::vector<int> previous(rows);
    std::vector<Cache*> caches(rows);
    for (int r = 0; r < rows; ++r) {
      previous[r] = alive[r].ids.empty() ? start : alive[r].ids.back();
      caches[r] = &alive[r].cache;
    }
    step(encoding, caches.data(), rows, previous.data(), log_probs.data(), cross.data(), nullptr);
    // the best continuations fill the beam: those ending in </s> finish, the others go on
    std::vector<Hypothesis> next;
    for (const detail::BeamCandidate& c : detail::best_continuations(alive, log_probs.data(), V, beam)) {
      if (static_cast<int>(next.size() + finished.size()) >= beam) break;
      Hypothesis h = alive[c.row];
      h.score = c.score;
      h.cross.insert(h.cross.end(), cross.begin() + c.row * step_map, cross.begin() + (c.row + 1) * step_map);
      if (c.token == Bpe::end_id) {
        h.finished = true;
        h.cache = Cache();
        finished.push_back(std::move(h));
      } else {
        h.ids.push_back(c.token);
        next.push_back(std::move(h));
      }
    }
    alive = std::move(next);
  }
  for (Hypothesis& h : alive) finished.push_back(std::move(h));  // ran out of length
  const auto best = std::max_element(finished.begin(), finished.end(), [](const Hypothesis& x, const Hypothesis& y) {
    return detail::length_normalized(x) < detail::length_normalized(y);
  });
  Translation translation;
  translation.ids = best->ids;
  translation.cross = best->cross;
  translation.log_prob = best->score;
  translation.finished = best->finished;
  return translation;
}

}  // namespace attn
