// The language pairs: the catalogue's format (attn/align/pairs.hpp), the shipped catalogue's rules
// (models/pairs.json), its errors, and each pair's shipped models loaded from models/ and aligning a
// fixed sentence pair (natively and, through NODERAWFS, in WebAssembly under Node).
#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/pairs.hpp"
#include "attn/align/statistical.hpp"
#include "attn/core/error.hpp"
#include "attn/models/segmenter.hpp"
#include "attn/models/tokenizer.hpp"
#include "attn/models/translation_model.hpp"
#include "support.hpp"

using namespace attn;

namespace {

std::string shipped(const std::string& file) {
  std::ifstream in(std::string(ATTN_MODELS_DIR) + "/" + file, std::ios::binary);
  REQUIRE(in);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// The explorer's example of each language (web/page/examples.mjs) and word pairs its default method must
// link: the same English sentence every time.
struct Example {
  const char* language;
  const char* target;
  std::vector<std::pair<const char*, const char*>> links;  // English word, the language's word
};
const char* const english = "The old man walks to the market every morning .";
const Example examples[] = {
    {"bg", "Старецът ходи до пазара всяка сутрин .", {{"market", "пазара"}, {"morning", "сутрин"}, {".", "."}}},
    {"da",
     "Den gamle mand går til markedet hver morgen .",
     {{"market", "markedet"}, {"morning", "morgen"}, {"man", "mand"}}},
    {"de", "Der alte Mann geht jeden Morgen zum Markt .", {{"market", "Markt"}, {"morning", "Morgen"}, {".", "."}}},
    {"es", "El anciano camina al mercado cada mañana .", {{"market", "mercado"}, {"morning", "mañana"}, {".", "."}}},
    {"et", "Vana mees kõnnib igal hommikul turule .", {{"man", "mees"}, {"morning", "hommikul"}, {".", "."}}},
    {"fr",
     "Le vieil homme marche jusqu'au marché chaque matin .",
     {{"market", "marché"}, {"morning", "matin"}, {".", "."}}},
    {"hu", "Az idős férfi minden reggel a piacra sétál .", {{"man", "férfi"}, {"morning", "reggel"}, {".", "."}}},
    {"it",
     "Il vecchio cammina fino al mercato ogni mattina .",
     {{"market", "mercato"}, {"morning", "mattina"}, {".", "."}}},
    {"nl",
     "De oude man loopt elke ochtend naar de markt .",
     {{"market", "markt"}, {"morning", "ochtend"}, {"old", "oude"}}},
    {"pt",
     "O velho caminha até ao mercado todas as manhãs .",
     {{"market", "mercado"}, {"morning", "manhãs"}, {".", "."}}},
    {"ru", "Старик каждое утро ходит на рынок .", {{"every", "каждое"}, {"morning", "утро"}, {".", "."}}},
    {"sl", "Starec vsako jutro hodi na tržnico .", {{"every", "vsako"}, {"morning", "jutro"}, {".", "."}}},
    {"zh", "老人 每天 早上 走路 去 市场 。", {{"market", "市场"}, {"morning", "早上"}, {".", "。"}}},
};

// The shipped pairs whose catalogue entry sets a flag (models/pairs.json).
std::set<std::string> shipped_pairs_setting(bool LanguagePair::*flag) {
  std::set<std::string> names;
  for (const LanguagePair& pair : testing::shipped_pairs().pairs())
    if (pair.*flag) names.insert(pair.name);
  return names;
}

std::size_t position(const std::vector<std::string>& words, const char* word) {
  const auto at = std::find(words.begin(), words.end(), word);
  REQUIRE(at != words.end());
  return static_cast<std::size_t>(at - words.begin());
}

template <typename Call>
std::string error_of(const Call& call) {
  try {
    call();
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE(
    "the pairs are English with the ten XL-WA languages, French, German and Chinese, en-es first, files named after "
    "the pair",
    "[pairs]") {
  const std::vector<std::string> names = testing::shipped_pairs().names();
  CHECK(names == std::vector<std::string>{"en-es", "en-bg", "en-da", "en-de", "en-et", "en-fr", "en-hu", "en-it",
                                          "en-nl", "en-pt", "en-ru", "en-sl", "en-zh"});
  CHECK(testing::shipped_pairs().default_pair().name == "en-es");
  for (const LanguagePair& pair : testing::shipped_pairs().pairs()) {
    INFO(pair.name);
    CHECK(pair.name == "en-" + pair.language);
    CHECK(&testing::shipped_pairs().pair(pair.name) == &pair);
    CHECK(pair.hmm == "hmm-" + pair.name + ".safetensors");  // every pair ships its HMM aligner
    // a model of one direction is named after it; a multilingual file serves both
    const auto multilingual = [](const std::string& file) { return file.rfind("multilingual-", 0) == 0; };
    if (!pair.forward.empty() && !multilingual(pair.forward)) CHECK(pair.forward.rfind(pair.name + "-", 0) == 0);
    if (!pair.reverse.empty() && !multilingual(pair.reverse)) CHECK(pair.reverse.rfind(pair.language + "-en-", 0) == 0);
    // the default method is one the pair has the files for
    if (needs_model(pair.method)) CHECK_FALSE(pair.forward.empty());
    if (needs_reverse(pair.method)) CHECK_FALSE(pair.reverse.empty());
    CHECK(pair.posterior_threshold > 0.0f);
    CHECK(pair.posterior_threshold <= 1.0f);
    CHECK(pair.statistical_weight >= 0.0f);
    CHECK(pair.statistical_weight <= 1.0f);
  }
  // en-es is what every entry point did before pairs: the library's defaults
  CHECK(testing::shipped_pairs().default_pair().method == align_defaults.method);
  CHECK(testing::shipped_pairs().default_pair().posterior_threshold == align_defaults.posterior_threshold);
  CHECK(testing::shipped_pairs().default_pair().statistical_weight == align_defaults.statistical_weight);
  // en-es keeps its RNN with Luong's general attention as the page's comparison, and IBM Model 2
  CHECK(testing::shipped_pairs().default_pair().general == "en-es-general.safetensors");
  CHECK(testing::shipped_pairs().default_pair().ibm2 == "ibm2-en-es.safetensors");
}

TEST_CASE("a catalogue is refused, naming the pair and the field, for a field, role or method it does not know",
          "[pairs]") {
  const auto message = [](const std::string& json) {
    try {
      PairCatalogue::parse(json);
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  const std::string pair = R"("name": "en-xx", "language": "xx", "languageName": "X")";
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {"hmm": "hmm-en-xx.safetensors"}}]})").empty());
  CHECK(message("[]").find("'pairs' is a non-empty list") != std::string::npos);
  CHECK(message(R"({"pairs": []})").find("'pairs' is a non-empty list") != std::string::npos);
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {"hmm": "h"}, "colour": 1}]})") ==
        "pairs[0]: unknown field 'colour'");
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {"tokenizer": "t"}}]})")
            .find("pairs[0] (en-xx).files: unknown role 'tokenizer'") == 0);
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {}, "method": "median"}]})")
            .find("pairs[0] (en-xx).method: unknown alignment method 'median'") == 0);
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {}, "posteriorThreshold": "high"}]})") ==
        "pairs[0] (en-xx).posteriorThreshold must be a number, got \"high\"");
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {}, "attachArticles": "yes"}]})") ==
        "pairs[0] (en-xx).attachArticles must be true or false, got \"yes\"");
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {}, "mutualBest": 1}]})") ==
        "pairs[0] (en-xx).mutualBest must be true or false, got 1");
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {"hmm": "../h"}}]})").find("must be a file name") !=
        std::string::npos);
  CHECK(message(R"({"pairs": [{"name": "en-xx", "language": "yy", "languageName": "Y", "files": {}}]})")
            .find("a pair is named en-LANGUAGE") != std::string::npos);
  CHECK(message("{\"pairs\": [{" + pair + R"(, "files": {}}, {)" + pair + R"(, "files": {}}]})") ==
        "the pair catalogue names en-xx twice");
  // settings left out are the library's defaults
  const LanguagePair parsed = PairCatalogue::parse("{\"pairs\": [{" + pair + R"(, "files": {}}]})").default_pair();
  CHECK(parsed.method == align_defaults.method);
  CHECK(parsed.posterior_threshold == align_defaults.posterior_threshold);
  CHECK_FALSE(parsed.attach_articles);
  CHECK_FALSE(parsed.mutual_best);
  CHECK(PairCatalogue::parse("{\"pairs\": [{" + pair + R"(, "files": {}, "mutualBest": true}]})")
            .default_pair()
            .mutual_best);
  CHECK(PairCatalogue::parse("{\"pairs\": [{" + pair + R"(, "files": {}, "attachArticles": true}]})")
            .default_pair()
            .attach_articles);
}

TEST_CASE("an unknown pair is an error that lists every available pair", "[pairs]") {
  const std::string message = error_of([] { testing::shipped_pairs().pair("en-ja"); });
  CHECK(message.find("unknown language pair 'en-ja'") != std::string::npos);
  for (const std::string& name : testing::shipped_pairs().names()) CHECK(message.find(name) != std::string::npos);
  CHECK_THROWS_AS(testing::shipped_pairs().pair(""), Error);
  CHECK_THROWS_AS(testing::shipped_pairs().pair("EN-ES"), Error);
}

TEST_CASE(
    "translation picks the pair's multilingual Transformer for both directions, en-es's too; a pair without one "
    "says so",
    "[pairs]") {
  const std::vector<std::string> directions = testing::shipped_pairs().translation_directions();
  std::size_t translated = 0;
  for (const LanguagePair& pair : testing::shipped_pairs().pairs()) {
    INFO(pair.name);
    if (pair.forward.empty()) {  // a pair with its HMM alone (no shipped pair is; the catalogue below has one)
      const std::string name = pair.name;
      try {
        testing::shipped_pairs().translation_model_file(name);
        FAIL("a translation model for " << name);
      } catch (const Error& e) {
        CHECK(std::string(e.what()).find("no translation model is shipped for " + name) == 0);
      }
      CHECK(std::find(directions.begin(), directions.end(), pair.name) == directions.end());
      continue;
    }
    translated += 2;
    // one of the two multilingual files serves both directions: the thirteen-language one wherever
    // it measured better (en-zh's always), the twelve-language one elsewhere (en-es's, which the
    // en-es-transformer link names)
    const std::string file = pair.forward;
    CHECK((file == "multilingual-transformer.safetensors" || file == "multilingual-zh-transformer.safetensors"));
    if (pair.name == "en-zh") CHECK(file == "multilingual-zh-transformer.safetensors");
    if (pair.name == "en-es") CHECK(file == "multilingual-transformer.safetensors");
    CHECK(pair.reverse == file);
    CHECK(testing::shipped_pairs().translation_model_file(pair.name) == file);
    CHECK(testing::shipped_pairs().translation_model_file(pair.language + "-en") == file);
    CHECK(std::find(directions.begin(), directions.end(), pair.language + "-en") != directions.end());
  }
  CHECK(directions.size() == translated);  // every pair with a model, both ways
  // a pair listed with its statistical aligner alone translates neither way, and says so
  const PairCatalogue hmm_only = PairCatalogue::parse(
      R"({"pairs": [{"name": "en-xx", "language": "xx", "languageName": "Xish", "files": {"hmm": "hmm-en-xx.safetensors"}}]})");
  for (const std::string direction : {"en-xx", "xx-en"})
    CHECK(error_of([&] {
            hmm_only.translation_model_file(direction);
          }).find("no translation model is shipped for " + direction + " (Xish has only its statistical aligner") == 0);
  CHECK(hmm_only.translation_directions().empty());
  const std::string unknown = error_of([] { testing::shipped_pairs().translation_model_file("ja-en"); });
  CHECK(unknown.find("unknown language pair 'ja-en'") != std::string::npos);
  CHECK(unknown.find("sl-en") != std::string::npos);
}

TEST_CASE("each pair's shipped statistical aligner loads and aligns the explorer's example by the pair's default",
          "[pairs][models]") {
  std::set<std::string> seen;
  for (const Example& example : examples) {
    const LanguagePair& pair = testing::shipped_pairs().pair(std::string("en-") + example.language);
    INFO(pair.name);
    seen.insert(pair.name);
    const std::unique_ptr<StatisticalModel> aligner = load_statistical_aligner(shipped(pair.hmm));
    CHECK(aligner->kind() == StatisticalKind::hmm);
    const std::vector<std::string> source = split_on_spaces(english), target = split_on_spaces(example.target);
    AlignOptions options;
    options.method = AlignMethod::hmm;  // every pair's statistical part (en-es mixes it with attention)
    options.posterior_threshold = pair.posterior_threshold;
    const Alignment links = align_pair({nullptr, nullptr, aligner.get()}, source, target, options).links;
    for (const auto& [english_word, word] : example.links) {
      INFO(english_word << " - " << word);
      const Link expected{static_cast<int>(position(source, english_word)), static_cast<int>(position(target, word))};
      CHECK(std::find(links.begin(), links.end(), expected) != links.end());
    }
    CHECK(links.size() >= source.size() / 2);  // most words are linked, not just the three checked
  }
  CHECK(seen.size() == testing::shipped_pairs().pairs().size());
}

TEST_CASE("aligning reads the Treebank's -LRB- and -RRB- as brackets and gives the words back as typed",
          "[pairs][models]") {
  const LanguagePair& pair = testing::shipped_pairs().pair("en-zh");
  const std::unique_ptr<StatisticalModel> aligner = load_statistical_aligner(shipped(pair.hmm));
  const std::vector<std::string> escaped = split_on_spaces("Xinhua News Agency -LRB- Reporter Mai -RRB- reported ."),
                                 plain = split_on_spaces("Xinhua News Agency ( Reporter Mai ) reported ."),
                                 target = split_on_spaces("新华社 （ 记者 麦 ） 报道 。");
  AlignOptions options;
  options.method = AlignMethod::hmm;
  const PairAlignment read = align_pair({nullptr, nullptr, aligner.get()}, escaped, target, options);
  const PairAlignment as_brackets = align_pair({nullptr, nullptr, aligner.get()}, plain, target, options);
  CHECK(read.links == as_brackets.links);
  CHECK(read.forward.weights == as_brackets.forward.weights);
  CHECK(read.forward.source_words == escaped);  // the words as given, for the figure and the links
  // the opening bracket links with the full-width one
  CHECK(std::find(read.links.begin(), read.links.end(), Link{3, 1}) != read.links.end());
}

TEST_CASE("the pairs whose gold links join English articles with the next word's translation attach them",
          "[pairs][models]") {
  // chosen on each pair's XL-WA silver links and gold dev set (models/MODEL_CARD.md): languages
  // without articles, or with a suffixed definite one
  CHECK(shipped_pairs_setting(&LanguagePair::attach_articles) ==
        std::set<std::string>{"en-bg", "en-da", "en-et", "en-ru", "en-sl"});
  for (const Example& example : examples) {
    const LanguagePair& pair = testing::shipped_pairs().pair(std::string("en-") + example.language);
    if (!pair.attach_articles) continue;
    INFO(pair.name);
    const std::unique_ptr<StatisticalModel> aligner = load_statistical_aligner(shipped(pair.hmm));
    const std::vector<std::string> source = split_on_spaces(english), target = split_on_spaces(example.target);
    AlignOptions options;
    options.method = AlignMethod::hmm;
    options.posterior_threshold = pair.posterior_threshold;
    const Alignment plain = align_pair({nullptr, nullptr, aligner.get()}, source, target, options).links;
    options.attach_articles = true;
    const Alignment attached = align_pair({nullptr, nullptr, aligner.get()}, source, target, options).links;
    CHECK(attached == attach_articles(plain, source));
    for (const Link& link : plain) CHECK(std::find(attached.begin(), attached.end(), link) != attached.end());
    // "the market": the article left out by the HMM now links where "market" does
    const auto targets_of = [](const Alignment& links, int s) {
      std::vector<int> out;
      for (const Link& link : links)
        if (link.source == s) out.push_back(link.target);
      return out;
    };
    const int the = static_cast<int>(position(source, "the")), market = the + 1;
    if (targets_of(plain, the).empty()) CHECK(targets_of(attached, the) == targets_of(plain, market));
  }
}

TEST_CASE("the pairs whose hybrid links words that are each other's best add them to the posterior mean's links",
          "[pairs][models]") {
  // chosen where a pair's XL-WA silver and gold dev AER both fell, and on en-zh's NIST dev set
  // (models/MODEL_CARD.md)
  CHECK(shipped_pairs_setting(&LanguagePair::mutual_best) ==
        std::set<std::string>{"en-da", "en-nl", "en-pt", "en-ru", "en-zh"});
  const LanguagePair& pair = testing::shipped_pairs().pair("en-zh");
  const TranslationModel file = TranslationModel::load(shipped(pair.forward));
  const TranslationModel forward = file.for_target("zh"), reverse = file.for_target("en");
  const std::unique_ptr<StatisticalModel> aligner = load_statistical_aligner(shipped(pair.hmm));
  const std::vector<std::string> source = split_on_spaces(english),
                                 target = split_on_spaces("老人 每天 早上 走路 去 市场 。");
  const int S = static_cast<int>(source.size()), T = static_cast<int>(target.size());
  AlignOptions options;
  options.method = AlignMethod::hybrid;
  options.posterior_threshold = pair.posterior_threshold;
  options.statistical_weight = pair.statistical_weight;
  const Alignment plain = align_pair({&forward, &reverse, aligner.get()}, source, target, options).links;
  options.mutual_best = true;
  const Alignment best = align_pair({&forward, &reverse, aligner.get()}, source, target, options).links;
  // the mean the hybrid thresholds: each direction's attention mixed with its posteriors
  AlignOptions attention;
  attention.method = AlignMethod::soft_threshold;
  const PairAlignment both = align_pair({&forward, &reverse, nullptr}, source, target, attention);
  const std::vector<float> f = aligner->forward_posteriors(source, target);   // [t][s]
  const std::vector<float> b = aligner->backward_posteriors(source, target);  // [s][t]
  const float w = pair.statistical_weight;
  std::vector<float> mean(static_cast<std::size_t>(S) * T);
  for (int t = 0; t < T; ++t) {
    for (int s = 0; s < S; ++s) {
      const float forward_mix = (1 - w) * both.forward.weights[t * S + s] + w * f[t * S + s];
      const float backward_mix = (1 - w) * both.backward.weights[t * S + s] + w * b[s * T + t];
      mean[t * S + s] = 0.5f * (forward_mix + backward_mix);
    }
  }
  CHECK(plain == threshold_links(mean.data(), T, S, pair.posterior_threshold));
  CHECK(best == unite(plain, mutual_best_links(mean.data(), T, S, align_defaults.mutual_best_floor)));
  // "walks" and "走路" are each other's best below the threshold
  const Link walks{static_cast<int>(position(source, "walks")), static_cast<int>(position(target, "走路"))};
  CHECK(std::find(plain.begin(), plain.end(), walks) == plain.end());
  CHECK(std::find(best.begin(), best.end(), walks) != best.end());
}

TEST_CASE(
    "each pair's shipped Transformer translates the explorer's example both ways, and its default links it with "
    "the pair's HMM",
    "[pairs][models]") {
  std::map<std::string, TranslationModel> loaded;  // a multilingual file serves many pairs: loaded once
  std::size_t translated = 0;
  for (const Example& example : examples) {
    const LanguagePair& pair = testing::shipped_pairs().pair(std::string("en-") + example.language);
    INFO(pair.name);
    if (pair.forward.empty()) continue;
    for (const std::string& file : {pair.forward, pair.reverse})
      if (loaded.count(file) == 0) loaded.emplace(file, TranslationModel::load(shipped(file)));
    const TranslationModel forward = loaded.at(pair.forward).for_target(pair.language);
    const TranslationModel reverse = loaded.at(pair.reverse).for_target("en");
    const std::vector<std::string> source = split_on_spaces(english), target = split_on_spaces(example.target);
    const WordTranslation there = translate_words(forward, source), back = translate_words(reverse, target);
    INFO(there.text << " / " << back.text);
    CHECK(there.attention.target_words.size() >= 2);
    CHECK(back.attention.target_words.size() >= 2);
    CHECK(has_han(there.text) == (pair.language == "zh"));  // each writes the language asked for
    CHECK_FALSE(has_han(back.text));
    ++translated;
    // the default method (the hybrid of both directions' attention and the HMM) links the example
    const std::unique_ptr<StatisticalModel> aligner = load_statistical_aligner(shipped(pair.hmm));
    AlignOptions options;
    options.method = pair.method;
    options.posterior_threshold = pair.posterior_threshold;
    options.statistical_weight = pair.statistical_weight;
    const Alignment links = align_pair({&forward, &reverse, aligner.get()}, source, target, options).links;
    for (const auto& [english_word, word] : example.links) {
      INFO(english_word << " - " << word);
      const Link expected{static_cast<int>(position(source, english_word)), static_cast<int>(position(target, word))};
      CHECK(std::find(links.begin(), links.end(), expected) != links.end());
    }
  }
  CHECK(translated == testing::shipped_pairs().translation_directions().size() / 2);
}

TEST_CASE("a multilingual file's directions have one name, which the command line reads back", "[pairs]") {
  CHECK(direction_model_name("en", "fr") == "en-fr-transformer");
  CHECK(direction_model_name("zh", "en") == "zh-en-transformer");
  for (const LanguagePair& pair : testing::shipped_pairs().pairs()) {
    INFO(pair.name);
    CHECK(target_of_direction_model("models/" + direction_model_name("en", pair.language) + ".safetensors") ==
          pair.language);
    CHECK(target_of_direction_model(direction_model_name(pair.language, "en")) == "en");
  }
  for (const char* other : {"models/multilingual-transformer.safetensors", "en-es-additive.safetensors",
                            "en-es-transformer-v2.safetensors", "EN-ES-transformer.safetensors", "e-es-transformer",
                            "en-espa-transformer.safetensors", "en--transformer", "", "/", "-transformer"}) {
    INFO(other);
    CHECK(target_of_direction_model(other).empty());
  }
  CHECK(target_of_direction_model("C:\\models\\en-it-transformer.safetensors") == "it");
  CHECK(error_of([] { direction_model_name("EN", "fr"); }).find("'EN'") != std::string::npos);
  CHECK(error_of([] { direction_model_name("en", ""); }).find("2 or 3 letters") != std::string::npos);
}
