// The Chinese segmenter (attn/models/segmenter.hpp) against python3-jieba 0.42.1's jieba.cut(text,
// HMM=True) on Debian's zh_CN catalog sentences (tests/data/zh-segmentation.jsonl, written by
// tools/data/make_segmenter_fixture.py), its data file's checks, and the zh word tokenizer.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "attn/core/error.hpp"
#include "attn/models/segmenter.hpp"
#include "attn/models/tokenizer.hpp"
#include "fixtures.hpp"

using namespace attn;
using Catch::Matchers::Contains;
using Words = std::vector<std::string>;

namespace {

// jieba's data as the build writes it (tools/data/make_jieba.py), read once for the whole suite
const Segmenter& jieba_segmenter() {
  static const Segmenter segmenter = Segmenter::from_file(ATTN_JIEBA_FILE);
  return segmenter;
}

struct JiebaCase {
  std::string text;
  Words words;        // python3-jieba's jieba.cut
  Words model_words;  // tools/data/words.py's tokenize(text, "zh"): what the training text was split into
};

std::vector<JiebaCase> jieba_cases() {
  std::istringstream lines(read_file("zh-segmentation.jsonl"));
  std::vector<JiebaCase> cases;
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json row = nlohmann::json::parse(line);
    cases.push_back(
        {row.at("text").get<std::string>(), row.at("words").get<Words>(), row.at("model_words").get<Words>()});
  }
  return cases;
}

std::string read_whole_jieba_file() {
  std::ifstream in(ATTN_JIEBA_FILE, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

// A small data file: the HMM's tables as jieba ships them, with `words` as its dictionary.
std::string jieba_file_with(const std::string& words) {
  std::istringstream full(read_whole_jieba_file());
  std::string out, line;
  while (std::getline(full, line) && line.rfind("words ", 0) != 0) out += line + "\n";
  return out + words;
}

}  // namespace

TEST_CASE("the segmenter splits 400 catalog sentences as python3-jieba's jieba.cut does", "[segmenter]") {
  const std::vector<JiebaCase> cases = jieba_cases();
  REQUIRE(cases.size() >= 400);
  int different = 0;
  for (const JiebaCase& example : cases) {
    const Words words = jieba_segmenter().cut(example.text);
    if (words == example.words) continue;
    if (++different <= 5) CHECK(words == example.words);  // the first few shown in full
  }
  CHECK(different == 0);
}

TEST_CASE("the models' words of the fixture sentences are those the training text was split into", "[segmenter]") {
  int different = 0;
  for (const JiebaCase& example : jieba_cases()) {
    const Words words = jieba_segmenter().words(example.text);
    if (words == example.model_words) continue;
    if (++different <= 5) CHECK(words == example.model_words);
  }
  CHECK(different == 0);
}

TEST_CASE("Latin words, numbers, decimals, punctuation and whitespace come out as jieba's", "[segmenter]") {
  const Segmenter& jieba = jieba_segmenter();
  CHECK(jieba.cut("我爱Python和C++，也用C#写过3.5%的代码。") ==
        Words{"我", "爱", "Python", "和", "C++", "，", "也", "用", "C#", "写过", "3.5%", "的", "代码", "。"});
  CHECK(jieba.cut("iPhone 15售价") == Words{"iPhone", " ", "15", "售价"});
  CHECK(jieba.cut("a\r\r\nb") == Words{"a", "\r", "\r\n", "b"});  // re_skip's (\r\n|\s)
  CHECK(jieba.cut("他们在测试HMM模型") == Words{"他们", "在", "测试", "HMM", "模型"});
  CHECK(jieba.cut("甲乙丙") == Words{"甲", "乙丙"});  // the HMM joins two characters no word covers
}

TEST_CASE("empty text gives no words, whitespace gives whitespace tokens", "[segmenter]") {
  CHECK(jieba_segmenter().cut("").empty());
  CHECK(jieba_segmenter().words("").empty());
  CHECK(jieba_segmenter().cut("  ") == Words{" ", " "});
  CHECK(jieba_segmenter().words(" \n ").empty());
}

TEST_CASE("invalid UTF-8 bytes become U+FFFD, a token of their own", "[segmenter]") {
  CHECK(jieba_segmenter().cut("中文\xFF测试") == Words{"中文", "\xEF\xBF\xBD", "测试"});
  CHECK(jieba_segmenter().cut("\xE4\xB8") == Words{"\xEF\xBF\xBD", "\xEF\xBF\xBD"});  // a truncated 中
}

TEST_CASE("zh words: the word tokenizer's tokens, those with Han cut by jieba; spaces between Han taken as given",
          "[segmenter]") {
  const Segmenter& jieba = jieba_segmenter();
  // tools/data/words.py's rule, as in every language: "3.5%" is the number and the sign, not
  // jieba's one block (tokenize("3.5%的人", "zh") in Python gives these)
  CHECK(jieba.words("3.5%的人") == Words{"3.5", "%", "的", "人"});
  CHECK(jieba.words("他说：“你好！”") == Words{"他", "说", "：", "“", "你好", "！", "”"});
  CHECK(jieba.words("iPhone 15售价") == Words{"iPhone", "15", "售价"});
  CHECK(jieba.words("我爱你") == Words{"我爱你"});
  CHECK(jieba.words("我 爱 你。") == Words{"我", "爱", "你", "。"});
  CHECK(jieba.words("清华大学 \t 北京") == Words{"清华大学", "北京"});
  // a space beside a Latin word does not make the text segmented
  CHECK(jieba.words("我爱 Python") == Words{"我", "爱", "Python"});
  // NFC first: the compatibility ideograph U+F900 is U+8C48
  CHECK(jieba.words("\xEF\xA4\x80") == Words{"\xE8\xB1\x88"});
}

TEST_CASE("the word tokenizer by language: jieba for zh only", "[segmenter]") {
  const std::string text = "Hello, world! 中文分词";
  CHECK(split_words(text, "es", nullptr) == split_words(text));
  CHECK(split_words(text, "en", &jieba_segmenter()) == split_words(text));
  CHECK(split_words(text, "zh", &jieba_segmenter()) == Words{"Hello", ",", "world", "!", "中文", "分词"});
  CHECK_THROWS_WITH(split_words(text, "zh", nullptr), Contains("needs jieba's dictionary"));
}

TEST_CASE("a word listed twice keeps its last frequency, as jieba's dictionary loading does", "[segmenter]") {
  const Segmenter last_counts = Segmenter::from_bytes(jieba_file_with("words 3\n甲乙 0\n丙 5\n甲乙 50\n"));
  CHECK(last_counts.word_count() == 2);
  CHECK(last_counts.cut("甲乙丙") == Words{"甲乙", "丙"});
  const Segmenter last_is_zero = Segmenter::from_bytes(jieba_file_with("words 3\n甲乙 50\n丙 5\n甲乙 0 n\n"));
  // no word: the HMM's (python3-jieba's jieba.Tokenizer(dictionary=...) on the same three lines agrees)
  CHECK(last_is_zero.cut("甲乙丙") == Words{"甲乙丙"});
  CHECK(last_is_zero.cut("丙甲乙") == Words{"丙甲", "乙"});
  CHECK(last_counts.cut("丙甲乙") == Words{"丙", "甲乙"});
}

TEST_CASE("on a tie between routes the longer first word wins, as jieba's max over (probability, end) has it",
          "[segmenter]") {
  // 甲乙+丙丁 and 甲乙丙+丁 have the same probability, bit for bit (python3-jieba: 甲乙丙 丁)
  const Segmenter tie = Segmenter::from_bytes(jieba_file_with("words 4\n甲乙 7\n甲乙丙 7\n丙丁 3\n丁 3\n"));
  CHECK(tie.cut("甲乙丙丁") == Words{"甲乙丙", "丁"});
}

TEST_CASE("a damaged data file is refused with the line and the problem", "[segmenter]") {
  const std::string good = jieba_file_with("words 2\n甲乙 3\n丙 5\n");
  CHECK(Segmenter::from_bytes(good).word_count() == 2);
  CHECK_THROWS_WITH(Segmenter::from_bytes(""), Contains("line 1: the file ends here"));
  CHECK_THROWS_WITH(Segmenter::from_bytes("甲乙 3\n丙 5\n"), Contains("not a jieba dictionary file"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(good.substr(0, good.size() - 5)), Contains("line"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(jieba_file_with("words 2\n甲乙 3\n")), Contains("the file ends here"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(jieba_file_with("words 1\n甲乙 x\n")), Contains("'x' is not a frequency"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(jieba_file_with("words 1\n甲乙\n")),
                    Contains("expected '<word> <frequency>'"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(jieba_file_with("words 1\n甲乙 0\n")), Contains("add up to 0"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(jieba_file_with("words 999999999\n甲乙 1\n")),
                    Contains("more than the lines left"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(jieba_file_with("words 1\n\xFF 1\n")), Contains("not valid UTF-8"));
  CHECK_THROWS_WITH(Segmenter::from_bytes(good + "丁 1\n"), Contains("unexpected text after the last word"));
  std::string bad_number = good;
  bad_number.replace(bad_number.find("-0.26268660809250016"), 20, "-0.2626866080925oops");
  CHECK_THROWS_WITH(Segmenter::from_bytes(bad_number),
                    Contains("line 20: '-0.2626866080925oops' is not a log-probability"));
  CHECK_THROWS_WITH(Segmenter::from_file(std::string(ATTN_TEST_DATA) + "/no-such-file.txt"),
                    Contains("cannot open the jieba dictionary"));
}

TEST_CASE("has_han finds the characters that Segmenter::words cuts, in any text", "[segmenter]") {
  CHECK(attn::has_han("我爱你"));
  CHECK(attn::has_han("iPhone 15售价"));
  CHECK(attn::has_han("\xFF\xFE 中"));  // invalid bytes skipped
  CHECK_FALSE(attn::has_han("¿Dónde está la estación?"));
  CHECK_FALSE(attn::has_han("こんにちは、。！"));  // kana and CJK punctuation: no Han character
  CHECK_FALSE(attn::has_han(""));
  CHECK_FALSE(attn::has_han("\xE4\xB8"));  // a Han character's first two bytes only
}
