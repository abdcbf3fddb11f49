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

#include "attn/align/links.hpp"

namespace attn {

struct Ibm2Options {
  int iterations = 5;
  float null_probability = 0.08f;     // p0
  float tension = 4.0f;               // initial lambda
  bool optimize_tension = true;
  bool variational_bayes = true;      // fast_align -v
  float alpha = 0.01f;                // Dirichlet concentration for -v
};

using Sentence = std::vector<std::string>;

class SafeTensorsWriter;
class SafeTensors;

// theta(f | e) with its two vocabularies; shared by IBM Model 2 and the HMM (src/attn/hmm.hpp).
// Word ids start at 1; source id 0 is NULL; a word outside the vocabulary has id -1. Words are
// looked up (and interned in training) by their NFC form.
struct TranslationTable {
  std::unordered_map<std::string, int> source_vocabulary, target_vocabulary;
  std::vector<std::unordered_map<int, float>> table;  // [source id] -> target id -> theta

  double translation(int source_id, int target_id) const;  // tiny (1e-9) for unseen pairs
  int source_id(const std::string& word) const;
  int target_id(const std::string& word) const;
  std::size_t size() const;  // entries
  // Tensors source, target (I32) and probability (F16) of the entries >= min_probability, and
  // the vocabularies as JSON arrays in the metadata, all under `prefix`.
  void write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability) const;
  static TranslationTable read(const SafeTensors& file, const std::string& prefix);
};

// A training corpus as word ids, every co-occurring (e, f) pair numbered once, so that EM works
// on flat arrays instead of hash lookups.
struct IndexedCorpus {
  std::vector<std::vector<int>> sources, targets;  // [pair][word] ids; empty pairs skipped
  // links[k]: for each target word i of pair k, the pair numbers of (NULL, e_1 .. e_n) with f_i
  std::vector<std::vector<int>> links;
  std::vector<int> pair_source, pair_target;  // [pair number] -> e, f ids

  // Adds new words to the vocabularies of `table` (which keeps the ids it already has).
  static IndexedCorpus build(const std::vector<Sentence>& source, const std::vector<Sentence>& target, TranslationTable& table);
  // theta for every pair number, from `table` (whose vocabularies this corpus was built with).
  std::vector<double> translations(const TranslationTable& table) const;
  // M-step: theta(f|e) = c(e,f) / sum_f c(e,f), or its variational-Bayes form with Dirichlet alpha.
  void maximize(const std::vector<double>& counts, bool variational_bayes, double alpha, std::vector<double>& theta) const;
  // Replaces table.table by these pairs' theta.
  void store(const std::vector<double>& theta, TranslationTable& table) const;
};

// The metadata value `key` as a number in [low, high], or an error naming the key.
float read_number(const SafeTensors& file, const std::string& key, float low, float high);

// One direction: aligns each target word to one source word (or none).
class Ibm2Model {
 public:
  // source[k] and target[k] are the words of sentence pair k. Empty pairs are skipped.
  void train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const Ibm2Options& options = {});

  // Posterior p(a_t = s | pair) as P[t][s] (each row sums to 1 - p(NULL)).
  std::vector<float> posteriors(const Sentence& source, const Sentence& target) const;
  // Viterbi links (source, target); target words whose best choice is NULL stay unaligned.
  Alignment align(const Sentence& source, const Sentence& target) const;

  // Storage in a safetensors file under `prefix`: I32 source and target ids, F16 probabilities
  // of the entries >= min_probability, vocabularies and parameters in the metadata.
  void write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability) const;
  static Ibm2Model read(const SafeTensors& file, const std::string& prefix);

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

// A statistical aligner's two directions, as the hybrid alignment method mixes them with attention.
class StatisticalModel {
 public:
  virtual ~StatisticalModel() = default;
  // p(a_t = s) of the direction whose target words choose source words: P[t][s].
  virtual std::vector<float> forward_posteriors(const Sentence& source, const Sentence& target) const = 0;
  // p(a_s = t) of the other direction, source words choosing target words: [s][t].
  virtual std::vector<float> backward_posteriors(const Sentence& source, const Sentence& target) const = 0;
};

// The mean of a model's two directions' posteriors, P[t][s], for heatmaps and symmetrization.
std::vector<float> mean_posteriors(const StatisticalModel& model, const Sentence& source, const Sentence& target);

// Both directions and grow-diag-final-and, like fast_align + atools.
class Ibm2Aligner : public StatisticalModel {
 public:
  void train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const Ibm2Options& options = {});
  Alignment align(const Sentence& source, const Sentence& target) const;
  // Mean of the two directions' posteriors, P[t][s], for heatmaps.
  std::vector<float> posteriors(const Sentence& source, const Sentence& target) const;

  const Ibm2Model& forward() const { return forward_; }
  const Ibm2Model& backward() const { return backward_; }
  std::vector<float> forward_posteriors(const Sentence& source, const Sentence& target) const override {
    return forward_.posteriors(source, target);
  }
  std::vector<float> backward_posteriors(const Sentence& source, const Sentence& target) const override {
    return backward_.posteriors(target, source);
  }

  // One file (format attnscope-ibm2-v1) for both directions; loading validates everything.
  std::string serialize(float min_probability = 1e-5f) const;
  static Ibm2Aligner deserialize(std::string bytes);
  // The same from a file already parsed (whose format says which aligner it holds).
  static Ibm2Aligner from_file(const SafeTensors& file);

 private:
  Ibm2Model forward_;   // target words choose source words
  Ibm2Model backward_;  // source words choose target words
};

}  // namespace attn
