// The attentional RNN translation model of docs/MODEL_FORMAT.md (attnscope-rnn-v1): a
// bidirectional GRU encoder, a GRU decoder that attends from its previous state (additive or
// general score), loaded from a validated safetensors file. Forced decoding gives the attention
// matrix P[t][j] of a given translation; greedy and beam search translate.
#pragma once

#include <string>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/tokenizer.hpp"

namespace attn {

struct RnnArchitecture {
  int embedding_dim = 0;   // E
  int encoder_hidden = 0;  // H, per direction
  int decoder_hidden = 0;  // D
  int attention_dim = 0;   // A (additive only)
  int vocab_size = 0;      // V
};

class RnnModel {
 public:
  // Validates format, architecture, every tensor's presence, dtype, shape and values, and the
  // tokenizer; throws attn::Error naming the first problem.
  static RnnModel load(std::string bytes);
  static RnnModel load(const SafeTensors& file);  // a file already parsed

  const RnnArchitecture& architecture() const { return architecture_; }
  Score attention() const { return attention_; }  // Score::additive or Score::general
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const Bpe& tokenizer() const { return tokenizer_; }
  std::string metadata_value(const std::string& key) const;

  // Per-sentence work shared by every decoder step.
  struct Encoding {
    int length = 0;                  // S, including the appended </s>
    std::vector<float> keys;         // h_j [S][2H], the keys and values of attention
    std::vector<float> projected_t;  // (W_k h_j) or (W_g h_j), transposed: [A or D][S], the scores' projected keys
    std::vector<float> start;        // s_0 [D]
  };
  // source_ids: the sentence's pieces; </s> is appended here.
  Encoding encode(const std::vector<int>& source_ids) const;

  // Forced decoding of target_ids (</s> appended): P[t][j], (T+1) x S rows of attention, row t
  // the attention used to predict target piece t. With log_prob, also sums log p(y_t).
  std::vector<float> force(const Encoding& encoding, const std::vector<int>& target_ids,
                           double* log_prob = nullptr) const;

  struct Translation {
    std::vector<int> ids;          // without </s>
    std::vector<float> attention;  // [ids.size() + 1][S]: one row per predicted piece, </s> last
    double log_prob = 0.0;
    bool finished = false;  // ended with </s> (false: stopped at max_length)
  };
  // beam 1 is greedy (lowest id on ties). max_length 0 means 2 S + 10.
  Translation translate(const Encoding& encoding, int beam = 4, int max_length = 0) const;

 private:
  struct Gru {
    int hidden = 0, input = 0;
    std::vector<float> input_weight_t;      // [input][3 hidden]
    std::vector<float> recurrent_weight_t;  // [hidden][3 hidden]
    std::vector<float> input_bias, recurrent_bias;
  };
  // One GRU step for `rows` states at once; input_projected = x W_ih^T + b_ih [rows][3 hidden].
  static void gru_step(const Gru& gru, int rows, const float* input_projected, float* state);
  // One decoder step for `rows` hypotheses: attention from states, new states, contexts, and
  // (when logits != null) output logits [rows][V]. embedded: the embedding part of the GRU's input
  // projection, e(previous) W_ih[:, :E]^T + b_ih [rows][3D], when the caller computed it beforehand
  // (forced decoding knows every step's previous piece); null: computed here.
  void decoder_step(const Encoding& encoding, int rows, const int* previous, float* states, float* attention,
                    float* logits, const float* embedded = nullptr) const;
  // attn::attention from the decoder states s_{t-1} [rows][D] (one query row per hypothesis) over
  // the sentence's h_j: weights [rows][S] and contexts c_t [rows][2H].
  void attend(const Encoding& encoding, int rows, const float* states, float* weights, float* contexts) const;
  static RnnArchitecture read_architecture(const SafeTensors& file);

  RnnArchitecture architecture_;
  Score attention_ = Score::additive;
  std::map<std::string, std::string> metadata_;
  Bpe tokenizer_;
  std::vector<float> embedding_;    // [V][E]
  std::vector<float> embedding_t_;  // [E][V], for the tied output layer
  Gru encoder_forward_, encoder_backward_, decoder_;
  std::vector<float> init_weight_t_, init_bias_;      // [H][D], [D]
  std::vector<float> key_weight_;                     // [A or D][2H]
  std::vector<float> query_weight_t_, score_;         // [D][A], [A]
  std::vector<float> output_weight_t_, output_bias_;  // [D+2H+E][E], [E]
  std::vector<float> vocab_bias_;                     // [V]
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
WordAttention align_words(const RnnModel& model, const std::vector<std::string>& source_words,
                          const std::vector<std::string>& target_words, bool shift = false, bool with_log_prob = false);

struct WordTranslation {
  std::string text;
  WordAttention attention;  // of the output, word level (a Transformer's: its alignment head)
  // Every cross-attention map of the output at word level, [layers][heads][target words][source
  // words] (as attention_maps gives them); an RNN's is its one map, attention.weights.
  int layers = 1, heads = 1;
  std::vector<float> cross;
};
WordTranslation translate_words(const RnnModel& model, const std::vector<std::string>& source_words, int beam = 4);

}  // namespace attn
