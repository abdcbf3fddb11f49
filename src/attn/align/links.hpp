// Word alignments from attention matrices, symmetrization, and their evaluation.
//
// Matrices are P[t][s]: target rows, source columns, as in Bahdanau et al.'s figures.
// A link is (source index, target index), 0-based, and prints in Pharaoh format "s-t".
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace attn {

struct Link {
  int source = 0;
  int target = 0;
  friend bool operator<(const Link& a, const Link& b) {
    return a.source != b.source ? a.source < b.source : a.target < b.target;
  }
  friend bool operator==(const Link& a, const Link& b) { return a.source == b.source && a.target == b.target; }
};
using Alignment = std::vector<Link>;  // sorted, without duplicates

// Each target word links to its most attended source word.
Alignment argmax_links(const float* weights, int target_length, int source_length);
// Every cell with weight >= threshold.
Alignment threshold_links(const float* weights, int target_length, int source_length, float threshold);
// SimAlign's itermax (Jalili Sabet et al. 2020): mutual argmaxes, then up to max_iterations - 1
// rounds that let still-unaligned words take their best remaining partner (discount alpha).
Alignment itermax_links(const float* weights, int target_length, int source_length, int max_iterations = 2,
                        float alpha = 0.9f);
// Every cell that is the largest of its row and of its column (SimAlign's ArgMax: the two words
// are each other's best partner) and reaches `floor`.
Alignment mutual_best_links(const float* weights, int target_length, int source_length, float floor);

// Symmetrization of a source->target alignment with a target->source one (both given as
// (source, target) links). grow-diag-final-and follows Koehn et al. (Moses).
// The links of the other direction (source and target exchanged), sorted: what a reverse model's
// or reverse aligner's links become before symmetrization.
Alignment swapped(const Alignment& links);
Alignment intersect(const Alignment& a, const Alignment& b);
Alignment unite(const Alignment& a, const Alignment& b);
Alignment grow_diag_final_and(const Alignment& forward, const Alignment& backward, int source_length,
                              int target_length);

// English articles (a, an, the; any case) among the source words that no link reaches take the
// target words of the source word right after them, where that word has links. Languages without
// articles (Russian, Slovenian, Estonian) or with a suffixed definite article (Danish "huset",
// Bulgarian "къщата") have nothing for the article to link to, and their gold sets link "the house"
// as a whole with its translation, while aligners leave the article out.
Alignment attach_articles(const Alignment& links, const std::vector<std::string>& source_words);

// "0-0 1-2 ..." <-> links. parse_pharaoh accepts "s-t" (sure) and "s?t" or "spt" (possible: the
// Hansards' and Europarl gold sets' "p") and puts
// possible links in *possible when given. Throws attn::Error naming the bad token.
Alignment parse_pharaoh(const std::string& line, Alignment* possible = nullptr);
std::string to_pharaoh(const Alignment& links);

// Counts for alignment error rate (Och & Ney 2003), summed over sentences.
struct AlignmentScore {
  long long predicted = 0;           // |A|
  long long sure = 0;                // |S|
  long long predicted_sure = 0;      // |A ∩ S|
  long long predicted_possible = 0;  // |A ∩ P|, P includes S
  void add(const Alignment& predicted_links, const Alignment& sure_links, const Alignment& possible_links = {});
  double precision() const;  // |A∩P| / |A|
  double recall() const;     // |A∩S| / |S|
  double aer() const;        // 1 - (|A∩S| + |A∩P|) / (|A| + |S|)
};

}  // namespace attn
