// The attentional RNN translation model of docs/MODEL_FORMAT.md (attnscope-rnn-v1): a
// bidirectional GRU encoder, a GRU decoder that attends from its previous state (additive or
// general score), loaded from a validated safetensors file. Forced decoding gives the attention
// matrix P[t][j] of a given translation; greedy and beam search translate.
#pragma once

#include <string>
#include <vector>

#include "attn/core/attention.hpp"
#include "attn/core/layers.hpp"
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
  // the attention used to predict target piece t. With log_prob, also sums log p(y_t); with
  // log_probs, also writes each step's log p(y_t) (the last: </s>'s).
  std::vector<float> force(const Encoding& encoding, const std::vector<int>& target_ids, double* log_prob = nullptr,
                           std::vector<float>* log_probs = nullptr) const;

  struct Translation {
    std::vector<int> ids;          // without </s>
    std::vector<float> attention;  // [ids.size() + 1][S]: one row per predicted piece, </s> last
    double log_prob = 0.0;
    bool finished = false;  // ended with </s> (false: stopped at max_length)
  };
  // beam 1 is greedy (lowest id on ties). max_length 0 means 2 S + 10.
  Translation translate(const Encoding& encoding, int beam = 4, int max_length = 0) const;

 private:
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
  std::vector<float> embedding_;  // [V][E]
  GruCell encoder_forward_, encoder_backward_, decoder_;
  Linear init_;                                // H -> D, from the backward encoder's first state
  Linear key_;                                 // 2H -> A or D, no bias: W_k of every key, once a sentence
  std::vector<float> query_weight_t_, score_;  // [D][A], [A]
  Linear output_;                              // [s_t ; c_t ; e(y_{t-1})] D+2H+E -> E
  Linear vocabulary_;                          // E -> V, the embedding tied (its weight is embedding_)
};

}  // namespace attn
