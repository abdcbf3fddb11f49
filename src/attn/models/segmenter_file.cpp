// Reading the attnscope-jieba-v1 file (segmenter.hpp): every line checked, errors by line number.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <sstream>

#include "attn/core/error.hpp"
#include "attn/models/segmenter.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

constexpr const char* jieba_format = "attnscope-jieba-v1";
constexpr char state_names[] = "BEMS";

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  for (std::size_t i = 0; i <= line.size();) {
    const std::size_t space = std::min(line.find(' ', i), line.size());
    out.push_back(line.substr(i, space - i));
    i = space + 1;
  }
  return out;
}

}  // namespace

// Walks the file line by line; the Segmenter's friend, so it fills the tables directly.
class SegmenterReader {
 public:
  explicit SegmenterReader(std::string_view bytes) : bytes_(bytes) {}

  Segmenter read() {
    if (next_line() != jieba_format)
      fail("not a jieba dictionary file: the first line must be '", jieba_format, "' (line 1)");
    while (position_ < bytes_.size() && bytes_[position_] == '#')
      next_line();  // the notice: the data's source and licence
    read_start_and_transitions();
    for (int state = 0; state < 4; ++state) read_emissions(state);
    const std::size_t words_line = line_number_;
    merge_emissions();
    line_number_ = words_line;
    read_words();
    while (position_ < bytes_.size()) {
      if (!next_line().empty()) problem("unexpected text after the last word");
    }
    return std::move(segmenter_);
  }

 private:
  std::string_view bytes_;
  std::size_t position_ = 0;
  std::size_t line_number_ = 0;
  Segmenter segmenter_;

  template <class... Parts>
  [[noreturn]] void problem(const Parts&... parts) const {
    fail("jieba dictionary file, line ", line_number_, ": ", parts...);
  }

  std::string_view next_line() {
    if (position_ >= bytes_.size()) {
      ++line_number_;
      problem("the file ends here (truncated?)");
    }
    const std::size_t end = std::min(bytes_.find('\n', position_), bytes_.size());
    std::string_view line = bytes_.substr(position_, end - position_);
    position_ = end + 1;
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    return line;
  }

  double number(std::string_view text) const {
    const std::string copy(text);
    char* end = nullptr;
    errno = 0;
    const double value = copy.empty() ? 0.0 : std::strtod(copy.c_str(), &end);
    if (copy.empty() || end != copy.c_str() + copy.size() || errno == ERANGE || !std::isfinite(value) || value > 0)
      problem("'", copy, "' is not a log-probability (a finite number <= 0)");
    return value;
  }

  Segmenter::StateLogs four_numbers(const std::vector<std::string_view>& parts, std::size_t first) const {
    Segmenter::StateLogs logs{};
    for (int s = 0; s < 4; ++s) logs[s] = number(parts[first + s]);
    return logs;
  }

  void read_start_and_transitions() {
    std::vector<std::string_view> parts = fields(next_line());
    if (parts.size() != 5 || parts[0] != "start") problem("expected 'start' and four log-probabilities (B E M S)");
    segmenter_.start_ = four_numbers(parts, 1);
    for (int from = 0; from < 4; ++from) {
      parts = fields(next_line());
      if (parts.size() != 6 || parts[0] != "trans" || parts[1] != std::string_view(&state_names[from], 1))
        problem("expected 'trans ", state_names[from], "' and four log-probabilities (to B E M S)");
      segmenter_.transitions_[from] = four_numbers(parts, 2);
    }
  }

  struct Emission {
    char32_t character;
    int state;
    double log_probability;
    std::size_t line;
  };
  std::vector<Emission> emitted_;

  // "emit <state> <count>" and its lines.
  void read_emissions(int state) {
    const std::vector<std::string_view> header = fields(next_line());
    if (header.size() != 3 || header[0] != "emit" || header[1] != std::string_view(&state_names[state], 1))
      problem("expected 'emit ", state_names[state], " <count>'");
    const std::size_t count = counted(header[2]);
    for (std::size_t k = 0; k < count; ++k) {
      const std::vector<std::string_view> parts = fields(next_line());
      std::size_t position = 0;
      const char32_t character = parts[0].empty() ? 0 : next_code_point(parts[0], position);
      if (parts.size() != 2 || parts[0].empty() || position != parts[0].size() || character == replacement_character)
        problem("expected one character and its log-probability");
      emitted_.push_back({character, state, number(parts[1]), line_number_});
    }
  }

  // The four states' tables as one, sorted by character; a state that never emits a character
  // gets finalseg's MIN_FLOAT for it.
  void merge_emissions() {
    std::stable_sort(emitted_.begin(), emitted_.end(),
                     [](const Emission& a, const Emission& b) { return a.character < b.character; });
    Segmenter& s = segmenter_;
    for (std::size_t k = 0; k < emitted_.size(); ++k) {
      const Emission& e = emitted_[k];
      if (k == 0 || emitted_[k - 1].character != e.character) {
        s.emit_characters_.push_back(e.character);
        s.emissions_.emplace_back().fill(-3.14e100);
      } else if (emitted_[k - 1].state == e.state) {
        line_number_ = e.line;
        problem("the character is listed twice for state ", state_names[e.state]);
      }
      s.emissions_.back()[e.state] = e.log_probability;
    }
    emitted_ = {};
  }

  std::size_t counted(std::string_view text) const {
    if (text.empty() || text.size() > 9 ||
        !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
      problem("'", std::string(text), "' is not a count");
    // each line takes at least 4 bytes ("x 0" and its newline): a larger count is a damaged file
    if (std::stoul(std::string(text)) > (bytes_.size() - std::min(position_, bytes_.size())) / 4 + 1)
      problem("the count ", std::string(text), " is more than the lines left in the file (truncated?)");
    return static_cast<std::size_t>(std::stoul(std::string(text)));
  }

  struct Entry {
    std::string_view word;
    std::int64_t frequency;
  };

  // "<word> <frequency>[ <tag>]", read without allocating: 350 000 of them in jieba's dictionary
  Entry word_line() {
    const std::string_view line = next_line();
    const std::size_t space = line.find(' ');
    const std::size_t tag = space == std::string_view::npos ? space : line.find(' ', space + 1);
    if (space == 0 || space == std::string_view::npos ||
        (tag != std::string_view::npos && line.find(' ', tag + 1) != std::string_view::npos))
      problem("expected '<word> <frequency>' or '<word> <frequency> <tag>'");
    const std::string_view word = line.substr(0, space), digits = line.substr(space + 1, tag - space - 1);
    for (std::size_t i = 0; i < word.size();) {
      const std::size_t start = i;
      if (next_code_point(word, i) == replacement_character && word.compare(start, 3, "\xEF\xBF\xBD") != 0)
        problem("the word is not valid UTF-8");
    }
    std::int64_t frequency = 0;
    for (const char c : digits) {
      if (c < '0' || c > '9') digits_problem(digits);
      frequency = frequency * 10 + (c - '0');
    }
    if (digits.empty() || digits.size() > 15) digits_problem(digits);
    return {word, frequency};
  }

  [[noreturn]] void digits_problem(std::string_view digits) const {
    problem("'", std::string(digits), "' is not a frequency (a whole number >= 0)");
  }

  // jieba's gen_pfdict: a word listed twice keeps its last frequency, the total counts both.
  void read_words() {
    const std::vector<std::string_view> header = fields(next_line());
    if (header.size() != 2 || header[0] != "words") problem("expected 'words <count>'");
    std::vector<Entry> entries(counted(header[1]));
    std::int64_t total = 0;
    for (Entry& entry : entries) {
      entry = word_line();
      total += entry.frequency;  // at most 10^9 lines of 10^15: no overflow
    }
    if (total <= 0) problem("the words' frequencies add up to 0");
    std::vector<std::size_t> order(entries.size());
    std::iota(order.begin(), order.end(), 0);
    const auto before = [&](std::size_t a, std::size_t b) { return entries[a].word < entries[b].word; };
    // make_jieba.py writes the words sorted (stably, repeats in their order): nothing to sort then
    if (!std::is_sorted(order.begin(), order.end(), before)) std::stable_sort(order.begin(), order.end(), before);
    Segmenter& s = segmenter_;
    for (std::size_t k = 0; k < order.size(); ++k) {
      const Entry& entry = entries[order[k]];
      if (k + 1 < order.size() && entries[order[k + 1]].word == entry.word) continue;  // a later line wins
      s.starts_.push_back(static_cast<std::uint32_t>(s.bytes_.size()));
      s.lengths_.push_back(static_cast<std::uint32_t>(entry.word.size()));
      s.frequencies_.push_back(entry.frequency);
      s.bytes_.append(entry.word);
    }
    s.log_total_ = std::log(static_cast<double>(total));
    for (std::size_t w = 0; w < s.frequencies_.size(); ++w) {  // sorted: each character's words are one run
      std::size_t position = 0;
      auto& range = s.words_starting_with_[next_code_point(s.word(w), position)];
      if (range.second == 0) range.first = static_cast<std::uint32_t>(w);
      range.second = static_cast<std::uint32_t>(w + 1);
    }
  }
};

Segmenter Segmenter::from_bytes(std::string_view bytes) {
  if (bytes.size() > 0xFFFFFFFFu) fail("jieba dictionary file: larger than 4 GiB");
  return SegmenterReader(bytes).read();
}

Segmenter Segmenter::from_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) fail("cannot open the jieba dictionary '", path, "'");
  std::ostringstream bytes;
  bytes << in.rdbuf();
  try {
    return from_bytes(bytes.str());
  } catch (const Error& e) {
    fail(path, ": ", e.what());
  }
}

}  // namespace attn
