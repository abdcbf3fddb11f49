// Alignment extraction, symmetrization and AER on hand-made cases.
#include <catch2/catch.hpp>

#include <limits>
#include <vector>

#include "attn/align/links.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

TEST_CASE("argmax links each target word to its most attended source word", "[align]") {
  // P[t][s]: 3 target words, 4 source words
  const std::vector<float> p{0.7f, 0.1f, 0.1f, 0.1f, 0.1f, 0.2f, 0.6f, 0.1f, 0.1f, 0.2f, 0.3f, 0.4f};
  CHECK(to_pharaoh(argmax_links(p.data(), 3, 4)) == "0-0 2-1 3-2");
  CHECK(to_pharaoh(threshold_links(p.data(), 3, 4, 0.35f)) == "0-0 2-1 3-2");
  CHECK(to_pharaoh(threshold_links(p.data(), 3, 4, 0.3f)) == "0-0 2-1 2-2 3-2");
  CHECK(threshold_links(p.data(), 3, 4, 0.9f).empty());
}

TEST_CASE("itermax keeps mutual argmaxes and then aligns the words left over", "[align]") {
  // Source 1 is every target word's favourite, so plain mutual argmax aligns only one pair.
  const std::vector<float> p{0.1f, 0.8f, 0.05f, 0.05f, 0.1f, 0.6f, 0.25f, 0.05f, 0.05f, 0.5f, 0.05f, 0.4f};
  const Alignment one_round = itermax_links(p.data(), 3, 4, 1);
  CHECK(to_pharaoh(one_round) == "1-0");
  // Round 2 masks aligned rows/columns by alpha = 0.9: target 1 (free) now scores source 1 at
  // 0.6 * 0.9 = 0.54 > 0.25, and source 1's best free-or-discounted row is target 1 (0.54 > 0.45).
  // A link needs only one of its words to be free, so SimAlign adds 1-1; target 2 stays unaligned.
  const Alignment two_rounds = itermax_links(p.data(), 3, 4, 2);
  CHECK(to_pharaoh(two_rounds) == "1-0 1-1");
  // With distinct favourites, one round already aligns everything mutual.
  const std::vector<float> clear{0.9f, 0.05f, 0.05f, 0.1f, 0.8f, 0.1f, 0.0f, 0.3f, 0.7f};
  CHECK(to_pharaoh(itermax_links(clear.data(), 3, 3, 2)) == "0-0 1-1 2-2");
}

TEST_CASE("mutual best links: each cell that is the largest of its row and of its column, from a floor up", "[align]") {
  // [t][s]: source 0 and target 0 are each other's best (0.3); target 1's best is source 0 too, but
  // source 0's best is target 0, so target 1 links nothing; source 2 and target 2 (0.12) reach a
  // floor of 0.1, not one of 0.15
  const std::vector<float> p{0.3f, 0.1f, 0.0f, 0.25f, 0.2f, 0.05f, 0.0f, 0.1f, 0.12f};
  CHECK(to_pharaoh(mutual_best_links(p.data(), 3, 3, 0.1f)) == "0-0 2-2");
  CHECK(to_pharaoh(mutual_best_links(p.data(), 3, 3, 0.15f)) == "0-0");
  CHECK(mutual_best_links(p.data(), 3, 3, 0.5f).empty());
  // a single word on either side links with its best partner on the other
  CHECK(to_pharaoh(mutual_best_links(p.data(), 1, 3, 0.0f)) == "0-0");
  CHECK(to_pharaoh(mutual_best_links(p.data(), 3, 1, 0.0f)) == "0-0");
  const float bad = std::numeric_limits<float>::quiet_NaN();
  CHECK_THROWS_WITH(mutual_best_links(p.data(), 3, 3, bad), Contains("mutual-best floor must be a finite number"));
  CHECK_THROWS_WITH(mutual_best_links(p.data(), 0, 3, 0.1f), Contains("target length must be at least 1"));
  const std::vector<float> nan{0.5f, bad};
  CHECK_THROWS_WITH(mutual_best_links(nan.data(), 1, 2, 0.1f), Contains("attention matrix"));
}

TEST_CASE("symmetrization: intersection, union and grow-diag-final-and", "[align]") {
  const Alignment forward = parse_pharaoh("0-0 1-1 2-1 3-3");
  const Alignment backward = parse_pharaoh("0-0 1-1 2-2 3-3");
  CHECK(to_pharaoh(intersect(forward, backward)) == "0-0 1-1 3-3");
  CHECK(to_pharaoh(unite(forward, backward)) == "0-0 1-1 2-1 2-2 3-3");
  // grow-diag (Moses' neighbour order): from 1-1, 2-1 joins (source 2 unaligned), then the
  // diagonal 2-2 joins (target 2 still unaligned)
  CHECK(to_pharaoh(grow_diag_final_and(forward, backward, 4, 4)) == "0-0 1-1 2-1 2-2 3-3");
  // a union link whose words are both aligned already does not grow in
  CHECK(to_pharaoh(grow_diag_final_and(parse_pharaoh("0-0 1-1 0-1"), parse_pharaoh("0-0 1-1"), 2, 2)) == "0-0 1-1");
  // final-and: a forward-only link between two otherwise unaligned words, far from the rest
  const Alignment lonely = grow_diag_final_and(parse_pharaoh("0-0 4-4"), parse_pharaoh("0-0"), 5, 5);
  CHECK(to_pharaoh(lonely) == "0-0 4-4");
  CHECK_THROWS_WITH(grow_diag_final_and(parse_pharaoh("0-7"), {}, 3, 3), Contains("outside"));
}

TEST_CASE("an English article no link reaches takes the links of the word after it", "[align]") {
  const std::vector<std::string> source{"The", "house", "of", "a", "an", "old", "man", "the"};
  // "The" takes house's targets; "a" is followed by "an", which has no links of its own (a chain
  // is not followed); "an" takes old's; a linked article and a sentence-final one are left alone
  const Alignment links = parse_pharaoh("1-0 1-1 2-2 5-3 6-4 6-5");
  CHECK(to_pharaoh(attach_articles(links, source)) == "0-0 0-1 1-0 1-1 2-2 4-3 5-3 6-4 6-5");
  CHECK(to_pharaoh(attach_articles(parse_pharaoh("0-2 1-0"), {"the", "house"})) == "0-2 1-0");
  CHECK(to_pharaoh(attach_articles(parse_pharaoh("1-0"), {"theatre", "house"})) == "1-0");  // whole words only
  CHECK(attach_articles({}, {}).empty());
  CHECK_THROWS_WITH(attach_articles(parse_pharaoh("3-0"), {"the", "house"}), Contains("outside the 2 source words"));
}

TEST_CASE("Pharaoh lines parse with sure and possible links and reject junk", "[align]") {
  Alignment possible;
  const Alignment sure = parse_pharaoh(" 2-1 0-0  1?2 0-0", &possible);
  CHECK(to_pharaoh(sure) == "0-0 2-1");
  CHECK(to_pharaoh(possible) == "0-0 1-2 2-1");
  // the Hansards' and Europarl gold sets write a possible link "spt"
  Alignment europarl;
  CHECK(to_pharaoh(parse_pharaoh("3-3 7p7 1p1", &europarl)) == "3-3");
  CHECK(to_pharaoh(europarl) == "1-1 3-3 7-7");
  CHECK(parse_pharaoh("").empty());
  CHECK_THROWS_WITH(parse_pharaoh("0-0 a-1"), Contains("'a-1' is not a link"));
  CHECK_THROWS_WITH(parse_pharaoh("3"), Contains("'3' is not a link"));
  CHECK_THROWS_WITH(parse_pharaoh("1--2"), Contains("is not a link"));
}

TEST_CASE("AER, precision and recall with sure and possible links (Och and Ney)", "[align]") {
  AlignmentScore score;
  // A = {0-0, 1-1, 2-1}, S = {0-0, 1-1}, P = S + {2-2}: |A|=3 |S|=2 |A∩S|=2 |A∩P|=2
  score.add(parse_pharaoh("0-0 1-1 2-1"), parse_pharaoh("0-0 1-1"), parse_pharaoh("2-2"));
  CHECK(score.precision() == Approx(2.0 / 3.0));
  CHECK(score.recall() == Approx(1.0));
  CHECK(score.aer() == Approx(0.2));
  // a second sentence, all sure, half right: sums accumulate over the corpus
  score.add(parse_pharaoh("0-1 1-0"), parse_pharaoh("0-0 1-0"));
  CHECK(score.predicted == 5);
  CHECK(score.sure == 4);
  CHECK(score.predicted_sure == 3);
  CHECK(score.aer() == Approx(1.0 - (3.0 + 3.0) / 9.0));
  AlignmentScore empty;
  CHECK(empty.aer() == 0.0);
}

TEST_CASE("extraction rejects bad matrices by name", "[align]") {
  std::vector<float> p{0.5f, std::nanf(""), 0.1f, 0.2f};
  CHECK_THROWS_WITH(argmax_links(p.data(), 2, 2), Contains("attention matrix contains NaN at index 1"));
  CHECK_THROWS_WITH(argmax_links(p.data(), 0, 2), Contains("target length must be at least 1"));
}
