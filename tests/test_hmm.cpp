// The HMM aligner: forward-backward and Viterbi against brute-force enumeration of every
// alignment, what EM learns from synthetic corpora (one of which IBM Model 2 gets wrong), and its
// file format.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>

#include "attn/align/hmm.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/text.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

// A random model over source words a b c and target words w x y z (one of them never in the table).
HmmModel random_model(std::uint64_t seed, int max_jump, float null_probability) {
  Rng rng(seed);
  TranslationTable lexicon;
  lexicon.source_vocabulary = {{"a", 1}, {"b", 2}, {"c", 3}};
  lexicon.target_vocabulary = {{"w", 1}, {"x", 2}, {"y", 3}, {"z", 4}};
  lexicon.table.resize(4);
  for (int e = 0; e <= 3; ++e)
    for (int f = 1; f <= 3; ++f) lexicon.table[e][f] = 0.05f + 0.9f * rng.uniform();
  std::vector<float> jump(2 * max_jump + 1);
  for (float& c : jump) c = 0.05f + rng.uniform();
  return HmmModel::from_parameters(lexicon, jump, null_probability);
}

// Every alignment a_1..a_J (0 = NULL, else a source position 1..I) with its probability, straight
// from the model's definition (jump widths clamped, NULL remembering the last source position).
struct Enumeration {
  double total = 0.0;
  std::vector<double> posterior, null_posterior;  // [J][I], [J]
  std::vector<int> best;                          // the most probable alignment
};

Enumeration enumerate(const HmmModel& model, const Sentence& source, const Sentence& target) {
  const int I = static_cast<int>(source.size()), J = static_cast<int>(target.size()), B = model.max_jump();
  const double p0 = model.null_probability();
  const auto c = [&](int d) { return double(model.jump()[std::clamp(d, -B, B) + B]); };
  const auto theta = [&](int i, int j) {  // i = 0: NULL
    const TranslationTable& t = model.lexicon();
    return t.translation(i == 0 ? 0 : t.source_id(source[i - 1]), t.target_id(target[j]));
  };
  Enumeration result;
  result.posterior.assign(J * I, 0.0);
  result.null_posterior.assign(J, 0.0);
  double best_probability = -1.0;
  std::vector<int> a(J);
  std::function<void(int, int, double)> walk = [&](int j, int last, double probability) {
    if (j == J) {
      result.total += probability;
      for (int k = 0; k < J; ++k) (a[k] ? result.posterior[k * I + a[k] - 1] : result.null_posterior[k]) += probability;
      if (probability > best_probability) best_probability = probability, result.best = a;
      return;
    }
    a[j] = 0;
    walk(j + 1, last, probability * p0 * theta(0, j));
    double z = 0.0;
    for (int k = 1; k <= I; ++k) z += c(k - last);
    for (int i = 1; i <= I; ++i) {
      a[j] = i;
      walk(j + 1, i, probability * (1 - p0) * c(i - last) / z * theta(i, j));
    }
  };
  walk(0, 0, 1.0);
  for (double& p : result.posterior) p /= result.total;
  for (double& p : result.null_posterior) p /= result.total;
  return result;
}

// Synthetic English-like source "the NOUN VERB the NOUN" and its translation, word for word,
// after 0 to 4 filler words that translate nothing: the fillers shift the target against the
// source, which misleads a diagonal prior about which "the" each "el" translates.
struct Corpus {
  std::vector<Sentence> source, target;
  std::vector<Alignment> links;
};

Corpus filler_corpus(int sentences, std::uint64_t seed) {
  const std::vector<std::string> nouns{"cat", "house", "car", "book", "tree", "dog", "man", "girl"},
      verbs{"sees", "has", "likes", "takes"};
  Rng rng(seed);
  Corpus corpus;
  for (int k = 0; k < sentences; ++k) {
    const int fillers = static_cast<int>(rng.next() % 5);
    const Sentence source{"the", nouns[rng.next() % 8], verbs[rng.next() % 4], "the", nouns[rng.next() % 8]};
    Sentence target(fillers, "eh");
    Alignment links;
    for (int i = 0; i < 5; ++i) {
      links.push_back({i, fillers + i});
      target.push_back(source[i] == "the" ? "el" : "es_" + source[i]);
    }
    corpus.source.push_back(source);
    corpus.target.push_back(target);
    corpus.links.push_back(links);
  }
  return corpus;
}

// Rare words collect garbage (Brown et al. 1993; Moore 2004): a source word seen once can take a
// target word that translates nothing (one of many particles, each too rare for theta(f | NULL)
// to explain it) besides its own translation, since its one row of theta has mass to spare, while
// the other direction, where the rare word chooses among target words, keeps to its translation.
// The product of the two directions' posteriors in agreement training takes that mass away.
Corpus rare_word_corpus(int sentences, std::uint64_t seed) {
  const std::vector<std::string> nouns{"cat", "house", "car", "book"}, verbs{"sees", "has"};
  Rng rng(seed);
  Corpus corpus;
  for (int k = 0; k < sentences; ++k) {
    const std::string rare = "r" + std::to_string(k), particle = "p" + std::to_string(rng.next() % 50);
    const Sentence source{"the", nouns[rng.next() % 4], verbs[rng.next() % 2], rare};
    const Sentence target{"el", "es_" + source[1], "es_" + source[2], particle, "es_" + rare};
    corpus.source.push_back(source);
    corpus.target.push_back(target);
    corpus.links.push_back({{0, 0}, {1, 1}, {2, 2}, {3, 4}});
  }
  return corpus;
}

HmmOptions quick_options() {
  HmmOptions options;
  options.ibm2.iterations = 3;
  options.iterations = 5;
  return options;
}

// The file tests' aligner: trained on filler_corpus(100, 7), which it returns in `corpus`.
HmmAligner filler_aligner(Corpus& corpus) {
  corpus = filler_corpus(100, 7);
  HmmAligner aligner;
  aligner.train(corpus.source, corpus.target, quick_options());
  return aligner;
}

}  // namespace

TEST_CASE("forward-backward gives the posteriors and likelihood of brute-force enumeration", "[hmm]") {
  for (const auto& [seed, max_jump, null_probability] :
       {std::tuple{42, 1, 0.1f}, std::tuple{7, 2, 0.3f}, std::tuple{9, 5, 0.15f}}) {
    const HmmModel model = random_model(seed, max_jump, null_probability);
    const Sentence source{"a", "c", "b", "a"}, target{"x", "w", "q", "y", "x"};  // "q" is unknown
    const Enumeration expected = enumerate(model, source, target);
    CHECK(model.log_likelihood(source, target) == Approx(std::log(expected.total)).epsilon(1e-9));
    const std::vector<float> p = model.posteriors(source, target);
    REQUIRE(p.size() == expected.posterior.size());
    CHECK(testing::max_abs_difference(p, expected.posterior) < 1e-6);
    for (std::size_t j = 0; j < target.size(); ++j) {  // each row sums to 1 - p(NULL)
      double row = 0.0;
      for (std::size_t i = 0; i < source.size(); ++i) row += p[j * source.size() + i];
      CHECK(row == Approx(1.0 - expected.null_posterior[j]).margin(1e-6));
      CHECK(expected.null_posterior[j] > 1e-3);
    }
    Alignment best;
    for (std::size_t j = 0; j < target.size(); ++j)
      if (expected.best[j]) best.push_back({expected.best[j] - 1, static_cast<int>(j)});
    std::sort(best.begin(), best.end());
    CHECK(to_pharaoh(model.viterbi(source, target)) == to_pharaoh(best));
  }
}

TEST_CASE("the HMM learns the adjective-noun swap and keeps rows summing to 1 - NULL", "[hmm]") {
  Corpus corpus;
  Rng rng(42);
  const std::vector<std::string> adjectives{"red", "big", "old", "new"},
      nouns{"cat", "house", "car", "book", "tree", "dog"};
  for (int k = 0; k < 300; ++k) {
    const Sentence source{"the", adjectives[rng.next() % 4], nouns[rng.next() % 6], "sees", "a", nouns[rng.next() % 6]};
    Sentence target;
    for (int i : {0, 2, 1, 3, 4, 5}) target.push_back("es_" + source[i]);
    corpus.source.push_back(source);
    corpus.target.push_back(target);
    corpus.links.push_back({{0, 0}, {1, 2}, {2, 1}, {3, 3}, {4, 4}, {5, 5}});
  }
  // A rarer NULL than the default: in so small a corpus, theta(f | NULL) is otherwise learned
  // high enough to win the swapped adjective (a NULL state costs less than the jumps -1, +2).
  HmmOptions options = quick_options();
  options.null_probability = 0.05f;
  HmmAligner aligner;
  aligner.train(corpus.source, corpus.target, options);
  AlignmentScore score;
  for (std::size_t k = 0; k < 20; ++k) score.add(aligner.align(corpus.source[k], corpus.target[k]), corpus.links[k]);
  CHECK(score.aer() < 0.02);
  const std::vector<float> p = aligner.forward().posteriors(corpus.source[0], corpus.target[0]);
  CHECK(p[1 * 6 + 2] > 0.9f);
  CHECK(p[2 * 6 + 1] > 0.8f);  // the adjective keeps some NULL probability
  for (int t = 0; t < 6; ++t) {
    float row = 0.0f;
    for (int s = 0; s < 6; ++s) row += p[t * 6 + s];
    CHECK(row <= 1.0f + 1e-5f);
    CHECK(row > 0.5f);
  }
  // the learned jumps favour +1 (the next word) over the rest
  const std::vector<float>& jump = aligner.forward().jump();
  const int middle = aligner.forward().max_jump();
  CHECK(std::max_element(jump.begin(), jump.end()) - jump.begin() == middle + 1);
}

TEST_CASE("the jump model finds which repeated word a word translates where IBM Model 2's diagonal prior cannot",
          "[hmm]") {
  const Corpus corpus = filler_corpus(400, 42);
  HmmOptions options = quick_options();
  HmmModel hmm;
  hmm.train(corpus.source, corpus.target, options);
  Ibm2Model ibm2;
  ibm2.train(corpus.source, corpus.target, options.ibm2);
  // four fillers: "el" at target 4 is nearer (relatively) to the second "the" of the source
  const Sentence source{"the", "cat", "sees", "the", "dog"},
      target{"eh", "eh", "eh", "eh", "el", "es_cat", "es_sees", "el", "es_dog"};
  CHECK(to_pharaoh(hmm.align(source, target)) == "0-4 1-5 2-6 3-7 4-8");
  CHECK(to_pharaoh(hmm.viterbi(source, target)) == "0-4 1-5 2-6 3-7 4-8");
  // IBM Model 2 sends the first "el" to the middle of the source (and the fillers to "the")
  CHECK(to_pharaoh(ibm2.align(source, target)) != "0-4 1-5 2-6 3-7 4-8");
  AlignmentScore hmm_score, ibm2_score;
  for (std::size_t k = 0; k < 100; ++k) {
    hmm_score.add(hmm.align(corpus.source[k], corpus.target[k]), corpus.links[k]);
    ibm2_score.add(ibm2.align(corpus.source[k], corpus.target[k]), corpus.links[k]);
  }
  CHECK(hmm_score.aer() < 0.01);
  CHECK(ibm2_score.aer() > hmm_score.aer() + 0.05);
}

TEST_CASE("the HMM lowercases words and aligns identical unknown words to each other", "[hmm]") {
  Corpus corpus = filler_corpus(200, 3);
  for (Sentence& s : corpus.source) s[0] = "The";  // capitalised in training, lowercase in use
  HmmOptions options = quick_options();
  HmmModel model;
  model.train(corpus.source, corpus.target, options);
  CHECK(model.lowercase());
  CHECK(model.lexicon().source_id("the") > 0);
  CHECK(model.lexicon().source_id("The") < 0);
  CHECK(to_pharaoh(model.align({"the", "CAT", "sees", "the", "dog"}, {"El", "es_cat", "es_sees", "el", "es_dog"})) ==
        "0-0 1-1 2-2 3-3 4-4");
  // "Fokker" was never seen: it still finds itself, where a diagonal would say 3-2
  CHECK(to_pharaoh(model.align({"the", "dog", "sees", "Fokker"}, {"Fokker", "el", "es_dog", "es_sees"})) ==
        "0-1 1-2 2-3 3-0");
}

TEST_CASE("a target prefix lets a word's inflected forms share one entry, also forms training never saw", "[hmm]") {
  // a synthetic inflecting language: each noun a 4-letter stem and one of four endings
  const std::vector<std::string> nouns{"cat", "house", "car", "book"}, stems{"macs", "ház_", "autó", "köny"},
      endings{"", "ot", "nak", "ban"};
  Rng rng(11);
  std::vector<Sentence> source, target;
  for (int k = 0; k < 300; ++k) {
    const std::size_t first = rng.next() % 4, second = rng.next() % 4;
    source.push_back({"the", nouns[first], "sees", "the", nouns[second]});
    target.push_back(
        {"el", stems[first] + endings[rng.next() % 4], "es_sees", "el", stems[second] + endings[rng.next() % 4]});
  }
  HmmOptions options = quick_options();
  options.target_prefix = 4;
  HmmAligner aligner;
  aligner.train(source, target, options);
  CHECK(aligner.forward().source_prefix() == 0);
  CHECK(aligner.forward().target_prefix() == 4);
  CHECK(aligner.backward().source_prefix() == 4);  // the other direction's source is this one's target
  CHECK(aligner.backward().target_prefix() == 0);
  for (const auto& [word, id] : aligner.forward().lexicon().target_vocabulary) {
    std::size_t position = 0;
    int characters = 0;
    while (position < word.size()) next_code_point(word, position), ++characters;
    CHECK(characters <= 4);  // prefixes of code points, not of bytes: "autó" is 5 bytes
  }
  // endings never seen in training ("-ról", "-val") still find their stem's English word
  const Sentence english{"the", "car", "sees", "the", "book"}, inflected{"el", "AUTÓRÓL", "es_sees", "el", "könyval"};
  CHECK(to_pharaoh(aligner.align(english, inflected)) == "0-0 1-1 2-2 3-3 4-4");
  const HmmAligner loaded = HmmAligner::deserialize(aligner.serialize());
  CHECK(loaded.forward().target_prefix() == 4);
  CHECK(loaded.backward().source_prefix() == 4);
  CHECK(loaded.align(english, inflected) == aligner.align(english, inflected));
  // a whole-word model's file has no prefix keys at all (files from before the option read the same)
  HmmAligner whole;
  whole.train(source, target, quick_options());
  const SafeTensors file = SafeTensors::parse(whole.serialize());
  CHECK(file.metadata().count("forward.target_prefix") == 0);
  CHECK(file.metadata().count("backward.source_prefix") == 0);
  options.target_prefix = -1;
  CHECK_THROWS_WITH(HmmAligner().train(source, target, options), Contains("must be in 0..1000"));
}

TEST_CASE("alignment by agreement trains both directions together and takes the links they disagree on away", "[hmm]") {
  const Corpus corpus = rare_word_corpus(300, 5);
  HmmOptions options = quick_options();
  HmmAligner independent, joint;
  independent.train(corpus.source, corpus.target, options);
  options.agreement = true;
  joint.train(corpus.source, corpus.target, options);
  AlignmentScore independent_score, joint_score;
  for (std::size_t k = 0; k < corpus.source.size(); ++k) {
    independent_score.add(independent.align(corpus.source[k], corpus.target[k]), corpus.links[k]);
    joint_score.add(joint.align(corpus.source[k], corpus.target[k]), corpus.links[k]);
  }
  INFO("independent AER " << independent_score.aer() << ", joint " << joint_score.aer());
  CHECK(joint_score.aer() < independent_score.aer() - 0.05);
  // the forward direction's "de" no longer goes to the rare word
  const Sentence source = corpus.source[0], target = corpus.target[0];
  CHECK(independent.forward().posteriors(source, target)[3 * 4 + 3] > 0.5f);
  CHECK(joint.forward().posteriors(source, target)[3 * 4 + 3] < 0.5f);
  // it converges: ten more iterations keep the links, and training again gives the same file
  HmmOptions longer = options;
  longer.iterations = 15;
  HmmAligner longer_joint;
  longer_joint.train(corpus.source, corpus.target, longer);
  for (std::size_t k = 0; k < 20; ++k)
    CHECK(longer_joint.align(corpus.source[k], corpus.target[k]) == joint.align(corpus.source[k], corpus.target[k]));
  HmmAligner again;
  again.train(corpus.source, corpus.target, options);
  CHECK(again.serialize() == joint.serialize());
  // the file is the format of an independently trained one: it loads and aligns the same
  const HmmAligner loaded = HmmAligner::deserialize(joint.serialize());
  CHECK(loaded.align(source, target) == joint.align(source, target));
}

TEST_CASE("an HMM file round-trips and damaged ones are rejected with the reason", "[hmm]") {
  Corpus corpus;
  const HmmAligner aligner = filler_aligner(corpus);
  const std::string bytes = aligner.serialize(1e-6f);
  const HmmAligner loaded = HmmAligner::deserialize(bytes);
  for (std::size_t k = 0; k < 10; ++k) {
    CHECK(loaded.align(corpus.source[k], corpus.target[k]) == aligner.align(corpus.source[k], corpus.target[k]));
    CHECK(testing::max_abs_difference(loaded.posteriors(corpus.source[k], corpus.target[k]),
                                      aligner.posteriors(corpus.source[k], corpus.target[k])) < 2e-3);  // F16 table
  }
  CHECK(loaded.forward().jump() == aligner.forward().jump());  // F32, exact
  CHECK(loaded.backward().null_probability() == Approx(aligner.backward().null_probability()));
  CHECK(loaded.forward().lowercase());
  CHECK_THROWS_WITH(HmmAligner::deserialize(bytes.substr(0, bytes.size() - 3)), Contains("outside"));
  CHECK_THROWS_WITH(HmmAligner::deserialize("not safetensors"), Contains("header"));
  SafeTensorsWriter other;
  other.metadata("format", "attnscope-ibm2-v1");
  CHECK_THROWS_WITH(HmmAligner::deserialize(other.bytes()), Contains("not an attnscope-hmm-v1 file"));
  const auto damaged = [&](const std::function<void(SafeTensorsWriter&)>& damage) {
    SafeTensorsWriter writer;
    writer.metadata("format", "attnscope-hmm-v1");
    aligner.forward().write(writer, "forward.", 1e-6f);
    aligner.backward().write(writer, "backward.", 1e-6f);
    damage(writer);
    return writer.bytes();
  };
  CHECK_THROWS_WITH(HmmAligner::deserialize(damaged([](SafeTensorsWriter& w) {
                      w.add("backward.jump", std::vector<float>{0.5f, -1.0f, 0.5f}, {3});
                    })),
                    Contains("backward.jump[1] = -1 is not a non-negative number"));
  CHECK_THROWS_WITH(HmmAligner::deserialize(damaged([](SafeTensorsWriter& w) {
                      w.add("forward.jump", std::vector<float>{1.0f, 1.0f}, {2});
                    })),
                    Contains("forward.jump must have an odd length"));
  CHECK_THROWS_WITH(
      HmmAligner::deserialize(damaged([](SafeTensorsWriter& w) { w.metadata("forward.null_probability", "1.5"); })),
      Contains("forward.null_probability = 1.5 is outside"));
  CHECK_THROWS_WITH(
      HmmAligner::deserialize(damaged([](SafeTensorsWriter& w) { w.metadata("backward.lowercase", "yes"); })),
      Contains("backward.lowercase must be true or false"));
  CHECK_THROWS_WITH(
      HmmAligner::deserialize(damaged([](SafeTensorsWriter& w) { w.metadata("forward.target_prefix", "2.5"); })),
      Contains("forward.target_prefix = 2.5 is not a whole number"));
  CHECK_THROWS_WITH(
      HmmAligner::deserialize(damaged([](SafeTensorsWriter& w) { w.metadata("backward.source_prefix", "-3"); })),
      Contains("backward.source_prefix = -3 is outside"));
  CHECK_THROWS_WITH(HmmAligner::deserialize(damaged(
                        [](SafeTensorsWriter& w) { w.add("forward.target", std::vector<std::int32_t>{}, {0}); })),
                    Contains("forward.target"));
  CHECK_THROWS_WITH(HmmModel().align({"a"}, {"b"}), Contains("not trained"));
  CHECK_THROWS_WITH(aligner.align({"the"}, {}), Contains("target sentence is empty"));
  CHECK_THROWS_WITH(HmmModel::from_parameters({}, {1.0f, 0.0f, 1.0f}, 0.0f), Contains("NULL probability"));
}

TEST_CASE("version 2 stores the vocabularies once and the table row by row; version 1 files still load", "[hmm]") {
  Corpus corpus;
  const HmmAligner aligner = filler_aligner(corpus);
  const std::string v2 = aligner.serialize(1e-6f);
  const SafeTensors file = SafeTensors::parse(v2);
  CHECK(file.meta("format") == "attnscope-hmm-v2");
  CHECK(file.metadata().count("source_vocabulary") == 1);
  CHECK(file.metadata().count("forward.source_vocabulary") == 0);
  CHECK(file.metadata().count("backward.target_vocabulary") == 0);
  CHECK_FALSE(file.has("forward.source"));
  CHECK(file.info("forward.row_lengths").shape ==
        std::vector<std::int64_t>{static_cast<std::int64_t>(aligner.forward().lexicon().source_vocabulary.size()) + 1});
  CHECK(file.info("backward.target").dtype == "U16");
  // the same model written as version 1 (what every file before version 2 holds)
  SafeTensorsWriter writer;
  writer.metadata("format", "attnscope-hmm-v1");
  aligner.forward().write(writer, "forward.", 1e-6f);
  aligner.backward().write(writer, "backward.", 1e-6f);
  const std::string v1 = writer.bytes();
  INFO("version 1 " << v1.size() << " bytes, version 2 " << v2.size());
  CHECK(v2.size() < v1.size() * 4 / 5);  // on this toy corpus; the shipped files shrink to 47-55 %
  const HmmAligner old = HmmAligner::deserialize(v1), current = HmmAligner::deserialize(v2);
  for (std::size_t k = 0; k < 20; ++k) {
    CHECK(old.align(corpus.source[k], corpus.target[k]) == current.align(corpus.source[k], corpus.target[k]));
    CHECK(old.posteriors(corpus.source[k], corpus.target[k]) == current.posteriors(corpus.source[k], corpus.target[k]));
  }
  CHECK(old.serialize(0.0f) == current.serialize(0.0f));  // an old file upgrades to the same bytes
  CHECK(current.serialize(0.0f) == v2);
  // two directions whose vocabularies do not mirror each other (not trained on one corpus) keep version 1
  HmmAligner other;
  other.train(filler_corpus(50, 8).target, filler_corpus(50, 8).source, quick_options());
  SafeTensorsWriter mixed;
  mixed.metadata("format", "attnscope-hmm-v1");
  aligner.forward().write(mixed, "forward.", 1e-6f);
  other.forward().write(mixed, "backward.", 1e-6f);
  REQUIRE_FALSE(aligner.forward().lexicon().mirrors(other.forward().lexicon()));
  CHECK(SafeTensors::parse(HmmAligner::deserialize(mixed.bytes()).serialize()).meta("format") == "attnscope-hmm-v1");
  // damaged version 2 files name the problem
  const auto damaged = [&](const std::function<void(SafeTensorsWriter&)>& damage) {
    SafeTensorsWriter w;
    w.metadata("format", "attnscope-hmm-v2");
    aligner.forward().lexicon().write_vocabularies(w);
    aligner.forward().write(w, "forward.", 1e-6f, true);
    aligner.backward().write(w, "backward.", 1e-6f, true);
    damage(w);
    return w.bytes();
  };
  CHECK(damaged([](SafeTensorsWriter&) {}) == v2);
  const std::int32_t sources = static_cast<std::int32_t>(aligner.forward().lexicon().source_vocabulary.size()) + 1;
  const auto lengths = [&](std::int32_t first, std::int32_t rest) {
    std::vector<std::int32_t> l(static_cast<std::size_t>(sources), rest);
    l[0] = first;
    return l;
  };
  CHECK_THROWS_WITH(HmmAligner::deserialize(damaged(
                        [&](SafeTensorsWriter& w) { w.add("forward.row_lengths", lengths(-1, 0), {sources}); })),
                    Contains("forward.row_lengths[0] = -1 is negative"));
  CHECK_THROWS_WITH(HmmAligner::deserialize(damaged([&](SafeTensorsWriter& w) {
                      w.add("forward.row_lengths", lengths(2000000000, 0), {sources});
                    })),
                    Contains("forward.row_lengths add up to 2000000000 entries, more than forward.probability holds"));
  CHECK_THROWS_WITH(HmmAligner::deserialize(damaged([&](SafeTensorsWriter& w) {
                      w.add("forward.row_lengths", std::vector<std::int32_t>{1, 2}, {2});
                    })),
                    Contains("forward.row_lengths' has shape [2]"));
  CHECK_THROWS_WITH(HmmAligner::deserialize(damaged([&](SafeTensorsWriter& w) {
                      const std::int64_t count = SafeTensors::parse(v2).info("backward.target").element_count();
                      w.add("backward.target", std::vector<std::uint16_t>(static_cast<std::size_t>(count), 60000),
                            {count});
                    })),
                    Contains("backward.entry 0 names a word outside the vocabularies"));
  CHECK_THROWS_WITH(
      HmmAligner::deserialize(damaged([](SafeTensorsWriter& w) { w.metadata("target_vocabulary", R"(["a", "a"])"); })),
      Contains("target_vocabulary repeats 'a'"));
  SafeTensorsWriter bare;
  bare.metadata("format", "attnscope-hmm-v2");
  CHECK_THROWS_WITH(HmmAligner::deserialize(bare.bytes()), Contains("no 'source_vocabulary'"));
}

TEST_CASE("version 2 stores target ids in two bytes only while every id fits", "[hmm]") {
  for (const int words : {0xFFFF, 0x10000}) {
    TranslationTable table;
    for (int f = 1; f <= words; ++f) table.target_vocabulary.emplace("w" + std::to_string(f), f);
    table.source_vocabulary.emplace("e", 1);
    table.table.resize(2);
    table.table[1] = {{1, 0.5f}, {words, 0.25f}};
    table.table[0] = {{2, 0.125f}};
    SafeTensorsWriter writer;
    table.write(writer, "t.", 1e-4f, true);
    const SafeTensors file = SafeTensors::parse(writer.bytes());
    CHECK(file.info("t.target").dtype == (words == 0xFFFF ? "U16" : "I32"));
    const TranslationTable back = TranslationTable::read(file, "t.", &table);
    CHECK(back.table == table.table);
  }
}
