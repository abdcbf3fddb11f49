// Text to model pieces and back, exactly as the training pipeline does it (docs/MODEL_FORMAT.md):
// a Unicode word tokenizer (§1) and the attnscope-bpe-v1 subword vocabulary (§2), in which any
// text is representable (unknown characters become UTF-8 byte pieces, never <unk>).
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace attn {

// Splits UTF-8 text into NFC words and single-character punctuation tokens (§1). Invalid UTF-8
// bytes become U+FFFD, a token of its own.
std::vector<std::string> split_words(const std::string& text);

// Splits on whitespace only: the NFC tokens of pre-tokenized input (fast_align's format).
// Invalid UTF-8 bytes become U+FFFD.
std::vector<std::string> split_on_spaces(const std::string& text);

struct Pieces {
  std::vector<int> ids;
  std::vector<int> word_of_piece;  // index of the word each piece belongs to
};

class Bpe {
 public:
  static constexpr int pad_id = 0, start_id = 1, end_id = 2;
  static constexpr int first_byte_id = 3;  // <0x00> .. <0xFF> are 3 .. 258

  // Parses and validates the tokenizer JSON; throws attn::Error naming the problem.
  static Bpe from_json(const std::string& json);

  // Words are NFC-normalized first (invalid bytes become U+FFFD), as the training text was. A
  // word's pieces are kept once found (up to words_kept words; then the kept ones are dropped), so
  // a word seen before costs a lookup: the same sentence scored again, or its words in the next one.
  // Safe to call from several threads at once, on one Bpe or its copies (they share what is kept).
  std::vector<int> encode_word(const std::string& word) const;
  static constexpr std::size_t words_kept = 1 << 15;
  Pieces encode(const std::vector<std::string>& words) const;
  // Words of a piece sequence: ▁ starts a word, specials are skipped, a run of byte pieces is
  // UTF-8-decoded to the characters that show as text (printable_utf8: malformed bytes and
  // control or format characters are dropped, never U+FFFD), so a word may come back empty.
  std::vector<std::string> decode_words(const std::vector<int>& ids) const;
  // The word index of each piece in `ids` (-1 for specials and pieces before the first word).
  std::vector<int> word_of_pieces(const std::vector<int>& ids) const;

  static bool is_byte(int id) { return id >= first_byte_id && id < first_byte_id + 256; }
  int size() const { return static_cast<int>(vocabulary_.size()); }
  const std::string& piece(int id) const;

 private:
  std::vector<std::string> vocabulary_;
  std::unordered_map<std::string, int> ids_;
  std::vector<char> starts_word_;  // piece begins with ▁
  // (left id, right id) -> (rank, merged id)
  std::unordered_map<std::uint64_t, std::pair<int, int>> merges_;
  // the BPE merges of one word, without the cache
  std::vector<int> merge_word(const std::string& word) const;
  struct KeptWords {
    std::mutex mutex;
    std::unordered_map<std::string, std::vector<int>> pieces;
  };
  std::shared_ptr<KeptWords> kept_ = std::make_shared<KeptWords>();
};

}  // namespace attn
