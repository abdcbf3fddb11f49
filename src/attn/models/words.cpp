#include "attn/models/internal/words.hpp"

#include "attn/core/error.hpp"

namespace attn::detail {

WordAttention aggregate(const std::vector<float>& pieces, int source_pieces_with_end,
                        const std::vector<int>& source_word_of, int source_words,
                        const std::vector<int>& target_word_of, int target_words, bool shift) {
  WordAttention words;
  words.weights.assign(static_cast<std::size_t>(target_words) * source_words, 0.0f);
  words.null_weights.assign(target_words, 0.0f);
  std::vector<int> counts(target_words, 0);
  const int S = source_pieces_with_end;
  const std::size_t rows = S > 0 ? pieces.size() / static_cast<std::size_t>(S) : 0;
  for (std::size_t t = 0; t < target_word_of.size(); ++t) {
    const int word = target_word_of[t];
    const std::size_t at = t + (shift ? 1 : 0);
    // a translation cut at its length limit has no row after its last piece
    if (word < 0 || at >= rows) continue;
    const float* row = pieces.data() + at * static_cast<std::size_t>(S);
    ++counts[word];
    for (int j = 0; j < S; ++j) {
      const int source = j < static_cast<int>(source_word_of.size()) ? source_word_of[j] : -1;
      if (source >= 0)
        words.weights[static_cast<std::size_t>(word) * source_words + source] += row[j];
      else
        words.null_weights[word] += row[j];
    }
  }
  for (int w = 0; w < target_words; ++w) {
    if (!counts[w]) continue;
    for (int s = 0; s < source_words; ++s) words.weights[static_cast<std::size_t>(w) * source_words + s] /= counts[w];
    words.null_weights[w] /= counts[w];
  }
  return words;
}

Pieces encode_given_words(const Bpe& bpe, const std::vector<std::string>& words) {
  Pieces pieces;
  for (std::size_t w = 0; w < words.size(); ++w) {
    std::vector<std::string> parts = split_words(words[w]);
    if (parts.empty()) parts.push_back(words[w]);  // only spaces: keep it, so the word has pieces
    for (const std::string& part : parts) {
      for (int id : bpe.encode_word(part)) {
        pieces.ids.push_back(id);
        pieces.word_of_piece.push_back(static_cast<int>(w));
      }
    }
  }
  return pieces;
}

void check_words(const std::vector<std::string>& words, const char* side) {
  if (words.empty()) fail("the ", side, " sentence is empty");
  if (words.size() > 1000) fail("the ", side, " sentence has ", words.size(), " words (limit 1000)");
}

std::vector<float> word_map(const float* pieces, int rows, int cols, const std::vector<int>& row_word_of, int row_words,
                            const std::vector<int>& col_word_of, int col_words) {
  std::vector<float> words(static_cast<std::size_t>(row_words) * col_words, 0.0f);
  std::vector<int> counts(row_words, 0);
  const auto word_of = [](const std::vector<int>& of, int i, int limit) {
    const int word = i < static_cast<int>(of.size()) ? of[i] : -1;
    return word < limit ? word : -1;
  };
  for (int r = 0; r < rows; ++r) {
    const int row_word = word_of(row_word_of, r, row_words);
    if (row_word < 0) continue;
    ++counts[row_word];
    float* out = words.data() + static_cast<std::size_t>(row_word) * col_words;
    const float* row = pieces + static_cast<std::size_t>(r) * cols;
    for (int c = 0; c < cols; ++c) {
      const int col_word = word_of(col_word_of, c, col_words);
      if (col_word >= 0) out[col_word] += row[c];
    }
  }
  for (int w = 0; w < row_words; ++w) {
    if (!counts[w]) continue;
    for (int c = 0; c < col_words; ++c) words[static_cast<std::size_t>(w) * col_words + c] /= counts[w];
  }
  return words;
}

}  // namespace attn::detail
