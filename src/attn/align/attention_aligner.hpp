// Sentence-pair alignment with the attention models: the extraction methods over the word-level
// attention of one model, or of a model and its reverse (symmetrized), behind one interface
// shared by the command-line tool and the JS bindings.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attn/align/links.hpp"
#include "attn/models/rnn.hpp"

namespace attn {

enum class AlignMethod {
  argmax,        // per target word, its most attended source word (null column excluded)
  threshold,     // every word pair with weight >= threshold
  itermax,       // SimAlign's itermax on the word matrix
  intersection,  // argmax of the forward model ∩ argmax of the reverse model
  union_,        // ... ∪ ...
  grow_diag_final_and,
  soft_intersection,  // itermax on the mean of forward and reverse matrices
  hybrid              // grow-diag-final-and over attention mixed with a statistical aligner's posteriors
};
AlignMethod parse_align_method(const std::string& name);
const char* to_string(AlignMethod method);
bool needs_reverse(AlignMethod method);
bool needs_statistical(AlignMethod method);
std::vector<std::string> align_method_names();

class StatisticalModel;  // attn/ibm2.hpp: IBM Model 2 (Ibm2Aligner) or the HMM (HmmAligner)

struct AlignOptions {
  AlignMethod method = AlignMethod::argmax;
  // hybrid only: the statistical aligner and the weight w of its posteriors in the mix, either
  // (1 - w) attention + w posterior, or, geometric, attention^(1 - w) posterior^w
  const StatisticalModel* statistical = nullptr;
  float statistical_weight = 0.5f;
  bool geometric_mix = false;
  // hybrid: when > 0, link every (s, t) whose mixed weight, averaged over the two directions,
  // reaches it, instead of argmax per direction and grow-diag-final-and
  float posterior_threshold = 0.0f;
  float threshold = 0.3f;
  bool shift = false;  // read attention where the word is the decoder input (Chen et al. 2020)
};

struct PairAlignment {
  WordAttention forward;   // P[t][s] of the forward model
  WordAttention backward;  // the reverse model's, transposed to [t][s]; empty without one
  Alignment links;
};

// reverse may be null unless the method needs it. Words are taken as given.
PairAlignment align_pair(const RnnModel& forward, const RnnModel* reverse, const std::vector<std::string>& source,
                         const std::vector<std::string>& target, const AlignOptions& options);

}  // namespace attn
