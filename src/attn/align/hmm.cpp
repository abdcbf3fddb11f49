#include "attn/align/hmm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

#include "attn/core/error.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/text.hpp"

namespace attn {

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

// Every sentence case-folded (the `lowercase` option) and its words cut (the prefix options): fewer,
// denser counts.
std::vector<Sentence> keyed_corpus(const std::vector<Sentence>& sentences, bool lowercase, int prefix) {
  std::vector<Sentence> out;
  out.reserve(sentences.size());
  for (const Sentence& s : sentences) {
    Sentence words = lowercase ? case_folded(s) : s;
    for (std::string& word : words) word = cut(word, prefix);
    out.push_back(std::move(words));
  }
  return out;
}

void check_prefix(int prefix, const char* name) {
  if (prefix < 0 || prefix > largest_prefix) fail(name, " must be in 0..", largest_prefix, ", got ", prefix);
}

// transition [I + 1][I]: p(word i | last position i') / (1 - p0) for i' = 0..I (0 = start), i = 1..I
void transitions(const std::vector<float>& jump, int source_length, std::vector<double>& out) {
  const int I = source_length, max_jump = static_cast<int>(jump.size() / 2);
  out.resize(static_cast<std::size_t>(I + 1) * I);
  for (int from = 0; from <= I; ++from) {
    double* row = out.data() + static_cast<std::size_t>(from) * I;
    double total = 0.0;
    for (int to = 1; to <= I; ++to) total += row[to - 1] = jump[std::clamp(to - from, -max_jump, max_jump) + max_jump];
    for (int to = 0; to < I; ++to) row[to] = total > 0.0 ? row[to] / total : 1.0 / I;
  }
}

// Scaled forward-backward over one pair (Rabiner's scaling: every step's forward vector sums to 1).
struct Lattice {
  int J = 0, I = 0;
  std::vector<double> word_forward, null_forward;      // [J][I + 1]: word column 0 unused; NULL(i') at i'
  std::vector<double> backward;                        // [J][I + 1]: same for word i' and NULL(i')
  std::vector<double> scale;                           // [J]
  std::vector<double> word_posterior, null_posterior;  // [J][I], [J]
  double log_likelihood = 0.0;
};

// The scaled forward pass: word and NULL forward probabilities, each step's scale, log p(pair).
void forward_pass(const double* emission, const std::vector<double>& transition, double p0, Lattice& lattice) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  std::vector<double> previous(width, 0.0);  // mass on each last position i' (word or NULL state)
  previous[0] = 1.0;
  lattice.log_likelihood = 0.0;
  for (int j = 0; j < J; ++j) {
    const double* e = emission + j * width;
    double* word = lattice.word_forward.data() + j * width;
    double* null = lattice.null_forward.data() + j * width;
    double sum = 0.0;
    for (int from = 0; from <= I; ++from) {
      if (previous[from] == 0.0) continue;
      const double mass = (1.0 - p0) * previous[from];
      const double* row = transition.data() + static_cast<std::size_t>(from) * I;
      for (int to = 1; to <= I; ++to) word[to] += mass * row[to - 1];
      null[from] = p0 * previous[from] * e[0];
      sum += null[from];
    }
    for (int to = 1; to <= I; ++to) sum += word[to] *= e[to];
    if (!(sum > 0.0)) fail("the HMM gives the pair probability zero");
    for (std::size_t i = 0; i < width; ++i) {
      word[i] /= sum;
      null[i] /= sum;
      previous[i] = word[i] + null[i];
    }
    lattice.scale[j] = sum;
    lattice.log_likelihood += std::log(sum);
  }
}

// The backward pass, scaled by the forward pass's scales.
void backward_pass(const double* emission, const std::vector<double>& transition, double p0, Lattice& lattice) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  std::fill(lattice.backward.end() - width, lattice.backward.end(), 1.0);
  std::vector<double> next(width);
  for (int j = J - 2; j >= 0; --j) {
    const double* e = emission + (j + 1) * width;
    const double* later = lattice.backward.data() + (j + 1) * width;
    double* b = lattice.backward.data() + j * width;
    for (int to = 1; to <= I; ++to) next[to] = e[to] * later[to];
    for (int from = 0; from <= I; ++from) {
      const double* row = transition.data() + static_cast<std::size_t>(from) * I;
      double total = 0.0;
      for (int to = 1; to <= I; ++to) total += row[to - 1] * next[to];
      b[from] = ((1.0 - p0) * total + p0 * e[0] * later[from]) / lattice.scale[j + 1];
    }
  }
}

// Each target word's posterior on each source word and on NULL.
void state_posteriors(Lattice& lattice) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  lattice.word_posterior.assign(static_cast<std::size_t>(J) * I, 0.0);
  lattice.null_posterior.assign(J, 0.0);
  for (int j = 0; j < J; ++j) {
    const double* word = lattice.word_forward.data() + j * width;
    const double* null = lattice.null_forward.data() + j * width;
    const double* b = lattice.backward.data() + j * width;
    for (int i = 1; i <= I; ++i) lattice.word_posterior[static_cast<std::size_t>(j) * I + i - 1] = word[i] * b[i];
    double nulls = 0.0;
    for (int i = 0; i <= I; ++i) nulls += null[i] * b[i];
    lattice.null_posterior[j] = nulls;
  }
}

// Adds the expected count of every jump width (EM's transition statistics) to jump_counts.
void count_jumps(const double* emission, const std::vector<double>& transition, double p0, const Lattice& lattice,
                 std::vector<double>& jump_counts) {
  const int J = lattice.J, I = lattice.I;
  const std::size_t width = static_cast<std::size_t>(I) + 1;
  const int max_jump = static_cast<int>(jump_counts.size() / 2);
  std::vector<double> previous(width, 0.0), next(width);
  previous[0] = 1.0;
  for (int j = 0; j < J; ++j) {
    const double* e = emission + j * width;
    const double* b = lattice.backward.data() + j * width;
    for (int to = 1; to <= I; ++to) next[to] = (1.0 - p0) * e[to] * b[to] / lattice.scale[j];
    for (int from = 0; from <= I; ++from) {
      if (previous[from] == 0.0) continue;
      const double* row = transition.data() + static_cast<std::size_t>(from) * I;
      for (int to = 1; to <= I; ++to) {
        jump_counts[std::clamp(to - from, -max_jump, max_jump) + max_jump] += previous[from] * row[to - 1] * next[to];
      }
    }
    for (std::size_t i = 0; i < width; ++i)
      previous[i] = lattice.word_forward[j * width + i] + lattice.null_forward[j * width + i];
  }
}

// emission [J][I + 1] with column 0 = NULL. Adds expected jump counts to *jump_counts when given.
void forward_backward(const double* emission, int J, int I, const std::vector<double>& transition,
                      double null_probability, Lattice& lattice, std::vector<double>* jump_counts = nullptr) {
  const std::size_t cells = static_cast<std::size_t>(J) * (I + 1);
  lattice.J = J;
  lattice.I = I;
  lattice.word_forward.assign(cells, 0.0);
  lattice.null_forward.assign(cells, 0.0);
  lattice.backward.assign(cells, 0.0);
  lattice.scale.assign(J, 0.0);
  forward_pass(emission, transition, null_probability, lattice);
  backward_pass(emission, transition, null_probability, lattice);
  state_posteriors(lattice);
  if (jump_counts) count_jumps(emission, transition, null_probability, lattice, *jump_counts);
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
  return other;
}

void HmmModel::train(const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                     const HmmOptions& options) {
  check_prefix(options.source_prefix, "source_prefix");
  check_prefix(options.target_prefix, "target_prefix");
  Ibm2Model initial;
  if (options.lowercase || options.source_prefix > 0 || options.target_prefix > 0) {
    const std::vector<Sentence> keyed_source = keyed_corpus(source, options.lowercase, options.source_prefix),
                                keyed_target = keyed_corpus(target, options.lowercase, options.target_prefix);
    initial.train(keyed_source, keyed_target, options.ibm2);
    train(initial, keyed_source, keyed_target, options);
  } else {
    initial.train(source, target, options.ibm2);
    train(initial, source, target, options);
  }
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
  HmmTraining training(*this, initial, source, target, options);
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
  if (!options.agreement) {
    forward.train(source, target, options);
    backward.train(target, source, backward_options);
    return;
  }
  check_prefix(options.source_prefix, "source_prefix");
  check_prefix(options.target_prefix, "target_prefix");
  const std::vector<Sentence> keyed_source = keyed_corpus(source, options.lowercase, options.source_prefix),
                              keyed_target = keyed_corpus(target, options.lowercase, options.target_prefix);
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

std::vector<double> HmmModel::emissions(const Sentence& original_source, const Sentence& original_target) const {
  if (!trained_) fail("the HMM aligner is not trained");
  check_sentence_pair(original_source, original_target);
  // normalized here too, so that the twins below compare NFC with NFC
  const Sentence source = lowercase_ ? case_folded(original_source) : nfc(original_source);
  const Sentence target = lowercase_ ? case_folded(original_target) : nfc(original_target);
  const std::size_t I = source.size(), J = target.size();
  // the words as the table keys them: cut to the prefixes, if any (a name keeps its first letters
  // whatever its ending: Islandi and Iceland do not, but Europe and Euroopa meet as "europ")
  Sentence source_keys(I), target_keys(J);
  std::vector<int> s(I);
  for (std::size_t i = 0; i < I; ++i) s[i] = lexicon_.source_id(source_keys[i] = cut(source[i], source_prefix_));
  std::vector<double> emission(J * (I + 1));
  for (std::size_t j = 0; j < J; ++j) {
    const int f = lexicon_.target_id(target_keys[j] = cut(target[j], target_prefix_));
    emission[j * (I + 1)] = lexicon_.translation(0, f);
    for (std::size_t i = 0; i < I; ++i) {
      // a word the table has never seen is likely its own translation where the other side has it (names, numbers)
      const bool unseen_twins = (s[i] < 0 || f < 0) && source_keys[i] == target_keys[j];
      emission[j * (I + 1) + i + 1] = unseen_twins ? identical_unseen_probability : lexicon_.translation(s[i], f);
    }
  }
  return emission;
}

double HmmModel::run_forward_backward(const Sentence& source, const Sentence& target,
                                      std::vector<float>* posterior) const {
  const std::vector<double> emission = emissions(source, target);
  const int I = static_cast<int>(source.size()), J = static_cast<int>(target.size());
  std::vector<double> transition;
  transitions(jump_, I, transition);
  Lattice lattice;
  forward_backward(emission.data(), J, I, transition, null_probability_, lattice);
  if (posterior) posterior->assign(lattice.word_posterior.begin(), lattice.word_posterior.end());
  return lattice.log_likelihood;
}

std::vector<float> HmmModel::posteriors(const Sentence& source, const Sentence& target) const {
  std::vector<float> posterior;
  run_forward_backward(source, target, &posterior);
  return posterior;
}

double HmmModel::log_likelihood(const Sentence& source, const Sentence& target) const {
  return run_forward_backward(source, target, nullptr);
}

Alignment HmmModel::viterbi(const Sentence& source, const Sentence& target) const {
  const std::vector<double> emission = emissions(source, target);
  const int I = static_cast<int>(source.size()), J = static_cast<int>(target.size());
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
  std::sort(links.begin(), links.end());
  return links;
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

Alignment HmmModel::align(const Sentence& source, const Sentence& target) const {
  return posterior_links(posteriors(source, target), static_cast<int>(source.size()), static_cast<int>(target.size()));
}

}  // namespace attn
