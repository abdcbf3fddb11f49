#include "attn/align/hmm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <unordered_map>
#include <utility>

#include "attn/align/internal/hmm_lattice.hpp"
#include "attn/core/error.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/text.hpp"

namespace attn {

using detail::forward_backward;
using detail::Lattice;
using detail::transitions;

namespace {

// emission of a word pair outside the table whose two words are the same string: the value
// hardly matters (0.01 to 0.5 measure the same), only that it beats the 1e-9 of other unseen pairs
constexpr double identical_unseen_probability = 0.1;
constexpr int largest_max_jump = 1000;  // no sentence is longer, so no wider bucket is meaningful
constexpr int largest_prefix = 1000;    // no longer word is meaningful either

// The word cut to its first `prefix` code points (0: the whole word).
std::string cut(const std::string& word, int prefix) {
  if (prefix <= 0) return word;
  std::size_t position = 0;
  for (int n = 0; n < prefix && position < word.size(); ++n) next_code_point(word, position);
  return word.substr(0, position);
}

// A training corpus as the model keys it: each sentence case-folded (the `lowercase` option; else
// NFC, as keyed() normalizes at alignment), its compounds split (when a splitter is given) and its
// words cut (the prefix options): fewer, denser counts.
std::vector<Sentence> keyed_corpus(std::vector<Sentence> normal, int prefix, const CompoundSplitter* splitter) {
  std::unordered_map<std::string, Sentence> splits;  // each word type searched once
  for (Sentence& words : normal) {
    if (splitter) {
      Sentence parts;
      for (const std::string& word : words) {
        auto found = splits.find(word);
        if (found == splits.end()) found = splits.emplace(word, splitter->split(word)).first;
        parts.insert(parts.end(), found->second.begin(), found->second.end());
      }
      words = std::move(parts);
    }
    for (std::string& word : words) word = cut(word, prefix);
  }
  return normal;
}

// Both sides of a training corpus keyed, each normalized once, and each side's splitter learned
// from its normalized words where the options split that side.
struct KeyedSides {
  std::vector<Sentence> source, target;
  std::shared_ptr<const CompoundSplitter> source_splitter, target_splitter;
};

KeyedSides keyed_sides(const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                       const HmmOptions& options) {
  const auto side = [&](const std::vector<Sentence>& sentences, bool split, int prefix,
                        std::shared_ptr<const CompoundSplitter>& splitter) {
    std::vector<Sentence> normal;
    normal.reserve(sentences.size());
    for (const Sentence& s : sentences) normal.push_back(options.lowercase ? case_folded(s) : nfc(s));
    if (split) splitter = std::make_shared<const CompoundSplitter>(CompoundSplitter::learn(normal, options.compounds));
    return keyed_corpus(std::move(normal), prefix, splitter.get());
  };
  KeyedSides sides;
  sides.source = side(source, options.source_compounds, options.source_prefix, sides.source_splitter);
  sides.target = side(target, options.target_compounds, options.target_prefix, sides.target_splitter);
  return sides;
}

// Whether training keys the corpus at all (a model of whole, unfolded words reads it as given).
bool keys_corpus(const HmmOptions& options) {
  return options.lowercase || options.source_prefix > 0 || options.target_prefix > 0 || options.source_compounds ||
         options.target_compounds;
}

// Posteriors over keys [tk][sk] as words [t][s]: summed over the source word's keys, the largest
// over the target word's.
std::vector<float> pooled(const std::vector<float>& keys, const std::vector<int>& source_owner,
                          const std::vector<int>& target_owner, std::size_t source_words, std::size_t target_words) {
  std::vector<float> words(source_words * target_words, 0.0f), row(source_words);
  const std::size_t source_keys = source_owner.size();
  for (std::size_t tk = 0; tk < target_owner.size(); ++tk) {
    std::fill(row.begin(), row.end(), 0.0f);
    for (std::size_t sk = 0; sk < source_keys; ++sk) row[source_owner[sk]] += keys[tk * source_keys + sk];
    float* out = words.data() + static_cast<std::size_t>(target_owner[tk]) * source_words;
    for (std::size_t s = 0; s < source_words; ++s) out[s] = std::min(std::max(out[s], row[s]), 1.0f);
  }
  return words;
}

// Links between keys as links between the words they came from.
Alignment owners_of(const Alignment& links, const std::vector<int>& source_owner,
                    const std::vector<int>& target_owner) {
  Alignment words;
  for (const Link& link : links) words.push_back({source_owner[link.source], target_owner[link.target]});
  std::sort(words.begin(), words.end());
  words.erase(std::unique(words.begin(), words.end()), words.end());
  return words;
}

void check_prefix(int prefix, const char* name) {
  if (prefix < 0 || prefix > largest_prefix) fail(name, " must be in 0..", largest_prefix, ", got ", prefix);
}

void check_jump(const std::vector<float>& jump, const char* name) {
  if (jump.size() < 3 || jump.size() % 2 == 0 || jump.size() > 2 * largest_max_jump + 1) {
    fail(name, " must have an odd length from 3 to ", 2 * largest_max_jump + 1, ", got ", jump.size());
  }
  double total = 0.0;
  for (std::size_t d = 0; d < jump.size(); ++d) {
    if (!(jump[d] >= 0.0f && std::isfinite(jump[d])))
      fail(name, "[", d, "] = ", jump[d], " is not a non-negative number");
    total += jump[d];
  }
  if (!(total > 0.0)) fail(name, " is all zeros");
}

}  // namespace

HmmOptions reversed(const HmmOptions& options) {
  HmmOptions other = options;
  std::swap(other.source_prefix, other.target_prefix);
  std::swap(other.source_compounds, other.target_compounds);
  return other;
}

void HmmModel::train(const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                     const HmmOptions& options) {
  check_prefix(options.source_prefix, "source_prefix");
  check_prefix(options.target_prefix, "target_prefix");
  if (!keys_corpus(options)) {
    train_keyed(source, target, options, nullptr, nullptr);
    return;
  }
  const KeyedSides sides = keyed_sides(source, target, options);
  train_keyed(sides.source, sides.target, options, sides.source_splitter, sides.target_splitter);
}

void HmmModel::train_keyed(const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                           const HmmOptions& options, std::shared_ptr<const CompoundSplitter> source_splitter,
                           std::shared_ptr<const CompoundSplitter> target_splitter) {
  Ibm2Model initial;
  initial.train(source, target, options.ibm2);
  HmmOptions split_already = options;  // the corpus is split: the overload below takes no splitters
  split_already.source_compounds = split_already.target_compounds = false;
  train(initial, source, target, split_already);
  source_splitter_ = std::move(source_splitter);
  target_splitter_ = std::move(target_splitter);
}

// EM state of one direction: the model being trained, its corpus and its expected counts.
struct HmmTraining {
  HmmModel& model;
  const HmmOptions& options;
  IndexedCorpus corpus;
  std::vector<double> theta, counts, jump_counts, emission, transition;
  Lattice lattice;

  HmmTraining(HmmModel& trained, const Ibm2Model& initial, const std::vector<Sentence>& source,
              const std::vector<Sentence>& target, const HmmOptions& training_options)
      : model(trained), options(training_options) {
    if (!initial.trained()) fail("the HMM needs a trained IBM Model 2 to start from");
    if (options.iterations < 1) fail("iterations must be at least 1");
    if (options.max_jump < 1 || options.max_jump > largest_max_jump) fail("max_jump must be in 1..", largest_max_jump);
    if (!(options.null_probability > 0.0f && options.null_probability < 1.0f))
      fail("the NULL probability must be in (0, 1)");
    check_prefix(options.source_prefix, "source_prefix");
    check_prefix(options.target_prefix, "target_prefix");
    model.lexicon_ = TranslationTable();
    model.lexicon_.source_vocabulary = initial.lexicon().source_vocabulary;
    model.lexicon_.target_vocabulary = initial.lexicon().target_vocabulary;
    corpus = IndexedCorpus::build(source, target, model.lexicon_);
    theta = corpus.translations(initial.lexicon());
    counts.assign(theta.size(), 0.0);
    model.null_probability_ = options.null_probability;
    model.lowercase_ = options.lowercase;
    model.source_prefix_ = options.source_prefix;
    model.target_prefix_ = options.target_prefix;
    // jumps start near-monotone, c(d) ~ 1 / (1 + |d - 1|), so the first E-step keeps a diagonal bias
    model.jump_.assign(2 * options.max_jump + 1, 0.0f);
    for (int d = -options.max_jump; d <= options.max_jump; ++d)
      model.jump_[d + options.max_jump] = 1.0f / (1.0f + std::abs(d - 1));
    jump_counts.assign(model.jump_.size(), 0.0);
  }
  int source_length(std::size_t k) const { return static_cast<int>(corpus.sources[k].size()); }
  int target_length(std::size_t k) const { return static_cast<int>(corpus.targets[k].size()); }
  // forward-backward over pair k: posteriors in `lattice`, jump counts added
  void expect(std::size_t k) {
    const std::vector<int>& links = corpus.links[k];
    emission.resize(links.size());
    for (std::size_t c = 0; c < links.size(); ++c) emission[c] = theta[links[c]];
    transitions(model.jump_, source_length(k), transition);
    forward_backward(emission.data(), target_length(k), source_length(k), transition, model.null_probability_, lattice,
                     &jump_counts);
  }
  // translation counts of pair k: word [J][I] and NULL [J] posteriors
  void add(std::size_t k, const std::vector<double>& word, const std::vector<double>& null) {
    const int I = source_length(k), J = target_length(k);
    for (int j = 0; j < J; ++j) {
      const int* index = corpus.links[k].data() + static_cast<std::size_t>(j) * (I + 1);
      counts[index[0]] += null[j];
      for (int i = 1; i <= I; ++i) counts[index[i]] += word[static_cast<std::size_t>(j) * I + i - 1];
    }
  }
  void maximize() {
    corpus.maximize(counts, options.variational_bayes, options.alpha, theta);
    double total = 0.0;
    for (double c : jump_counts) total += c;
    // a little smoothing keeps every width possible (a jump unseen in training is not impossible)
    for (std::size_t d = 0; d < model.jump_.size(); ++d) {
      model.jump_[d] = static_cast<float>((jump_counts[d] + 1e-3 * total / model.jump_.size()) / (1.001 * total));
    }
    std::fill(counts.begin(), counts.end(), 0.0);
    std::fill(jump_counts.begin(), jump_counts.end(), 0.0);
  }
  void finish() {
    corpus.store(theta, model.lexicon_);
    model.trained_ = true;
  }
};

void HmmModel::train(const Ibm2Model& initial, const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                     const HmmOptions& options) {
  if (options.source_compounds || options.target_compounds)
    fail("an HMM trained from IBM Model 2 takes a corpus already keyed: split compounds with train(source, target)");
  HmmTraining training(*this, initial, source, target, options);
  source_splitter_.reset();
  target_splitter_.reset();
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    for (std::size_t k = 0; k < training.corpus.sources.size(); ++k) {
      training.expect(k);
      training.add(k, training.lattice.word_posterior, training.lattice.null_posterior);
    }
    training.maximize();
  }
  training.finish();
}

void train_directions(HmmModel& forward, HmmModel& backward, const std::vector<Sentence>& source,
                      const std::vector<Sentence>& target, const HmmOptions& options) {
  const HmmOptions backward_options = reversed(options);
  check_prefix(options.source_prefix, "source_prefix");
  check_prefix(options.target_prefix, "target_prefix");
  if (!options.agreement && !keys_corpus(options)) {
    forward.train_keyed(source, target, options, nullptr, nullptr);
    backward.train_keyed(target, source, backward_options, nullptr, nullptr);
    return;
  }
  // the corpus keyed once for both directions, which then hold the same splitters
  const KeyedSides sides = keyed_sides(source, target, options);
  const std::vector<Sentence>&keyed_source = sides.source, &keyed_target = sides.target;
  if (!options.agreement) {
    forward.train_keyed(keyed_source, keyed_target, options, sides.source_splitter, sides.target_splitter);
    backward.train_keyed(keyed_target, keyed_source, backward_options, sides.target_splitter, sides.source_splitter);
    return;
  }
  // IBM Model 2 starts each direction on its own, as without agreement
  Ibm2Model forward_start, backward_start;
  forward_start.train(keyed_source, keyed_target, options.ibm2);
  backward_start.train(keyed_target, keyed_source, backward_options.ibm2);
  HmmTraining f(forward, forward_start, keyed_source, keyed_target, options);
  HmmTraining b(backward, backward_start, keyed_target, keyed_source, backward_options);
  // both corpora skip the same (empty) pairs, so pair k is the same pair in both
  if (f.corpus.sources.size() != b.corpus.sources.size()) fail("the two directions' corpora differ");
  std::vector<double> forward_links, backward_links;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    for (std::size_t k = 0; k < f.corpus.sources.size(); ++k) {
      f.expect(k);
      b.expect(k);
      // f: target word j chooses source word i, [J][I]; b: source word i chooses target word j, [I][J].
      // The link (i, j)'s count in both is the product of the two posteriors (Liang et al.'s
      // approximation of the product model); each keeps its own NULL posteriors and jump counts.
      const int I = f.source_length(k), J = f.target_length(k);
      const std::vector<double>&fp = f.lattice.word_posterior, &bp = b.lattice.word_posterior;
      forward_links.resize(static_cast<std::size_t>(J) * I);
      backward_links.resize(static_cast<std::size_t>(I) * J);
      for (int j = 0; j < J; ++j) {
        for (int i = 0; i < I; ++i) {
          const double both = fp[static_cast<std::size_t>(j) * I + i] * bp[static_cast<std::size_t>(i) * J + j];
          forward_links[static_cast<std::size_t>(j) * I + i] = both;
          backward_links[static_cast<std::size_t>(i) * J + j] = both;
        }
      }
      f.add(k, forward_links, f.lattice.null_posterior);
      b.add(k, backward_links, b.lattice.null_posterior);
    }
    f.maximize();
    b.maximize();
  }
  f.finish();
  b.finish();
  forward.source_splitter_ = backward.target_splitter_ = sides.source_splitter;
  forward.target_splitter_ = backward.source_splitter_ = sides.target_splitter;
}

HmmModel HmmModel::from_parameters(TranslationTable lexicon, std::vector<float> jump, float null_probability) {
  check_jump(jump, "jump");
  if (!(null_probability > 0.0f && null_probability < 1.0f)) fail("the NULL probability must be in (0, 1)");
  HmmModel model;
  model.lexicon_ = std::move(lexicon);
  if (model.lexicon_.table.size() < model.lexicon_.source_vocabulary.size() + 1)
    model.lexicon_.table.resize(model.lexicon_.source_vocabulary.size() + 1);
  model.jump_ = std::move(jump);
  model.null_probability_ = null_probability;
  model.trained_ = true;
  return model;
}

HmmModel::Keyed HmmModel::keyed(const Sentence& words, bool source_side) const {
  // normalized here too, so that the twins of emissions() compare NFC with NFC
  const Sentence normal = lowercase_ ? case_folded(words) : nfc(words);
  const CompoundSplitter* splitter = source_side ? source_splitter_.get() : target_splitter_.get();
  const int prefix = source_side ? source_prefix_ : target_prefix_;
  Keyed out;
  for (std::size_t w = 0; w < normal.size(); ++w) {
    const Sentence parts = splitter ? splitter->split(normal[w]) : Sentence{normal[w]};
    for (const std::string& part : parts) {
      out.keys.push_back(cut(part, prefix));
      out.owner.push_back(static_cast<int>(w));
    }
  }
  return out;
}

HmmModel::Keyed HmmModel::checked_keys(const Sentence& words, const Sentence& other, bool source_side) const {
  if (!trained_) fail("the HMM aligner is not trained");
  if (source_side) check_sentence_pair(words, other);
  return keyed(words, source_side);
}

std::vector<double> HmmModel::emissions(const Sentence& source_keys, const Sentence& target_keys) const {
  // the words as the table keys them: cut to the prefixes, if any (a name keeps its first letters
  // whatever its ending: Islandi and Iceland do not, but Europe and Euroopa meet as "europ")
  const std::size_t I = source_keys.size(), J = target_keys.size();
  std::vector<int> s(I);
  for (std::size_t i = 0; i < I; ++i) s[i] = lexicon_.source_id(source_keys[i]);
  std::vector<double> emission(J * (I + 1));
  for (std::size_t j = 0; j < J; ++j) {
    const int f = lexicon_.target_id(target_keys[j]);
    emission[j * (I + 1)] = lexicon_.translation(0, f);
    for (std::size_t i = 0; i < I; ++i) {
      // a word the table has never seen is likely its own translation where the other side has it (names, numbers)
      const bool unseen_twins = (s[i] < 0 || f < 0) && source_keys[i] == target_keys[j];
      emission[j * (I + 1) + i + 1] = unseen_twins ? identical_unseen_probability : lexicon_.translation(s[i], f);
    }
  }
  return emission;
}

double HmmModel::run_forward_backward(const Keyed& source, const Keyed& target, std::vector<float>* posterior) const {
  const std::vector<double> emission = emissions(source.keys, target.keys);
  const int I = static_cast<int>(source.keys.size()), J = static_cast<int>(target.keys.size());
  std::vector<double> transition;
  transitions(jump_, I, transition);
  Lattice lattice;
  forward_backward(emission.data(), J, I, transition, null_probability_, lattice);
  if (posterior) posterior->assign(lattice.word_posterior.begin(), lattice.word_posterior.end());
  return lattice.log_likelihood;
}

std::vector<float> HmmModel::posteriors(const Sentence& source, const Sentence& target) const {
  const Keyed s = checked_keys(source, target, true), t = checked_keys(target, source, false);
  std::vector<float> posterior;
  run_forward_backward(s, t, &posterior);
  if (!source_splitter_ && !target_splitter_) return posterior;  // a key per word
  return pooled(posterior, s.owner, t.owner, source.size(), target.size());
}

double HmmModel::log_likelihood(const Sentence& source, const Sentence& target) const {
  return run_forward_backward(checked_keys(source, target, true), checked_keys(target, source, false), nullptr);
}

Alignment HmmModel::viterbi(const Sentence& source_words, const Sentence& target_words) const {
  const Keyed source = checked_keys(source_words, target_words, true),
              target = checked_keys(target_words, source_words, false);
  const std::vector<double> emission = emissions(source.keys, target.keys);
  const int I = static_cast<int>(source.keys.size()), J = static_cast<int>(target.keys.size());
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  std::vector<double> transition;
  transitions(jump_, I, transition);
  for (double& t : transition) t = std::log(t);
  const double log_p0 = std::log(null_probability_), log_p1 = std::log(1.0 - null_probability_);
  constexpr double impossible = -std::numeric_limits<double>::infinity();
  // best[i']: the best log score ending at last position i' (word i' or NULL(i')); word_from[j][i]:
  // the last position before word i; is_word[j][i']: whether best[i'] at j is the word state
  std::vector<double> best(width, impossible), scores(width);
  best[0] = 0.0;
  std::vector<int> word_from(J * width, 0);
  std::vector<char> is_word(J * width, 0);
  for (int j = 0; j < J; ++j) {
    const double* e = emission.data() + j * width;
    std::fill(scores.begin(), scores.end(), impossible);
    for (int to = 1; to <= I; ++to) {
      double top = impossible;
      int argument = 0;
      for (int from = 0; from <= I; ++from) {
        const double score = best[from] + transition[static_cast<std::size_t>(from) * I + to - 1];
        if (score > top) top = score, argument = from;
      }
      scores[to] = top + log_p1 + std::log(e[to]);
      word_from[j * width + to] = argument;
    }
    for (int i = 0; i <= I; ++i) {
      const double null = best[i] + log_p0 + std::log(e[0]);
      is_word[j * width + i] = i > 0 && scores[i] >= null;
      best[i] = is_word[j * width + i] ? scores[i] : null;
    }
  }
  int position = static_cast<int>(std::max_element(best.begin(), best.end()) - best.begin());
  Alignment links;
  for (int j = J - 1; j >= 0; --j) {
    if (is_word[j * width + position]) {
      links.push_back({position - 1, j});
      position = word_from[j * width + position];
    }  // a NULL state keeps its position
  }
  return owners_of(links, source.owner, target.owner);
}

void HmmModel::write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability, bool rows) const {
  if (!trained_) fail("the HMM aligner is not trained");
  lexicon_.write(writer, prefix, min_probability, rows);
  writer.add(prefix + "jump", jump_, {static_cast<std::int64_t>(jump_.size())});
  writer.metadata(prefix + "null_probability", std::to_string(null_probability_));
  writer.metadata(prefix + "lowercase", lowercase_ ? "true" : "false");
  // only when words are cut, so that a whole-word model's file stays as it was
  if (source_prefix_ > 0) writer.metadata(prefix + "source_prefix", std::to_string(source_prefix_));
  if (target_prefix_ > 0) writer.metadata(prefix + "target_prefix", std::to_string(target_prefix_));
}

HmmModel HmmModel::read(const SafeTensors& file, const std::string& prefix, const TranslationTable* vocabularies) {
  if (!file.has(prefix + "jump")) fail("tensor ", prefix, "jump is missing");
  std::vector<float> jump = file.floats(prefix + "jump");
  check_jump(jump, (prefix + "jump").c_str());
  HmmModel model = from_parameters(TranslationTable::read(file, prefix, vocabularies), std::move(jump),
                                   read_number(file, prefix + "null_probability", 1e-6f, 0.999f));
  const std::string lowercase = file.meta(prefix + "lowercase");
  if (lowercase != "true" && lowercase != "false")
    fail(prefix, "lowercase must be true or false, got '", lowercase, "'");
  model.lowercase_ = lowercase == "true";
  const auto whole_number = [&](const std::string& key) {
    if (file.metadata().count(key) == 0) return 0;
    const float value = read_number(file, key, 0.0f, static_cast<float>(largest_prefix));
    if (value != std::floor(value)) fail(key, " = ", value, " is not a whole number");
    return static_cast<int>(value);
  };
  model.source_prefix_ = whole_number(prefix + "source_prefix");
  model.target_prefix_ = whole_number(prefix + "target_prefix");
  return model;
}

Alignment HmmModel::align(const Sentence& source_words, const Sentence& target_words) const {
  const Keyed source = checked_keys(source_words, target_words, true),
              target = checked_keys(target_words, source_words, false);
  std::vector<float> posterior;
  run_forward_backward(source, target, &posterior);
  const Alignment links =
      posterior_links(posterior, static_cast<int>(source.keys.size()), static_cast<int>(target.keys.size()));
  return owners_of(links, source.owner, target.owner);
}

const char* HmmModel::file_format(bool rows) const {
  if (source_splitter_ || target_splitter_) return format_v3;
  return rows ? format : format_v1;
}

void HmmModel::write_shared(SafeTensorsWriter& writer, bool rows) const {
  if (!source_splitter_ && !target_splitter_) return;
  if (!rows) fail("an HMM that splits compounds needs its two directions to share one vocabulary per side");
  if (source_splitter_) source_splitter_->write(writer, "compounds.source");
  if (target_splitter_) target_splitter_->write(writer, "compounds.target");
}

void HmmModel::read_shared(const SafeTensors& file, HmmModel& forward, HmmModel& backward) {
  if (file.meta("format") != format_v3) return;  // only version 3 splits compounds
  const auto splitter = [&](const char* key) -> std::shared_ptr<const CompoundSplitter> {
    if (file.metadata().count(key) == 0) return nullptr;
    return std::make_shared<const CompoundSplitter>(CompoundSplitter::read(file, key));
  };
  forward.source_splitter_ = backward.target_splitter_ = splitter("compounds.source");
  forward.target_splitter_ = backward.source_splitter_ = splitter("compounds.target");
  if (!forward.source_splitter_ && !forward.target_splitter_)
    fail("an ", format_v3, " file needs compounds.source or compounds.target (version 2 has neither)");
}

}  // namespace attn
