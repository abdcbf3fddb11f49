// jieba 0.42.1's accurate mode (jieba/__init__.py: cut, get_DAG, calc, __cut_DAG) over code points,
// as Python indexes its str; the HMM for unknown runs is in segmenter_hmm.cpp.
#include "attn/models/segmenter.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "attn/core/error.hpp"
#include "attn/models/internal/characters.hpp"
#include "attn/models/text.hpp"
#include "attn/models/tokenizer.hpp"

namespace attn {

namespace {

using detail::is_ascii_alphanumeric;
using detail::is_han;

// re_han_default: [\u4E00-\u9FD5a-zA-Z0-9+#&\._%\-]
bool in_han_block(char32_t c) {
  return is_han(c) || is_ascii_alphanumeric(c) || c == '+' || c == '#' || c == '&' || c == '.' || c == '_' ||
         c == '%' || c == '-';
}

// The first index in [low, high) where `holds` turns false (it holds on a prefix of the range).
template <class Predicate>
std::size_t first_false(std::size_t low, std::size_t high, Predicate holds) {
  while (low < high) {
    const std::size_t middle = low + (high - low) / 2;
    if (holds(middle))
      low = middle + 1;
    else
      high = middle;
  }
  return low;
}

}  // namespace

// One call of cut(): the text as code points with the byte offset of each (and one past the last).
class SegmenterRun {
 public:
  SegmenterRun(const Segmenter& segmenter, std::string_view text) : segmenter_(segmenter), text_(valid_utf8(text)) {
    for (std::size_t i = 0; i < text_.size();) {
      offsets_.push_back(i);
      characters_.push_back(next_code_point(text_, i));
    }
    offsets_.push_back(text_.size());
  }

  // cut(): blocks of re_han_default through the dictionary, every other character on its own
  std::vector<std::string> cut() {
    const std::size_t n = characters_.size();
    for (std::size_t i = 0; i < n;) {
      std::size_t end = i;
      while (end < n && in_han_block(characters_[end])) ++end;
      if (end > i) {
        cut_block(i, end);
        i = end;
      } else {
        const bool crlf = characters_[i] == '\r' && i + 1 < n && characters_[i + 1] == '\n';  // re_skip: (\r\n|\s)
        emit(i, i + (crlf ? 2 : 1));
        i += crlf ? 2 : 1;
      }
    }
    return std::move(out_);
  }

 private:
  const Segmenter& segmenter_;
  std::string text_;
  std::vector<std::size_t> offsets_;
  std::vector<char32_t> characters_;
  std::vector<std::string> out_;

  std::string_view span(std::size_t from, std::size_t to) const {
    return std::string_view(text_).substr(offsets_[from], offsets_[to] - offsets_[from]);
  }
  void emit(std::size_t from, std::size_t to) { out_.emplace_back(span(from, to)); }

  struct Edge {
    std::size_t last;  // the word is [k, last]
    std::int64_t frequency;
  };

  // get_DAG: the words of the dictionary starting at each character, narrowed one character at a
  // time over the sorted words (those starting with the fragment are one contiguous range).
  std::vector<std::vector<Edge>> dag(std::size_t from, std::size_t to) const {
    const Segmenter& s = segmenter_;
    std::vector<std::vector<Edge>> edges(to - from);
    for (std::size_t k = from; k < to; ++k) {
      const auto first = s.words_starting_with_.find(characters_[k]);
      std::size_t low = 0, high = 0;  // no word starts with the character
      if (first != s.words_starting_with_.end()) std::tie(low, high) = first->second;
      for (std::size_t i = k; i < to; ++i) {
        const std::string_view fragment = span(k, i + 1);
        const auto prefix = [&](std::size_t w) { return s.word(w).substr(0, fragment.size()); };
        low = first_false(low, high, [&](std::size_t w) { return prefix(w) < fragment; });
        high = first_false(low, high, [&](std::size_t w) { return prefix(w) == fragment; });
        if (low == high) break;  // no word starts with the fragment
        if (s.word(low).size() == fragment.size() && s.frequencies_[low] > 0)
          edges[k - from].push_back({i, s.frequencies_[low]});
      }
      if (edges[k - from].empty()) edges[k - from].push_back({k, 0});
    }
    return edges;
  }

  // calc: the most probable route, max((log(FREQ.get(word) or 1) - logtotal + route[x + 1], x)):
  // on a tie the longer word wins. Returns the last character of each position's first word.
  std::vector<std::size_t> route(std::size_t from, std::size_t to) const {
    const std::vector<std::vector<Edge>> edges = dag(from, to);
    const std::size_t n = to - from;
    std::vector<double> best(n + 1, 0.0);
    std::vector<std::size_t> last(n, 0);
    for (std::size_t k = n; k-- > 0;) {
      bool first = true;
      for (const Edge& edge : edges[k]) {
        const double frequency = static_cast<double>(edge.frequency > 0 ? edge.frequency : 1);
        const double score = std::log(frequency) - segmenter_.log_total_ + best[edge.last - from + 1];
        if (first || score >= best[k]) {  // edges ascend: >= keeps the later, larger x
          best[k] = score;
          last[k] = edge.last;
        }
        first = false;
      }
    }
    return last;
  }

  // __cut_DAG: words of the route; runs of single characters that are not one word go to the HMM
  void cut_block(std::size_t from, std::size_t to) {
    const std::vector<std::size_t> last = route(from, to);
    std::size_t buffered = from;  // the single characters are [buffered, x)
    const auto flush = [&](std::size_t end) {
      if (end - buffered == 1) {
        emit(buffered, end);
      } else if (end - buffered > 1) {
        if (segmenter_.frequency(span(buffered, end)) > 0) {
          for (std::size_t c = buffered; c < end; ++c) emit(c, c + 1);
        } else {
          segmenter_.cut_unknown(std::vector<char32_t>(characters_.begin() + static_cast<std::ptrdiff_t>(buffered),
                                                       characters_.begin() + static_cast<std::ptrdiff_t>(end)),
                                 out_);
        }
      }
      buffered = end;
    };
    for (std::size_t x = from; x < to;) {
      const std::size_t y = last[x - from] + 1;
      if (y - x > 1) {
        flush(x);
        emit(x, y);
        buffered = y;
      }
      x = y;
    }
    flush(to);
  }
};

std::int64_t Segmenter::frequency(std::string_view word) const {
  const std::size_t low = first_false(0, frequencies_.size(), [&](std::size_t w) { return this->word(w) < word; });
  if (low == frequencies_.size()) return -1;
  const std::string_view found = this->word(low);
  if (found == word) return frequencies_[low];
  return found.substr(0, word.size()) == word ? 0 : -1;
}

std::vector<std::string> Segmenter::cut(std::string_view text) const { return SegmenterRun(*this, text).cut(); }

namespace {

// Whitespace between two Han characters (the nearest characters on either side that are not
// whitespace): the text is already segmented.
bool already_segmented(std::string_view text) {
  char32_t before = 0;  // the last character that was not whitespace
  bool space_after_han = false;
  for (std::size_t i = 0; i < text.size();) {
    const char32_t c = next_code_point(text, i);
    if (is_space(c)) {
      space_after_han = space_after_han || is_han(before);
      continue;
    }
    if (space_after_han && is_han(c)) return true;
    space_after_han = false;
    before = c;
  }
  return false;
}

}  // namespace

std::vector<std::string> Segmenter::words(std::string_view text) const {
  const std::string normalized = nfc(text);
  std::vector<std::string> tokens = split_words(normalized);
  if (already_segmented(normalized)) return tokens;
  std::vector<std::string> words;
  words.reserve(tokens.size());
  for (std::string& token : tokens) {
    bool han = false;
    for (std::size_t i = 0; i < token.size() && !han;) han = is_han(next_code_point(token, i));
    if (!han) {
      words.push_back(std::move(token));
      continue;
    }
    for (std::string& word : cut(token)) words.push_back(std::move(word));  // a token holds no whitespace
  }
  return words;
}

bool has_han(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();)
    if (is_han(next_code_point(text, i))) return true;
  return false;
}

std::vector<std::string> split_words(const std::string& text, std::string_view language, const Segmenter* chinese) {
  if (language != "zh") return split_words(text);
  if (!chinese) fail("splitting Chinese (zh) text into words needs jieba's dictionary");
  return chinese->words(text);
}

}  // namespace attn
