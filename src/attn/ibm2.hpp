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

#include "attn/align.hpp"

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
  void write(class SafeTensorsWriter& writer, const std::string& prefix, float min_probability) const;
  static Ibm2Model read(const class SafeTensors& file, const std::string& prefix);

  float tension() const { return tension_; }
  float null_probability() const { return null_probability_; }
  std::size_t table_size() const;
  bool trained() const { return trained_; }

 private:
  double translation(int source_id, int target_id) const;  // theta(f|e), tiny for unseen pairs
  int source_id(const std::string& word) const;
  int target_id(const std::string& word) const;

  std::unordered_map<std::string, int> source_vocabulary_, target_vocabulary_;  // id 0 = NULL / unknown
  std::vector<std::unordered_map<int, float>> table_;  // [source id] -> target id -> theta
  float tension_ = 4.0f;
  float null_probability_ = 0.08f;
  bool trained_ = false;
};

// Both directions and grow-diag-final-and, like fast_align + atools.
class Ibm2Aligner {
 public:
  void train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const Ibm2Options& options = {});
  Alignment align(const Sentence& source, const Sentence& target) const;
  // Mean of the two directions' posteriors, P[t][s], for heatmaps.
  std::vector<float> posteriors(const Sentence& source, const Sentence& target) const;

  const Ibm2Model& forward() const { return forward_; }
  const Ibm2Model& backward() const { return backward_; }

  // One file (format attnscope-ibm2-v1) for both directions; loading validates everything.
  std::string serialize(float min_probability = 1e-5f) const;
  static Ibm2Aligner deserialize(std::string bytes);

 private:
  Ibm2Model forward_;   // target words choose source words
  Ibm2Model backward_;  // source words choose target words
};

}  // namespace attn
