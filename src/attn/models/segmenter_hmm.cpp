// jieba's finalseg (jieba/finalseg/__init__.py): the BMES HMM that segments a run of characters
// the dictionary has no word for, with jieba's tie-breaks, sums in jieba's order (the same doubles).
#include <algorithm>

#include "attn/models/internal/characters.hpp"
#include "attn/models/segmenter.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

using detail::is_ascii_alphanumeric;
using detail::is_han;

constexpr double min_float = -3.14e100;  // finalseg's MIN_FLOAT

bool is_digit(char32_t c) { return c >= '0' && c <= '9'; }

// PrevStatus: the states each state may follow, in jieba's order
constexpr int previous[4][2] = {{Segmenter::E, Segmenter::S},   // B
                                {Segmenter::B, Segmenter::M},   // E
                                {Segmenter::M, Segmenter::B},   // M
                                {Segmenter::S, Segmenter::E}};  // S

std::string utf8(const char32_t* characters, std::size_t count) {
  std::string out;
  for (std::size_t k = 0; k < count; ++k) append_utf8(out, characters[k]);
  return out;
}

// The characters that are not Han in a run: re_skip ([a-zA-Z0-9]+(?:\.\d+)?%?) matches, and the
// text between them as one token each.
void cut_other(const char32_t* c, std::size_t n, std::vector<std::string>& out) {
  std::size_t pending = 0;  // the unmatched text is [pending, i)
  for (std::size_t i = 0; i < n;) {
    if (!is_ascii_alphanumeric(c[i])) {
      ++i;
      continue;
    }
    if (i > pending) out.push_back(utf8(c + pending, i - pending));
    std::size_t end = i;
    while (end < n && is_ascii_alphanumeric(c[end])) ++end;
    if (end + 1 < n && c[end] == '.' && is_digit(c[end + 1])) {
      end += 2;
      while (end < n && is_digit(c[end])) ++end;
    }
    if (end < n && c[end] == '%') ++end;
    out.push_back(utf8(c + i, end - i));
    pending = i = end;
  }
  if (n > pending) out.push_back(utf8(c + pending, n - pending));
}

}  // namespace

const Segmenter::StateLogs& Segmenter::emission(char32_t character) const {
  static const StateLogs none = {min_float, min_float, min_float, min_float};
  const auto at = std::lower_bound(emit_characters_.begin(), emit_characters_.end(), character);
  if (at == emit_characters_.end() || *at != character) return none;
  return emissions_[static_cast<std::size_t>(at - emit_characters_.begin())];
}

// viterbi(obs, 'BMES', ...): on a tie the later state in B, E, M, S wins, as Python's max over
// (probability, state) tuples has it.
std::vector<int> Segmenter::viterbi(const char32_t* characters, std::size_t count) const {
  std::vector<std::array<int, 4>> from(count);  // the best previous state of each (position, state)
  StateLogs probability;
  const StateLogs& first = emission(characters[0]);
  for (int y = 0; y < 4; ++y) probability[y] = start_[y] + first[y];
  for (std::size_t t = 1; t < count; ++t) {
    const StateLogs& emitted = emission(characters[t]);
    StateLogs next;
    for (int y = 0; y < 4; ++y) {
      int best_state = -1;
      double best = 0;
      for (const int y0 : previous[y]) {
        const double candidate = probability[y0] + transitions_[y0][y] + emitted[y];
        if (best_state < 0 || candidate > best || (candidate == best && y0 > best_state)) {
          best = candidate;
          best_state = y0;
        }
      }
      next[y] = best;
      from[t][y] = best_state;
    }
    probability = next;
  }
  int state = probability[S] >= probability[E] ? S : E;
  std::vector<int> states(count);
  for (std::size_t t = count; t-- > 0;) {
    states[t] = state;
    if (t > 0) state = from[t][state];
  }
  return states;
}

// finalseg.cut: Han runs through the HMM (__cut: a word ends at E or S; what follows the last
// one is a word), the rest by cut_other
void Segmenter::cut_unknown(const std::vector<char32_t>& characters, std::vector<std::string>& out) const {
  const std::size_t n = characters.size();
  for (std::size_t i = 0; i < n;) {
    std::size_t end = i;
    const bool han = is_han(characters[i]);
    while (end < n && is_han(characters[end]) == han) ++end;
    const char32_t* run = characters.data() + i;
    const std::size_t length = end - i;
    if (!han) {
      cut_other(run, length, out);
    } else {
      const std::vector<int> states = viterbi(run, length);
      std::size_t begin = 0, next = 0;
      for (std::size_t k = 0; k < length; ++k) {
        if (states[k] == B) {
          begin = k;
        } else if (states[k] == E) {
          out.push_back(utf8(run + begin, k + 1 - begin));
          next = k + 1;
        } else if (states[k] == S) {
          out.push_back(utf8(run + k, 1));
          next = k + 1;
        }
      }
      if (next < length) out.push_back(utf8(run + next, length - next));
    }
    i = end;
  }
}

}  // namespace attn
