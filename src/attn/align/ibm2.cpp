#include "attn/align/ibm2.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "attn/core/error.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/text.hpp"

#include <nlohmann/json.hpp>

namespace attn {

namespace {

constexpr double unseen_probability = 1e-9;  // theta of a pair never seen in training (fast_align's)

// h(i, j) = -|i/m - j/n| with 1-based target position i of m and source position j of n.
double diagonal_feature(int i, int j, int m, int n) { return -std::abs(double(i) / m - double(j) / n); }

// Z = sum_j exp(lambda h(i, j)) over the n source positions.
double partition(int i, int m, int n, double tension) {
  double z = 0.0;
  for (int j = 1; j <= n; ++j) z += std::exp(tension * diagonal_feature(i, j, m, n));
  return z;
}

// d log Z / d lambda: the expected feature under the diagonal distribution.
double expected_feature(int i, int m, int n, double tension) {
  double z = 0.0, weighted = 0.0;
  for (int j = 1; j <= n; ++j) {
    const double h = diagonal_feature(i, j, m, n), e = std::exp(tension * h);
    z += e;
    weighted += h * e;
  }
  return weighted / z;
}

double digamma(double x) {
  double result = 0.0;
  for (; x < 6.0; x += 1.0) result -= 1.0 / x;  // recurrence up to where the series is accurate
  const double f = 1.0 / (x * x);
  return result + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

int intern(std::unordered_map<std::string, int>& vocabulary, const std::string& given) {
  const std::string word = nfc(given);  // as the lookups normalize
  const auto found = vocabulary.find(word);
  if (found != vocabulary.end()) return found->second;
  const int id = static_cast<int>(vocabulary.size()) + 1;  // 0 is NULL
  vocabulary.emplace(word, id);
  return id;
}

// The id of the word's NFC form; most words are ASCII, already NFC, and are looked up as they are.
int lookup(const std::unordered_map<std::string, int>& vocabulary, const std::string& word) {
  const auto found = is_ascii(word) ? vocabulary.find(word) : vocabulary.find(nfc(word));
  return found == vocabulary.end() ? -1 : found->second;
}

void check_pair(const Sentence& source, const Sentence& target) {
  if (source.empty()) fail("the source sentence is empty");
  if (target.empty()) fail("the target sentence is empty");
}

}  // namespace

void Ibm2Model::train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const Ibm2Options& options) {
  if (source.size() != target.size()) fail("training needs as many source sentences (", source.size(), ") as target sentences (", target.size(), ")");
  if (options.iterations < 1) fail("iterations must be at least 1");
  if (!(options.null_probability > 0.0f && options.null_probability < 1.0f)) fail("the NULL probability must be in (0, 1)");
  lexicon_ = TranslationTable();
  const IndexedCorpus corpus = IndexedCorpus::build(source, target, lexicon_);
  const auto& sources = corpus.sources;
  const auto& targets = corpus.targets;
  const auto& links = corpus.links;

  std::map<std::pair<int, int>, long long> size_counts;  // (m, n) -> pairs, for the tension gradient
  long long tokens = 0;
  for (std::size_t k = 0; k < sources.size(); ++k) {
    size_counts[{static_cast<int>(targets[k].size()), static_cast<int>(sources[k].size())}]++;
    tokens += static_cast<long long>(targets[k].size());
  }
  const std::size_t pairs = corpus.pair_source.size();
  std::vector<double> theta(pairs, 1.0), counts(pairs);

  null_probability_ = options.null_probability;
  tension_ = options.tension;
  const double not_null = 1.0 - null_probability_;
  std::vector<double> probabilities, priors;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    std::fill(counts.begin(), counts.end(), 0.0);
    double empirical_feature = 0.0;
    for (std::size_t k = 0; k < sources.size(); ++k) {
      const int m = static_cast<int>(targets[k].size()), n = static_cast<int>(sources[k].size());
      probabilities.resize(n + 1);
      priors.resize(n + 1);
      const int* index = links[k].data();
      for (int i = 1; i <= m; ++i, index += n + 1) {
        const double z = partition(i, m, n, tension_) / not_null;
        priors[0] = null_probability_;
        for (int j = 1; j <= n; ++j) priors[j] = std::exp(tension_ * diagonal_feature(i, j, m, n)) / z;
        double sum = 0.0;
        for (int j = 0; j <= n; ++j) sum += probabilities[j] = priors[j] * theta[index[j]];
        for (int j = 0; j <= n; ++j) {
          const double posterior = probabilities[j] / sum;
          counts[index[j]] += posterior;
          // fast_align takes this feature at the 0-based target position (i - 1), unlike the
          // prior; we follow it: with i, lambda runs to its cap of 14 instead of ~6.7.
          if (j) empirical_feature += diagonal_feature(i - 1, j, m, n) * posterior;
        }
      }
    }
    empirical_feature /= static_cast<double>(tokens);
    if (options.optimize_tension && iteration > 0) {  // fast_align's 8 gradient steps on lambda
      for (int step = 0; step < 8; ++step) {
        double model_feature = 0.0;
        for (const auto& [size, count] : size_counts) {
          for (int i = 1; i <= size.first; ++i) model_feature += count * expected_feature(i, size.first, size.second, tension_);
        }
        model_feature /= static_cast<double>(tokens);
        tension_ = static_cast<float>(std::clamp(tension_ + (empirical_feature - model_feature) * 20.0, 0.1, 14.0));
      }
    }
    corpus.maximize(counts, options.variational_bayes, options.alpha, theta);
  }
  corpus.store(theta, lexicon_);
  trained_ = true;
}

double TranslationTable::translation(int source, int target) const {
  if (source < 0 || target < 0 || source >= static_cast<int>(table.size())) return unseen_probability;
  const auto found = table[source].find(target);
  return found == table[source].end() ? unseen_probability : std::max<double>(found->second, unseen_probability);
}

int TranslationTable::source_id(const std::string& word) const { return lookup(source_vocabulary, word); }

int TranslationTable::target_id(const std::string& word) const { return lookup(target_vocabulary, word); }

std::size_t TranslationTable::size() const {
  std::size_t total = 0;
  for (const auto& row : table) total += row.size();
  return total;
}

IndexedCorpus IndexedCorpus::build(const std::vector<Sentence>& source, const std::vector<Sentence>& target, TranslationTable& table) {
  if (source.size() != target.size()) fail("training needs as many source sentences (", source.size(), ") as target sentences (", target.size(), ")");
  IndexedCorpus corpus;
  for (std::size_t k = 0; k < source.size(); ++k) {
    if (source[k].empty() || target[k].empty()) continue;
    std::vector<int> s, t;
    for (const auto& word : source[k]) s.push_back(intern(table.source_vocabulary, word));
    for (const auto& word : target[k]) t.push_back(intern(table.target_vocabulary, word));
    corpus.sources.push_back(std::move(s));
    corpus.targets.push_back(std::move(t));
  }
  if (corpus.sources.empty()) fail("no sentence pair to train on");
  std::unordered_map<std::uint64_t, int> pair_index;
  const auto index_of = [&](int e, int f) {
    const std::uint64_t key = (static_cast<std::uint64_t>(e) << 32) | static_cast<std::uint32_t>(f);
    const auto found = pair_index.emplace(key, static_cast<int>(corpus.pair_source.size()));
    if (found.second) {
      corpus.pair_source.push_back(e);
      corpus.pair_target.push_back(f);
    }
    return found.first->second;
  };
  corpus.links.resize(corpus.sources.size());
  for (std::size_t k = 0; k < corpus.sources.size(); ++k) {
    corpus.links[k].reserve(corpus.targets[k].size() * (corpus.sources[k].size() + 1));
    for (int f : corpus.targets[k]) {
      corpus.links[k].push_back(index_of(0, f));
      for (int e : corpus.sources[k]) corpus.links[k].push_back(index_of(e, f));
    }
  }
  return corpus;
}

std::vector<double> IndexedCorpus::translations(const TranslationTable& table) const {
  std::vector<double> theta(pair_source.size());
  for (std::size_t p = 0; p < theta.size(); ++p) theta[p] = table.translation(pair_source[p], pair_target[p]);
  return theta;
}

void IndexedCorpus::maximize(const std::vector<double>& counts, bool variational_bayes, double alpha, std::vector<double>& theta) const {
  if (!variational_bayes) alpha = 0.0;
  const int sources = pair_source.empty() ? 0 : *std::max_element(pair_source.begin(), pair_source.end());
  std::vector<double> totals(static_cast<std::size_t>(sources) + 1, 0.0);
  for (std::size_t p = 0; p < pair_source.size(); ++p) totals[pair_source[p]] += counts[p] + alpha;
  theta.resize(pair_source.size());
  for (std::size_t p = 0; p < pair_source.size(); ++p) {
    const double total = totals[pair_source[p]];
    theta[p] = variational_bayes ? std::exp(digamma(counts[p] + alpha) - digamma(total)) : counts[p] / total;
  }
}

void IndexedCorpus::store(const std::vector<double>& theta, TranslationTable& table) const {
  table.table.assign(table.source_vocabulary.size() + 1, {});
  for (std::size_t p = 0; p < pair_source.size(); ++p) table.table[pair_source[p]].emplace(pair_target[p], static_cast<float>(theta[p]));
}

std::vector<float> Ibm2Model::posteriors(const Sentence& source, const Sentence& target) const {
  if (!trained_) fail("the IBM Model 2 aligner is not trained");
  check_pair(source, target);
  const int m = static_cast<int>(target.size()), n = static_cast<int>(source.size());
  std::vector<int> s(n);
  for (int j = 0; j < n; ++j) s[j] = lexicon_.source_id(source[j]);
  std::vector<float> result(static_cast<std::size_t>(m) * n);
  std::vector<double> probabilities(n + 1);
  for (int i = 1; i <= m; ++i) {
    const int f = lexicon_.target_id(target[i - 1]);
    probabilities[0] = null_probability_ * lexicon_.translation(0, f);
    double sum = probabilities[0];
    const double z = partition(i, m, n, tension_) / (1.0 - null_probability_);
    for (int j = 1; j <= n; ++j) {
      probabilities[j] = std::exp(tension_ * diagonal_feature(i, j, m, n)) / z * lexicon_.translation(s[j - 1], f);
      sum += probabilities[j];
    }
    for (int j = 1; j <= n; ++j) result[static_cast<std::size_t>(i - 1) * n + (j - 1)] = static_cast<float>(probabilities[j] / sum);
  }
  return result;
}

Alignment Ibm2Model::align(const Sentence& source, const Sentence& target) const {
  const std::vector<float> p = posteriors(source, target);
  const int m = static_cast<int>(target.size()), n = static_cast<int>(source.size());
  Alignment links;
  for (int i = 0; i < m; ++i) {
    const float* row = p.data() + static_cast<std::size_t>(i) * n;
    const int best = static_cast<int>(std::max_element(row, row + n) - row);
    float total = 0.0f;
    for (int j = 0; j < n; ++j) total += row[j];
    if (row[best] >= 1.0f - total) links.push_back({best, i});  // NULL (probability 1 - total) wins otherwise
  }
  return links;
}

void TranslationTable::write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability) const {
  const auto vocabulary_json = [](const std::unordered_map<std::string, int>& vocabulary) {
    std::vector<std::string> words(vocabulary.size());
    for (const auto& [word, id] : vocabulary) words[id - 1] = word;
    return nlohmann::json(words).dump();
  };
  std::vector<std::int32_t> sources, targets;
  std::vector<float> probabilities;
  for (std::size_t e = 0; e < table.size(); ++e) {
    std::vector<std::pair<int, float>> row(table[e].begin(), table[e].end());
    std::sort(row.begin(), row.end());
    for (const auto& [f, p] : row) {
      if (p < min_probability) continue;
      sources.push_back(static_cast<std::int32_t>(e));
      targets.push_back(f);
      probabilities.push_back(p);
    }
  }
  const std::int64_t count = static_cast<std::int64_t>(sources.size());
  writer.add(prefix + "source", sources, {count});
  writer.add(prefix + "target", targets, {count});
  writer.add(prefix + "probability", probabilities, {count}, true);
  writer.metadata(prefix + "source_vocabulary", vocabulary_json(source_vocabulary));
  writer.metadata(prefix + "target_vocabulary", vocabulary_json(target_vocabulary));
}

void Ibm2Model::write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability) const {
  if (!trained_) fail("the IBM Model 2 aligner is not trained");
  lexicon_.write(writer, prefix, min_probability);
  writer.metadata(prefix + "tension", std::to_string(tension_));
  writer.metadata(prefix + "null_probability", std::to_string(null_probability_));
}

float read_number(const SafeTensors& file, const std::string& key, float low, float high) {
  float value = 0.0f;
  try {
    value = std::stof(file.meta(key));
  } catch (const std::logic_error&) {
    fail(key, " is not a number");
  }
  if (!(value >= low && value <= high)) fail(key, " = ", value, " is outside ", low, "..", high);
  return value;
}

TranslationTable TranslationTable::read(const SafeTensors& file, const std::string& prefix) {
  TranslationTable result;
  const auto vocabulary = [&](const std::string& key, std::unordered_map<std::string, int>& out) {
    nlohmann::json words;
    try {
      words = nlohmann::json::parse(file.meta(prefix + key));
    } catch (const nlohmann::json::exception& e) {
      fail(prefix, key, " is not valid JSON (", e.what(), ")");
    }
    if (!words.is_array()) fail(prefix, key, " must be an array of words");
    for (const auto& word : words) {
      if (!word.is_string()) fail(prefix, key, " must hold strings");
      if (!out.emplace(word.get<std::string>(), static_cast<int>(out.size()) + 1).second) fail(prefix, key, " repeats '", word.get<std::string>(), "'");
    }
  };
  vocabulary("source_vocabulary", result.source_vocabulary);
  vocabulary("target_vocabulary", result.target_vocabulary);
  const std::vector<std::int32_t> sources = file.ints(prefix + "source");
  const std::int64_t count = static_cast<std::int64_t>(sources.size());
  const std::vector<std::int32_t> targets = file.ints(prefix + "target", {count});
  const std::vector<float> probabilities = file.floats(prefix + "probability", {count});
  result.table.assign(result.source_vocabulary.size() + 1, {});
  const int target_size = static_cast<int>(result.target_vocabulary.size());
  for (std::int64_t k = 0; k < count; ++k) {
    if (sources[k] < 0 || sources[k] >= static_cast<int>(result.table.size()) || targets[k] < 1 || targets[k] > target_size) {
      fail(prefix, "entry ", k, " names a word outside the vocabularies");
    }
    if (!(probabilities[k] >= 0.0f && probabilities[k] <= 1.0f)) fail(prefix, "entry ", k, " is not a probability");
    result.table[sources[k]][targets[k]] = probabilities[k];
  }
  return result;
}

Ibm2Model Ibm2Model::read(const SafeTensors& file, const std::string& prefix) {
  Ibm2Model model;
  model.lexicon_ = TranslationTable::read(file, prefix);
  model.tension_ = read_number(file, prefix + "tension", 0.0f, 100.0f);
  model.null_probability_ = read_number(file, prefix + "null_probability", 1e-6f, 0.999f);
  model.trained_ = true;
  return model;
}

std::string Ibm2Aligner::serialize(float min_probability) const {
  SafeTensorsWriter writer;
  writer.metadata("format", "attnscope-ibm2-v1");
  forward_.write(writer, "forward.", min_probability);
  backward_.write(writer, "backward.", min_probability);
  return writer.bytes();
}

Ibm2Aligner Ibm2Aligner::deserialize(std::string bytes) { return from_file(SafeTensors::parse(std::move(bytes))); }

Ibm2Aligner Ibm2Aligner::from_file(const SafeTensors& file) {
  if (file.metadata().count("format") == 0 || file.meta("format") != "attnscope-ibm2-v1") fail("not an attnscope-ibm2-v1 file");
  Ibm2Aligner aligner;
  aligner.forward_ = Ibm2Model::read(file, "forward.");
  aligner.backward_ = Ibm2Model::read(file, "backward.");
  return aligner;
}

void Ibm2Aligner::train(const std::vector<Sentence>& source, const std::vector<Sentence>& target, const Ibm2Options& options) {
  forward_.train(source, target, options);
  backward_.train(target, source, options);
}

Alignment Ibm2Aligner::align(const Sentence& source, const Sentence& target) const {
  const Alignment forward = forward_.align(source, target);
  const Alignment backward = swapped(backward_.align(target, source));
  return grow_diag_final_and(forward, backward, static_cast<int>(source.size()), static_cast<int>(target.size()));
}

std::vector<float> mean_posteriors(const StatisticalModel& model, const Sentence& source, const Sentence& target) {
  std::vector<float> forward = model.forward_posteriors(source, target);
  const std::vector<float> backward = model.backward_posteriors(source, target);  // [s][t]
  const std::size_t m = target.size(), n = source.size();
  for (std::size_t t = 0; t < m; ++t)
    for (std::size_t s = 0; s < n; ++s) forward[t * n + s] = 0.5f * (forward[t * n + s] + backward[s * m + t]);
  return forward;
}

std::vector<float> Ibm2Aligner::posteriors(const Sentence& source, const Sentence& target) const {
  return mean_posteriors(*this, source, target);
}

}  // namespace attn
