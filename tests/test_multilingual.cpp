// A multilingual Transformer (docs/MODEL_FORMAT.md §7.1) against its PyTorch reference
// (tests/data/tiny-multilingual.*, made by tools/train/make_transformer_fixture.py): the decoder
// starts from the target language's tag, the wrapper chooses it, and bad tags are refused.
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "attn/models/translation_model.hpp"
#include "fixtures.hpp"
#include "json_reference.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

const nlohmann::json& multilingual_reference() {
  static const nlohmann::json json = nlohmann::json::parse(read_file("tiny-multilingual-reference.json"));
  return json;
}

const std::string& bytes() {
  static const std::string file = read_file("tiny-multilingual.safetensors");
  return file;
}

double max_difference(const std::vector<float>& a, const nlohmann::json& expected) {
  const std::vector<float> b = testing::flattened(expected);
  REQUIRE(a.size() == b.size());
  double worst = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(double(a[i]) - double(b[i])));
  return worst;
}

// The fixture with its metadata changed by `meta`.
template <class Meta>
std::string with_metadata(Meta meta) {
  const SafeTensors file = SafeTensors::parse(bytes());
  SafeTensorsWriter writer;
  for (const auto& [name, info] : file.tensors()) writer.add(name, file.floats(name), info.shape, true);
  std::map<std::string, std::string> metadata = file.metadata();
  meta(metadata);
  for (const auto& [key, value] : metadata) writer.metadata(key, value);
  return writer.bytes();
}

}  // namespace

TEST_CASE("a multilingual Transformer reads its language tags", "[multilingual]") {
  const TranslationModel model = TranslationModel::load(bytes());
  CHECK(model.multilingual());
  CHECK(model.languages() == std::vector<std::string>{"en", "es", "fr"});
  for (const auto& [language, id] : multilingual_reference()["tags"].items())
    CHECK(model.transformer()->language_tags().at(language) == id.get<int>());
  CHECK(model.target_language().empty());
  CHECK_THROWS_WITH(model.start_id(), Contains("multilingual") && Contains("en, es, fr"));
  CHECK_THROWS_WITH(align_words(model, {"the"}, {"el"}), Contains("choose the language"));
  CHECK_THROWS_WITH(model.for_target("de"), Contains("does not write 'de'") && Contains("en, es, fr"));
  const TranslationModel french = model.for_target("fr");
  CHECK(french.target_language() == "fr");
  CHECK(french.start_id() == multilingual_reference()["tags"]["fr"].get<int>());
  CHECK(model.target_language().empty());              // the original is unchanged
  CHECK(french.transformer() == model.transformer());  // weights shared, not copied
}

TEST_CASE("a multilingual Transformer decodes from the target's tag, as the reference", "[multilingual]") {
  const TranslationModel model = TranslationModel::load(bytes());
  const TransformerModel& transformer = *model.transformer();
  const int max_length = multilingual_reference()["max_length"].get<int>();
  for (const auto& expected : multilingual_reference()["cases"]) {
    const std::string language = expected["language"];
    INFO(expected["source"].get<std::string>() << " -> " << language);
    const auto source = expected["source_ids"].get<std::vector<int>>();
    const auto target = expected["target_ids"].get<std::vector<int>>();
    const int start = model.for_target(language).start_id();
    const TransformerModel::Forced forced = transformer.force(source, target, true, 0, start);
    CHECK(max_difference(forced.log_probs, expected["log_probs"]) < 1e-4);
    CHECK(max_difference(forced.cross, expected["cross"]) < 1e-4);
    CHECK(max_difference(forced.decoder, expected["decoder"]) < 1e-4);
    // the tag matters: <s> gives other numbers
    CHECK(max_difference(transformer.force(source, target).log_probs, expected["log_probs"]) > 1e-3);
    std::vector<int> greedy = expected["greedy_ids"].get<std::vector<int>>();
    if (!greedy.empty() && greedy.back() == Bpe::end_id) greedy.pop_back();
    CHECK(transformer.translate(transformer.encode(source), 1, max_length, start).ids == greedy);
    // the word-level entry points go through the chosen tag too
    const AttentionMaps maps = attention_maps(model.for_target(language), split_words(expected["source"]),
                                              split_words(expected["target"]), true);
    CHECK(max_difference(maps.cross, expected["cross"]) < 1e-4);
  }
  CHECK_THROWS_WITH(transformer.force(std::vector<int>{5}, std::vector<int>{6}, true, 0, -1),
                    Contains("outside the vocabulary"));
  CHECK_THROWS_WITH(transformer.translate(transformer.encode({5}), 1, 4, 300), Contains("outside the vocabulary"));
}

TEST_CASE("a multilingual model with bad language tags is refused, naming the problem", "[multilingual]") {
  const auto refused = [](const std::string& tags, const char* message) {
    INFO(tags);
    CHECK_THROWS_WITH(TranslationModel::load(with_metadata([&](auto& m) { m["language_tags"] = tags; })),
                      Contains(message));
  };
  refused("{\"es\": ", "not valid JSON");
  refused("[]", "non-empty JSON object");
  refused("{}", "non-empty JSON object");
  refused("{\"ES\": 298}", "not a language code");
  refused("{\"e\": 298}", "not a language code");
  refused("{\"es\": \"298\"}", "piece id in [260, 300)");
  refused("{\"es\": 5}", "piece id in [260, 300)");
  refused("{\"es\": 300}", "piece id in [260, 300)");
  refused("{\"es\": 299}", "is piece 299 ('<2fr>'), not <2es>");
  // a one-direction model accepts only its own target
  const TranslationModel one = TranslationModel::load(with_metadata([](auto& m) {
    m.erase("language_tags");
    m["target_language"] = "es";
  }));
  CHECK_FALSE(one.multilingual());
  CHECK(one.for_target("es").start_id() == Bpe::start_id);
  CHECK_THROWS_WITH(one.for_target("fr"), Contains("into 'es' only"));
}

TEST_CASE("a head trained on shifted rows is read where the word is the decoder's input", "[multilingual]") {
  auto shifted_by = [](int shift) {
    return with_metadata([shift](auto& m) {
      auto a = nlohmann::json::parse(m["architecture"]);
      a["alignment_shift"] = shift;
      m["architecture"] = a.dump();
    });
  };
  const TranslationModel plain = TranslationModel::load(bytes()).for_target("fr");
  const TranslationModel shifted = TranslationModel::load(shifted_by(1)).for_target("fr");
  CHECK(plain.transformer()->architecture().alignment_shift == 0);  // absent reads as 0
  CHECK(shifted.transformer()->architecture().alignment_shift == 1);
  const std::vector<std::string> source{"the", "cat", "sleeps"}, target{"le", "chat", "dort"};
  const WordAttention by_row = align_words(plain, source, target, true);
  const WordAttention read = align_words(shifted, source, target);
  CHECK(read.weights == by_row.weights);
  CHECK(read.null_weights == by_row.null_weights);
  CHECK(align_words(shifted, source, target, true).weights == by_row.weights);  // never shifted twice
  CHECK(read.weights != align_words(plain, source, target).weights);
  // while translating, a piece's row is the step after it (where it is the input); a piece with
  // no step after it (the length limit cut the translation) has no row
  const WordTranslation translated = translate_words(shifted, source, 1);
  const TransformerModel& model = *shifted.transformer();
  const TransformerArchitecture& a = model.architecture();
  const Pieces sp = model.tokenizer().encode(source);
  const TransformerModel::Encoding encoding = model.encode(sp.ids);
  const TransformerModel::Translation pieces = model.translate(encoding, 1, 0, shifted.start_id());
  const std::vector<int> word_of = model.tokenizer().word_of_pieces(pieces.ids);
  const int S = encoding.length, Sw = int(source.size()), Tw = int(translated.attention.target_words.size());
  const std::size_t steps = pieces.cross.size() / (std::size_t(a.decoder_layers) * a.heads * S);
  std::vector<float> expected(std::size_t(Tw) * Sw, 0.0f);
  std::vector<int> rows(Tw, 0);
  for (std::size_t t = 0; t < pieces.ids.size(); ++t) {
    if (word_of[t] < 0 || t + 1 >= steps) continue;
    ++rows[word_of[t]];
    const float* row =
        pieces.cross.data() + (((t + 1) * a.decoder_layers + a.alignment_layer) * a.heads + a.alignment_head) * S;
    for (int j = 0; j + 1 < S; ++j) expected[std::size_t(word_of[t]) * Sw + sp.word_of_piece[j]] += row[j];
  }
  for (int w = 0; w < Tw; ++w)
    for (int j = 0; j < Sw; ++j) expected[std::size_t(w) * Sw + j] /= float(std::max(rows[w], 1));
  REQUIRE(translated.attention.weights.size() == expected.size());
  CHECK(testing::max_abs_difference(translated.attention.weights, expected) < 1e-6);
  CHECK_THROWS_WITH(TranslationModel::load(shifted_by(2)), Contains("alignment_shift = 2 is outside 0..1"));
}

TEST_CASE("every map read with shift holds a word's row where the aligning head holds it", "[multilingual]") {
  const TranslationModel shifted = TranslationModel::load(with_metadata([](auto& m) {
                                     auto a = nlohmann::json::parse(m["architecture"]);
                                     a["alignment_shift"] = 1;
                                     m["architecture"] = a.dump();
                                   })).for_target("fr");
  const TransformerArchitecture& a = shifted.transformer()->architecture();
  const std::vector<std::string> source{"the", "cat", "sleeps"}, target{"le", "chat", "dort"};
  const auto head_of = [&](const std::vector<float>& maps, int rows, int cols) {
    const float* at = maps.data() + (std::size_t(a.alignment_layer) * a.heads + a.alignment_head) * rows * cols;
    return std::vector<float>(at, at + std::size_t(rows) * cols);
  };
  const int S = int(source.size()), T = int(target.size());
  const AttentionMaps read = attention_maps(shifted, source, target, false, false, true);
  const AttentionMaps raw = attention_maps(shifted, source, target);
  CHECK(testing::max_abs_difference(head_of(read.cross, T, S), align_words(shifted, source, target).weights) < 1e-6);
  CHECK(testing::max_abs_difference(head_of(raw.cross, T, S), align_words(shifted, source, target).weights) > 1e-3);
  // the decoder's rows move with them: a word's row attends to itself and the words before it
  const std::vector<float> decoder = head_of(read.decoder, T, T);
  CHECK(decoder[0] > 0.0f);  // the first word's own key (unshifted, its row sees only <s>, left out)
  CHECK(decoder[1] == 0.0f);
  CHECK(attention_maps(shifted, source, target, true, false, true).cross ==
        attention_maps(shifted, source, target, true).cross);
  const WordTranslation translated = translate_words(shifted, source, 1, true);
  const int Tw = int(translated.attention.target_words.size());
  CHECK(testing::max_abs_difference(head_of(translated.cross, Tw, S), translated.attention.weights) < 1e-6);
  CHECK(translate_words(shifted, source, 1).cross != translated.cross);
}
