#include "attn/align/links.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <set>
#include <sstream>

#include "attn/core/error.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

void check_matrix(const float* weights, int target_length, int source_length) {
  check_size("target length", target_length);
  check_size("source length", source_length);
  if (!weights) fail("the attention matrix is required");
  check_finite("attention matrix", weights, element_count("attention matrix", {target_length, source_length}));
}

Alignment normalized(Alignment links) {
  std::sort(links.begin(), links.end());
  links.erase(std::unique(links.begin(), links.end()), links.end());
  return links;
}

}  // namespace

Alignment argmax_links(const float* weights, int target_length, int source_length) {
  check_matrix(weights, target_length, source_length);
  Alignment links;
  for (int t = 0; t < target_length; ++t) {
    const float* row = weights + static_cast<std::size_t>(t) * source_length;
    links.push_back({static_cast<int>(std::max_element(row, row + source_length) - row), t});
  }
  return normalized(links);
}

Alignment threshold_links(const float* weights, int target_length, int source_length, float threshold) {
  check_matrix(weights, target_length, source_length);
  Alignment links;
  for (int t = 0; t < target_length; ++t) {
    for (int s = 0; s < source_length; ++s) {
      if (weights[static_cast<std::size_t>(t) * source_length + s] >= threshold) links.push_back({s, t});
    }
  }
  return normalized(links);
}

namespace {

// Cells [m][n] that are the best of their row and of their column, where keep > 0.
std::vector<char> mutual_argmax(const std::vector<float>& scores, const std::vector<float>& keep, int m, int n) {
  std::vector<int> row_best(m), column_best(n);
  for (int t = 0; t < m; ++t) {
    int best = 0;
    for (int s = 1; s < n; ++s)
      if (scores[t * n + s] > scores[t * n + best]) best = s;
    row_best[t] = best;
  }
  for (int s = 0; s < n; ++s) {
    int best = 0;
    for (int t = 1; t < m; ++t)
      if (scores[t * n + s] > scores[best * n + s]) best = t;
    column_best[s] = best;
  }
  std::vector<char> result(static_cast<std::size_t>(m) * n, 0);
  for (int t = 0; t < m; ++t) {
    const int s = row_best[t];
    if (column_best[s] == t && keep[t * n + s] > 0.0f) result[t * n + s] = 1;
  }
  return result;
}

// One itermax round: scores discounted by alpha where a row or column is still free, cells whose
// row and column are both taken excluded; adds the new mutual argmaxes to aligned.
bool itermax_round(const float* weights, int m, int n, float alpha, std::vector<char>& aligned) {
  std::vector<float> row_free(m, 1.0f), column_free(n, 1.0f);
  for (int t = 0; t < m; ++t)
    for (int s = 0; s < n; ++s)
      if (aligned[t * n + s]) row_free[t] = column_free[s] = 0.0f;
  float free_rows = 0.0f, free_columns = 0.0f;
  for (float x : row_free) free_rows += x;
  for (float x : column_free) free_columns += x;
  std::vector<float> masked(aligned.size()), keep(aligned.size());
  for (int t = 0; t < m; ++t) {
    for (int s = 0; s < n; ++s) {
      float mask = std::min(1.0f, alpha * row_free[t] + alpha * column_free[s]);
      float kept = 1.0f - (1.0f - row_free[t]) * (1.0f - column_free[s]);
      if (free_rows < 1.0f || free_columns < 1.0f) mask = kept = 0.0f;
      masked[t * n + s] = weights[static_cast<std::size_t>(t) * n + s] * mask;
      keep[t * n + s] = kept;
    }
  }
  const std::vector<char> added = mutual_argmax(masked, keep, m, n);
  bool changed = false;
  for (std::size_t k = 0; k < added.size(); ++k) {
    if (added[k] && !aligned[k]) {
      aligned[k] = 1;
      changed = true;
    }
  }
  return changed;
}

}  // namespace

Alignment itermax_links(const float* weights, int target_length, int source_length, int max_iterations, float alpha) {
  check_matrix(weights, target_length, source_length);
  const int m = target_length, n = source_length;
  // SimAlign works on the similarity matrix with rows = one side; argmax along both axes.
  const std::vector<float> scores(weights, weights + static_cast<std::size_t>(m) * n);
  std::vector<char> aligned = mutual_argmax(scores, std::vector<float>(scores.size(), 1.0f), m, n);
  if (std::min(m, n) > 2) {
    for (int count = 1; count < max_iterations; ++count) {
      if (!itermax_round(weights, m, n, alpha, aligned)) break;
    }
  }
  Alignment links;
  for (int t = 0; t < m; ++t)
    for (int s = 0; s < n; ++s)
      if (aligned[t * n + s]) links.push_back({s, t});
  return links;
}

Alignment mutual_best_links(const float* weights, int target_length, int source_length, float floor) {
  check_matrix(weights, target_length, source_length);
  if (!std::isfinite(floor)) fail("the mutual-best floor must be a finite number, got ", floor);
  const std::size_t count = static_cast<std::size_t>(target_length) * source_length;
  const std::vector<float> scores(weights, weights + count);
  std::vector<float> keep(count);
  for (std::size_t k = 0; k < count; ++k) keep[k] = scores[k] >= floor ? 1.0f : 0.0f;
  const std::vector<char> best = mutual_argmax(scores, keep, target_length, source_length);
  Alignment links;
  for (int t = 0; t < target_length; ++t)
    for (int s = 0; s < source_length; ++s)
      if (best[static_cast<std::size_t>(t) * source_length + s]) links.push_back({s, t});
  return links;
}

Alignment intersect(const Alignment& a, const Alignment& b) {
  const Alignment x = normalized(a), y = normalized(b);
  Alignment out;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

Alignment unite(const Alignment& a, const Alignment& b) {
  const Alignment x = normalized(a), y = normalized(b);
  Alignment out;
  std::set_union(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(out));
  return out;
}

Alignment attach_articles(const Alignment& links, const std::vector<std::string>& source_words) {
  const int S = static_cast<int>(source_words.size());
  std::vector<std::vector<int>> targets(S);
  for (const Link& link : links) {
    if (link.source < 0 || link.source >= S)
      fail("link ", link.source, "-", link.target, " is outside the ", S, " source words");
    targets[link.source].push_back(link.target);
  }
  Alignment out = links;
  for (int s = 0; s + 1 < S; ++s) {
    const std::string word = case_folded(source_words[s]);
    if ((word == "a" || word == "an" || word == "the") && targets[s].empty()) {
      for (int t : targets[s + 1]) out.push_back({s, t});
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

Alignment swapped(const Alignment& links) {
  Alignment out;
  for (const Link& link : links) out.push_back({link.target, link.source});
  std::sort(out.begin(), out.end());
  return out;
}

Alignment grow_diag_final_and(const Alignment& forward, const Alignment& backward, int source_length,
                              int target_length) {
  check_size("source length", source_length);
  check_size("target length", target_length);
  const Alignment united = unite(forward, backward);
  for (const Link& link : united) {
    if (link.source < 0 || link.source >= source_length || link.target < 0 || link.target >= target_length) {
      fail("link ", link.source, "-", link.target, " is outside a ", source_length, "x", target_length,
           " sentence pair");
    }
  }
  std::set<Link> union_set(united.begin(), united.end());
  std::set<Link> alignment;
  for (const Link& link : intersect(forward, backward)) alignment.insert(link);
  std::vector<char> source_aligned(source_length, 0), target_aligned(target_length, 0);
  for (const Link& link : alignment) source_aligned[link.source] = target_aligned[link.target] = 1;
  const int neighbours[8][2] = {{-1, 0}, {0, -1}, {1, 0}, {0, 1}, {-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
  // grow-diag: add union links next to existing ones that cover an unaligned word
  for (bool added = true; added;) {
    added = false;
    for (int s = 0; s < source_length; ++s) {
      for (int t = 0; t < target_length; ++t) {
        if (!alignment.count({s, t})) continue;
        for (const auto& d : neighbours) {
          const Link candidate{s + d[0], t + d[1]};
          if (candidate.source < 0 || candidate.source >= source_length || candidate.target < 0 ||
              candidate.target >= target_length)
            continue;
          if ((!source_aligned[candidate.source] || !target_aligned[candidate.target]) && union_set.count(candidate) &&
              !alignment.count(candidate)) {
            alignment.insert(candidate);
            source_aligned[candidate.source] = target_aligned[candidate.target] = 1;
            added = true;
          }
        }
      }
    }
  }
  // final-and: links of either direction whose two words are both still unaligned
  for (const Alignment* direction : {&forward, &backward}) {
    for (const Link& link : normalized(*direction)) {
      if (!source_aligned[link.source] && !target_aligned[link.target]) {
        alignment.insert(link);
        source_aligned[link.source] = target_aligned[link.target] = 1;
      }
    }
  }
  return Alignment(alignment.begin(), alignment.end());
}

Alignment parse_pharaoh(const std::string& line, Alignment* possible) {
  std::istringstream words(line);
  std::string token;
  Alignment sure;
  while (words >> token) {
    const std::size_t split = token.find_first_of("-?p");
    const auto number = [&](const std::string& text) {
      if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) {
        fail("'", token, "' is not a link: expected source-target indices such as 3-4");
      }
      return std::atoi(text.c_str());
    };
    if (split == std::string::npos) fail("'", token, "' is not a link: expected source-target indices such as 3-4");
    const Link link{number(token.substr(0, split)), number(token.substr(split + 1))};
    if (token[split] == '-') sure.push_back(link);
    if (possible) possible->push_back(link);  // sure links are possible too
  }
  if (possible) *possible = normalized(*possible);
  return normalized(sure);
}

std::string to_pharaoh(const Alignment& links) {
  std::string out;
  for (const Link& link : links) {
    if (!out.empty()) out += ' ';
    out += std::to_string(link.source) + "-" + std::to_string(link.target);
  }
  return out;
}

void AlignmentScore::add(const Alignment& predicted_links, const Alignment& sure_links,
                         const Alignment& possible_links) {
  const Alignment a = normalized(predicted_links);
  const Alignment possible = unite(sure_links, possible_links);
  predicted += static_cast<long long>(a.size());
  sure += static_cast<long long>(normalized(sure_links).size());
  predicted_sure += static_cast<long long>(intersect(a, sure_links).size());
  predicted_possible += static_cast<long long>(intersect(a, possible).size());
}

double AlignmentScore::precision() const { return predicted ? double(predicted_possible) / predicted : 0.0; }
double AlignmentScore::recall() const { return sure ? double(predicted_sure) / sure : 0.0; }
double AlignmentScore::aer() const {
  const long long denominator = predicted + sure;
  return denominator ? 1.0 - double(predicted_sure + predicted_possible) / denominator : 0.0;
}

}  // namespace attn
