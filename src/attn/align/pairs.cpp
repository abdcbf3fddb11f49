#include "attn/align/pairs.hpp"

#include <algorithm>
#include <iterator>

#include <nlohmann/json.hpp>

#include "attn/align/internal/names.hpp"
#include "attn/core/error.hpp"

namespace attn {

namespace {

using Json = nlohmann::json;

// The catalogue's field `key` of `entry` (pairs[index]) as a string, a number or a method name.
std::string text_of(const Json& entry, const char* key, const std::string& where) {
  const auto found = entry.find(key);
  if (found == entry.end() || !found->is_string() || found->get<std::string>().empty())
    fail(where, ".", key, " must be a non-empty string");
  return found->get<std::string>();
}

// A true/false field, false where absent.
bool flag_of(const Json& entry, const char* key, const std::string& where) {
  const auto found = entry.find(key);
  if (found == entry.end()) return false;
  if (!found->is_boolean()) fail(where, ".", key, " must be true or false, got ", found->dump());
  return found->get<bool>();
}

float number_of(const Json& entry, const char* key, const std::string& where, float otherwise) {
  const auto found = entry.find(key);
  if (found == entry.end()) return otherwise;
  if (!found->is_number()) fail(where, ".", key, " must be a number, got ", found->dump());
  return found->get<float>();
}

AlignMethod method_of(const Json& entry, const char* key, const std::string& where, AlignMethod otherwise) {
  if (entry.find(key) == entry.end()) return otherwise;
  try {
    return parse_align_method(text_of(entry, key, where));
  } catch (const Error& e) {
    fail(where, ".", key, ": ", e.what());
  }
}

LanguagePair pair_of(const Json& entry, const std::string& where) {
  if (!entry.is_object()) fail(where, " must be an object");
  static const char* const keys[] = {"name",
                                     "language",
                                     "languageName",
                                     "files",
                                     "method",
                                     "posteriorThreshold",
                                     "statisticalWeight",
                                     "attentionMethod",
                                     "attentionThreshold",
                                     "attachArticles",
                                     "mutualBest"};
  for (const auto& [key, value] : entry.items()) {
    if (std::find(std::begin(keys), std::end(keys), key) == std::end(keys)) fail(where, ": unknown field '", key, "'");
  }
  LanguagePair pair;
  pair.name = text_of(entry, "name", where);
  const std::string named = where + " (" + pair.name + ")";
  pair.language = text_of(entry, "language", named);
  pair.language_name = text_of(entry, "languageName", named);
  if (pair.name != "en-" + pair.language) fail(named, ": a pair is named en-LANGUAGE, got language ", pair.language);
  const auto files = entry.find("files");
  if (files == entry.end() || !files->is_object()) fail(named, ".files must be an object of files by role");
  for (const auto& [role, file] : files->items()) {
    std::string* slot = role == "hmm"       ? &pair.hmm
                        : role == "ibm2"    ? &pair.ibm2
                        : role == "forward" ? &pair.forward
                        : role == "reverse" ? &pair.reverse
                        : role == "general" ? &pair.general
                                            : nullptr;
    if (!slot) fail(named, ".files: unknown role '", role, "' (roles: hmm, ibm2, forward, reverse, general)");
    if (!file.is_string() || file.get<std::string>().empty() || file.get<std::string>().find('/') != std::string::npos)
      fail(named, ".files.", role, " must be a file name in the models directory, got ", file.dump());
    *slot = file.get<std::string>();
  }
  pair.method = method_of(entry, "method", named, pair.method);
  pair.posterior_threshold = number_of(entry, "posteriorThreshold", named, pair.posterior_threshold);
  pair.statistical_weight = number_of(entry, "statisticalWeight", named, pair.statistical_weight);
  pair.attention_method = method_of(entry, "attentionMethod", named, pair.attention_method);
  pair.attention_threshold = number_of(entry, "attentionThreshold", named, pair.attention_threshold);
  pair.attach_articles = flag_of(entry, "attachArticles", named);
  pair.mutual_best = flag_of(entry, "mutualBest", named);
  return pair;
}

}  // namespace

AlignOptions pair_options(const LanguagePair& pair, AlignOptions options) {
  if (options.method == AlignMethod::attention) {
    options.method = pair.attention_method;
    options.threshold = pair.attention_threshold;
  }
  return options;
}

PairCatalogue PairCatalogue::parse(const std::string& json) {
  const Json document = Json::parse(json, nullptr, false);
  if (document.is_discarded()) fail("the pair catalogue is not JSON");
  const auto list = document.is_object() ? document.find("pairs") : document.end();
  if (list == document.end() || !list->is_array() || list->empty())
    fail("the pair catalogue must be an object whose 'pairs' is a non-empty list");
  PairCatalogue catalogue;
  for (std::size_t i = 0; i < list->size(); ++i) {
    LanguagePair pair = pair_of((*list)[i], "pairs[" + std::to_string(i) + "]");
    for (const LanguagePair& earlier : catalogue.pairs_) {
      if (earlier.name == pair.name) fail("the pair catalogue names ", pair.name, " twice");
    }
    catalogue.pairs_.push_back(std::move(pair));
  }
  return catalogue;
}

std::vector<std::string> PairCatalogue::names() const {
  std::vector<std::string> names;
  for (const LanguagePair& pair : pairs_) names.push_back(pair.name);
  return names;
}

const LanguagePair& PairCatalogue::pair(const std::string& name) const {
  for (const LanguagePair& pair : pairs_) {
    if (pair.name == name) return pair;
  }
  fail("unknown language pair '", name, "' (available: ", detail::comma_joined(names()), ")");
}

std::vector<std::string> PairCatalogue::translation_directions() const {
  std::vector<std::string> directions;
  for (const LanguagePair& pair : pairs_) {
    if (!pair.forward.empty()) directions.push_back(pair.name);
    if (!pair.reverse.empty()) directions.push_back(pair.language + "-en");
  }
  return directions;
}

std::string PairCatalogue::translation_model_file(const std::string& direction) const {
  for (const LanguagePair& pair : pairs_) {
    const bool forward = direction == pair.name, reverse = direction == pair.language + "-en";
    if (!forward && !reverse) continue;
    const std::string& file = forward ? pair.forward : pair.reverse;
    if (file.empty()) {
      fail("no translation model is shipped for ", direction, " (", pair.language_name,
           " has only its statistical aligner so far); translation models: ",
           detail::comma_joined(translation_directions()));
    }
    return file;
  }
  std::vector<std::string> known;
  for (const LanguagePair& pair : pairs_) {
    known.push_back(pair.name);
    known.push_back(pair.language + "-en");
  }
  fail("unknown language pair '", direction, "' (available: ", detail::comma_joined(known), ")");
}

namespace {
constexpr const char* direction_model_suffix = "-transformer";

bool is_language_code(const std::string& text) {
  return text.size() >= 2 && text.size() <= 3 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= 'a' && c <= 'z'; });
}
}  // namespace

std::string direction_model_name(const std::string& source, const std::string& target) {
  if (!is_language_code(source) || !is_language_code(target))
    fail("a direction's languages are codes of 2 or 3 letters a-z, got '", source, "' and '", target, "'");
  return source + "-" + target + direction_model_suffix;
}

std::string target_of_direction_model(const std::string& path) {
  const std::size_t slash = path.find_last_of("/\\");
  std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::size_t dot = name.rfind('.');  // the file's extension, whichever
  if (dot != std::string::npos) name.resize(dot);
  const std::size_t dash = name.find('-');
  if (dash == std::string::npos) return "";
  const std::size_t second = name.find('-', dash + 1);
  if (second == std::string::npos) return "";
  const std::string source = name.substr(0, dash), target = name.substr(dash + 1, second - dash - 1);
  if (!is_language_code(source) || !is_language_code(target)) return "";
  return name == direction_model_name(source, target) ? target : "";
}

}  // namespace attn
