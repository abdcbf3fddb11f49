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

// Sentence shapes (m, n) -> how many pairs have them, and the target word count, for the tension's gradient.
struct CorpusShapes {
  std::map<std::pair<int, int>, long long> sizes;
  long long tokens = 0;
};

CorpusShapes shapes_of(const IndexedCorpus& corpus) {
  CorpusShapes shapes;
  for (std::size_t k = 0; k < corpus.sources.size(); ++k) {
    shapes.sizes[{static_cast<int>(corpus.targets[k].size()), static_cast<int>(corpus.sources[k].size())}]++;
    shapes.tokens += static_cast<long long>(corpus.targets[k].size());
  }
  return shapes;
}

// EM's E-step: adds each (e, f) pair's expected count to counts; returns the summed diagonal
// feature under the posteriors (the tension's empirical side).
double expected_counts(const IndexedCorpus& corpus, const std::vector<double>& theta, double null_probability,
                       double tension, std::vector<double>& counts) {
  std::fill(counts.begin(), counts.end(), 0.0);
  double empirical_feature = 0.0;
  std::vector<double> probabilities, priors;
  for (std::size_t k = 0; k < corpus.sources.size(); ++k) {
    const int m = static_cast<int>(corpus.targets[k].size()), n = static_cast<int>(corpus.sources[k].size());
    probabilities.resize(n + 1);
    priors.resize(n + 1);
    const int* index = corpus.links[k].data();
    for (int i = 1; i <= m; ++i, index += n + 1) {
      const double z = partition(i, m, n, tension) / (1.0 - null_probability);
      priors[0] = null_probability;
      for (int j = 1; j <= n; ++j) priors[j] = std::exp(tension * diagonal_feature(i, j, m, n)) / z;
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
  return empirical_feature;
}

// fast_align's 8 gradient steps on lambda towards the empirical feature (per target word).
float optimized_tension(const CorpusShapes& shapes, double empirical_feature, float tension) {
  for (int step = 0; step < 8; ++step) {
    double model_feature = 0.0;
    for (const auto& [size, count] : shapes.sizes) {
      for (int i = 1; i <= size.first; ++i)
        model_feature += count * expected_feature(i, size.first, size.second, tension);
    }
    model_feature /= static_cast<double>(shapes.tokens);
    tension = static_cast<float>(std::clamp(tension + (empirical_feature - model_feature) * 20.0, 0.1, 14.0));
  }
  return tension;
}

}  // namespace

void Ibm2Model::train(const std::vector<Sentence>& source, const std::vector<Sentence>& target,
                      const Ibm2Options& options) {
  if (source.size() != target.size())
    fail("training needs as many source sentences (", source.size(), ") as target sentences (", target.size(), ")");
  if (options.iterations < 1) fail("iterations must be at least 1");
  if (!(options.null_probability > 0.0f && options.null_probability < 1.0f))
    fail("the NULL probability must be in (0, 1)");
  lexicon_ = TranslationTable();
  const IndexedCorpus corpus = IndexedCorpus::build(source, target, lexicon_);
  const CorpusShapes shapes = shapes_of(corpus);
  std::vector<double> theta(corpus.pair_source.size(), 1.0), counts(corpus.pair_source.size());
  null_probability_ = options.null_probability;
  tension_ = options.tension;
  for (int iteration = 0; iteration < options.iterations; ++iteration) {
    const double empirical_feature =
        expected_counts(corpus, theta, null_probability_, tension_, counts) / shapes.tokens;
    if (options.optimize_tension && iteration > 0) tension_ = optimized_tension(shapes, empirical_feature, tension_);
    corpus.maximize(counts, options.variational_bayes, options.alpha, theta);
  }
  corpus.store(theta, lexicon_);
  trained_ = true;
}

std::vector<float> Ibm2Model::posteriors(const Sentence& source, const Sentence& target) const {
  if (!trained_) fail("the IBM Model 2 aligner is not trained");
  check_sentence_pair(source, target);
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
    for (int j = 1; j <= n; ++j)
      result[static_cast<std::size_t>(i - 1) * n + (j - 1)] = static_cast<float>(probabilities[j] / sum);
  }
  return result;
}

void Ibm2Model::write(SafeTensorsWriter& writer, const std::string& prefix, float min_probability, bool rows) const {
  if (!trained_) fail("the IBM Model 2 aligner is not trained");
  lexicon_.write(writer, prefix, min_probability, rows);
  writer.metadata(prefix + "tension", std::to_string(tension_));
  writer.metadata(prefix + "null_probability", std::to_string(null_probability_));
}

Ibm2Model Ibm2Model::read(const SafeTensors& file, const std::string& prefix, const TranslationTable* vocabularies) {
  Ibm2Model model;
  model.lexicon_ = TranslationTable::read(file, prefix, vocabularies);
  model.tension_ = read_number(file, prefix + "tension", 0.0f, 100.0f);
  model.null_probability_ = read_number(file, prefix + "null_probability", 1e-6f, 0.999f);
  model.trained_ = true;
  return model;
}

Alignment Ibm2Model::align(const Sentence& source, const Sentence& target) const {
  return posterior_links(posteriors(source, target), static_cast<int>(source.size()), static_cast<int>(target.size()));
}

}  // namespace attn
