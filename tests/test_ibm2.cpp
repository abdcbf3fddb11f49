// The statistical baseline: IBM Model 2 with fast_align's diagonal prior, on a synthetic corpus
// whose true alignment is known, and its file format.
#include <catch2/catch.hpp>

#include "attn/align/ibm2.hpp"
#include "attn/models/safetensors.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {
// Target = each source word translated by a fixed dictionary, with adjacent words swapped where
// a "noun adjective" pattern occurs (like English -> Spanish), so the links are known exactly.
struct DictionaryCorpus {
  std::vector<Sentence> source, target;
  std::vector<Alignment> links;
};

DictionaryCorpus synthetic_corpus(int sentences, std::uint64_t seed) {
  const std::vector<std::string> adjectives{"red", "big", "old", "new"},
      nouns{"cat", "house", "car", "book", "tree", "dog"};
  const std::vector<std::string> verbs{"sees", "has", "likes"};
  auto translate = [](const std::string& w) { return "es_" + w; };
  Rng rng(seed);
  DictionaryCorpus corpus;
  for (int k = 0; k < sentences; ++k) {
    Sentence source{"the", adjectives[rng.next() % 4], nouns[rng.next() % 6], verbs[rng.next() % 3],
                    "a",   nouns[rng.next() % 6]};
    // target: el NOUN ADJ VERB un NOUN  (adjective after the noun)
    Sentence target{translate(source[0]), translate(source[2]), translate(source[1]),
                    translate(source[3]), translate(source[4]), translate(source[5])};
    corpus.source.push_back(source);
    corpus.target.push_back(target);
    corpus.links.push_back({{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 4}, {5, 5}});
  }
  return corpus;
}
}  // namespace

TEST_CASE("IBM Model 2 learns a synthetic dictionary with reordering", "[ibm2]") {
  const DictionaryCorpus corpus = synthetic_corpus(300, 42);
  Ibm2Aligner aligner;
  aligner.train(corpus.source, corpus.target);
  AlignmentScore score;
  for (std::size_t k = 0; k < 20; ++k) score.add(aligner.align(corpus.source[k], corpus.target[k]), corpus.links[k]);
  CHECK(score.aer() < 0.02);
  // posteriors: rows are target words; the swapped noun is found despite the diagonal prior
  const std::vector<float> p = aligner.forward().posteriors(corpus.source[0], corpus.target[0]);
  CHECK(p[1 * 6 + 2] > 0.9f);  // target 1 (the noun) <- source 2
  CHECK(p[2 * 6 + 1] > 0.9f);
  CHECK(aligner.forward().tension() > 0.1f);
  // unseen words still align, by the diagonal prior
  const Alignment unknown = aligner.forward().align({"zz", "yy", "xx"}, {"qq", "rr", "ss"});
  CHECK(to_pharaoh(unknown) == "0-0 1-1 2-2");
}

TEST_CASE("an IBM Model 2 file round-trips and damaged ones are rejected", "[ibm2]") {
  const DictionaryCorpus corpus = synthetic_corpus(100, 7);
  Ibm2Aligner aligner;
  aligner.train(corpus.source, corpus.target);
  const std::string bytes = aligner.serialize();
  const Ibm2Aligner loaded = Ibm2Aligner::deserialize(bytes);
  for (std::size_t k = 0; k < 10; ++k) {
    CHECK(loaded.align(corpus.source[k], corpus.target[k]) == aligner.align(corpus.source[k], corpus.target[k]));
    const std::vector<float> a = loaded.posteriors(corpus.source[k], corpus.target[k]);
    const std::vector<float> b = aligner.posteriors(corpus.source[k], corpus.target[k]);
    CHECK(testing::max_abs_difference(a, b) < 2e-3);  // probabilities are stored as F16
  }
  CHECK(loaded.forward().tension() == Approx(aligner.forward().tension()).epsilon(1e-5));
  CHECK_THROWS_WITH(Ibm2Aligner::deserialize(bytes.substr(0, bytes.size() - 3)), Contains("outside"));
  SafeTensorsWriter other;
  other.metadata("format", "attnscope-rnn-v1");
  CHECK_THROWS_WITH(Ibm2Aligner::deserialize(other.bytes()), Contains("not an attnscope-ibm2-v1 file"));
  CHECK_THROWS_WITH(Ibm2Model().align({"a"}, {"b"}), Contains("not trained"));
  CHECK_THROWS_WITH(aligner.align({}, {"b"}), Contains("source sentence is empty"));
  std::vector<Sentence> one{{"a"}};
  CHECK_THROWS_WITH(Ibm2Aligner().train(one, {}), Contains("as many source sentences"));
}
