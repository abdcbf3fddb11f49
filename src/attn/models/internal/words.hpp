// Between pieces and words, for both translation models (rnn.cpp, translation_model.cpp): words
// taken as given become pieces, and piece-level attention becomes word-level. Not public API.
#pragma once

#include <string>
#include <vector>

#include "attn/models/tokenizer.hpp"
#include "attn/models/translation_model.hpp"  // WordAttention

namespace attn::detail {

// Pieces of words taken as given: a word the tokenizer would split further (XL-WA's "NOS/NTR")
// is encoded as the model saw such text in training, and all its pieces count for that word.
Pieces encode_given_words(const Bpe& bpe, const std::vector<std::string>& words);

// Throws attn::Error for an empty sentence or one of more than 1000 words.
void check_words(const std::vector<std::string>& words, const char* side);

// Cross-attention over pieces [rows][S] summed into words (see WordAttention): a target word's
// row is the mean of its pieces' rows (row t + 1 when shift), a source word's column the sum of
// its pieces' columns; columns of no word (</s>) go to null_weights.
WordAttention aggregate(const std::vector<float>& pieces, int source_pieces_with_end,
                        const std::vector<int>& source_word_of, int source_words,
                        const std::vector<int>& target_word_of, int target_words, bool shift);

// Any piece map [rows][cols] as words [row_words][col_words]: a word's row is the mean of its
// pieces' rows, its column the sum of its pieces' columns; a piece whose word is -1 (or that lies
// past the end of the word list) is left out.
std::vector<float> word_map(const float* pieces, int rows, int cols, const std::vector<int>& row_word_of, int row_words,
                            const std::vector<int>& col_word_of, int col_words);

}  // namespace attn::detail
