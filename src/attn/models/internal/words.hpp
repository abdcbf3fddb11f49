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

// A translation's words that are the model's attempt at characters outside its vocabulary (spelled
// wholly in byte pieces, or holding byte pieces that are no printable text) become the source word,
// as written, that they attend to most among the source words with byte pieces, each of those
// once; words still empty (bytes that were no printable text) are removed, their pieces' word
// becoming -1. weights: [target words][source
// words]. Returns whether a word was removed (the caller aggregates again).
bool restore_unknown_words(const Bpe& bpe, const std::vector<int>& target_ids, const Pieces& source,
                           const std::vector<std::string>& source_words, const std::vector<float>& weights,
                           std::vector<std::string>& target_words, std::vector<int>& target_word_of);

// The word of each row of a decoder map whose row t is where piece t - 1 is the decoder's input
// (<s> at row 0): -1, then word_of.
std::vector<int> input_rows(const std::vector<int>& word_of);

}  // namespace attn::detail
