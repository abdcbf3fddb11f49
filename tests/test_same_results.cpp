// Same results: every shipped model's links, beam-4 translations and attention maps on 200 fixed
// sentence pairs (tests/data/same-results/pairs.tsv), compared with a file recorded by an earlier
// build (tests/data/same-results/recorded.tsv). It guards refactors of the models and the core:
// links and translations must be identical, every attention value within 1e-5. Where a changed
// summation order flips a near-tie in a translation, the test accepts the new one only when the
// model scores both within 1e-5. Runs natively and in both WebAssembly builds (NODERAWFS). The pairs
// come from the held-out test splits of data/en-XX (origins.tsv: each line's source and licence).
//
// Re-record (only with a new model, or when a change of results is intended and said so):
//   ATTN_SAME_RESULTS_RECORD=1 build/bin/attn_tests "[same-results]"
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/pairs.hpp"
#include "attn/align/statistical.hpp"
#include "attn/models/tokenizer.hpp"
#include "attn/models/translation_model.hpp"
#include "support.hpp"

using namespace attn;

namespace {

const std::string folder = std::string(ATTN_TEST_DATA) + "/same-results/";

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  INFO(path);
  REQUIRE(in.good());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

const TranslationModel& shipped_model(const std::string& file) {
  static std::map<std::string, TranslationModel> models;
  auto found = models.find(file);
  if (found == models.end())
    found = models.emplace(file, TranslationModel::load(bytes_of(std::string(ATTN_MODELS_DIR) + "/" + file))).first;
  return found->second;
}

const StatisticalModel& shipped_aligner(const std::string& file) {
  static std::map<std::string, std::unique_ptr<StatisticalModel>> aligners;
  std::unique_ptr<StatisticalModel>& aligner = aligners[file];
  if (!aligner) aligner = load_statistical_aligner(bytes_of(std::string(ATTN_MODELS_DIR) + "/" + file));
  return *aligner;
}

struct SentencePair {
  std::string language;
  std::vector<std::string> english, other;
};

std::vector<SentencePair> fixed_pairs() {
  std::istringstream lines(bytes_of(folder + "pairs.tsv"));
  std::vector<SentencePair> pairs;
  for (std::string line; std::getline(lines, line);) {
    const std::size_t a = line.find('\t'), b = line.find('\t', a + 1);
    REQUIRE(b != std::string::npos);
    pairs.push_back(
        {line.substr(0, a), split_on_spaces(line.substr(a + 1, b - a - 1)), split_on_spaces(line.substr(b + 1))});
  }
  return pairs;
}

// Attention values in millionths (rounding adds at most 5e-7 to the 1e-5 allowed), to keep the file small.
std::string numbers(const std::vector<float>& values) {
  std::string text;
  for (float value : values) {
    if (!text.empty()) text += ' ';
    text += std::to_string(std::lround(static_cast<double>(value) * 1e6));
  }
  return text;
}

std::vector<float> parse_numbers(const std::string& text) {
  std::istringstream in(text);
  std::vector<float> values;
  for (long millionths; in >> millionths;) values.push_back(static_cast<float>(millionths * 1e-6));
  return values;
}

// One model set per pair: the translation models both ways (the multilingual Transformer set to each
// language) and its HMM aligner.
struct PairModels {
  std::string forward_file, reverse_file;
  TranslationModel forward, reverse;
};

PairModels models_of(const LanguagePair& pair) {
  TranslationModel forward = shipped_model(pair.forward), reverse = shipped_model(pair.reverse);
  if (forward.multilingual()) forward = forward.for_target(pair.language);
  if (reverse.multilingual()) reverse = reverse.for_target("en");
  return {pair.forward, pair.reverse, forward, reverse};
}

// Every result, one line each: "kind<TAB>key<TAB>value".
struct Results {
  std::vector<std::pair<std::string, std::string>> lines;  // key (kind, pair, model, what), value
  void add(const std::string& key, const std::string& value) { lines.emplace_back(key, value); }
};

void align_all(Results& results, std::size_t index, const SentencePair& sentence, const LanguagePair& pair,
               const std::string& name, const TranslationModel& forward, const TranslationModel& reverse) {
  const StatisticalModel& hmm = shipped_aligner(pair.hmm);
  AlignOptions defaults;
  defaults.method = pair.method;
  defaults.posterior_threshold = pair.posterior_threshold;
  defaults.statistical_weight = pair.statistical_weight;
  AlignOptions attention;
  attention.method = AlignMethod::attention;
  attention = pair_options(pair, attention);
  AlignOptions argmax;  // the forward model alone
  for (const AlignOptions& options : {defaults, attention, argmax}) {
    const PairAlignment alignment = align_pair({&forward, &reverse, &hmm}, sentence.english, sentence.other, options);
    results.add("align\t" + std::to_string(index) + "\t" + name + "\t" + to_string(options.method),
                to_pharaoh(alignment.links));
  }
}

// Natively every pair; in WebAssembly, where the same work takes 3x (SIMD) to 9x (scalar) as long
// and ./run test runs both builds, a fixed part of them: every fourth in the SIMD build, every
// eighth in the scalar one (50 of its 56 s with every fourth), and each language's first, which
// holds its maps. The builds' agreement with the native results is what they check.
#if defined(__EMSCRIPTEN__) && ATTN_SIMD
constexpr std::size_t stride = 4;
#elif defined(__EMSCRIPTEN__)
constexpr std::size_t stride = 8;
#else
constexpr std::size_t stride = 1;
#endif

Results compute_results() {
  Results results;
  const std::vector<SentencePair> pairs = fixed_pairs();
  REQUIRE(pairs.size() == 200);
  std::map<std::string, int> seen;  // sentences per language so far
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const SentencePair& sentence = pairs[i];
    const bool first_of_language = seen[sentence.language]++ == 0;
    if (i % stride != 0 && !first_of_language) continue;
    const LanguagePair& pair = testing::shipped_pairs().pair("en-" + sentence.language);
    const PairModels models = models_of(pair);
    const std::string key = std::to_string(i);
    // the pair's own models (the multilingual Transformer, set to each direction), then for en-es
    // its RNNs too: Bahdanau's (links and translations) and Luong's (attention weights)
    align_all(results, i, sentence, pair, models.forward_file, models.forward, models.reverse);
    if (pair.name == "en-es") {
      const TranslationModel& additive = shipped_model("en-es-additive.safetensors");
      const TranslationModel& additive_back = shipped_model("es-en-additive.safetensors");
      align_all(results, i, sentence, pair, "en-es-additive.safetensors", additive, additive_back);
      if (i < 10) {
        const WordAttention general = align_words(shipped_model(pair.general), sentence.english, sentence.other);
        results.add("align-weights\t" + key + "\t" + pair.general, numbers(general.weights));
        results.add("translate\t" + key + "\ten-es\ten-es-additive.safetensors",
                    translate_words(additive, sentence.english, 4).text);
        results.add("translate\t" + key + "\tes-en\tes-en-additive.safetensors",
                    translate_words(additive_back, sentence.other, 4).text);
      }
    }
    const WordTranslation there = translate_words(models.forward, sentence.english, 4);
    results.add("translate\t" + key + "\ten-" + pair.language + "\t" + models.forward_file, there.text);
    if (i % 2 == 0) {
      const WordTranslation back = translate_words(models.reverse, sentence.other, 4);
      results.add("translate\t" + key + "\t" + pair.language + "-en\t" + models.reverse_file, back.text);
    }
    if (first_of_language) {  // every map of each language's first pair
      const AttentionMaps maps = attention_maps(models.forward, sentence.english, sentence.other);
      results.add("attentions-cross\t" + key + "\t" + models.forward_file, numbers(maps.cross));
      results.add("attentions-encoder\t" + key + "\t" + models.forward_file, numbers(maps.encoder));
      results.add("attentions-decoder\t" + key + "\t" + models.forward_file, numbers(maps.decoder));
    }
  }
  return results;
}

// The model's score of a translation (its text split into words), to tell a near-tie from a change.
double score(const std::string& key, const std::string& text) {
  const std::vector<std::string> fields = [&] {
    std::vector<std::string> parts;
    std::istringstream in(key);
    for (std::string part; std::getline(in, part, '\t');) parts.push_back(part);
    return parts;
  }();
  REQUIRE(fields.size() == 4);
  const std::vector<SentencePair> pairs = fixed_pairs();
  const SentencePair& sentence = pairs.at(std::stoul(fields[1]));
  const PairModels models = models_of(testing::shipped_pairs().pair("en-" + sentence.language));
  const bool forward = fields[2].rfind("en-", 0) == 0;
  const std::string& pair_file = forward ? models.forward_file : models.reverse_file;
  const TranslationModel& model =
      fields[3] == pair_file ? (forward ? models.forward : models.reverse) : shipped_model(fields[3]);  // en-es's RNNs
  return align_words(model, forward ? sentence.english : sentence.other, split_on_spaces(text), false, true).log_prob;
}

}  // namespace

TEST_CASE("every shipped model gives the recorded links, translations and attention maps on 200 fixed pairs",
          "[same-results][models]") {
  const Results results = compute_results();
  const std::string recorded_path = folder + "recorded.tsv";
  const char* record = std::getenv("ATTN_SAME_RESULTS_RECORD");
  if (record && std::string(record) == "1") {
    REQUIRE(stride == 1);  // the native build records every pair
    std::ofstream out(recorded_path, std::ios::binary);
    for (const auto& [key, value] : results.lines) out << key << '\t' << value << '\n';
    REQUIRE(out.good());
    WARN("recorded " << results.lines.size() << " results in " << recorded_path);
    return;
  }
  std::map<std::string, std::string> recorded;
  std::istringstream lines(bytes_of(recorded_path));
  for (std::string line; std::getline(lines, line);) {
    std::size_t cut = 0;
    for (int tabs = 0; tabs < 4; ++tabs) cut = line.find('\t', cut + 1);  // after kind, pair, model, what
    if (line.rfind("align\t", 0) != 0 && line.rfind("translate\t", 0) != 0)
      cut = line.find('\t', line.find('\t', line.find('\t') + 1) + 1);  // maps: kind, pair, model
    REQUIRE(cut != std::string::npos);
    recorded[line.substr(0, cut)] = line.substr(cut + 1);
  }
  if (stride == 1) CHECK(recorded.size() == results.lines.size());
  int links = 0, translations = 0, near_ties = 0, values = 0;
  float largest = 0.0f;
  for (const auto& [key, value] : results.lines) {
    INFO(key);
    const auto found = recorded.find(key);
    REQUIRE(found != recorded.end());
    const std::string& before = found->second;
    if (key.rfind("align\t", 0) == 0) {
      CHECK(value == before);
      ++links;
    } else if (key.rfind("translate\t", 0) == 0) {
      ++translations;
      if (value != before) {  // a near-tie flipped, or a change
        INFO("now: " << value << "\nrecorded: " << before);
        CHECK(std::abs(score(key, value) - score(key, before)) <= 1e-5);
        ++near_ties;
      }
    } else {
      const std::vector<float> now = parse_numbers(value), then = parse_numbers(before);
      REQUIRE(now.size() == then.size());
      for (std::size_t k = 0; k < now.size(); ++k) largest = std::max(largest, std::abs(now[k] - then[k]));
      values += static_cast<int>(now.size());
    }
  }
  CHECK(largest <= 1e-5f + 5e-7f);
  if (stride == 1) {
    CHECK(links == 200 * 3 + 35 * 3);
    CHECK(translations == 300 + 10 * 2);  // and the RNNs' both ways on en-es's first 10
  } else if (stride == 4) {  // every fourth pair and each language's first: 59 pairs, 9 of them en-es, 53 even
    CHECK(links == 59 * 3 + 9 * 3);
    CHECK(translations == 59 + 53 + 3 * 2);  // en-es's pairs 0, 4 and 8 are among its first 10
  } else {  // every eighth and each language's first: 35 pairs, 5 of them en-es, 29 even
    CHECK(links == 35 * 3 + 5 * 3);
    CHECK(translations == 35 + 29 + 2 * 2);  // en-es's pairs 0 and 8 are among its first 10
  }
  WARN(links << " link sets and " << translations << " translations as recorded (" << near_ties
             << " near-ties flipped), " << values << " attention values within " << largest);
}
