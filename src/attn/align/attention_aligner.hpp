// Sentence-pair alignment by any method of attn/align/methods.hpp: the extraction methods over the
// word-level attention of one translation model, or of a model and its reverse (symmetrized), the
// hybrid of attention and a statistical aligner, or a statistical aligner alone. The one entry
// point behind the command line's `attn align` and the JS module's `model.align`.
#pragma once

#include <string>
#include <vector>

#include "attn/align/links.hpp"
#include "attn/align/methods.hpp"
#include "attn/models/translation_model.hpp"

namespace attn {

class StatisticalModel;  // attn/align/statistical.hpp: IBM Model 2 (Ibm2Aligner) or the HMM (HmmAligner)

// What a method may read; align_pair checks that its method has what it needs (methods.hpp).
struct AlignmentModels {
  const TranslationModel* forward = nullptr;      // source -> target (either architecture)
  const TranslationModel* reverse = nullptr;      // target -> source
  const StatisticalModel* statistical = nullptr;  // hybrid, hmm, ibm2
};

// Every setting starts at align_defaults (the best measured), but the method, which starts at
// argmax: the one that needs nothing beyond the forward model.
struct AlignOptions {
  AlignMethod method = AlignMethod::argmax;
  // hybrid: the weight w of the statistical posteriors in the mix with attention
  float statistical_weight = align_defaults.statistical_weight;
  Mix mix = align_defaults.mix;
  // hybrid, hmm and ibm2: how the two directions become one alignment, and the threshold of
  // Symmetrization::posterior_mean
  Symmetrization symmetrization = align_defaults.symmetrization;
  float posterior_threshold = align_defaults.posterior_threshold;
  // The hybrid with Symmetrization::posterior_mean: besides the pairs whose mean reaches the
  // threshold, every pair of words that are each other's best in the mean (mutual_best_links, from
  // align_defaults.mutual_best_floor up). A language pair's choice (models/pairs.json), off by default.
  bool mutual_best = false;
  float threshold = align_defaults.threshold;  // the threshold method's
  bool shift = false;                          // read attention where the word is the decoder input (Chen et al. 2020)
  // After any method: English articles left unlinked take the next word's links (attach_articles,
  // links.hpp). A language pair's choice (models/pairs.json), off by default.
  bool attach_articles = false;
};

// Throws attn::Error naming the first setting outside its range.
void validate(const AlignOptions& options);

struct PairAlignment {
  WordAttention forward;   // P[t][s]: the forward model's, or the statistical posteriors' mean
  WordAttention backward;  // the reverse model's, transposed to [t][s]; empty unless used
  Alignment links;
};

// Words are taken as given, but the models read the Penn Treebank's escapes (-LRB-, `` …) as the
// brackets and quotes they stand for (treebank_unescaped); the result's words are the given ones.
// Throws attn::Error when the method lacks a model it needs.
PairAlignment align_pair(const AlignmentModels& models, const std::vector<std::string>& source,
                         const std::vector<std::string>& target, const AlignOptions& options);

}  // namespace attn
