#include "attn/align/attention_aligner.hpp"

#include <algorithm>
#include <cmath>

#include "attn/core/error.hpp"
#include "attn/align/ibm2.hpp"

namespace attn {

namespace {
struct MethodName {
  AlignMethod method;
  const char* name;
};
const MethodName method_names[] = {
    {AlignMethod::argmax, "argmax"},
    {AlignMethod::threshold, "threshold"},
    {AlignMethod::itermax, "itermax"},
    {AlignMethod::intersection, "intersection"},
    {AlignMethod::union_, "union"},
    {AlignMethod::grow_diag_final_and, "grow-diag-final-and"},
    {AlignMethod::soft_intersection, "soft-itermax"},
    {AlignMethod::hybrid, "hybrid"},
};
}  // namespace

AlignMethod parse_align_method(const std::string& name) {
  for (const MethodName& m : method_names) {
    if (name == m.name) return m.method;
  }
  std::string known;
  for (const MethodName& m : method_names) known += (known.empty() ? "" : ", ") + std::string(m.name);
  fail("unknown alignment method '", name, "' (known: ", known, ")");
}

const char* to_string(AlignMethod method) {
  for (const MethodName& m : method_names) {
    if (m.method == method) return m.name;
  }
  return "?";
}

std::vector<std::string> align_method_names() {
  std::vector<std::string> names;
  for (const MethodName& m : method_names) names.emplace_back(m.name);
  return names;
}

bool needs_reverse(AlignMethod method) {
  return method == AlignMethod::intersection || method == AlignMethod::union_ ||
         method == AlignMethod::grow_diag_final_and || method == AlignMethod::soft_intersection ||
         method == AlignMethod::hybrid;
}

bool needs_statistical(AlignMethod method) { return method == AlignMethod::hybrid; }

PairAlignment align_pair(const RnnModel& forward, const RnnModel* reverse, const std::vector<std::string>& source,
                         const std::vector<std::string>& target, const AlignOptions& options) {
  if (needs_reverse(options.method) && !reverse) fail("method '", to_string(options.method), "' needs a reverse model");
  if (needs_statistical(options.method) && !options.statistical) {
    fail("method '", to_string(options.method), "' needs a statistical aligner (IBM Model 2 or the HMM)");
  }
  if (!(options.statistical_weight >= 0.0f && options.statistical_weight <= 1.0f)) fail("the statistical weight must be in [0, 1]");
  PairAlignment result;
  result.forward = align_words(forward, source, target, options.shift);
  const int S = static_cast<int>(source.size()), T = static_cast<int>(target.size());
  const std::vector<float>& P = result.forward.weights;
  WordAttention backward;  // the reverse model's own view: rows are source words, [s][t]
  if (reverse && needs_reverse(options.method)) {
    backward = align_words(*reverse, target, source, options.shift);
    result.backward = backward;
    result.backward.source_words = source;
    result.backward.target_words = target;
    result.backward.weights.assign(P.size(), 0.0f);
    for (int t = 0; t < T; ++t)
      for (int s = 0; s < S; ++s) result.backward.weights[static_cast<std::size_t>(t) * S + s] = backward.weights[static_cast<std::size_t>(s) * T + t];
  }
  // argmax rows that prefer the null column give no link
  const auto argmax_without_null = [](const WordAttention& words, int rows, int columns) {
    Alignment links;
    for (const Link& link : argmax_links(words.weights.data(), rows, columns)) {
      if (words.weights[static_cast<std::size_t>(link.target) * columns + link.source] >= words.null_weights[link.target]) links.push_back(link);
    }
    return links;
  };
  switch (options.method) {
    case AlignMethod::argmax: result.links = argmax_without_null(result.forward, T, S); break;
    case AlignMethod::threshold: result.links = threshold_links(P.data(), T, S, options.threshold); break;
    case AlignMethod::itermax: result.links = itermax_links(P.data(), T, S); break;
    case AlignMethod::intersection:
    case AlignMethod::union_:
    case AlignMethod::grow_diag_final_and: {
      const Alignment f = argmax_without_null(result.forward, T, S);
      const Alignment b = swapped(argmax_without_null(backward, S, T));  // the reverse model links each source word
      result.links = options.method == AlignMethod::intersection ? intersect(f, b)
                   : options.method == AlignMethod::union_       ? unite(f, b)
                                                                   : grow_diag_final_and(f, b, S, T);
      break;
    }
    case AlignMethod::hybrid: {
      // each direction's attention mixed with the same direction's statistical posteriors, then
      // argmax per word in each direction and grow-diag-final-and, as for plain attention
      const std::vector<float> forward_posteriors = options.statistical->forward_posteriors(source, target);    // [t][s]
      const std::vector<float> backward_posteriors = options.statistical->backward_posteriors(source, target);  // [s][t]
      const float w = options.statistical_weight;
      WordAttention forward_mix = result.forward, backward_mix = backward;
      // linear: the NULL weight is attention's alone, scaled (as first measured); geometric: the
      // statistical NULL probability of a row is what its posteriors leave of 1
      const auto mix = [&](WordAttention& words, const std::vector<float>& posteriors, int rows, int columns) {
        for (int r = 0; r < rows; ++r) {
          float* attention = words.weights.data() + static_cast<std::size_t>(r) * columns;
          const float* statistical = posteriors.data() + static_cast<std::size_t>(r) * columns;
          if (options.geometric_mix) {
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
      };
      mix(forward_mix, forward_posteriors, T, S);
      mix(backward_mix, backward_posteriors, S, T);
      if (options.posterior_threshold > 0.0f) {
        std::vector<float> mean(forward_mix.weights.size());
        for (int t = 0; t < T; ++t)
          for (int s = 0; s < S; ++s) {
            const std::size_t k = static_cast<std::size_t>(t) * S + s;
            mean[k] = 0.5f * (forward_mix.weights[k] + backward_mix.weights[static_cast<std::size_t>(s) * T + t]);
          }
        result.links = threshold_links(mean.data(), T, S, options.posterior_threshold);
        break;
      }
      const Alignment f = argmax_without_null(forward_mix, T, S);
      const Alignment b = swapped(argmax_without_null(backward_mix, S, T));
      result.links = grow_diag_final_and(f, b, S, T);
      break;
    }
    case AlignMethod::soft_intersection: {
      std::vector<float> mean(P.size());
      for (std::size_t k = 0; k < P.size(); ++k) mean[k] = 0.5f * (P[k] + result.backward.weights[k]);
      result.links = itermax_links(mean.data(), T, S);
      break;
    }
  }
  return result;
}

}  // namespace attn
