#include "attn/models/tokenizer.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>

#include "attn/core/error.hpp"
#include "attn/models/text.hpp"

namespace attn {

namespace {

bool is_apostrophe(char32_t c) { return c == U'\'' || c == U'\u2019'; }
bool is_ascii_digit(char32_t c) { return c >= U'0' && c <= U'9'; }
bool is_number_separator(char32_t c) { return c == U',' || c == U'.'; }

std::vector<char32_t> code_points(std::string_view text) {
  std::vector<char32_t> out;
  for (std::size_t i = 0; i < text.size();) out.push_back(next_code_point(text, i));
  return out;
}

std::uint64_t pair_key(int left, int right) {
  return (static_cast<std::uint64_t>(static_cast<std::uint32_t>(left)) << 32) | static_cast<std::uint32_t>(right);
}

const std::string word_marker = "\xE2\x96\x81";  // U+2581 ▁

}  // namespace

std::vector<std::string> split_words(const std::string& text) {
  // user-perceived characters (grapheme clusters) are the units: a symbol's variation selector or
  // an emoji's ZWJ sequence stays with it instead of becoming a token of its own
  const std::vector<char32_t> chars = code_points(nfc(text));
  const std::vector<std::size_t> starts = grapheme_starts(chars);
  const auto cluster = [&](std::size_t n) {
    std::string out;
    for (std::size_t k = starts[n]; k < starts[n + 1]; ++k) append_utf8(out, chars[k]);
    return out;
  };
  const std::size_t clusters = starts.size() - 1;
  std::vector<std::string> words;
  std::string current;
  for (std::size_t n = 0; n < clusters; ++n) {
    const char32_t first = chars[starts[n]];
    const bool single = starts[n + 1] - starts[n] == 1 && !current.empty() && n + 1 < clusters;
    const bool apostrophe_inside = single && is_apostrophe(first) && is_word_char(chars[starts[n + 1]]);
    // "1,250" and "3.14" as the language writes them: a comma or point between two ASCII digits
    const bool separator_inside = single && is_number_separator(first) && is_ascii_digit(chars[starts[n] - 1]) &&
                                  is_ascii_digit(chars[starts[n + 1]]);
    if (is_word_char(first) || apostrophe_inside || separator_inside) {
      current += cluster(n);
      continue;
    }
    if (!current.empty()) words.push_back(std::move(current));
    current.clear();
    if (!is_space(first)) words.push_back(cluster(n));
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

std::vector<std::string> split_on_spaces(const std::string& text) {
  const std::string normalized = nfc(text);  // valid UTF-8 from here on
  std::vector<std::string> words;
  std::string current;
  for (std::size_t i = 0; i < normalized.size();) {
    const std::size_t start = i;
    if (is_space(next_code_point(normalized, i))) {
      if (!current.empty()) words.push_back(std::move(current));
      current.clear();
    } else {
      current.append(normalized, start, i - start);
    }
  }
  if (!current.empty()) words.push_back(std::move(current));
  return words;
}

Bpe Bpe::from_json(const std::string& json) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(json);
  } catch (const nlohmann::json::exception& e) {
    fail("the tokenizer is not valid JSON (", e.what(), ")");
  }
  if (!doc.is_object() || doc.value("type", "") != "attnscope-bpe-v1") fail("the tokenizer is not attnscope-bpe-v1");
  if (!doc.contains("vocab") || !doc["vocab"].is_array() || !doc.contains("merges") || !doc["merges"].is_array()) {
    fail("the tokenizer needs a vocab and a merges array");
  }
  Bpe bpe;
  for (const auto& piece : doc["vocab"]) {
    if (!piece.is_string()) fail("tokenizer vocab entries must be strings");
    const std::string text = piece.get<std::string>();
    if (!bpe.ids_.emplace(text, static_cast<int>(bpe.vocabulary_.size())).second)
      fail("tokenizer piece '", text, "' appears twice");
    bpe.vocabulary_.push_back(text);
    bpe.starts_word_.push_back(text.compare(0, word_marker.size(), word_marker) == 0);
  }
  if (bpe.vocabulary_.size() < 260 || bpe.vocabulary_[pad_id] != "<pad>" || bpe.vocabulary_[start_id] != "<s>" ||
      bpe.vocabulary_[end_id] != "</s>" || bpe.vocabulary_[259] != word_marker) {
    fail("the tokenizer's first pieces must be <pad> <s> </s>, 256 byte pieces and ▁");
  }
  for (int b = 0; b < 256; ++b) {
    char expected[8];
    std::snprintf(expected, sizeof expected, "<0x%02X>", b);
    if (bpe.vocabulary_[first_byte_id + b] != expected)
      fail("tokenizer piece ", first_byte_id + b, " must be ", expected);
  }
  int rank = 0;
  for (const auto& merge : doc["merges"]) {
    if (!merge.is_array() || merge.size() != 2 || !merge[0].is_string() || !merge[1].is_string()) {
      fail("tokenizer merge ", rank, " must be a pair of strings");
    }
    const std::string left = merge[0].get<std::string>(), right = merge[1].get<std::string>();
    const auto l = bpe.ids_.find(left), r = bpe.ids_.find(right), m = bpe.ids_.find(left + right);
    if (l == bpe.ids_.end() || r == bpe.ids_.end() || m == bpe.ids_.end()) {
      fail("tokenizer merge ", rank, " ('", left, "', '", right, "') uses or makes a piece missing from the vocab");
    }
    bpe.merges_.emplace(pair_key(l->second, r->second), std::make_pair(rank, m->second));
    ++rank;
  }
  return bpe;
}

const std::string& Bpe::piece(int id) const {
  if (id < 0 || id >= size()) fail("piece id ", id, " is outside the vocabulary (", size(), " pieces)");
  return vocabulary_[id];
}

std::vector<int> Bpe::encode_word(const std::string& given) const {
  if (!kept_) return merge_word(given);  // a Bpe moved from keeps nothing
  {
    std::lock_guard<std::mutex> lock(kept_->mutex);
    const auto found = kept_->pieces.find(given);
    if (found != kept_->pieces.end()) return found->second;
  }
  std::vector<int> symbols = merge_word(given);
  std::lock_guard<std::mutex> lock(kept_->mutex);
  if (kept_->pieces.size() >= words_kept) kept_->pieces.clear();
  kept_->pieces.emplace(given, symbols);
  return symbols;
}

std::vector<int> Bpe::merge_word(const std::string& given) const {
  const std::string word = nfc(given);  // valid UTF-8 from here on
  std::vector<int> symbols{259};        // ▁
  for (std::size_t i = 0; i < word.size();) {
    const std::size_t start = i;
    const char32_t c = next_code_point(word, i);
    const auto found = c == 0x2581 ? ids_.end() : ids_.find(word.substr(start, i - start));
    if (found != ids_.end()) {
      symbols.push_back(found->second);
    } else {  // the code point's UTF-8 bytes
      for (std::size_t k = start; k < i; ++k) symbols.push_back(first_byte_id + static_cast<unsigned char>(word[k]));
    }
  }
  for (;;) {
    int best_rank = INT_MAX, best_position = -1, best_id = -1;
    for (std::size_t k = 0; k + 1 < symbols.size(); ++k) {
      const auto found = merges_.find(pair_key(symbols[k], symbols[k + 1]));
      if (found != merges_.end() && found->second.first < best_rank) {
        best_rank = found->second.first;
        best_position = static_cast<int>(k);
        best_id = found->second.second;
      }
    }
    if (best_position < 0) break;
    symbols[best_position] = best_id;
    symbols.erase(symbols.begin() + best_position + 1);
  }
  return symbols;
}

Pieces Bpe::encode(const std::vector<std::string>& words) const {
  Pieces pieces;
  for (std::size_t w = 0; w < words.size(); ++w) {
    for (int id : encode_word(words[w])) {
      pieces.ids.push_back(id);
      pieces.word_of_piece.push_back(static_cast<int>(w));
    }
  }
  return pieces;
}

std::vector<int> Bpe::word_of_pieces(const std::vector<int>& ids) const {
  std::vector<int> words;
  int word = -1;
  for (int id : ids) {
    if (id < 0 || id >= size()) fail("piece id ", id, " is outside the vocabulary (", size(), " pieces)");
    if (id <= end_id) {
      words.push_back(-1);
      continue;
    }
    if (starts_word_[id] || word < 0) ++word;  // a first piece without ▁ still starts a word, as in decode_words
    words.push_back(word);
  }
  return words;
}

std::vector<std::string> Bpe::decode_words(const std::vector<int>& ids) const {
  std::vector<std::string> words;
  std::string bytes;  // the byte pieces since the last other piece, decoded together
  const auto flush = [&] {
    if (!words.empty()) words.back() += printable_utf8(bytes);
    bytes.clear();
  };
  for (int id : ids) {
    if (id < 0 || id >= size()) fail("piece id ", id, " is outside the vocabulary (", size(), " pieces)");
    if (id <= end_id) continue;
    const std::string& text = vocabulary_[id];
    if (is_byte(id)) {  // from_json checked these are <0xNN>
      if (words.empty()) words.emplace_back();
      bytes += static_cast<char>(id - first_byte_id);
      continue;
    }
    flush();
    if (starts_word_[id])
      words.emplace_back(text.substr(word_marker.size()));
    else if (words.empty())
      words.emplace_back(text);
    else
      words.back() += text;
  }
  flush();
  return words;
}

}  // namespace attn
