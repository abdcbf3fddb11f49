#include "attn/align/attention_aligner.hpp"

#include <algorithm>
#include <cmath>

#include "attn/align/statistical.hpp"
#include "attn/core/error.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/threads.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

std::size_t at(int row, int column, int columns) { return static_cast<std::size_t>(row) * columns + column; }

// argmax per row, except rows whose NULL weight beats their best word
Alignment argmax_without_null(const WordAttention& words, int rows, int columns) {
  Alignment links;
  for (const Link& link : argmax_links(words.weights.data(), rows, columns)) {
    if (words.weights[at(link.target, link.source, columns)] >= words.null_weights[link.target]) links.push_back(link);
  }
  return links;
}

// One direction's attention a mixed with the same direction's posteriors p at weight w. Linear:
// (1 - w) a + w p, the NULL weight attention's alone, scaled; geometric: a^(1-w) p^w, with the
// statistical NULL probability what the row's posteriors leave of 1.
void mix_into(WordAttention& words, const std::vector<float>& posteriors, int rows, int columns, float w, Mix mix) {
  for (int r = 0; r < rows; ++r) {
    float* attention = words.weights.data() + at(r, 0, columns);
    const float* statistical = posteriors.data() + at(r, 0, columns);
    if (mix == Mix::geometric) {
      float statistical_null = 1.0f;
      for (int c = 0; c < columns; ++c) statistical_null -= statistical[c];
      statistical_null = std::max(statistical_null, 0.0f);
      for (int c = 0; c < columns; ++c) attention[c] = std::pow(attention[c], 1 - w) * std::pow(statistical[c], w);
      words.null_weights[r] = std::pow(words.null_weights[r], 1 - w) * std::pow(statistical_null, w);
    } else {
      for (int c = 0; c < columns; ++c) attention[c] = (1 - w) * attention[c] + w * statistical[c];
      words.null_weights[r] *= 1 - w;
    }
  }
}

// Two directions' matrices, forward [t][s] and backward [s][t], made one alignment.
Alignment symmetrized(const WordAttention& forward, const WordAttention& backward, int S, int T,
                      const AlignOptions& options) {
  if (options.symmetrization == Symmetrization::posterior_mean) {
    std::vector<float> mean(forward.weights.size());
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < S; ++s)
        mean[at(t, s, S)] = 0.5f * (forward.weights[at(t, s, S)] + backward.weights[at(s, t, T)]);
    const Alignment links = threshold_links(mean.data(), T, S, options.posterior_threshold);
    if (!options.mutual_best) return links;
    return unite(links, mutual_best_links(mean.data(), T, S, align_defaults.mutual_best_floor));
  }
  return grow_diag_final_and(argmax_without_null(forward, T, S), swapped(argmax_without_null(backward, S, T)), S, T);
}

// Each direction's attention mixed with its statistical posteriors, then symmetrized.
Alignment hybrid_links(const StatisticalModel& statistical, const WordAttention& forward, const WordAttention& backward,
                       const AlignOptions& options) {
  const std::vector<std::string>& source = forward.source_words;
  const std::vector<std::string>& target = forward.target_words;
  const int S = static_cast<int>(source.size()), T = static_cast<int>(target.size());
  WordAttention forward_mix = forward, backward_mix = backward;
  mix_into(forward_mix, statistical.forward_posteriors(source, target), T, S, options.statistical_weight, options.mix);
  mix_into(backward_mix, statistical.backward_posteriors(source, target), S, T, options.statistical_weight,
           options.mix);
  return symmetrized(forward_mix, backward_mix, S, T, options);
}

// Links from the attention of one or both models, by the method.
Alignment attention_links(const PairAlignment& pair, const WordAttention& backward, const AlignmentModels& models,
                          const AlignOptions& options) {
  const std::vector<float>& P = pair.forward.weights;
  const int S = static_cast<int>(pair.forward.source_words.size()),
            T = static_cast<int>(pair.forward.target_words.size());
  switch (options.method) {
    case AlignMethod::argmax: return argmax_without_null(pair.forward, T, S);
    case AlignMethod::threshold: return threshold_links(P.data(), T, S, options.threshold);
    case AlignMethod::itermax: return itermax_links(P.data(), T, S);
    case AlignMethod::intersection:
    case AlignMethod::union_:
    case AlignMethod::grow_diag_final_and: {
      const Alignment f = argmax_without_null(pair.forward, T, S);
      const Alignment b = swapped(argmax_without_null(backward, S, T));  // the reverse model links each source word
      if (options.method == AlignMethod::intersection) return intersect(f, b);
      if (options.method == AlignMethod::union_) return unite(f, b);
      return grow_diag_final_and(f, b, S, T);
    }
    case AlignMethod::soft_intersection: {
      std::vector<float> mean(P.size());
      for (std::size_t k = 0; k < P.size(); ++k) mean[k] = 0.5f * (P[k] + pair.backward.weights[k]);
      return itermax_links(mean.data(), T, S);
    }
    case AlignMethod::soft_threshold: {
      std::vector<float> mean(P.size());
      for (std::size_t k = 0; k < P.size(); ++k) mean[k] = 0.5f * (P[k] + pair.backward.weights[k]);
      return threshold_links(mean.data(), T, S, options.threshold);
    }
    case AlignMethod::soft_agreement: {
      // awesome-align's agreement of both directions (Dou & Neubig 2021), softly: a word pair that
      // one direction attends to and the other ignores has a small product
      std::vector<float> agreement(P.size());
      for (std::size_t k = 0; k < P.size(); ++k) agreement[k] = std::sqrt(P[k] * pair.backward.weights[k]);
      return threshold_links(agreement.data(), T, S, options.threshold);
    }
    case AlignMethod::hybrid: return hybrid_links(*models.statistical, pair.forward, backward, options);
    case AlignMethod::attention:
      fail("method 'attention' is a language pair's choice: align with --pair (pair_options) or name the method");
    case AlignMethod::hmm:
    case AlignMethod::ibm2: break;
  }
  fail("method '", to_string(options.method), "' does not read attention");
}

void check_models(const AlignmentModels& models, AlignMethod method) {
  const char* name = to_string(method);
  if (needs_model(method) && !models.forward) fail("method '", name, "' needs a translation model");
  if (needs_reverse(method) && !models.reverse) fail("method '", name, "' needs a reverse model");
  if (needs_statistical(method) && !models.statistical) {
    fail("method '", name, "' needs a statistical aligner (IBM Model 2 or the HMM)");
  }
  if (!needs_model(method) && models.statistical->kind() != statistical_kind(method)) {
    fail("method '", name, "' needs the ", name, " aligner, got the ", to_string(models.statistical->kind()), " one");
  }
}

// A statistical aligner alone: its mean posteriors are the matrix, NULL what a row leaves of 1.
PairAlignment statistical_pair(const StatisticalModel& statistical, const std::vector<std::string>& source,
                               const std::vector<std::string>& target, const AlignOptions& options) {
  StatisticalModel::Aligned aligned =
      statistical.align_with_posteriors(source, target, options.symmetrization, options.posterior_threshold);
  PairAlignment result;
  result.links = std::move(aligned.links);
  result.forward.source_words = nfc(source);  // as align_words gives them
  result.forward.target_words = nfc(target);
  result.forward.weights = std::move(aligned.posteriors);
  const int S = static_cast<int>(source.size());
  for (std::size_t t = 0; t < target.size(); ++t) {
    float total = 0.0f;
    for (int s = 0; s < S; ++s) total += result.forward.weights[at(static_cast<int>(t), s, S)];
    result.forward.null_weights.push_back(std::max(0.0f, 1.0f - total));
  }
  return result;
}

// Both directions' attention (the forward model's alone for a method that needs no reverse), and
// the method's links from it.
PairAlignment attention_pair(const AlignmentModels& models, const std::vector<std::string>& source,
                             const std::vector<std::string>& target, const AlignOptions& options) {
  PairAlignment result;
  WordAttention backward;  // the reverse model's own view: rows are source words, [s][t]
  const bool both = needs_reverse(options.method);
  // The two directions' forced decodings are independent chains of small steps, which gain little
  // from threads inside them: on the pool they run side by side (one thread: one after the other).
  parallel_for(both ? 2 : 1, 2, [&](int direction, int) {
    if (direction == 0) {
      result.forward = align_words(*models.forward, source, target, options.shift);
    } else {
      backward = align_words(*models.reverse, target, source, options.shift);
    }
  });
  if (both) {
    result.backward = backward;
    std::swap(result.backward.source_words, result.backward.target_words);
    result.backward.weights =
        transposed(backward.weights.data(), static_cast<int>(source.size()), static_cast<int>(target.size()));
  }
  result.links = attention_links(result, backward, models, options);
  return result;
}

}  // namespace

void validate(const AlignOptions& options) {
  if (!(options.statistical_weight >= 0.0f && options.statistical_weight <= 1.0f)) {
    fail("statistical_weight must be in [0, 1], got ", options.statistical_weight);
  }
  if (!(options.posterior_threshold > 0.0f && options.posterior_threshold <= 1.0f)) {
    fail("posterior_threshold must be in (0, 1], got ", options.posterior_threshold);
  }
  if (!std::isfinite(options.threshold)) fail("threshold must be a finite number, got ", options.threshold);
}

PairAlignment align_pair(const AlignmentModels& models, const std::vector<std::string>& given_source,
                         const std::vector<std::string>& given_target, const AlignOptions& options) {
  validate(options);
  check_models(models, options.method);
  // the models read a Treebank escape as what it stands for; the result keeps the words as given
  const std::vector<std::string> source = treebank_unescaped(given_source), target = treebank_unescaped(given_target);
  PairAlignment result = needs_model(options.method) ? attention_pair(models, source, target, options)
                                                     : statistical_pair(*models.statistical, source, target, options);
  if (options.attach_articles) result.links = attach_articles(result.links, source);
  result.forward.source_words = nfc(given_source);
  result.forward.target_words = nfc(given_target);
  if (!result.backward.weights.empty()) {
    result.backward.source_words = result.forward.source_words;
    result.backward.target_words = result.forward.target_words;
  }
  return result;
}

}  // namespace attn
