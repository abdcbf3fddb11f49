#include "attn/align/statistical.hpp"

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "attn/align/hmm.hpp"
#include "attn/align/ibm2.hpp"
#include "attn/core/error.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

constexpr double unseen_probability = 1e-9;  // theta of a pair never seen in training (fast_align's)

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

}  // namespace

void check_sentence_pair(const Sentence& source, const Sentence& target) {
  if (source.empty()) fail("the source sentence is empty");
  if (target.empty()) fail("the target sentence is empty");
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

IndexedCorpus IndexedCorpus::build(const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                                   TranslationTable& table) {
  if (source.size() != target.size())
    fail("training needs as many source sentences (", source.size(), ") as target sentences (", target.size(), ")");
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

void IndexedCorpus::maximize(const std::vector<double>& counts, bool variational_bayes, double alpha,
                             std::vector<double>& theta) const {
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
  for (std::size_t p = 0; p < pair_source.size(); ++p)
    table.table[pair_source[p]].emplace(pair_target[p], static_cast<float>(theta[p]));
}

namespace {

std::string vocabulary_json(const std::unordered_map<std::string, int>& vocabulary) {
  std::vector<std::string> words(vocabulary.size());
  for (const auto& [word, id] : vocabulary) words[id - 1] = word;
  return nlohmann::json(words).dump();
}

std::unordered_map<std::string, int> read_vocabulary(const SafeTensors& file, const std::string& key) {
  nlohmann::json words;
  try {
    words = nlohmann::json::parse(file.meta(key));
  } catch (const nlohmann::json::exception& e) {
    fail(key, " is not valid JSON (", e.what(), ")");
  }
  if (!words.is_array()) fail(key, " must be an array of words");
  std::unordered_map<std::string, int> out;
  for (const auto& word : words) {
    if (!word.is_string()) fail(key, " must hold strings");
    if (!out.emplace(word.get<std::string>(), static_cast<int>(out.size()) + 1).second)
      fail(key, " repeats '", word.get<std::string>(), "'");
  }
  return out;
}

}  // namespace

void TranslationTable::write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability,
                             bool rows) const {
  // version 1 stores each entry's source id, version 2 each source id's count of entries
  std::vector<std::int32_t> sources, targets, row_lengths(rows ? source_vocabulary.size() + 1 : 0, 0);
  std::vector<float> probabilities;
  for (std::size_t e = 0; e < table.size(); ++e) {
    std::vector<std::pair<int, float>> row(table[e].begin(), table[e].end());
    std::sort(row.begin(), row.end());
    for (const auto& [f, p] : row) {
      if (p < min_probability) continue;
      if (rows) {
        ++row_lengths.at(e);
      } else {
        sources.push_back(static_cast<std::int32_t>(e));
      }
      targets.push_back(f);
      probabilities.push_back(p);
    }
  }
  const std::int64_t count = static_cast<std::int64_t>(targets.size());
  writer.add(prefix + "probability", probabilities, {count}, true);
  if (!rows) {
    writer.add(prefix + "source", sources, {count});
    writer.add(prefix + "target", targets, {count});
    writer.metadata(prefix + "source_vocabulary", vocabulary_json(source_vocabulary));
    writer.metadata(prefix + "target_vocabulary", vocabulary_json(target_vocabulary));
    return;
  }
  writer.add(prefix + "row_lengths", row_lengths, {static_cast<std::int64_t>(row_lengths.size())});
  if (target_vocabulary.size() <= 0xFFFF) {
    writer.add(prefix + "target", std::vector<std::uint16_t>(targets.begin(), targets.end()), {count});
  } else {
    writer.add(prefix + "target", targets, {count});
  }
}

void TranslationTable::write_vocabularies(SafeTensorsWriter& writer) const {
  writer.metadata("source_vocabulary", vocabulary_json(source_vocabulary));
  writer.metadata("target_vocabulary", vocabulary_json(target_vocabulary));
}

TranslationTable TranslationTable::read_vocabularies(const SafeTensors& file) {
  TranslationTable words;
  words.source_vocabulary = read_vocabulary(file, "source_vocabulary");
  words.target_vocabulary = read_vocabulary(file, "target_vocabulary");
  return words;
}

bool TranslationTable::mirrors(const TranslationTable& backward) const {
  return source_vocabulary == backward.target_vocabulary && target_vocabulary == backward.source_vocabulary;
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

TranslationTable TranslationTable::read(const SafeTensors& file, const std::string& prefix,
                                        const TranslationTable* vocabularies) {
  TranslationTable result;
  std::vector<std::int32_t> sources;
  std::int64_t count = 0;
  if (vocabularies == nullptr) {  // version 1
    result.source_vocabulary = read_vocabulary(file, prefix + "source_vocabulary");
    result.target_vocabulary = read_vocabulary(file, prefix + "target_vocabulary");
    sources = file.ints(prefix + "source");
    count = static_cast<std::int64_t>(sources.size());
  } else {  // version 2: each source id's row length, NULL's first
    result.source_vocabulary = vocabularies->source_vocabulary;
    result.target_vocabulary = vocabularies->target_vocabulary;
    const std::vector<std::int32_t> row_lengths =
        file.ints(prefix + "row_lengths", {static_cast<std::int64_t>(result.source_vocabulary.size()) + 1});
    for (std::size_t e = 0; e < row_lengths.size(); ++e) {
      if (row_lengths[e] < 0) fail(prefix, "row_lengths[", e, "] = ", row_lengths[e], " is negative");
      count += row_lengths[e];
    }
    if (count > file.info(prefix + "probability").element_count())
      fail(prefix, "row_lengths add up to ", count, " entries, more than ", prefix, "probability holds");
    sources.reserve(static_cast<std::size_t>(count));
    for (std::size_t e = 0; e < row_lengths.size(); ++e)
      sources.insert(sources.end(), row_lengths[e], static_cast<int>(e));
  }
  const std::vector<std::int32_t> targets = file.indices(prefix + "target", {count});
  const std::vector<float> probabilities = file.floats(prefix + "probability", {count});
  result.table.assign(result.source_vocabulary.size() + 1, {});
  const int target_size = static_cast<int>(result.target_vocabulary.size());
  for (std::int64_t k = 0; k < count; ++k) {
    if (sources[k] < 0 || sources[k] >= static_cast<int>(result.table.size()) || targets[k] < 1 ||
        targets[k] > target_size) {
      fail(prefix, "entry ", k, " names a word outside the vocabularies");
    }
    if (!(probabilities[k] >= 0.0f && probabilities[k] <= 1.0f)) fail(prefix, "entry ", k, " is not a probability");
    result.table[sources[k]][targets[k]] = probabilities[k];
  }
  return result;
}

namespace {

// The mean of forward [t][s] and backward [s][t] posteriors, as [t][s].
std::vector<float> mean_of(std::vector<float> forward, const std::vector<float>& backward, std::size_t source_length,
                           std::size_t target_length) {
  for (std::size_t t = 0; t < target_length; ++t)
    for (std::size_t s = 0; s < source_length; ++s) {
      forward[t * source_length + s] = 0.5f * (forward[t * source_length + s] + backward[s * target_length + t]);
    }
  return forward;
}

}  // namespace

std::vector<float> StatisticalModel::posteriors(const Sentence& source, const Sentence& target) const {
  std::vector<float> forward = forward_posteriors(source, target);
  return mean_of(std::move(forward), backward_posteriors(source, target), source.size(), target.size());
}

Alignment posterior_links(const std::vector<float>& posteriors, int source_length, int target_length) {
  Alignment links;
  for (int t = 0; t < target_length; ++t) {
    const float* row = posteriors.data() + static_cast<std::size_t>(t) * source_length;
    const int best = static_cast<int>(std::max_element(row, row + source_length) - row);
    float total = 0.0f;
    for (int s = 0; s < source_length; ++s) total += row[s];
    if (row[best] >= 1.0f - total) links.push_back({best, t});  // NULL (probability 1 - total) wins otherwise
  }
  std::sort(links.begin(), links.end());
  return links;
}

Alignment StatisticalModel::align(const Sentence& source, const Sentence& target, Symmetrization symmetrization,
                                  float threshold) const {
  return align_with_posteriors(source, target, symmetrization, threshold).links;
}

StatisticalModel::Aligned StatisticalModel::align_with_posteriors(const Sentence& source, const Sentence& target,
                                                                  Symmetrization symmetrization,
                                                                  float threshold) const {
  if (symmetrization == Symmetrization::posterior_mean && !(threshold > 0.0f && threshold <= 1.0f)) {
    fail("the posterior threshold must be in (0, 1], got ", threshold);
  }
  const int source_length = static_cast<int>(source.size()), target_length = static_cast<int>(target.size());
  std::vector<float> forward = forward_posteriors(source, target);          // first: its errors name the sides as given
  const std::vector<float> backward = backward_posteriors(source, target);  // [s][t]
  Aligned result;
  if (symmetrization == Symmetrization::grow_diag_final_and) {
    result.links = grow_diag_final_and(posterior_links(forward, source_length, target_length),
                                       swapped(posterior_links(backward, target_length, source_length)), source_length,
                                       target_length);
  }
  result.posteriors = mean_of(std::move(forward), backward, source.size(), target.size());
  if (symmetrization == Symmetrization::posterior_mean) {
    result.links = threshold_links(result.posteriors.data(), target_length, source_length, threshold);
  }
  return result;
}

std::unique_ptr<StatisticalModel> load_statistical_aligner(const SafeTensors& file) {
  const auto format = file.metadata().find("format");
  const std::string name = format == file.metadata().end() ? "" : format->second;
  if (HmmModel::reads(name)) return std::make_unique<HmmAligner>(HmmAligner::from_file(file));
  if (Ibm2Model::reads(name)) return std::make_unique<Ibm2Aligner>(Ibm2Aligner::from_file(file));
  fail("not a statistical aligner: the format is '", name, "', expected ", Ibm2Model::format_v1, " or ",
       HmmModel::format_v1, " (or a later version)");
}

std::unique_ptr<StatisticalModel> load_statistical_aligner(std::string bytes) {
  return load_statistical_aligner(SafeTensors::parse(std::move(bytes)));
}

}  // namespace attn
