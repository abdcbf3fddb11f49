// Language pairs as a catalogue states them: which model files serve a pair, by role, and the
// alignment settings measured best on its gold dev set. The library holds no catalogue of its
// own: the shipped one is models/pairs.json, beside the files it names, which the command line
// reads for --pair and the WebAssembly module is built with (as `attn.alignment.pairs`); the
// explorer's model index (web/dist/models/index.json) is made from it.
#pragma once

#include <string>
#include <vector>

#include "attn/align/attention_aligner.hpp"
#include "attn/align/methods.hpp"

namespace attn {

struct LanguagePair {
  std::string name;           // "en-it": English is the source side of alignment and of the forward model
  std::string language;       // "it": the language beside English (ISO 639-1)
  std::string language_name;  // "Italian", in English
  // Files in the models directory, "" where none is shipped for the pair.
  std::string hmm, ibm2;         // the statistical aligners (each file holds both directions)
  std::string forward, reverse;  // attention models English -> language and language -> English
  std::string general;           // a second English -> language model (Luong's general attention)
  // `attn align --pair` and the page's default: a method and its posterior-mean threshold.
  AlignMethod method = align_defaults.method;
  float posterior_threshold = align_defaults.posterior_threshold;
  // The hybrid's weight of the statistical posteriors against attention (AlignOptions's).
  float statistical_weight = align_defaults.statistical_weight;
  // `--method attention`: the extraction from the attention models alone (no statistical model)
  // and its threshold (where the method reads one).
  AlignMethod attention_method = AlignMethod::soft_intersection;
  float attention_threshold = align_defaults.threshold;
  // Every method's links with English articles attached to the next word (AlignOptions's), where
  // the pair's gold links do so ("attachArticles": true).
  bool attach_articles = false;
  // The hybrid's links with each pair of words that are each other's best in the posterior mean
  // added (AlignOptions's), where the pair's dev and silver sets say so ("mutualBest": true).
  bool mutual_best = false;
};

// `options` for aligning `pair`: method `attention` becomes the pair's attention method, with its
// threshold; any other method is left as it is. attach_articles and mutual_best are left to the
// caller (the pair's unless the caller chose).
AlignOptions pair_options(const LanguagePair& pair, AlignOptions options);

// The pairs of a catalogue, in its order; the first is the default of every entry point.
class PairCatalogue {
 public:
  // A catalogue's JSON text (models/pairs.json's format: {"pairs": [{"name", "language",
  // "languageName", "files": {role: file}, "method", "posteriorThreshold", "statisticalWeight",
  // "attentionMethod", "attentionThreshold", "attachArticles", "mutualBest"}, ...]}; the settings default to the
  // library's). Throws attn::Error naming the pair and the field for anything else, and for an empty list.
  static PairCatalogue parse(const std::string& json);

  const std::vector<LanguagePair>& pairs() const { return pairs_; }
  std::vector<std::string> names() const;  // "en-es", "en-bg", …
  const LanguagePair& default_pair() const { return pairs_.front(); }

  // The pair called `name`; throws attn::Error naming it and listing the available ones.
  const LanguagePair& pair(const std::string& name) const;

  // The translation model file for a direction "en-XX" (the pair's forward model) or "XX-en" (its
  // reverse model). Throws attn::Error for an unknown direction (listing the available ones) and
  // for a pair that ships no translation model in that direction (saying so, and which do).
  std::string translation_model_file(const std::string& direction) const;
  // The directions that have a translation model: "en-es", "es-en".
  std::vector<std::string> translation_directions() const;

 private:
  std::vector<LanguagePair> pairs_;
};

// The name of one direction of a multilingual translation file, source -> target:
// "en-fr-transformer". The command line reads a direction from a file of that name
// (models/en-fr-transformer.safetensors, a link to the multilingual file) and the explorer calls
// the direction so (each pair's `directionModels` in `attn.alignment.pairs` and its model index).
std::string direction_model_name(const std::string& source, const std::string& target);
// The target language of a path whose file is named after a direction ("…/en-fr-transformer", with
// any extension or none -> "fr"; languages of 2 or 3 letters a-z), "" for any other name.
std::string target_of_direction_model(const std::string& path);

}  // namespace attn
