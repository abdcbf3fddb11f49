#include "attn/models/internal/words.hpp"

#include "attn/core/error.hpp"
#include "attn/models/text.hpp"

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

namespace {

// Which words of `ids` hold a byte piece (`some`), and which are the model's attempt at a character
// outside its vocabulary (`attempt`): spelled in byte pieces alone (a lone ▁ aside), or holding a
// run of byte pieces that is no printable text (malformed bytes, controls: "\xF0\x9F" + "u").
void byte_words(const Bpe& bpe, const std::vector<int>& ids, const std::vector<int>& word_of, int words,
                std::vector<char>& some, std::vector<char>& attempt) {
  some.assign(words, 0);
  std::vector<char> only(words, 1), broken(words, 0);
  std::string run;
  int run_word = -1;
  const auto end_run = [&] {
    if (run_word >= 0 && printable_utf8(run) != run) broken[run_word] = 1;
    run.clear();
    run_word = -1;
  };
  for (std::size_t k = 0; k < ids.size() && k < word_of.size(); ++k) {
    const int word = word_of[k];
    if (word < 0 || word >= words || !Bpe::is_byte(ids[k]) || word != run_word) end_run();
    if (word < 0 || word >= words) continue;
    if (Bpe::is_byte(ids[k])) {
      some[word] = 1;
      run_word = word;
      run += static_cast<char>(ids[k] - Bpe::first_byte_id);
    } else if (bpe.piece(ids[k]) != "\xE2\x96\x81") {  // a lone ▁ only starts the word
      only[word] = 0;
    }
  }
  end_run();
  attempt.assign(words, 0);
  for (int w = 0; w < words; ++w) attempt[w] = some[w] && (only[w] || broken[w]);
}

}  // namespace

bool restore_unknown_words(const Bpe& bpe, const std::vector<int>& target_ids, const Pieces& source,
                           const std::vector<std::string>& source_words, const std::vector<float>& weights,
                           std::vector<std::string>& target_words, std::vector<int>& target_word_of) {
  const int Sw = static_cast<int>(source_words.size()), Tw = static_cast<int>(target_words.size());
  std::vector<char> source_bytes, unused, target_bytes, attempts;
  byte_words(bpe, source.ids, source.word_of_piece, Sw, source_bytes, unused);
  byte_words(bpe, target_ids, target_word_of, Tw, target_bytes, attempts);
  for (int t = 0; t < Tw; ++t) {
    if (!attempts[t]) continue;
    int best = -1;
    for (int s = 0; s < Sw; ++s) {
      const float weight = weights[static_cast<std::size_t>(t) * Sw + s];
      if (source_bytes[s] && (best < 0 || weight > weights[static_cast<std::size_t>(t) * Sw + best])) best = s;
    }
    if (best < 0) continue;
    target_words[t] = nfc(source_words[best]);
    source_bytes[best] = 0;  // each source word is copied once
  }
  std::vector<int> renumbered(Tw, -1);
  std::vector<std::string> kept;
  for (int t = 0; t < Tw; ++t) {
    if (target_words[t].empty()) continue;
    renumbered[t] = static_cast<int>(kept.size());
    kept.push_back(std::move(target_words[t]));
  }
  const bool removed = static_cast<int>(kept.size()) < Tw;
  target_words = std::move(kept);
  for (int& word : target_word_of) word = word >= 0 && word < Tw ? renumbered[word] : word;
  return removed;
}

std::vector<int> input_rows(const std::vector<int>& word_of) {
  std::vector<int> rows{-1};
  rows.insert(rows.end(), word_of.begin(), word_of.end());
  return rows;
}

}  // namespace attn::detail
