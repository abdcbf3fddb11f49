// The language pairs that models are shipped for: English with the ten languages of the XL-WA
// benchmark, and with French and German (measured on Europarl's gold sets). One list, read by the
// command line's --pair and handed to JS by the module (as `attn.alignment.pairs`), from which the
// page and the model index (web/dist/models/index.json) learn which files a pair has and how it
// aligns by default.
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
  // `attn align --pair` and the page's default: the method with the lowest measured AER among
  // those whose files the pair has (models/MODEL_CARD.md), and its posterior-mean threshold.
  AlignMethod method = align_defaults.method;
  float posterior_threshold = align_defaults.posterior_threshold;
  // The hybrid's weight of the statistical posteriors against attention (AlignOptions's), for the
  // pair's own attention models: the library's 0.4 for every pair since 2026-11-27, chosen on the
  // twelve gold dev sets, each pair by the other eleven (models/MODEL_CARD.md).
  float statistical_weight = align_defaults.statistical_weight;
  // `--method attention`: the extraction from the attention models alone (no statistical model)
  // with the lowest AER on the pair's dev set, and its threshold (where the method reads one).
  AlignMethod attention_method = AlignMethod::soft_intersection;
  float attention_threshold = align_defaults.threshold;
};

// `options` for aligning `pair`: method `attention` becomes the pair's attention method, with its
// threshold; any other method is left as it is.
AlignOptions pair_options(const LanguagePair& pair, AlignOptions options);

// Every pair, en-es first (the default of the command line and the page), then by language code.
const std::vector<LanguagePair>& language_pairs();
std::vector<std::string> language_pair_names();  // "en-es", "en-bg", …
const LanguagePair& default_language_pair();     // en-es: what every entry point uses without --pair

// The pair called `name`; throws attn::Error naming it and listing the available ones.
const LanguagePair& language_pair(const std::string& name);

// The translation model file for a direction "en-XX" (the pair's forward model) or "XX-en" (its
// reverse model). Throws attn::Error for an unknown direction (listing the available ones) and
// for a pair that ships no translation model in that direction (saying so, and which do).
std::string translation_model_file(const std::string& direction);
// The directions that have a translation model: "en-es", "es-en".
std::vector<std::string> translation_directions();

}  // namespace attn
