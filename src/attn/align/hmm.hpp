// The HMM alignment model (Vogel et al. 1996) with Och & Ney's (2003) NULL states: a stronger
// statistical aligner than IBM Model 2, because where a word aligns depends on where the previous
// word aligned (a jump), not on a fixed diagonal.
//
// For target words f_1 .. f_J and source words e_1 .. e_I, the hidden state of target word j is
// a source position i (1..I) or a NULL state that remembers the last source position i' (0..I,
// 0 = before the first word):
//   word i  -> word i'':  (1 - p0) c(i'' - i) / sum_k c(k - i)     (k over 1..I)
//   word i  -> NULL(i):   p0                      NULL(i) -> word i'': as word i -> word i''
//   NULL(i) -> NULL(i):   p0                      start = NULL(0) without emitting
//   emission: theta(f | e_i) in a word state, theta(f | NULL) in a NULL state; a pair of identical
//   words outside the vocabulary (a name, a number) gets 0.1 instead of the unseen 1e-9.
// c(d) is a distribution over jump widths d = i'' - i clamped to [-max_jump, max_jump]. theta
// starts from IBM Model 2 (trained first) and both are re-estimated by EM (forward-backward).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attn/align/compounds.hpp"
#include "attn/align/ibm2.hpp"

namespace attn {

struct HmmOptions {
  Ibm2Options ibm2;               // the initialisation (its iterations run first)
  int iterations = 5;             // HMM EM iterations after IBM Model 2
  int max_jump = 8;               // jump widths beyond +-max_jump share one bucket each side
  float null_probability = 0.1f;  // p0, fixed (0.08 measured a little better than 0.15 and 0.25)
  bool variational_bayes = true;  // theta's M-step as in IBM Model 2 (-v)
  float alpha = 0.01f;
  // words are case-folded (Unicode full case folding) in training and alignment: fewer, denser counts
  bool lowercase = true;
  // Words cut to their first N code points (after folding) in training and alignment, 0 for whole
  // words: a crude stemmer for a language with rich inflection, whose forms then share one entry.
  int source_prefix = 0, target_prefix = 0;
  // Alignment by agreement (Liang, Taskar & Klein 2006): the two directions' HMMs trained together,
  // each E-step's link counts the product of both directions' posteriors, so that links the two
  // disagree on lose weight in both. Training only: the files are the same format either way.
  bool agreement = false;
  // Compound words of a side split into words of the training text before the prefixes are cut
  // (compounds.hpp): the splitter is learned from that side of the corpus and stored in the file;
  // a word's posteriors and links are those of its parts.
  bool source_compounds = false, target_compounds = false;
  CompoundOptions compounds;
};
// The options of the other direction (BidirectionalAligner trains it): the prefixes swap sides.
HmmOptions reversed(const HmmOptions& options);

// One direction: target words choose source words (or NULL).
class HmmModel {
 public:
  using Options = HmmOptions;
  static constexpr StatisticalKind kind = StatisticalKind::hmm;
  static constexpr const char* format = "attnscope-hmm-v2";     // written (docs/MODEL_FORMAT.md §6)
  static constexpr const char* format_v1 = "attnscope-hmm-v1";  // still read, and written where v2 cannot be
  static constexpr const char* format_v3 = "attnscope-hmm-v3";  // version 2 with compound splitters
  static bool reads(const std::string& name) { return name == format || name == format_v1 || name == format_v3; }
  static constexpr float default_min_probability = 1e-4f;

  // source[k] and target[k] are the words of sentence pair k. Empty pairs are skipped.
  void train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const HmmOptions& options = {});
  // The same from a trained IBM Model 2 of this direction (whose vocabulary covers the corpus),
  // the corpus already folded and cut as `options` say.
  void train(const Ibm2Model& initial, const std::vector<Sentence>& source, const std::vector<Sentence>& target,
             const HmmOptions& options);

  // Posterior p(a_t = s | pair) by forward-backward, P[t][s]; each row sums to 1 - p(NULL | pair).
  // With compounds split: the posterior of the pair's parts, summed over the source word's parts,
  // the largest over the target word's (so a compound links to each word one of its parts links
  // to), at most 1; a compound's row may then sum to more than 1 - p(NULL).
  std::vector<float> posteriors(const Sentence& source, const Sentence& target) const;
  // Links where a target word's best source word beats its NULL posterior (posterior decoding).
  Alignment align(const Sentence& source, const Sentence& target) const;
  // The single most probable state sequence; target words in NULL states stay unaligned.
  Alignment viterbi(const Sentence& source, const Sentence& target) const;
  // log p(target | source), summed over all alignments (for the tests and for monitoring EM).
  double log_likelihood(const Sentence& source, const Sentence& target) const;

  // Storage under `prefix`: the translation table (as IBM Model 2 stores it), jump [2 max_jump + 1]
  // F32 (c(-max_jump) .. c(max_jump)), null_probability and lowercase in the metadata, and
  // source_prefix / target_prefix when not 0 (a file without them reads whole words).
  // (rows and vocabularies: the table's layout, TranslationTable::write and read)
  void write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability, bool rows = false) const;
  static HmmModel read(const SafeTensors& file, const std::string& prefix,
                       const TranslationTable* vocabularies = nullptr);
  // What the two directions of one file share, stored once (BidirectionalAligner): the format
  // (version 3 where a side splits compounds) and the splitters, as this (forward) direction's
  // sides; read_shared gives them to both directions.
  const char* file_format(bool rows) const;
  void write_shared(SafeTensorsWriter& writer, bool rows) const;
  static void read_shared(const SafeTensors& file, HmmModel& forward, HmmModel& backward);

  // Sets every parameter directly (for tests): theta from `lexicon`, c(d) from jump [2 max_jump + 1].
  static HmmModel from_parameters(TranslationTable lexicon, std::vector<float> jump, float null_probability);

  const std::vector<float>& jump() const { return jump_; }  // c(d), d = -max_jump .. max_jump
  int max_jump() const { return static_cast<int>(jump_.size() / 2); }
  float null_probability() const { return null_probability_; }
  std::size_t table_size() const { return lexicon_.size(); }
  bool trained() const { return trained_; }
  bool lowercase() const { return lowercase_; }
  int source_prefix() const { return source_prefix_; }
  int target_prefix() const { return target_prefix_; }
  const CompoundSplitter* source_splitter() const { return source_splitter_.get(); }
  const CompoundSplitter* target_splitter() const { return target_splitter_.get(); }
  const TranslationTable& lexicon() const { return lexicon_; }

 private:
  // A sentence as the table keys it: folded, its compounds split, cut to the prefix; owner[k] is
  // the word that key k came from.
  struct Keyed {
    Sentence keys;
    std::vector<int> owner;
  };
  Keyed keyed(const Sentence& words, bool source_side) const;
  // emission [J][I + 1] (column 0 = NULL) of one pair of keyed sentences, from the table
  std::vector<double> emissions(const Sentence& source_keys, const Sentence& target_keys) const;
  // forward-backward over one pair: returns log p(target | source), fills the keys' posteriors if asked
  double run_forward_backward(const Keyed& source, const Keyed& target, std::vector<float>* posterior) const;
  Keyed checked_keys(const Sentence& words, const Sentence& other, bool source_side) const;
  // IBM Model 2, then the HMM, on a corpus already keyed with these splitters, which the model keeps
  void train_keyed(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const HmmOptions& options,
                   std::shared_ptr<const CompoundSplitter> source_splitter,
                   std::shared_ptr<const CompoundSplitter> target_splitter);

  friend struct HmmTraining;
  friend void train_directions(HmmModel&, HmmModel&, const std::vector<Sentence>&, const std::vector<Sentence>&,
                               const HmmOptions&);
  TranslationTable lexicon_;
  std::vector<float> jump_;
  float null_probability_ = 0.15f;
  bool lowercase_ = false;
  int source_prefix_ = 0, target_prefix_ = 0;
  bool trained_ = false;
  std::shared_ptr<const CompoundSplitter> source_splitter_, target_splitter_;  // null: whole words
};

// Both directions, from one corpus: each on its own, or jointly when options.agreement (the
// backward direction gets reversed(options)). Found by BidirectionalAligner<HmmModel>::train.
void train_directions(HmmModel& forward, HmmModel& backward, const std::vector<Sentence>& source,
                      const std::vector<Sentence>& target, const HmmOptions& options);

// Both directions (like Ibm2Aligner); one file of format attnscope-hmm-v2 (-v3 with compound splitters).
using HmmAligner = BidirectionalAligner<HmmModel>;

}  // namespace attn
