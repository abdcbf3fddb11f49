// Compound splitting (compounds.hpp): which words split and where, the splitter in the HMM's
// file (version 3), and what it does for the HMM: a compound never seen in training still links
// to the English words of its parts. The suite runs natively and in both WebAssembly builds, so
// the splits asserted here are the same in the page.
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "attn/align/compounds.hpp"
#include "attn/align/hmm.hpp"
#include "attn/align/statistical.hpp"
#include "attn/models/safetensors.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

using Words = std::vector<std::string>;

// `word` repeated `count` times, one sentence each.
void add(std::vector<Words>& corpus, const std::string& word, int count) {
  for (int k = 0; k < count; ++k) corpus.push_back({word});
}

CompoundSplitter small_splitter() {
  std::vector<Words> corpus;
  add(corpus, "sajtó", 30);          // press
  add(corpus, "központban", 20);     // in the centre
  add(corpus, "központ", 40);        // centre
  add(corpus, "kutató", 12);         // research
  add(corpus, "vasút", 12);          // railway
  add(corpus, "állomás", 12);        // station
  add(corpus, "vasútállomás", 200);  // railway station, as one word more often than its parts
  add(corpus, "első", 15);           // first (4 code points, 5 bytes)
  add(corpus, "ritka", 3);           // rare: below min_count, never a part
  add(corpus, "2024", 50);           // not letters
  return CompoundSplitter::learn(corpus, CompoundOptions{});
}

// The parallel corpus of the HMM test: "the N1 V the N2" against "a H1 V' a H2", single nouns
// only, so that every Hungarian part is frequent and no compound is ever seen.
struct Parallel {
  std::vector<Sentence> english, hungarian;
};

Parallel noun_corpus(int sentences, std::uint64_t seed) {
  const Words nouns{"research", "centre", "press", "authority", "partner"},
      hungarian{"kutató", "központ", "sajtó", "hatóság", "partner"}, verbs{"sees", "likes"},
      verbs_hu{"látja", "szereti"};
  Rng rng(seed);
  Parallel corpus;
  for (int k = 0; k < sentences; ++k) {
    const std::size_t a = rng.next() % 5, b = rng.next() % 5, v = rng.next() % 2;
    corpus.english.push_back({"the", nouns[a], verbs[v], "the", nouns[b]});
    corpus.hungarian.push_back({"a", hungarian[a], verbs_hu[v], "a", hungarian[b]});
  }
  return corpus;
}

HmmOptions quick_compound_options() {
  HmmOptions options;
  options.ibm2.iterations = 3;
  options.iterations = 5;
  options.target_compounds = true;
  return options;
}

}  // namespace

TEST_CASE("a long word splits into frequent words of the corpus, where their counts beat its own", "[compounds]") {
  const CompoundSplitter splitter = small_splitter();
  CHECK(splitter.split("sajtóközpontban") == Words{"sajtó", "központban"});
  CHECK(splitter.split("kutatóközpont") == Words{"kutató", "központ"});
  CHECK(splitter.split("elsősajtóközpont") == Words{"első", "sajtó", "központ"});  // parts of code points, not bytes
  CHECK(splitter.split("vasútállomás") == Words{"vasútállomás"});                  // more frequent whole than its parts
  CHECK(splitter.split("ritkaközpont") == Words{"ritkaközpont"});                  // "ritka" is too rare to be a part
  CHECK(splitter.split("központ") == Words{"központ"});                            // too short to split
  CHECK(splitter.split("sajtóxyzábc") == Words{"sajtóxyzábc"});                    // the rest is no known word
  CHECK(splitter.split("2024sajtó") == Words{"2024sajtó"});                        // only words of letters split
  CHECK(splitter.split("esza-sajtóközpont") == Words{"esza", "sajtó", "központ"});  // hyphens first
  CHECK(splitter.split("1974-ben") == Words{"1974", "ben"});
  CHECK(splitter.split("-") == Words{"-"});
  CHECK(splitter.split("--sajtó") == Words{"--sajtó"});  // no hyphen inside the word
  CHECK(splitter.split("") == Words{""});
  // the parts of a split word always join to the word (hyphens aside)
  for (const std::string word : {"sajtóközpontban", "kutatósajtóhatóság", "központközpontközpont", "első-sajtó"}) {
    std::string joined;
    for (const std::string& part : splitter.split(word)) joined += part;
    std::string without_hyphens = word;
    without_hyphens.erase(std::remove(without_hyphens.begin(), without_hyphens.end(), '-'), without_hyphens.end());
    CHECK(joined == without_hyphens);
  }
  CHECK(splitter.split("központközpontközpont").size() == 3);
  // four parts would be needed, more than max_parts (3): it stays whole
  CHECK(splitter.split("központközpontközpontközpont").size() == 1);
  CompoundOptions wrong;
  wrong.max_parts = 1;
  CHECK_THROWS_WITH(CompoundSplitter::learn({}, wrong), Contains("max_parts must be in 2..8, got 1"));
  // a word longer than max_parts stored words comes back whole at once, however long (a pasted
  // run of letters): the search never looks past the longest stored word
  std::string huge;
  for (int k = 0; k < 20000; ++k) huge += "központ";
  CHECK(splitter.split(huge) == Words{huge});
  CHECK(splitter.split("központközpontközpontx") == Words{"központközpontközpontx"});
}

TEST_CASE("a splitter round-trips through a file and damaged ones name the problem", "[compounds]") {
  const CompoundSplitter splitter = small_splitter();
  SafeTensorsWriter writer;
  splitter.write(writer, "compounds.target");
  const SafeTensors file = SafeTensors::parse(writer.bytes());
  const CompoundSplitter loaded = CompoundSplitter::read(file, "compounds.target");
  CHECK(loaded.size() == splitter.size());
  for (const std::string word : {"sajtóközpontban", "kutatóközpont", "vasútállomás", "elsősajtóközpont"})
    CHECK(loaded.split(word) == splitter.split(word));
  const auto damaged = [&](const std::string& words, const std::string& options, std::vector<std::uint16_t> counts) {
    SafeTensorsWriter w;
    w.metadata("c", words);
    w.metadata("c.options", options);
    const auto n = static_cast<std::int64_t>(counts.size());
    w.add("c.log_counts", counts, {n});
    return SafeTensors::parse(w.bytes());
  };
  const std::string good_options = R"({"min_count":10,"min_part":4,"min_length":7,"max_parts":3})";
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("[\"sajtó\"", good_options, {1}), "c"),
                    Contains("c is not valid JSON"));
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("{}", good_options, {}), "c"),
                    Contains("c must be an array of words"));
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("[\"sajtó\",\"központ\"]", good_options, {1}), "c"),
                    Contains("c.log_counts"));
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("[\"sajtó\",\"sajtó\"]", good_options, {1, 2}), "c"),
                    Contains("c repeats 'sajtó'"));
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("[\"saj tó\"]", good_options, {1}), "c"),
                    Contains("c[0] = 'saj tó' is not a word of letters"));
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("[3]", good_options, {1}), "c"), Contains("c must hold strings"));
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("[]", R"({"min_count":10,"min_part":4,"min_length":7})", {}), "c"),
                    Contains("c.options needs an integer max_parts"));
  CHECK_THROWS_WITH(
      CompoundSplitter::read(damaged("[]", R"({"min_count":10,"min_part":4,"min_length":7,"max_parts":1})", {}), "c"),
      Contains("max_parts must be in 2..8, got 1"));
  CHECK_THROWS_WITH(
      CompoundSplitter::read(damaged("[]", R"({"min_count":10,"min_part":4,"min_length":7,"max_parts":900})", {}), "c"),
      Contains("max_parts must be in 2..8, got 900"));
  CHECK_THROWS_WITH(CompoundSplitter::read(damaged("[\"abc\"]", good_options, {1}), "c"),
                    Contains("c[0] = 'abc' is shorter than min_part (4)"));
  SafeTensorsWriter wide;  // counts must be U16, as written
  wide.metadata("c", "[\"sajtó\"]");
  wide.metadata("c.options", good_options);
  wide.add("c.log_counts", std::vector<std::int32_t>{70000}, {1});
  CHECK_THROWS_WITH(CompoundSplitter::read(SafeTensors::parse(wide.bytes()), "c"),
                    Contains("c.log_counts must be U16"));
  CHECK_THROWS_WITH(
      CompoundSplitter::read(damaged("[]", R"({"min_count":10,"min_part":-4,"min_length":7,"max_parts":3})", {}), "c"),
      Contains("min_part = -4 is outside 0..1000"));
}

TEST_CASE("with compounds split, a compound never seen in training links to its parts' English words", "[compounds]") {
  const Parallel corpus = noun_corpus(300, 11);
  HmmOptions options = quick_compound_options();
  HmmAligner split;
  split.train(corpus.english, corpus.hungarian, options);
  options.target_compounds = false;
  HmmAligner whole;
  whole.train(corpus.english, corpus.hungarian, options);
  REQUIRE(split.forward().target_splitter() != nullptr);
  REQUIRE(split.backward().source_splitter() == split.forward().target_splitter());  // one splitter, held once
  CHECK(split.forward().source_splitter() == nullptr);
  CHECK(whole.forward().target_splitter() == nullptr);
  const Sentence english{"the", "research", "centre", "likes", "the", "press"},
      hungarian{"a", "kutatóközpont", "szereti", "a", "sajtó"};
  const Alignment expected{{0, 0}, {1, 1}, {2, 1}, {3, 2}, {4, 3}, {5, 4}};
  CHECK(split.align(english, hungarian, Symmetrization::posterior_mean, 0.35f) == expected);
  // unsplit, the compound is a word the table never saw: only the jumps place it, at half the mass
  const std::vector<float> whole_forward = whole.forward_posteriors(english, hungarian),
                           whole_backward = whole.backward_posteriors(english, hungarian);
  CHECK(whole_forward[1 * 6 + 1] < 0.6f);
  CHECK(whole_forward[1 * 6 + 2] < 0.6f);
  CHECK(whole_backward[1 * 5 + 1] < 0.6f);
  CHECK(whole_backward[2 * 5 + 1] < 0.6f);
  // the posteriors are the words': [5 Hungarian words][6 English words] forward, [6][5] backward
  const std::vector<float> forward = split.forward_posteriors(english, hungarian);
  const std::vector<float> backward = split.backward_posteriors(english, hungarian);
  REQUIRE(forward.size() == 30);
  REQUIRE(backward.size() == 30);
  CHECK(forward[1 * 6 + 1] > 0.9f);  // kutatóközpont's first part chooses research, its second centre
  CHECK(forward[1 * 6 + 2] > 0.9f);
  CHECK(backward[1 * 5 + 1] > 0.9f);  // research and centre each choose a part of kutatóközpont
  CHECK(backward[2 * 5 + 1] > 0.9f);
  for (float p : forward) CHECK((p >= 0.0f && p <= 1.0f + 1e-6f));
  // Viterbi and posterior decoding of one direction report words too
  CHECK(split.forward().viterbi(english, hungarian) == Alignment{{0, 0}, {1, 1}, {2, 1}, {3, 2}, {4, 3}, {5, 4}});
  CHECK(split.backward().align(hungarian, english) == Alignment{{0, 0}, {1, 1}, {1, 2}, {2, 3}, {3, 4}, {4, 5}});
}

TEST_CASE("an HMM that splits compounds is a version 3 file that keeps its splitter; version 2 stays as it was",
          "[compounds]") {
  const Parallel corpus = noun_corpus(200, 5);
  HmmAligner split;
  split.train(corpus.english, corpus.hungarian, quick_compound_options());
  const std::string bytes = split.serialize();
  const SafeTensors file = SafeTensors::parse(bytes);
  CHECK(file.meta("format") == "attnscope-hmm-v3");
  CHECK(file.metadata().count("compounds.target") == 1);
  CHECK(file.metadata().count("compounds.source") == 0);
  const std::unique_ptr<StatisticalModel> loaded = load_statistical_aligner(bytes);
  const Sentence english{"the", "press", "authority", "sees", "the", "partner"},
      hungarian{"a", "sajtóhatóság", "látja", "a", "partner"};
  CHECK(loaded->align(english, hungarian) == split.align(english, hungarian));
  CHECK(testing::max_abs_difference(loaded->posteriors(english, hungarian), split.posteriors(english, hungarian)) <
        2e-3);  // F16 table
  CHECK(SafeTensors::parse(loaded->serialize(0.0f)).meta("compounds.target") == file.meta("compounds.target"));
  // trained jointly (agreement), the same splitter is learned and stored
  HmmOptions joint_options = quick_compound_options();
  joint_options.agreement = true;
  HmmAligner joint;
  joint.train(corpus.english, corpus.hungarian, joint_options);
  REQUIRE(joint.forward().target_splitter() != nullptr);
  CHECK(joint.backward().source_splitter() == joint.forward().target_splitter());
  CHECK(SafeTensors::parse(joint.serialize()).meta("format") == "attnscope-hmm-v3");
  // without splitting, the file is version 2, with no compound keys
  HmmOptions plain = quick_compound_options();
  plain.target_compounds = false;
  HmmAligner whole;
  whole.train(corpus.english, corpus.hungarian, plain);
  const SafeTensors whole_file = SafeTensors::parse(whole.serialize());
  CHECK(whole_file.meta("format") == "attnscope-hmm-v2");
  CHECK(whole_file.metadata().count("compounds.target") == 0);
  // a version 3 file whose splitter is damaged names it
  SafeTensorsWriter writer;
  writer.metadata("format", "attnscope-hmm-v3");
  split.forward().lexicon().write_vocabularies(writer);
  split.forward().write(writer, "forward.", 1e-4f, true);
  split.backward().write(writer, "backward.", 1e-4f, true);
  writer.metadata("compounds.target", "[\"sajtó\"]");
  writer.metadata("compounds.target.options", R"({"min_count":10,"min_part":4,"min_length":7,"max_parts":3})");
  writer.add("compounds.target.log_counts", std::vector<std::uint16_t>{1, 2}, {2});
  CHECK_THROWS_WITH(HmmAligner::deserialize(writer.bytes()), Contains("compounds.target.log_counts"));
  // and one without any splitter is not version 3
  SafeTensorsWriter bare;
  bare.metadata("format", "attnscope-hmm-v3");
  split.forward().lexicon().write_vocabularies(bare);
  split.forward().write(bare, "forward.", 1e-4f, true);
  split.backward().write(bare, "backward.", 1e-4f, true);
  CHECK_THROWS_WITH(HmmAligner::deserialize(bare.bytes()), Contains("needs compounds.source or compounds.target"));
  // the one-direction overload that takes a keyed corpus cannot split it
  Ibm2Model initial;
  initial.train(corpus.english, corpus.hungarian);
  HmmModel direction;
  CHECK_THROWS_WITH(direction.train(initial, corpus.english, corpus.hungarian, quick_compound_options()),
                    Contains("split compounds with train(source, target)"));
}
