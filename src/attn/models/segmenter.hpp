// Chinese word segmentation: jieba 0.42.1's accurate mode, jieba.cut(text, HMM=True), in C++ so
// that the command line and the page split typed Chinese text alike. The data (jieba's prefix
// dictionary and its finalseg HMM) is one file, attnscope-jieba-v1 (docs/MODEL_FORMAT.md style):
//
//   attnscope-jieba-v1
//   # ...                                 lines of the data's source and licence
//   start <B> <E> <M> <S>                 log-probabilities of the first state
//   trans <from> <B> <E> <M> <S>          four lines, from B, E, M, S
//   emit <state> <count>                  four sections, then <count> lines "<character> <log-probability>"
//   words <count>                         then <count> lines "<word> <frequency>[ <tag>]", jieba's dict.txt
//
// written at build time from Debian's python3-jieba by tools/data/make_jieba.py.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace attn {

class Segmenter {
 public:
  // Parses and checks the file; throws attn::Error naming the line and the problem.
  static Segmenter from_bytes(std::string_view bytes);
  static Segmenter from_file(const std::string& path);

  // jieba.cut(text, HMM=True), token for token: runs of [U+4E00-U+9FD5 a-zA-Z0-9+#&._%-] through
  // the prefix dictionary's most probable route, runs of single characters that are not a word
  // through the BMES HMM; every other character a token of its own (whitespace included, "\r\n"
  // one token). Invalid UTF-8 bytes become U+FFFD, a token of its own. Empty text gives no tokens.
  std::vector<std::string> cut(std::string_view text) const;

  // The words of language zh for the models, the rule of tools/data/words.py that the training text
  // was split by: the NFC text split as every other language is (split_words), then each token
  // holding a Han character (U+4E00-U+9FD5) replaced by its cut(); text already segmented
  // (whitespace with a Han character on either side: "我 爱 你") is taken as given, nothing cut.
  std::vector<std::string> words(std::string_view text) const;

  std::size_t word_count() const { return frequencies_.size(); }

  // The states of jieba's finalseg HMM, in the order of its tie-break (the later wins).
  enum State { B = 0, E = 1, M = 2, S = 3 };
  using StateLogs = std::array<double, 4>;

 private:
  // Sorted words (UTF-8 bytes order = code point order) and jieba's frequency of each.
  std::string bytes_;                   // the words' text, one after another
  std::vector<std::uint32_t> starts_;   // where each sorted word starts in bytes_
  std::vector<std::uint32_t> lengths_;  // its length in bytes
  std::vector<std::int64_t> frequencies_;
  // the sorted words that start with each character: [first, last)
  std::unordered_map<char32_t, std::pair<std::uint32_t, std::uint32_t>> words_starting_with_;
  double log_total_ = 0;  // log of the sum of every line's frequency (a repeated word counts twice)
  StateLogs start_{};
  std::array<StateLogs, 4> transitions_{};  // [from][to]
  std::vector<char32_t> emit_characters_;   // sorted
  std::vector<StateLogs> emissions_;        // emit_characters_'s log-probabilities by state

  friend class SegmenterReader;
  friend class SegmenterRun;
  std::string_view word(std::size_t index) const { return {bytes_.data() + starts_[index], lengths_[index]}; }
  // jieba's FREQ.get(word): the frequency, 0 for a prefix of a word, -1 for neither.
  std::int64_t frequency(std::string_view word) const;
  const StateLogs& emission(char32_t character) const;
  // finalseg.cut(): the HMM over a run of characters no dictionary word covers
  void cut_unknown(const std::vector<char32_t>& characters, std::vector<std::string>& out) const;
  std::vector<int> viterbi(const char32_t* characters, std::size_t count) const;
};

// The text holds a Han character (U+4E00-U+9FD5), the characters Segmenter::words cuts: typed
// text to split with jieba rather than the word tokenizer alone. Invalid bytes are skipped.
bool has_han(std::string_view text) noexcept;

// The word tokenizer by language: Segmenter::words for "zh" (`chinese` must then be given),
// split_words for every other language.
std::vector<std::string> split_words(const std::string& text, std::string_view language, const Segmenter* chinese);

}  // namespace attn
