// The Transformer translation model against its PyTorch reference (tools/train/transformer.py) on
// a tiny random model with the real architecture and format (tests/data/tiny-transformer.*, made
// by tools/train/make_transformer_fixture.py): forced decoding with every attention map, the
// key/value cache, greedy and beam search, and damaged model files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "attn/models/transformer.hpp"
#include "fixtures.hpp"
#include "json_reference.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

const nlohmann::json& transformer_reference() {
  static const nlohmann::json json = nlohmann::json::parse(read_file("tiny-transformer-reference.json"));
  return json;
}

const std::string& model_bytes() {
  static const std::string bytes = read_file("tiny-transformer.safetensors");
  return bytes;
}

const TransformerModel& model() {
  static const TransformerModel tiny = TransformerModel::load(model_bytes());
  return tiny;
}

double max_difference(const std::vector<float>& a, const std::vector<float>& b) {
  REQUIRE(a.size() == b.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
  return worst;
}

// The fixture rewritten: every tensor passed through `change` (name, values, shape), metadata
// through `meta`, so that one problem at a time can be introduced.
template <class Change, class Meta>
std::string rewritten(Change change, Meta meta, bool half = true) {
  const SafeTensors file = SafeTensors::parse(model_bytes());
  SafeTensorsWriter writer;
  for (const auto& [name, info] : file.tensors()) {
    std::vector<float> values = file.floats(name);
    std::vector<std::int64_t> shape = info.shape;
    if (change(name, values, shape)) writer.add(name, values, shape, half);
  }
  std::map<std::string, std::string> metadata = file.metadata();
  meta(metadata);
  for (const auto& [key, value] : metadata) writer.metadata(key, value);
  return writer.bytes();
}

const auto keep_tensor = [](const std::string&, std::vector<float>&, std::vector<std::int64_t>&) { return true; };
const auto keep_metadata = [](std::map<std::string, std::string>&) {};

// The fixture with every matrix stored as I8 and a per-row F32 scale NAME.scale (max |w| / 127,
// as tools/train/quantize.py writes it), the vectors as F16; with `as_f32`, the same values
// (q * scale) written as F32 instead. `edit(name, values, scales, scale_shape)` may change a
// matrix's quantized values or its scales, or return false to leave the scale out.
template <class Edit>
std::string quantized(Edit edit, bool as_f32 = false) {
  const SafeTensors file = SafeTensors::parse(model_bytes());
  SafeTensorsWriter writer;
  for (const auto& [name, info] : file.tensors()) {
    const std::vector<float> values = file.floats(name);
    if (info.shape.size() != 2) {
      writer.add(name, values, info.shape, !as_f32);
      continue;
    }
    const std::size_t rows = static_cast<std::size_t>(info.shape[0]), columns = static_cast<std::size_t>(info.shape[1]);
    std::vector<std::int8_t> q(values.size());
    std::vector<float> scales(rows);
    for (std::size_t r = 0; r < rows; ++r) {
      float largest = 0.0f;
      for (std::size_t c = 0; c < columns; ++c) largest = std::max(largest, std::abs(values[r * columns + c]));
      scales[r] = largest / 127.0f;
      for (std::size_t c = 0; c < columns; ++c)
        q[r * columns + c] =
            static_cast<std::int8_t>(largest > 0 ? std::nearbyint(values[r * columns + c] / scales[r]) : 0);
    }
    std::vector<std::int64_t> scale_shape{info.shape[0]};
    const bool keep_scale = edit(name, q, scales, scale_shape);
    if (as_f32) {
      std::vector<float> dequantized(values.size());
      for (std::size_t i = 0; i < q.size(); ++i) dequantized[i] = static_cast<float>(q[i]) * scales[i / columns];
      writer.add(name, dequantized, info.shape, false);
    } else {
      writer.add(name, q, info.shape);
      if (keep_scale) writer.add(name + ".scale", scales, scale_shape, false);
    }
  }
  for (const auto& [key, value] : file.metadata()) writer.metadata(key, value);
  return writer.bytes();
}

const auto keep_quantized = [](const std::string&, std::vector<std::int8_t>&, std::vector<float>&,
                               std::vector<std::int64_t>&) { return true; };

}  // namespace

TEST_CASE("the tiny Transformer loads with the architecture of its metadata", "[transformer]") {
  const TransformerArchitecture& a = model().architecture();
  const auto& expected = transformer_reference()["architecture"];
  CHECK(a.encoder_layers == expected["encoder_layers"].get<int>());
  CHECK(a.decoder_layers == expected["decoder_layers"].get<int>());
  CHECK(a.heads == expected["heads"].get<int>());
  CHECK(a.model_dim == expected["model_dim"].get<int>());
  CHECK(a.ff_dim == expected["ff_dim"].get<int>());
  CHECK(a.vocab_size == model().tokenizer().size());
  CHECK(model().metadata_value("format") == "attnscope-transformer-v1");
}

TEST_CASE("forced decoding agrees with the PyTorch reference on log-probabilities and every attention map",
          "[transformer]") {
  for (const auto& expected : transformer_reference()["cases"]) {
    INFO(expected["source"].get<std::string>() << " ||| " << expected["target"].get<std::string>());
    const auto source = expected["source_ids"].get<std::vector<int>>();
    const auto target = expected["target_ids"].get<std::vector<int>>();
    CHECK(model().tokenizer().encode(split_words(expected["source"])).ids == source);
    const TransformerModel::Forced forced = model().force(source, target);
    CHECK(max_difference(forced.log_probs, testing::flattened(expected["log_probs"])) < 1e-4);
    CHECK(max_difference(forced.cross, testing::flattened(expected["cross"])) < 1e-4);
    CHECK(max_difference(forced.encoder, testing::flattened(expected["encoder"])) < 1e-4);
    CHECK(max_difference(forced.decoder, testing::flattened(expected["decoder"])) < 1e-4);
    double sum = 0.0;
    for (float x : forced.log_probs) sum += x;
    CHECK(forced.log_prob == Approx(sum));
    const TransformerModel::Forced maps_only = model().force(source, target, false);
    CHECK(maps_only.log_probs.empty());
    CHECK(maps_only.cross == forced.cross);
    CHECK(maps_only.decoder == forced.decoder);
    // the first layers alone: the same maps as those layers of the whole decoding
    const int layers = model().architecture().decoder_layers;
    for (int first = 1; first < layers; ++first) {
      const TransformerModel::Forced part = model().force(source, target, false, first);
      REQUIRE(part.cross.size() * layers == forced.cross.size() * first);
      REQUIRE(part.decoder.size() * layers == forced.decoder.size() * first);
      CHECK(std::equal(part.cross.begin(), part.cross.end(), forced.cross.begin()));
      CHECK(std::equal(part.decoder.begin(), part.decoder.end(), forced.decoder.begin()));
      CHECK(part.encoder == forced.encoder);
    }
  }
}

TEST_CASE("every row of every attention map sums to 1 and decoder self-attention is causal", "[transformer]") {
  const TransformerArchitecture& a = model().architecture();
  const auto& expected = transformer_reference()["cases"][0];
  const auto source = expected["source_ids"].get<std::vector<int>>();
  const auto target = expected["target_ids"].get<std::vector<int>>();
  const TransformerModel::Forced forced = model().force(source, target);
  const int S = static_cast<int>(source.size()) + 1, T = static_cast<int>(target.size()) + 1;
  auto check_rows = [](const std::vector<float>& maps, int columns) {
    for (std::size_t row = 0; row < maps.size() / columns; ++row) {
      double sum = 0.0;
      for (int c = 0; c < columns; ++c) sum += maps[row * columns + c];
      CHECK(sum == Approx(1.0).margin(1e-5));
    }
  };
  REQUIRE(forced.cross.size() == static_cast<std::size_t>(a.decoder_layers) * a.heads * T * S);
  REQUIRE(forced.encoder.size() == static_cast<std::size_t>(a.encoder_layers) * a.heads * S * S);
  REQUIRE(forced.decoder.size() == static_cast<std::size_t>(a.decoder_layers) * a.heads * T * T);
  check_rows(forced.cross, S);
  check_rows(forced.encoder, S);
  check_rows(forced.decoder, T);
  for (int map = 0; map < a.decoder_layers * a.heads; ++map) {
    for (int t = 0; t < T; ++t) {
      for (int u = t + 1; u < T; ++u) CHECK(forced.decoder[(static_cast<std::size_t>(map) * T + t) * T + u] == 0.0f);
    }
  }
}

TEST_CASE("decoding step by step with the key/value cache equals full recomputation", "[transformer]") {
  const TransformerArchitecture& a = model().architecture();
  const int layers_heads = a.decoder_layers * a.heads, V = a.vocab_size;
  for (const auto& expected : transformer_reference()["cases"]) {
    const auto source = expected["source_ids"].get<std::vector<int>>();
    const auto target = expected["target_ids"].get<std::vector<int>>();
    const TransformerModel::Encoding encoding = model().encode(source);
    const TransformerModel::Forced full = model().force(encoding, target);
    const int S = encoding.length, T = static_cast<int>(target.size()) + 1;
    TransformerModel::Cache cache = model().start_cache();
    std::vector<float> log_probs(V), cross(static_cast<std::size_t>(layers_heads) * S), self(layers_heads * T);
    for (int t = 0; t < T; ++t) {
      model().step(encoding, cache, t == 0 ? Bpe::start_id : target[t - 1], log_probs.data(), cross.data(),
                   self.data());
      CHECK(cache.length == t + 1);
      const int next = t + 1 < T ? target[t] : Bpe::end_id;
      CHECK(log_probs[next] == Approx(full.log_probs[t]).margin(1e-5));
      for (int map = 0; map < layers_heads; ++map) {
        for (int s = 0; s < S; ++s) {
          CHECK(cross[static_cast<std::size_t>(map) * S + s] ==
                Approx(full.cross[(static_cast<std::size_t>(map) * T + t) * S + s]).margin(1e-5));
        }
        for (int u = 0; u <= t; ++u) {
          CHECK(self[static_cast<std::size_t>(map) * (t + 1) + u] ==
                Approx(full.decoder[(static_cast<std::size_t>(map) * T + t) * T + u]).margin(1e-5));
        }
      }
    }
  }
}

TEST_CASE("a step over several hypotheses at once equals one step per hypothesis", "[transformer]") {
  const TransformerArchitecture& a = model().architecture();
  const TransformerModel::Encoding encoding =
      model().encode(transformer_reference()["cases"][0]["source_ids"].get<std::vector<int>>());
  const int V = a.vocab_size, S = encoding.length, maps = a.decoder_layers * a.heads;
  const std::vector<std::vector<int>> fed = {{Bpe::start_id, 40, 41}, {Bpe::start_id, 77, 12}};
  TransformerModel::Cache batched[] = {model().start_cache(), model().start_cache()};
  TransformerModel::Cache* caches[] = {&batched[0], &batched[1]};
  for (std::size_t t = 0; t < fed[0].size(); ++t) {
    const int previous[] = {fed[0][t], fed[1][t]};
    std::vector<float> log_probs(2 * V), cross(2 * maps * S), self(2 * maps * (t + 1));
    model().step(encoding, caches, 2, previous, log_probs.data(), cross.data(), self.data());
    for (int r = 0; r < 2; ++r) {
      TransformerModel::Cache alone = model().start_cache();
      std::vector<float> one_log_probs(V), one_cross(maps * S), one_self(maps * (t + 1));
      for (std::size_t u = 0; u <= t; ++u) {
        model().step(encoding, alone, fed[r][u], one_log_probs.data(), one_cross.data(), one_self.data());
      }
      CHECK(max_difference(one_log_probs,
                           std::vector<float>(log_probs.begin() + r * V, log_probs.begin() + (r + 1) * V)) < 1e-5);
      CHECK(max_difference(one_cross, std::vector<float>(cross.begin() + r * maps * S,
                                                         cross.begin() + (r + 1) * maps * S)) < 1e-6);
      CHECK(max_difference(one_self, std::vector<float>(self.begin() + r * maps * (t + 1),
                                                        self.begin() + (r + 1) * maps * (t + 1))) < 1e-6);
    }
  }
  TransformerModel::Cache shorter = model().start_cache();
  TransformerModel::Cache* uneven[] = {&batched[0], &shorter};
  const int previous[] = {5, 5};
  CHECK_THROWS_WITH(model().step(encoding, uneven, 2, previous, nullptr, nullptr, nullptr), Contains("same length"));
}

TEST_CASE("greedy translation equals the reference's; beam search agrees with forced decoding", "[transformer]") {
  const int max_length = transformer_reference()["max_length"].get<int>();
  for (const auto& expected : transformer_reference()["cases"]) {
    INFO(expected["source"].get<std::string>());
    const TransformerModel::Encoding encoding = model().encode(expected["source_ids"].get<std::vector<int>>());
    std::vector<int> greedy = expected["greedy_ids"].get<std::vector<int>>();
    const bool ended = !greedy.empty() && greedy.back() == Bpe::end_id;
    if (ended) greedy.pop_back();
    const TransformerModel::Translation translation = model().translate(encoding, 1, max_length);
    CHECK(translation.ids == greedy);
    CHECK(translation.finished == ended);
    const std::size_t step_map = static_cast<std::size_t>(model().architecture().decoder_layers) *
                                 model().architecture().heads * encoding.length;
    CHECK(translation.cross.size() == (translation.ids.size() + (ended ? 1 : 0)) * step_map);
    const TransformerModel::Translation beam = model().translate(encoding, 4, max_length);
    if (!beam.ids.empty()) {
      const TransformerModel::Forced forced = model().force(encoding, beam.ids);
      double prefix = forced.log_prob;
      if (!beam.finished) prefix -= forced.log_probs.back();  // the unfinished beam never scored </s>
      CHECK(beam.log_prob == Approx(prefix).epsilon(1e-4));
      CHECK(beam.log_prob >= translation.log_prob - 1e-4);
    }
  }
  CHECK_THROWS_WITH(model().translate(model().encode({5}), 0), Contains("beam must be in 1..64"));
  CHECK_THROWS_WITH(model().translate(model().encode({5}), 65), Contains("beam must be in 1..64"));
}

TEST_CASE("the same weights stored as F32 give the same results", "[transformer]") {
  const TransformerModel f32 = TransformerModel::load(rewritten(keep_tensor, keep_metadata, false));
  const auto& expected = transformer_reference()["cases"][1];
  const auto source = expected["source_ids"].get<std::vector<int>>();
  const auto target = expected["target_ids"].get<std::vector<int>>();
  CHECK(max_difference(f32.force(source, target).log_probs, model().force(source, target).log_probs) == 0.0);
}

TEST_CASE("int8 weights with per-row scales compute exactly what their dequantized values do", "[transformer]") {
  const std::string int8 = quantized(keep_quantized);
  CHECK(int8.size() < model_bytes().size());
  const TransformerModel quantized_model = TransformerModel::load(int8);
  const TransformerModel dequantized = TransformerModel::load(quantized(keep_quantized, true));
  const auto& expected = transformer_reference()["cases"][1];
  const auto source = expected["source_ids"].get<std::vector<int>>();
  const auto target = expected["target_ids"].get<std::vector<int>>();
  const auto forced = quantized_model.force(source, target, true);
  const auto reference = dequantized.force(source, target, true);
  CHECK(max_difference(forced.log_probs, reference.log_probs) == 0.0);
  CHECK(max_difference(forced.cross, reference.cross) == 0.0);
  // and near the F16 weights they came from: each weight is within half its row's step, but this
  // random d-16 fixture's 16-wide rows give a step of up to 1/127 of a large weight, so the bounds
  // are loose (measured 0.22 and 0.10); the shipped model's AER and chrF are measured on dev sets
  const auto original = model().force(source, target, true);
  const double log_prob_gap = max_difference(forced.log_probs, original.log_probs);
  CHECK(log_prob_gap > 0.0);
  CHECK(log_prob_gap < 0.4);
  CHECK(max_difference(forced.cross, original.cross) < 0.2);
}

TEST_CASE("a malformed int8 tensor or scale is refused with a message naming it", "[transformer]") {
  const std::string name = "decoder.layers.0.feed_forward.output.weight";
  const auto edit_scale = [&](auto change) {
    return quantized([&](const std::string& tensor, std::vector<std::int8_t>&, std::vector<float>& scales,
                         std::vector<std::int64_t>& shape) { return tensor == name ? change(scales, shape) : true; });
  };
  CHECK_THROWS_WITH(TransformerModel::load(edit_scale([](auto&, auto&) { return false; })),
                    Contains("tensor '" + name + "' is I8 but the file has no '" + name + ".scale'"));
  CHECK_THROWS_WITH(TransformerModel::load(edit_scale([](std::vector<float>& scales, auto& shape) {
                      scales.pop_back();
                      shape[0] -= 1;
                      return true;
                    })),
                    Contains("tensor '" + name + ".scale' has shape"));
  CHECK_THROWS_WITH(TransformerModel::load(edit_scale([](std::vector<float>& scales, auto&) {
                      scales[2] = -scales[2] - 1.0f;
                      return true;
                    })),
                    Contains("tensor '" + name + ".scale' holds a negative scale at row 2"));
  CHECK_THROWS_WITH(TransformerModel::load(edit_scale([](std::vector<float>& scales, auto&) {
                      scales[1] = std::numeric_limits<float>::infinity();
                      return true;
                    })),
                    Contains("tensor '" + name + ".scale' holds a non-finite value at index 1"));
  // a vector stored as I8, and a scale beside a tensor that is not I8
  SafeTensorsWriter writer;
  const SafeTensors file = SafeTensors::parse(model_bytes());
  for (const auto& [tensor, info] : file.tensors()) {
    if (tensor == "decoder.norm.bias") {
      writer.add(tensor, std::vector<std::int8_t>(static_cast<std::size_t>(info.shape[0]), 1), info.shape);
      writer.add(tensor + ".scale", std::vector<float>(static_cast<std::size_t>(info.shape[0]), 0.5f), info.shape);
    } else {
      writer.add(tensor, file.floats(tensor), info.shape, true);
    }
  }
  for (const auto& [key, value] : file.metadata()) writer.metadata(key, value);
  CHECK_THROWS_WITH(TransformerModel::load(writer.bytes()),
                    Contains("tensor 'decoder.norm.bias' is I8, but only matrices may be"));
  SafeTensorsWriter stray;  // the fixture as it is, and a scale beside a tensor that is not I8
  for (const auto& [tensor, info] : file.tensors()) stray.add(tensor, file.floats(tensor), info.shape, true);
  stray.add("encoder.norm.weight.scale", std::vector<float>(file.info("encoder.norm.weight").shape[0], 1.0f),
            file.info("encoder.norm.weight").shape);
  for (const auto& [key, value] : file.metadata()) stray.metadata(key, value);
  CHECK_THROWS_WITH(TransformerModel::load(stray.bytes()), Contains("unexpected tensor 'encoder.norm.weight.scale'"));
}

TEST_CASE("a malformed Transformer file is refused with a message naming the problem", "[transformer]") {
  CHECK_THROWS(TransformerModel::load(model_bytes().substr(0, model_bytes().size() - 10)));
  CHECK_THROWS(TransformerModel::load(model_bytes().substr(0, 100)));
  CHECK_THROWS_WITH(TransformerModel::load(rewritten(keep_tensor, [](auto& m) { m["format"] = "attnscope-rnn-v1"; })),
                    Contains("not an attnscope-transformer-v1 model"));
  CHECK_THROWS_WITH(TransformerModel::load(rewritten(keep_tensor, [](auto& m) { m["format"] = "gpt"; })),
                    Contains("format 'gpt'"));
  CHECK_THROWS_WITH(
      TransformerModel::load(rewritten(
          [](const std::string& name, auto&, auto&) { return name != "decoder.layers.1.cross_attention.key.bias"; },
          keep_metadata)),
      Contains("no tensor 'decoder.layers.1.cross_attention.key.bias'"));
  CHECK_THROWS_WITH(TransformerModel::load(rewritten(
                        [](const std::string& name, std::vector<float>& values, std::vector<std::int64_t>& shape) {
                          if (name == "encoder.layers.0.feed_forward.input.weight") {
                            shape = {shape[1], shape[0]};  // transposed
                          }
                          (void)values;
                          return true;
                        },
                        keep_metadata)),
                    Contains("tensor 'encoder.layers.0.feed_forward.input.weight' has shape"));
  CHECK_THROWS_WITH(TransformerModel::load(rewritten(
                        [](const std::string& name, std::vector<float>& values, auto&) {
                          if (name == "decoder.norm.weight") values[3] = std::nanf("");
                          return true;
                        },
                        keep_metadata)),
                    Contains("tensor 'decoder.norm.weight' holds a non-finite value at index 3"));
  CHECK_THROWS_WITH(
      TransformerModel::load(rewritten(keep_tensor, [](auto& m) { m["architecture"] = "{\"heads\": 2}"; })),
      Contains("needs an integer 'encoder_layers'"));
  CHECK_THROWS_WITH(TransformerModel::load(rewritten(keep_tensor,
                                                     [](auto& m) {
                                                       auto a = nlohmann::json::parse(m["architecture"]);
                                                       a["heads"] = 3;
                                                       m["architecture"] = a.dump();
                                                     })),
                    Contains("not a multiple of heads"));
  CHECK_THROWS_WITH(TransformerModel::load(rewritten(keep_tensor, [](auto& m) { m.erase("tokenizer"); })),
                    Contains("tokenizer"));
  CHECK_THROWS_WITH(TransformerModel::load(rewritten([](const std::string&, auto&, auto&) { return true; },
                                                     [](auto& m) {
                                                       auto a = nlohmann::json::parse(m["architecture"]);
                                                       a["decoder_layers"] = 1;
                                                       m["architecture"] = a.dump();
                                                     })),
                    Contains("unexpected tensor 'decoder.layers.1."));
  CHECK_THROWS_WITH(model().encode({}), Contains("source sentence is empty"));
  CHECK_THROWS_WITH(model().encode({model().tokenizer().size()}), Contains("outside the vocabulary"));
  CHECK_THROWS_WITH(model().force(std::vector<int>{5}, std::vector<int>{}), Contains("target sentence is empty"));
  const int layers = model().architecture().decoder_layers;
  const std::vector<int> five{5}, six{6};
  CHECK_THROWS_WITH(model().force(five, six, false, layers + 1),
                    Contains("layers must be in [0, " + std::to_string(layers) + "]"));
  CHECK_THROWS_WITH(model().force(five, six, false, -1),
                    Contains("layers must be in [0, " + std::to_string(layers) + "]"));
  CHECK_THROWS_WITH(model().force(five, six, true, 1), Contains("log probabilities need every decoder layer"));
}
