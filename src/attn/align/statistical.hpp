// What IBM Model 2 and the HMM aligner share: the translation table theta(f | e) with its
// vocabularies, the indexed training corpus, posterior decoding, and the two-direction aligner
// (training, symmetrization, one file for both directions) that each of them is.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "attn/align/links.hpp"
#include "attn/align/methods.hpp"
#include "attn/core/error.hpp"
#include "attn/models/safetensors.hpp"

namespace attn {

using Sentence = std::vector<std::string>;

// theta(f | e) with its two vocabularies. Word ids start at 1; source id 0 is NULL; a word
// outside the vocabulary has id -1.
struct TranslationTable {
  std::unordered_map<std::string, int> source_vocabulary, target_vocabulary;
  std::vector<std::unordered_map<int, float>> table;  // [source id] -> target id -> theta

  double translation(int source_id, int target_id) const;  // tiny (1e-9) for unseen pairs
  int source_id(const std::string& word) const;
  int target_id(const std::string& word) const;
  std::size_t size() const;  // entries
  // The entries >= min_probability under `prefix`. Version 1 (rows false): tensors source, target
  // (I32) and probability (F16) and the vocabularies as JSON arrays in the metadata. Version 2
  // (rows true): the entries source id by source id, row_lengths I32 [|source vocabulary| + 1]
  // (NULL's first), target (U16 when every id fits, else I32) and probability (F16); no
  // vocabularies: the aligner stores them once for both directions (write_vocabularies).
  void write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability, bool rows = false) const;
  // Version 1 when `vocabularies` is null; else version 2, with its source and target vocabularies.
  static TranslationTable read(const SafeTensors& file, const std::string& prefix,
                               const TranslationTable* vocabularies = nullptr);
  // Version 2's vocabularies, once per file: source_vocabulary and target_vocabulary in the
  // metadata, those of this table (the forward direction's).
  void write_vocabularies(SafeTensorsWriter& writer) const;
  static TranslationTable read_vocabularies(const SafeTensors& file);
  // Whether `backward` (the other direction of the same corpus) has this table's vocabularies,
  // sides swapped, with the same ids: then version 2 can store them once.
  bool mirrors(const TranslationTable& backward) const;
};

// A training corpus as word ids, every co-occurring (e, f) pair numbered once, so that EM works
// on flat arrays instead of hash lookups.
struct IndexedCorpus {
  std::vector<std::vector<int>> sources, targets;  // [pair][word] ids; empty pairs skipped
  // links[k]: for each target word i of pair k, the pair numbers of (NULL, e_1 .. e_n) with f_i
  std::vector<std::vector<int>> links;
  std::vector<int> pair_source, pair_target;  // [pair number] -> e, f ids

  // Adds new words to the vocabularies of `table` (which keeps the ids it already has).
  static IndexedCorpus build(const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                             TranslationTable& table);
  // theta for every pair number, from `table` (whose vocabularies this corpus was built with).
  std::vector<double> translations(const TranslationTable& table) const;
  // M-step: theta(f|e) = c(e,f) / sum_f c(e,f), or its variational-Bayes form with Dirichlet alpha.
  void maximize(const std::vector<double>& counts, bool variational_bayes, double alpha,
                std::vector<double>& theta) const;
  // Replaces table.table by these pairs' theta.
  void store(const std::vector<double>& theta, TranslationTable& table) const;
};

// The metadata value `key` as a number in [low, high], or an error naming the key.
float read_number(const SafeTensors& file, const std::string& key, float low, float high);

// Throws unless both sentences have words.
void check_sentence_pair(const Sentence& source, const Sentence& target);

// Posterior decoding of one direction: each target word links to its best source word unless the
// NULL word (what the row leaves of 1) is more probable. posteriors: P[t][s]. Sorted links.
Alignment posterior_links(const std::vector<float>& posteriors, int source_length, int target_length);

// A statistical aligner's two directions, as the hybrid method mixes them with attention.
class StatisticalModel {
 public:
  virtual ~StatisticalModel() = default;
  virtual StatisticalKind kind() const = 0;
  // p(a_t = s) of the direction whose target words choose source words: P[t][s].
  virtual std::vector<float> forward_posteriors(const Sentence& source, const Sentence& target) const = 0;
  // p(a_s = t) of the other direction, source words choosing target words: [s][t].
  virtual std::vector<float> backward_posteriors(const Sentence& source, const Sentence& target) const = 0;
  // Both directions as one file of the aligner's format; table entries below min_probability are
  // left out (0 keeps every entry the model holds).
  virtual std::string serialize(float min_probability) const = 0;
  // The mean of the two directions' posteriors, P[t][s], for heatmaps and symmetrization.
  std::vector<float> posteriors(const Sentence& source, const Sentence& target) const;
  // Both directions' decisions made one: grow-diag-final-and of each direction's posterior
  // decoding, or every pair whose mean posterior reaches `threshold` (in (0, 1]).
  Alignment align(const Sentence& source, const Sentence& target,
                  Symmetrization symmetrization = align_defaults.symmetrization,
                  float threshold = align_defaults.posterior_threshold) const;
  // The links of align() and the mean posteriors P[t][s] of posteriors(), from one run of each
  // direction (for a caller that shows both).
  struct Aligned {
    std::vector<float> posteriors;
    Alignment links;
  };
  Aligned align_with_posteriors(const Sentence& source, const Sentence& target,
                                Symmetrization symmetrization = align_defaults.symmetrization,
                                float threshold = align_defaults.posterior_threshold) const;
};

// Trains a model's two directions on one corpus, each on its own (the HMM's overload in hmm.hpp can
// also train them jointly, so that they agree).
template <class Direction, class Options>
void train_directions(Direction& forward, Direction& backward, const std::vector<Sentence>& source,
                      const std::vector<Sentence>& target, const Options& options) {
  forward.train(source, target, options);
  backward.train(target, source, reversed(options));  // the options of a side follow the side
}

// Both directions of one model (Direction: Ibm2Model or HmmModel), trained on the same corpus
// and stored in one file of the direction's format (forward.* and backward.* tensors).
template <class Direction>
class BidirectionalAligner : public StatisticalModel {
 public:
  using Options = typename Direction::Options;

  // source[k] and target[k] are the words of sentence pair k. Empty pairs are skipped.
  void train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const Options& options = {}) {
    train_directions(forward_, backward_, source, target, options);
  }
  StatisticalKind kind() const override { return Direction::kind; }
  std::vector<float> forward_posteriors(const Sentence& source, const Sentence& target) const override {
    return forward_.posteriors(source, target);
  }
  std::vector<float> backward_posteriors(const Sentence& source, const Sentence& target) const override {
    return backward_.posteriors(target, source);
  }

  const Direction& forward() const { return forward_; }    // target words choose source words
  const Direction& backward() const { return backward_; }  // source words choose target words

  // One file for both directions; table entries below min_probability are left out. Version 2
  // (the vocabularies once, the entries row by row: about half the bytes) where the two
  // directions' vocabularies mirror each other, as they do when trained on one corpus.
  std::string serialize() const { return serialize(Direction::default_min_probability); }
  std::string serialize(float min_probability) const override {
    SafeTensorsWriter writer;
    const bool rows = forward_.lexicon().mirrors(backward_.lexicon());
    writer.metadata("format", forward_.file_format(rows));
    if (rows) forward_.lexicon().write_vocabularies(writer);
    forward_.write_shared(writer, rows);
    forward_.write(writer, "forward.", min_probability, rows);
    backward_.write(writer, "backward.", min_probability, rows);
    return writer.bytes();
  }
  // Loading validates everything and names what is wrong.
  static BidirectionalAligner deserialize(std::string bytes) { return from_file(SafeTensors::parse(std::move(bytes))); }
  // The same from a file already parsed (whose format says which aligner it holds).
  static BidirectionalAligner from_file(const SafeTensors& file) {
    const auto format = file.metadata().find("format");
    const std::string name = format == file.metadata().end() ? "" : format->second;
    if (!Direction::reads(name)) fail("not an ", Direction::format_v1, " file (nor a later version)");
    BidirectionalAligner aligner;
    if (name == Direction::format_v1) {
      aligner.forward_ = Direction::read(file, "forward.");
      aligner.backward_ = Direction::read(file, "backward.");
      return aligner;
    }
    const TranslationTable forward_words = TranslationTable::read_vocabularies(file);
    TranslationTable backward_words;
    backward_words.source_vocabulary = forward_words.target_vocabulary;
    backward_words.target_vocabulary = forward_words.source_vocabulary;
    aligner.forward_ = Direction::read(file, "forward.", &forward_words);
    aligner.backward_ = Direction::read(file, "backward.", &backward_words);
    Direction::read_shared(file, aligner.forward_, aligner.backward_);
    return aligner;
  }

 private:
  Direction forward_, backward_;
};

// Either aligner from its file's bytes, chosen by the file's format (attnscope-ibm2-v1 or -v2,
// attnscope-hmm-v1, -v2 or -v3); throws attn::Error naming the problem.
std::unique_ptr<StatisticalModel> load_statistical_aligner(std::string bytes);
std::unique_ptr<StatisticalModel> load_statistical_aligner(const SafeTensors& file);

}  // namespace attn
