// The statistical baseline: IBM Model 2 with fast_align's diagonal prior (Dyer et al. 2013),
// so that users can compare attention alignments with the classical method.
//
// For target word i of m and source word j of n (1-based), with NULL as j = 0:
//   p(a_i = 0) = p0,   p(a_i = j) = (1 - p0) exp(lambda h(i, j)) / Z,   h = -|i/m - j/n|
//   p(f_i | e_j) = theta(f | e), learned by EM (optionally variational Bayes, Dirichlet alpha);
// lambda (the diagonal tension) is re-estimated after each iteration, as fast_align -o does.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "attn/align/statistical.hpp"

namespace attn {

struct Ibm2Options {
  int iterations = 5;
  float null_probability = 0.08f;  // p0
  float tension = 4.0f;            // initial lambda
  bool optimize_tension = true;
  bool variational_bayes = true;  // fast_align -v
  float alpha = 0.01f;            // Dirichlet concentration for -v
};
// The options of the other direction (BidirectionalAligner trains it): the same.
inline const Ibm2Options& reversed(const Ibm2Options& options) { return options; }

// One direction: aligns each target word to one source word (or none).
class Ibm2Model {
 public:
  using Options = Ibm2Options;
  static constexpr StatisticalKind kind = StatisticalKind::ibm2;
  static constexpr const char* format = "attnscope-ibm2-v2";     // written (docs/MODEL_FORMAT.md §6)
  static constexpr const char* format_v1 = "attnscope-ibm2-v1";  // still read, and written where v2 cannot be
  static bool reads(const std::string& name) { return name == format || name == format_v1; }
  static constexpr float default_min_probability = 1e-5f;

  // source[k] and target[k] are the words of sentence pair k. Empty pairs are skipped.
  void train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const Ibm2Options& options = {});

  // Posterior p(a_t = s | pair) as P[t][s] (each row sums to 1 - p(NULL)).
  std::vector<float> posteriors(const Sentence& source, const Sentence& target) const;
  // Viterbi links (source, target); target words whose best choice is NULL stay unaligned.
  Alignment align(const Sentence& source, const Sentence& target) const;

  // Storage in a safetensors file under `prefix`: I32 source and target ids, F16 probabilities
  // of the entries >= min_probability, vocabularies and parameters in the metadata.
  // (rows and vocabularies: the table's layout, TranslationTable::write and read)
  void write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability, bool rows = false) const;
  static Ibm2Model read(const SafeTensors& file, const std::string& prefix,
                        const TranslationTable* vocabularies = nullptr);
  // Nothing shared between the directions beyond the vocabularies (as HmmModel's, for BidirectionalAligner)
  const char* file_format(bool rows) const { return rows ? format : format_v1; }
  void write_shared(SafeTensorsWriter&, bool) const {}
  static void read_shared(const SafeTensors&, Ibm2Model&, Ibm2Model&) {}

  float tension() const { return tension_; }
  float null_probability() const { return null_probability_; }
  std::size_t table_size() const { return lexicon_.size(); }
  bool trained() const { return trained_; }
  const TranslationTable& lexicon() const { return lexicon_; }

 private:
  TranslationTable lexicon_;
  float tension_ = 4.0f;
  float null_probability_ = 0.08f;
  bool trained_ = false;
};

// Both directions and grow-diag-final-and or the posterior mean, like fast_align + atools; one
// file of format attnscope-ibm2-v1.
using Ibm2Aligner = BidirectionalAligner<Ibm2Model>;

}  // namespace attn
