// The alignment methods and every rule about them, written once: which models a method needs,
// the names of methods, mixes, symmetrizations and statistical aligners, and the default settings.
// The command line reads them from here, and the JS module hands them to the page and to its
// types as `attn.alignment` (web/bindings/alignment_bindings.cpp).
#pragma once

#include <string>
#include <vector>

namespace attn {

enum class AlignMethod {
  argmax,               // per target word, its most attended source word (unless NULL wins)
  threshold,            // every word pair with weight >= threshold
  itermax,              // SimAlign's itermax on the word matrix
  intersection,         // argmax of the forward model ∩ argmax of the reverse model
  union_,               // ... ∪ ...
  grow_diag_final_and,  // ... symmetrized by grow-diag-final-and
  soft_intersection,    // itermax on the mean of the forward and reverse matrices
  soft_threshold,       // every word pair whose mean of the forward and reverse matrices >= threshold
  soft_agreement,       // ... whose geometric mean of the two matrices >= threshold (both must attend)
  attention,            // a language pair's best attention-only method (LanguagePair::attention_method)
  hybrid,               // both directions' attention mixed with a statistical aligner's posteriors
  hmm,                  // the HMM aligner alone
  ibm2,                 // IBM Model 2 alone (fast_align's model)
};

// The two statistical aligners (src/attn/align/ibm2.hpp, hmm.hpp), told apart by their files.
enum class StatisticalKind { ibm2, hmm };

// How the hybrid mixes attention a with posteriors p at weight w: (1 - w) a + w p, or a^(1-w) p^w.
enum class Mix { linear, geometric };

// How two directions become one alignment.
enum class Symmetrization {
  grow_diag_final_and,  // of each direction's per-word decisions (Koehn et al.)
  posterior_mean,       // every (s, t) whose weight averaged over both directions >= a threshold
};

struct AlignMethodInfo {
  AlignMethod method;
  const char* name;         // as the CLI's --method and JS's `method` spell it
  const char* description;  // one line, for --help and the page's list
  bool needs_model;         // reads an attention model (false: a statistical aligner alone)
  bool needs_reverse;       // ... and the reverse direction's model
  bool needs_statistical;   // needs a statistical aligner (hybrid), or is one (hmm, ibm2)
  bool reads_threshold;     // links where a weight reaches AlignOptions::threshold (the others ignore it)
};

// Every method, in the order the page lists them.
const std::vector<AlignMethodInfo>& align_methods();
const AlignMethodInfo& info(AlignMethod method);
// Throws attn::Error naming the value and the known names.
AlignMethod parse_align_method(const std::string& name);
StatisticalKind parse_statistical_kind(const std::string& name);
Mix parse_mix(const std::string& name);
Symmetrization parse_symmetrization(const std::string& name);  // "grow-diag-final-and" | "posterior"
const char* to_string(AlignMethod method);
const char* to_string(StatisticalKind kind);
const char* to_string(Mix mix);
const char* to_string(Symmetrization symmetrization);
std::vector<std::string> align_method_names();
std::vector<std::string> statistical_kind_names();
std::vector<std::string> mix_names();
std::vector<std::string> symmetrization_names();

inline bool needs_model(AlignMethod method) { return info(method).needs_model; }
inline bool needs_reverse(AlignMethod method) { return info(method).needs_reverse; }
inline bool needs_statistical(AlignMethod method) { return info(method).needs_statistical; }
// The aligner that a statistical-only method is (hmm, ibm2); for the hybrid, the default one.
StatisticalKind statistical_kind(AlignMethod method);

// What `attn align` and the page use unless told otherwise: the settings with the lowest AER on
// XL-WA en-es dev (models/MODEL_CARD.md: 0.183, against 0.201 for the HMM alone). The library's
// AlignOptions start from the same numbers.
struct AlignDefaults {
  AlignMethod method = AlignMethod::hybrid;
  StatisticalKind statistical = StatisticalKind::hmm;
  // 0.4: the lowest mean dev AER over the twelve pairs' gold sets of 0.3 .. 0.6, and for each pair
  // over the other eleven (MODEL_CARD.md: XL-WA's silver links no longer rank the hybrid, since
  // the Transformer trained on them); 0.6 until 2026-11-27, chosen on en-es with its RNNs
  float statistical_weight = 0.4f;
  Mix mix = Mix::linear;
  Symmetrization symmetrization = Symmetrization::posterior_mean;
  float posterior_threshold = 0.35f;  // the best of 0.3 .. 0.4
  // AlignOptions::mutual_best's least mean weight (0.05, 0.1 and 0.15 measured alike on the dev sets)
  float mutual_best_floor = 0.1f;
  float threshold = 0.3f;  // the threshold method's
};
inline constexpr AlignDefaults align_defaults{};

}  // namespace attn
