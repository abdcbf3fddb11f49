// The RNN translation model against the numpy reference implementation (tools/train/translate.py)
// on tiny random models with the real architecture and format (tests/data, made by
// tools/train/make_fixture.py): tokenizer, encoder, both attention types, forced decoding,
// greedy and beam search, word-level aggregation, and damaged model files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <tuple>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"
#include "attn/align/pairs.hpp"
#include "attn/models/rnn.hpp"
#include "fixtures.hpp"
#include "json_reference.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

const nlohmann::json& reference() {
  static const nlohmann::json json = nlohmann::json::parse(read_file("tiny-reference.json"));
  return json;
}

const RnnModel& model(const std::string& attention) {
  static const RnnModel additive = RnnModel::load(read_file("tiny-additive.safetensors"));
  static const RnnModel general = RnnModel::load(read_file("tiny-general.safetensors"));
  return attention == "additive" ? additive : general;
}

// The same fixtures as the aligner takes them.
const TranslationModel& translation_model(const std::string& attention) {
  static const TranslationModel additive = model("additive");
  static const TranslationModel general = model("general");
  return attention == "additive" ? additive : general;
}

}  // namespace

TEST_CASE("the word tokenizer splits text as the training pipeline did", "[rnn][tokenizer]") {
  for (const auto& [text, words] : reference()["tokenize"].items()) {
    INFO(text);
    CHECK(split_words(text) == words.get<std::vector<std::string>>());
  }
  CHECK(split_words("Atlanta's hard-fought") == std::vector<std::string>{"Atlanta's", "hard", "-", "fought"});
  CHECK(split_words("  ").empty());
  CHECK(split_words("a\xff"
                    "b") == std::vector<std::string>{"a", "\xEF\xBF\xBD", "b"});  // invalid UTF-8 -> U+FFFD
  CHECK(split_on_spaces("  Fokker ,\tAnthony  ") == std::vector<std::string>{"Fokker", ",", "Anthony"});
}

TEST_CASE("BPE encodes any word like the reference, with byte fallback, and decodes it back", "[rnn][tokenizer]") {
  const Bpe& bpe = model("additive").tokenizer();
  for (const auto& [word, ids] : reference()["words"].items()) {
    INFO(word);
    const std::vector<int> encoded = bpe.encode_word(word);
    CHECK(encoded == ids.get<std::vector<int>>());
    CHECK(bpe.decode_words(encoded) == std::vector<std::string>{word});
  }
  CHECK(bpe.decode_words({Bpe::start_id, Bpe::end_id}).empty());
  CHECK_THROWS_WITH(bpe.decode_words({bpe.size()}), Contains("outside the vocabulary"));
}

TEST_CASE("byte pieces decode to printable text, never U+FFFD or control characters", "[rnn][tokenizer]") {
  const Bpe& bpe = model("additive").tokenizer();
  const int space = Bpe::first_byte_id + 256;  // ▁, after the specials and the byte pieces (from_json checks it)
  REQUIRE(bpe.piece(space) == "\xE2\x96\x81");
  const auto bytes = [&](std::initializer_list<int> values) {
    std::vector<int> ids{space};
    for (int b : values) ids.push_back(Bpe::first_byte_id + b);
    return ids;
  };
  CHECK(bpe.decode_words(bytes({0xF0, 0x9F, 0x93, 0x81})) == std::vector<std::string>{"\xF0\x9F\x93\x81"});
  // what a model wrote for "I ❤️ 🍕 .": U+200B, U+2028 and a truncated sequence, each a word
  std::vector<int> ids = bytes({0xE2, 0x80, 0x8B});
  for (const std::vector<int>& more : {bytes({0xE2, 0x80, 0xA8}), bytes({0xF0, 0x9F, 0x8D}), bytes({0x41, 0x07})})
    ids.insert(ids.end(), more.begin(), more.end());
  CHECK(bpe.decode_words(ids) == std::vector<std::string>{"", "", "", "A"});
  CHECK(bpe.word_of_pieces(ids).back() == 3);  // the words keep their count and order
}

TEST_CASE("forced decoding matches the numpy reference for both attention types", "[rnn]") {
  for (const std::string attention : {"additive", "general"}) {
    const RnnModel& m = model(attention);
    CHECK(m.attention() == parse_score(attention));
    for (const auto& expected : reference()["models"][attention]) {
      const std::string source = expected["source"], target = expected["target"];
      INFO(attention << ": " << source << " ||| " << target);
      const auto source_words = split_words(source), target_words = split_words(target);
      const RnnModel::Encoding encoding = m.encode(m.tokenizer().encode(source_words).ids);
      double log_prob = 0.0;
      const std::vector<float> pieces = m.force(encoding, m.tokenizer().encode(target_words).ids, &log_prob);
      const std::vector<float> reference_pieces = testing::flattened(expected["piece_attention"]);
      REQUIRE(pieces.size() == reference_pieces.size());
      CHECK(testing::max_abs_difference(pieces, reference_pieces) < 2e-5);
      CHECK(log_prob == Approx(expected["log_prob"].get<double>()).epsilon(1e-4));
      // word level: the reference keeps the null column last
      const WordAttention words = align_words(m, source_words, target_words);
      const std::vector<float> reference_words = testing::flattened(expected["word_attention"]);
      const std::size_t columns = source_words.size() + 1;
      for (std::size_t t = 0; t < target_words.size(); ++t) {
        for (std::size_t s = 0; s < source_words.size(); ++s) {
          CHECK(words.weights[t * source_words.size() + s] == Approx(reference_words[t * columns + s]).margin(2e-5));
        }
        CHECK(words.null_weights[t] == Approx(reference_words[t * columns + source_words.size()]).margin(2e-5));
      }
    }
  }
}

TEST_CASE("greedy translation matches the reference; beam search is consistent with forced decoding", "[rnn]") {
  for (const std::string attention : {"additive", "general"}) {
    const RnnModel& m = model(attention);
    for (const auto& expected : reference()["models"][attention]) {
      const auto source_words = split_words(expected["source"].get<std::string>());
      const RnnModel::Encoding encoding = m.encode(m.tokenizer().encode(source_words).ids);
      std::vector<int> greedy = expected["greedy_ids"].get<std::vector<int>>();
      const bool ended = !greedy.empty() && greedy.back() == Bpe::end_id;
      if (ended) greedy.pop_back();
      const RnnModel::Translation translation = m.translate(encoding, 1, 12);
      INFO(attention << ": " << expected["source"]);
      CHECK(translation.ids == greedy);
      CHECK(testing::max_abs_difference(translation.attention, testing::flattened(expected["greedy_attention"])) <
            2e-5);
      const RnnModel::Translation beam = m.translate(encoding, 4);
      if (!beam.ids.empty()) {
        double forced = 0.0;
        m.force(encoding, beam.ids, &forced);  // forced decoding always adds the final </s>
        if (beam.finished)
          CHECK(beam.log_prob == Approx(forced).epsilon(1e-4));
        else
          CHECK(beam.log_prob > forced);
      }
      for (std::size_t row = 0; row + 1 < beam.attention.size() / encoding.length; ++row) {
        double sum = 0.0;
        for (int j = 0; j < encoding.length; ++j) sum += beam.attention[row * encoding.length + j];
        CHECK(sum == Approx(1.0).epsilon(1e-5));
      }
    }
  }
}

TEST_CASE("the shift variant reads each target piece's attention one step later", "[rnn]") {
  const RnnModel& m = model("additive");
  const std::vector<std::string> source{"the", "cat"}, target{"el", "gato"};
  const RnnModel::Encoding encoding = m.encode(m.tokenizer().encode(source).ids);
  const Pieces target_pieces = m.tokenizer().encode(target);
  const std::vector<float> pieces = m.force(encoding, target_pieces.ids);
  const WordAttention shifted = align_words(m, source, target, true);
  const Pieces source_pieces = m.tokenizer().encode(source);
  // last target word: mean over its pieces p of row p + 1, summed per source word
  std::vector<double> expected(2, 0.0);
  int count = 0;
  for (std::size_t t = 0; t < target_pieces.ids.size(); ++t) {
    if (target_pieces.word_of_piece[t] != 1) continue;
    ++count;
    for (std::size_t j = 0; j < source_pieces.ids.size(); ++j)
      expected[source_pieces.word_of_piece[j]] += pieces[(t + 1) * encoding.length + j];
  }
  CHECK(shifted.weights[2] == Approx(expected[0] / count).margin(1e-6));
  CHECK(shifted.weights[3] == Approx(expected[1] / count).margin(1e-6));
}

TEST_CASE("damaged or mismatched model files are rejected with the reason", "[rnn][errors]") {
  const std::string good = read_file("tiny-additive.safetensors");
  CHECK_THROWS_WITH(RnnModel::load(good.substr(0, good.size() / 2)), Contains("outside"));
  CHECK_THROWS_WITH(RnnModel::load(good.substr(0, 100)), Contains("truncated"));
  CHECK_THROWS_WITH(RnnModel::load(""), Contains("not a safetensors file"));
  // the general model's tensors under an additive label: the wrong architecture
  std::string relabelled = read_file("tiny-general.safetensors");
  const std::size_t at = relabelled.find("\"attention\":\"general\"");
  REQUIRE(at != std::string::npos);
  relabelled.replace(at, 21, "\"attention\":\"hybrid \"");
  CHECK_THROWS_WITH(RnnModel::load(relabelled), Contains("unknown attention 'hybrid '"));
  std::string other_format = good;
  other_format.replace(other_format.find("attnscope-rnn-v1"), 16, "attnscope-rnn-v9");
  CHECK_THROWS_WITH(RnnModel::load(other_format), Contains("not an attnscope-rnn-v1 model"));
  // bit flips anywhere: a clean error or a model that still loads, never a crash
  Rng rng(42);
  int rejected = 0;
  for (int trial = 0; trial < 300; ++trial) {
    std::string damaged = good;
    const std::size_t position = rng.next() % (trial % 2 ? 8 + 2000 : damaged.size());
    damaged[position] = static_cast<char>(damaged[position] ^ (1 << (rng.next() % 8)));
    try {
      (void)RnnModel::load(damaged);
    } catch (const Error&) {
      ++rejected;
    }
  }
  CHECK(rejected > 100);
  const RnnModel& m = model("additive");
  CHECK_THROWS_WITH(align_words(m, {}, {"x"}), Contains("source sentence is empty"));
  CHECK_THROWS_WITH(m.translate(m.encode({5}), 0), Contains("beam must be in 1..64"));
}

TEST_CASE("a given word that the tokenizer would split keeps its place and gets all its pieces' attention", "[rnn]") {
  const RnnModel& m = model("additive");
  const WordAttention given = align_words(m, {"the", "cat/dog", "sleeps"}, {"el", "gato"});
  const WordAttention split = align_words(m, {"the", "cat", "/", "dog", "sleeps"}, {"el", "gato"});
  REQUIRE(given.weights.size() == 2 * 3);
  for (int t = 0; t < 2; ++t) {
    CHECK(given.weights[t * 3 + 0] == Approx(split.weights[t * 5 + 0]).margin(1e-6));
    CHECK(given.weights[t * 3 + 1] ==
          Approx(split.weights[t * 5 + 1] + split.weights[t * 5 + 2] + split.weights[t * 5 + 3]).margin(1e-6));
    CHECK(given.weights[t * 3 + 2] == Approx(split.weights[t * 5 + 4]).margin(1e-6));
  }
}

TEST_CASE("the hybrid method mixes attention with IBM Model 2 posteriors; weight 0 is plain grow-diag-final-and",
          "[rnn][align]") {
  const TranslationModel& forward = translation_model("additive");
  const TranslationModel& backward = translation_model("general");
  const std::vector<std::string> source{"the", "cat", "sleeps", "on", "the", "sofa", "."};
  const std::vector<std::string> target{"el", "gato", "duerme", "en", "el", "sofá", "."};
  Ibm2Aligner statistical;
  statistical.train({source, {"the", "dog"}, {"a", "cat"}}, {target, {"el", "perro"}, {"un", "gato"}});
  AlignOptions options;
  options.method = AlignMethod::hybrid;
  options.symmetrization = Symmetrization::grow_diag_final_and;
  CHECK_THROWS_WITH(align_pair({&forward, &backward, nullptr}, source, target, options),
                    Contains("needs a statistical aligner"));
  const AlignmentModels models{&forward, &backward, &statistical};
  options.statistical_weight = 0.0f;
  AlignOptions plain;
  plain.method = AlignMethod::grow_diag_final_and;
  CHECK(align_pair(models, source, target, options).links == align_pair(models, source, target, plain).links);
  options.statistical_weight = 1.0f;  // only the statistical model speaks: its one-to-one pairs come back
  const Alignment mixed = align_pair(models, source, target, options).links;
  CHECK(std::find(mixed.begin(), mixed.end(), Link{1, 1}) != mixed.end());  // cat - gato
  options.statistical_weight = 2.0f;
  CHECK_THROWS_WITH(align_pair(models, source, target, options),
                    Contains("statistical_weight must be in [0, 1], got 2"));
}

TEST_CASE(
    "the hybrid method takes the HMM too; weight 1 with a posterior threshold is the HMM's own posterior "
    "symmetrization",
    "[rnn][align][hmm]") {
  const TranslationModel& forward = translation_model("additive");
  const TranslationModel& backward = translation_model("general");
  const std::vector<std::string> source{"the", "cat", "sleeps", "on", "the", "sofa", "."};
  const std::vector<std::string> target{"el", "gato", "duerme", "en", "el", "sofá", "."};
  const HmmAligner statistical = tiny_hmm(source, target);
  const AlignmentModels models{&forward, &backward, &statistical};
  AlignOptions options;
  options.method = AlignMethod::hybrid;
  options.statistical_weight = 1.0f;
  options.symmetrization = Symmetrization::posterior_mean;
  options.posterior_threshold = 0.35f;
  const Alignment mixed = align_pair(models, source, target, options).links;
  CHECK(mixed == statistical.align(source, target, Symmetrization::posterior_mean, 0.35f));
  CHECK(std::find(mixed.begin(), mixed.end(), Link{1, 1}) != mixed.end());  // cat - gato
  options.statistical_weight = 0.6f;
  options.mix = Mix::geometric;  // runs and still finds cat - gato
  options.symmetrization = Symmetrization::grow_diag_final_and;
  const Alignment geometric = align_pair(models, source, target, options).links;
  CHECK(std::find(geometric.begin(), geometric.end(), Link{1, 1}) != geometric.end());
}

TEST_CASE("soft-threshold links every word pair whose attention averaged over both directions reaches the threshold",
          "[rnn][align]") {
  const TranslationModel& forward = translation_model("additive");
  const TranslationModel& backward = translation_model("general");
  const std::vector<std::string> source{"the", "cat", "sleeps", "on", "the", "sofa", "."};
  const std::vector<std::string> target{"el", "gato", "duerme", "en", "el", "sofá", "."};
  const AlignmentModels models{&forward, &backward, nullptr};
  AlignOptions options;
  options.method = AlignMethod::soft_threshold;
  CHECK_THROWS_WITH(align_pair({&forward, nullptr, nullptr}, source, target, options),
                    Contains("needs a reverse model"));
  for (const float threshold : {0.05f, 0.2f, 0.4f}) {
    options.threshold = threshold;
    const PairAlignment pair = align_pair(models, source, target, options);
    const int S = 7, T = 7;
    Alignment expected;
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < S; ++s)
        if (0.5f * (pair.forward.weights[t * S + s] + pair.backward.weights[t * S + s]) >= threshold)
          expected.push_back({s, t});
    // soft-agreement: the geometric mean instead, so both directions must attend
    options.method = AlignMethod::soft_agreement;
    const PairAlignment agreeing = align_pair(models, source, target, options);
    options.method = AlignMethod::soft_threshold;
    Alignment both;
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < S; ++s)
        if (std::sqrt(agreeing.forward.weights[t * S + s] * agreeing.backward.weights[t * S + s]) >= threshold)
          both.push_back({s, t});
    const auto sorted = [](Alignment links) {
      std::sort(links.begin(), links.end(), [](const Link& a, const Link& b) {
        return std::tie(a.source, a.target) < std::tie(b.source, b.target);
      });
      return links;
    };
    CHECK(sorted(pair.links) == sorted(expected));
    if (threshold < 0.1f) CHECK(expected.size() > 7);  // a low threshold links more than one word each
    CHECK(sorted(agreeing.links) == sorted(both));
    CHECK(both.size() <= expected.size());
    for (const Link& link : both) CHECK(std::find(expected.begin(), expected.end(), link) != expected.end());
  }
  // 'attention' is the pair's choice: pair_options turns it into the pair's method and threshold
  options.method = AlignMethod::attention;
  CHECK_THROWS_WITH(align_pair(models, source, target, options), Contains("a language pair's choice"));
  LanguagePair pair;
  pair.attention_method = AlignMethod::soft_threshold;
  pair.attention_threshold = 0.25f;
  const AlignOptions resolved = pair_options(pair, options);
  CHECK(resolved.method == AlignMethod::soft_threshold);
  CHECK(resolved.threshold == 0.25f);
  options.method = AlignMethod::union_;
  CHECK(pair_options(pair, options).method == AlignMethod::union_);  // other methods stay
}
