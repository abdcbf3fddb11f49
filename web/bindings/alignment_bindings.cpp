// The alignment rules of attn/align/methods.hpp handed to JS, so that the page, the worker and
// attn.d.ts read them instead of copying them: alignmentRules() -> {
//   methods: [{ name, description, needsModel, needsReverse, needsStatistical, readsThreshold }],
//   statisticalKinds, mixes, symmetrizations: string[],
//   defaults: { method, statistical, statisticalWeight, mix, symmetrize, posteriorThreshold, threshold },
//   pairs: [{ name, language, languageName, files: { hmm?, ibm2?, forward?, reverse?, general? },
//             method, posteriorThreshold, statisticalWeight, attentionMethod, attentionThreshold,
//             attachArticles, mutualBest }] }
//   (models/pairs.json, built in: en-es first, the default)
// The loader freezes it as `attn.alignment`.
#include <emscripten/bind.h>

#include <cstdio>
#include <cstdlib>
#include <utility>

#include "attn/align/methods.hpp"
#include "attn/align/pairs.hpp"
#include "js_args.hpp"

namespace attn::js {
namespace {

val method_list() {
  val methods = val::array();
  int index = 0;
  for (const AlignMethodInfo& method : align_methods()) {
    val entry = val::object();
    entry.set("name", std::string(method.name));
    entry.set("description", std::string(method.description));
    entry.set("needsModel", method.needs_model);
    entry.set("needsReverse", method.needs_reverse);
    entry.set("needsStatistical", method.needs_statistical);
    entry.set("readsThreshold", method.reads_threshold);
    methods.set(index++, entry);
  }
  return methods;
}

// A float setting as the shortest decimal that reads back as it: 0.3f reaches JS as 0.3, not as
// 0.30000001192092896, so the page can show it and JS can compare it with what a user typed.
double decimal(float value) {
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    const double parsed = std::strtod(text, nullptr);
    if (static_cast<float>(parsed) == value) return parsed;
  }
  return value;
}

val defaults() {
  const AlignDefaults& d = align_defaults;
  val result = val::object();
  result.set("method", std::string(to_string(d.method)));
  result.set("statistical", std::string(to_string(d.statistical)));
  result.set("statisticalWeight", decimal(d.statistical_weight));
  result.set("mix", std::string(to_string(d.mix)));
  result.set("symmetrize", std::string(to_string(d.symmetrization)));
  result.set("posteriorThreshold", decimal(d.posterior_threshold));
  result.set("threshold", decimal(d.threshold));
  return result;
}

// The shipped pair catalogue, models/pairs.json as the build found it (web/CMakeLists.txt writes
// its text into pair_catalogue.inc).
const PairCatalogue& catalogue() {
  static const PairCatalogue pairs = PairCatalogue::parse(
#include "pair_catalogue.inc"
  );
  return pairs;
}

// Each language pair, its shipped files by role (a role without a file is left out) and its
// default alignment method.
val pair_list() {
  val pairs = val::array();
  int index = 0;
  for (const LanguagePair& pair : catalogue().pairs()) {
    val files = val::object();
    for (const auto& [role, file] : {std::pair<const char*, const std::string&>{"hmm", pair.hmm},
                                     {"ibm2", pair.ibm2},
                                     {"forward", pair.forward},
                                     {"reverse", pair.reverse},
                                     {"general", pair.general}}) {
      if (!file.empty()) files.set(role, file);
    }
    val entry = val::object();
    entry.set("name", pair.name);
    entry.set("language", pair.language);
    entry.set("languageName", pair.language_name);
    entry.set("files", files);
    entry.set("method", std::string(to_string(pair.method)));
    entry.set("posteriorThreshold", decimal(pair.posterior_threshold));
    entry.set("statisticalWeight", decimal(pair.statistical_weight));
    entry.set("attentionMethod", std::string(to_string(pair.attention_method)));
    entry.set("attentionThreshold", decimal(pair.attention_threshold));
    entry.set("attachArticles", pair.attach_articles);
    entry.set("mutualBest", pair.mutual_best);
    val directions = val::object();  // a multilingual file's directions as the command line names them
    directions.set("forward", direction_model_name("en", pair.language));
    directions.set("reverse", direction_model_name(pair.language, "en"));
    entry.set("directionModels", directions);
    pairs.set(index++, entry);
  }
  return pairs;
}

val alignment_rules() {
  val rules = val::object();
  rules.set("methods", method_list());
  rules.set("statisticalKinds", string_array(statistical_kind_names()));
  rules.set("mixes", string_array(mix_names()));
  rules.set("symmetrizations", string_array(symmetrization_names()));
  rules.set("defaults", defaults());
  rules.set("pairs", pair_list());
  return rules;
}

}  // namespace
}  // namespace attn::js

EMSCRIPTEN_BINDINGS(alignment_rules) { emscripten::function("alignmentRules", &attn::js::alignment_rules); }
