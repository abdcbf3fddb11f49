#include "attn/models/transformer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "attn/core/attention.hpp"
#include "attn/core/error.hpp"
#include "attn/core/internal/scratch.hpp"
#include "attn/core/probability.hpp"
#include "attn/core/threads.hpp"
#include "attn/models/internal/decoding.hpp"
#include "attn/models/internal/loader.hpp"

namespace attn {

std::string TransformerModel::metadata_value(const std::string& key) const {
  return detail::metadata_value(metadata_, key);
}

TransformerArchitecture TransformerModel::read_architecture(const SafeTensors& file) {
  const nlohmann::json json = detail::architecture_json(file);
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
  detail::check_format(model.metadata_, "attnscope-transformer-v1");
  const TransformerArchitecture& a = model.architecture_ = read_architecture(file);
  model.tokenizer_ = detail::read_tokenizer(file, a.vocab_size);
  model.language_tags_ = read_language_tags(model.metadata_, model.tokenizer_);
  const int d = a.model_dim, F = a.ff_dim, V = a.vocab_size;
  detail::TensorReader loader(file);
  model.embedding_ = loader.take("embedding", {V, d});
  model.output_layer_ = Linear(model.embedding_, loader.take("output.bias", {V}), d, V);
  // sentences' pieces rarely pass 256; later positions are computed when asked
  model.positions_ = PositionTable(d, 256);
  auto feed_forward = [&](const std::string& prefix) {
    FeedForward ff;
    ff.input = loader.linear(prefix + ".input", d, F);
    ff.output = loader.linear(prefix + ".output", F, d);
    return ff;
  };
  for (int l = 0; l < a.encoder_layers; ++l) {
    const std::string prefix = "encoder.layers." + std::to_string(l) + ".";
    model.encoder_.push_back({loader.norm(prefix + "self_norm", d), loader.norm(prefix + "feed_forward_norm", d),
                              loader.attention(prefix + "self_attention", d, a.heads),
                              feed_forward(prefix + "feed_forward")});
  }
  for (int l = 0; l < a.decoder_layers; ++l) {
    const std::string prefix = "decoder.layers." + std::to_string(l) + ".";
    model.decoder_.push_back(
        {loader.norm(prefix + "self_norm", d), loader.norm(prefix + "cross_norm", d),
         loader.norm(prefix + "feed_forward_norm", d), loader.attention(prefix + "self_attention", d, a.heads),
         loader.attention(prefix + "cross_attention", d, a.heads), feed_forward(prefix + "feed_forward")});
  }
  model.encoder_norm_ = loader.norm("encoder.norm", d);
  model.decoder_norm_ = loader.norm("decoder.norm", d);
  loader.refuse_unexpected("this attnscope-transformer-v1 architecture");
  return model;
}

void TransformerModel::embed(const std::vector<int>& ids, int first_position, float* x) const {
  const int d = architecture_.model_dim;
  positions_.embed(embedding_, ids.data(), static_cast<int>(ids.size()), first_position,
                   std::sqrt(static_cast<double>(d)), x);
}

namespace {

// The options of every attention in the model: scaled dot products, causal where asked.
AttentionOptions scaled_dot(bool causal) {
  AttentionOptions options;
  options.score = Score::scaled_dot;
  options.mask.causal = causal;
  options.check_finite = false;  // the weights were checked at load; the inputs come out of layer norms
  return options;
}

}  // namespace

void TransformerModel::feed_forward(const LayerNorm& norm, const FeedForward& ff, float* x, int rows) const {
  const int d = architecture_.model_dim, F = architecture_.ff_dim;
  Scratch y(static_cast<std::size_t>(rows) * d), hidden(static_cast<std::size_t>(rows) * F);
  norm.forward(x, rows, y.data());
  ff.input.forward_relu(y.data(), rows, hidden.data());
  ff.output.add_to(hidden.data(), rows, x);
}

void TransformerModel::self_attend(const MultiHeadAttention& attention, const LayerNorm& norm, float* x, int rows,
                                   bool causal, float* weights) const {
  Scratch y(static_cast<std::size_t>(rows) * architecture_.model_dim);
  norm.forward(x, rows, y.data());
  attention.attend_self(y.data(), rows, scaled_dot(causal), x, weights);
}

void TransformerModel::cross_attend(int l, const Encoding& encoding, float* x, int rows, float* weights) const {
  const DecoderLayer& layer = decoder_[l];
  const std::size_t memory = static_cast<std::size_t>(encoding.length) * architecture_.model_dim;
  Scratch y(static_cast<std::size_t>(rows) * architecture_.model_dim);
  layer.cross_norm.forward(x, rows, y.data());
  layer.cross_attention.attend(y.data(), rows, encoding.cross_keys.data() + l * memory,
                               encoding.cross_values.data() + l * memory, encoding.length, scaled_dot(false), x,
                               weights);
}

void TransformerModel::logits(const float* x, int rows, float* logits) const {
  Scratch y(static_cast<std::size_t>(rows) * architecture_.model_dim);
  decoder_norm_.forward(x, rows, y.data());
  output_layer_.forward(y.data(), rows, logits);
}

void TransformerModel::output(const float* x, int rows, float* log_probs) const {
  const int V = architecture_.vocab_size;
  logits(x, rows, log_probs);
  for (int r = 0; r < rows; ++r) log_softmax(log_probs + static_cast<std::size_t>(r) * V, V);
}

TransformerModel::Encoding TransformerModel::encode(const std::vector<int>& source_ids) const {
  const TransformerArchitecture& a = architecture_;
  if (source_ids.empty()) fail("the source sentence is empty");
  std::vector<int> ids = source_ids;
  ids.push_back(Bpe::end_id);
  const int S = static_cast<int>(ids.size()), d = a.model_dim, h = a.heads;
  const std::size_t map = element_count("source pieces", {h, S, S}), states = element_count("source pieces", {S, d});
  Scratch x(states);
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
  encoder_norm_.forward(x.data(), S, encoding.memory.data());
  // every decoder layer's cross-attention keys and values, once per sentence
  encoding.cross_keys.resize(states * a.decoder_layers);
  encoding.cross_values.resize(states * a.decoder_layers);
  // (their products together on the threads, up to eight a job: Linear::forward_heads)
  std::vector<Linear::HeadsOutput> projections;
  for (int l = 0; l < a.decoder_layers; ++l) {
    const MultiHeadAttention& cross = decoder_[l].cross_attention;
    projections.push_back({&cross.key_projection(), encoding.cross_keys.data() + l * states});
    projections.push_back({&cross.value_projection(), encoding.cross_values.data() + l * states});
  }
  Linear::forward_heads(encoding.memory.data(), S, h, projections.data(), static_cast<int>(projections.size()));
  return encoding;
}

TransformerModel::Forced TransformerModel::force(const std::vector<int>& source_ids, const std::vector<int>& target_ids,
                                                 bool with_log_probs, int layers, int start) const {
  Encoding encoding = encode(source_ids);
  // the encoder's maps move into the result: force(encoding, ...) copies them, on the calling
  // thread (0.4 % of a 2-thread forced decoding at 59 words, while the other thread waited)
  std::vector<float> encoder_maps = std::move(encoding.attention);
  encoding.attention.clear();
  Forced forced = force(encoding, target_ids, with_log_probs, layers, start);
  forced.encoder = std::move(encoder_maps);
  return forced;
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
  const std::size_t self_map = element_count("target pieces", {h, T, T});
  const std::size_t cross_map = element_count("target pieces", {h, T, S});
  Scratch x(element_count("target pieces", {T, d}));
  embed(inputs, 0, x.data());
  Forced forced;
  forced.encoder = encoding.attention;
  forced.decoder.resize(self_map * layers);
  forced.cross.resize(cross_map * layers);
  for (int l = 0; l < layers; ++l) {
    const DecoderLayer& layer = decoder_[l];
    self_attend(layer.self_attention, layer.self_norm, x.data(), T, true, forced.decoder.data() + l * self_map);
    cross_attend(l, encoding, x.data(), T, forced.cross.data() + l * cross_map);
    if (!with_log_probs && l + 1 == layers) break;  // every map of this layer is out; nothing reads its output
    feed_forward(layer.feed_forward_norm, layer.feed_forward, x.data(), T);
  }
  if (!with_log_probs) return forced;  // the maps alone skip the output layer, a large part of the work
  // Each position needs its forced piece's logit and its log-normalizer, not V log-probabilities.
  // The output layer goes a block of the vocabulary at a time, over every position: each block's
  // weights are read once (by rows of 16, an 8192-piece layer's 8 MiB were read from memory once
  // every 16 pieces), the positions' states stay in cache, and the blocks run on the threads. Each
  // block's log-sum-exp is kept apart and the blocks are combined in their order, in double, so
  // the result does not depend on the thread count: log p = logit - log sum over blocks exp(lse).
  constexpr int vocabulary_block = 256;  // a multiple of Linear::output_alignment() (8, 16 or 64)
  const int blocks = (V + vocabulary_block - 1) / vocabulary_block;
  Scratch y(element_count("target pieces", {T, d}));
  decoder_norm_.forward(x.data(), T, y.data());
  std::vector<float> block_lse(element_count("target pieces", {blocks, T}));
  std::vector<float> forced_logit(T);
  // blocks on the threads; fewer blocks than threads (a small vocabulary) leave the threads to each
  // block's product instead
  const int block_workers = blocks >= threads() ? workers_for(blocks, double(T) * vocabulary_block * d) : 1;
  // a buffer of logits per worker, made once (one per block, freed and made again, was 3-5% slower)
  std::vector<Scratch> block_logits;
  for (int worker = 0; worker < block_workers; ++worker)
    block_logits.emplace_back(static_cast<std::size_t>(T) * vocabulary_block);
  parallel_for(blocks, block_workers, [&](int b, int worker) {
    const int first = b * vocabulary_block, count = std::min(vocabulary_block, V - first);
    Scratch& logits = block_logits[worker];
    output_layer_.forward_outputs(y.data(), T, first, count, logits.data());
    for (int t = 0; t < T; ++t) {
      float* row = logits.data() + static_cast<std::size_t>(t) * count;
      const int next = t + 1 < T ? inputs[t + 1] : Bpe::end_id;
      if (next >= first && next < first + count) forced_logit[t] = row[next - first];  // read before overwritten
      block_lse[static_cast<std::size_t>(b) * T + t] = log_sum_exp_in_place(row, count);
    }
  });
  forced.log_probs.resize(T);
  for (int t = 0; t < T; ++t) {
    float top = block_lse[t];
    for (int b = 1; b < blocks; ++b) top = std::max(top, block_lse[static_cast<std::size_t>(b) * T + t]);
    double sum = 0.0;
    for (int b = 0; b < blocks; ++b) sum += std::exp(double(block_lse[static_cast<std::size_t>(b) * T + t]) - top);
    forced.log_probs[t] = forced_logit[t] - static_cast<float>(top + std::log(sum));
  }
  for (float log_p : forced.log_probs) forced.log_prob += log_p;
  return forced;
}

TransformerModel::Cache TransformerModel::start_cache() const {
  const TransformerArchitecture& a = architecture_;
  Cache cache;
  cache.layers.assign(a.decoder_layers, KeyValueCache(a.heads, a.head_dim(), a.head_dim()));
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
  const int d = a.model_dim, h = a.heads, S = encoding.length, t = caches[0]->length;
  for (int r = 0; r < rows; ++r) {
    if (static_cast<int>(caches[r]->layers.size()) != a.decoder_layers) fail("the cache was not made by start_cache()");
    if (caches[r]->length != t) fail("the caches of one step must have the same length");
  }
  const std::size_t states = static_cast<std::size_t>(rows) * d;
  Scratch x(states), y(states), keys(states), values(states), weights(states / d * h * S);
  for (int r = 0; r < rows; ++r) embed({previous[r]}, t, x.data() + r * d);
  for (int l = 0; l < a.decoder_layers; ++l) {
    const DecoderLayer& layer = decoder_[l];
    const MultiHeadAttention& self = layer.self_attention;
    layer.self_norm.forward(x.data(), rows, y.data());
    // row r of [rows][d] is that hypothesis's new key, heads side by side
    self.key_projection().forward(y.data(), rows, keys.data());
    self.value_projection().forward(y.data(), rows, values.data());
    for (int r = 0; r < rows; ++r) {
      KeyValueCache& cache = caches[r]->layers[l];
      cache.append(keys.data() + r * d, values.data() + r * d);
      // one query over the pieces so far: no mask needed
      float* self_weights = self_attention
                                ? self_attention + (static_cast<std::size_t>(r) * a.decoder_layers + l) * h * (t + 1)
                                : nullptr;
      self.attend(y.data() + r * d, 1, cache.keys(), cache.values(), t + 1, scaled_dot(false), x.data() + r * d,
                  self_weights);
    }
    // the hypotheses share the source: one query row each over the same keys
    cross_attend(l, encoding, x.data(), rows, weights.data());
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

TransformerModel::Translation TransformerModel::translate(const Encoding& encoding, int beam, int max_length,
                                                          int start) const {
  const TransformerArchitecture& a = architecture_;
  const std::size_t step_map = static_cast<std::size_t>(a.decoder_layers) * a.heads * encoding.length;
  auto advance = [&](std::vector<Cache*>& caches, const int* previous, float* log_probs, float* maps) {
    step(encoding, caches.data(), static_cast<int>(caches.size()), previous, log_probs, maps, nullptr);
  };
  return detail::translation_of(
      detail::beam_search(start_cache(), advance, a.vocab_size, step_map, encoding.length, beam, max_length, start),
      &Translation::cross);
}

}  // namespace attn
