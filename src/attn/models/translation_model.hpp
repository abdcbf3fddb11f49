// Either translation model behind one interface: the attentional RNN (attnscope-rnn-v1) or the
// Transformer (attnscope-transformer-v1), read from the file's own metadata. What the aligner, the
// command line and the JS module need: word-level alignment attention, translation, and every
// attention map of a sentence pair.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "attn/models/rnn.hpp"
#include "attn/models/transformer.hpp"

namespace attn {

enum class Architecture { rnn, transformer };
const char* to_string(Architecture architecture);  // "rnn" | "transformer"

class TranslationModel {
 public:
  // Reads the metadata's "format" and loads that model (every check of RnnModel::load or
  // TransformerModel::load applies); an unknown format is an error naming the known ones.
  static TranslationModel load(std::string bytes);
  static TranslationModel load(const SafeTensors& file);

  // Implicit: either model is a TranslationModel.
  TranslationModel(RnnModel model);
  TranslationModel(TransformerModel model);

  Architecture architecture() const { return transformer_ ? Architecture::transformer : Architecture::rnn; }
  // Decoder layers with cross-attention, and heads per layer (the RNN: one and one).
  int layers() const;
  int heads() const;
  int encoder_layers() const;  // the RNN: 0 (it has no self-attention)
  const Bpe& tokenizer() const;
  std::string metadata_value(const std::string& key) const;

  // A multilingual Transformer (one file for English <-> several languages) writes the language
  // it is told to: for_target("fr") is the same model (weights shared) set to write French.
  bool multilingual() const;
  std::vector<std::string> languages() const;  // a multilingual model's, English first; else empty
  // Throws attn::Error for a language the model does not write, naming those it does; a model of
  // one direction accepts only its own target language (metadata "target_language").
  TranslationModel for_target(const std::string& language) const;
  // The language the decoder writes ("" for a multilingual model not yet set by for_target).
  std::string target_language() const;
  // The decoder's first input: <s>, or the target's language tag. A multilingual model not set
  // by for_target throws attn::Error naming its languages.
  int start_id() const;
  // The model itself (null for the other architecture).
  const RnnModel* rnn() const { return rnn_.get(); }
  const TransformerModel* transformer() const { return transformer_.get(); }

 private:
  std::shared_ptr<const RnnModel> rnn_;
  std::shared_ptr<const TransformerModel> transformer_;
  std::string target_;  // a multilingual model's chosen target language
};

// Word-level attention (§4 of the format) over words taken as given, NFC-normalized (a word that
// the tokenizer would split further, like "NOS/NTR", is split for the model and its parts count for it):
// a target word's row is the mean of its pieces' rows,
// a source word's column the sum of its pieces' columns; the source </s> column becomes
// `null_weights`, the target </s> row is dropped. shift reads each target piece's attention at
// the step where it is the decoder's input (Chen et al. 2020) instead of where it is predicted.
struct WordAttention {
  std::vector<std::string> source_words, target_words;
  std::vector<float> weights;       // [target words][source words]
  std::vector<float> null_weights;  // [target words]
  double log_prob = 0.0;            // log p(target | source), when asked for (it needs the output layer)
};

struct WordTranslation {
  std::string text;
  WordAttention attention;  // of the output, word level (a Transformer's: its alignment head)
  // Every cross-attention map of the output at word level, [layers][heads][target words][source
  // words] (as attention_maps gives them); an RNN's is its one map, attention.weights.
  int layers = 1, heads = 1;
  std::vector<float> cross;
};

// Word-level attention (WordAttention, above) of the model's alignment attention:
// the RNN's attention, or the cross-attention head a Transformer was trained to align with
// (its architecture's alignment_layer and alignment_head). shift reads target piece t's attention
// at row t + 1, where t is the decoder's input (Chen et al. 2020); a head trained that way
// (alignment_shift = 1) is always read so.
WordAttention align_words(const TranslationModel& model, const std::vector<std::string>& source_words,
                          const std::vector<std::string>& target_words, bool shift = false, bool with_log_prob = false);
// Words the model spelled in byte pieces (characters outside its vocabulary: wholly in bytes, or
// with bytes that make no printable text) become the source word with such characters that they
// attend to most, as written, each source word once;
// byte pieces that make no printable text are dropped, and a word left empty with them.
// shift: `cross` reads a target word's rows where its pieces are the decoder's input (a
// Transformer's step after the one that predicts it), the rows where a head trained with
// alignment_shift = 1 holds the word; `attention` is always read as the model's metadata says.
WordTranslation translate_words(const TranslationModel& model, const std::vector<std::string>& source_words,
                                int beam = 4, bool shift = false);

// Every attention map of a forced decoding of target after source.
//   pieces = false: over the words as given (a word's row is the mean of its pieces' rows, its
//     column the sum of its pieces' columns; the special tokens are left out);
//   pieces = true: over the model's pieces, special tokens included (source: pieces, </s>; target:
//     the predicted pieces, </s>; the decoder's keys are its inputs <s> and the target pieces),
//     where every row sums to 1 and decoder self-attention is causal.
// The RNN has cross-attention only (one layer, one head); its encoder and decoder maps are empty.
struct AttentionMaps {
  std::vector<std::string> source, target;  // words, or pieces as text
  int layers = 0, heads = 0, encoder_layers = 0;
  std::vector<float> cross;    // [layers][heads][T][S]
  std::vector<float> encoder;  // [encoder_layers][heads][S][S]
  std::vector<float> decoder;  // [layers][heads][T][T]
  // With with_log_probs: log p of each target piece given the source and the pieces before it,
  // then of </s> (by pieces: one per entry of target; by words: a word's is the sum of its
  // pieces', and the last entry, one past the words, is </s>'s); log_prob, their sum.
  std::vector<float> log_probs;
  double log_prob = 0.0;
};
// with_log_probs costs the output layer (the d x V product) and the decoder's last feed-forward,
// which the maps alone skip: about 1.8x the maps' time for the bench Transformer at 60 words.
// shift (over words only): a target word's rows of cross- and decoder self-attention are read where
// its pieces are the decoder's input, as translate_words' shift; pieces are always the raw rows.
AttentionMaps attention_maps(const TranslationModel& model, const std::vector<std::string>& source_words,
                             const std::vector<std::string>& target_words, bool pieces = false,
                             bool with_log_probs = false, bool shift = false);

}  // namespace attn
