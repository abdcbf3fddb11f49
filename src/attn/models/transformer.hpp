// The pre-layer-norm Transformer translation model of docs/MODEL_FORMAT.md
// (attnscope-transformer-v1): sinusoidal positions, tied embeddings, encoder self-attention,
// causal decoder self-attention and cross-attention in every decoder layer, all computed through
// attn::attention. Forced decoding returns every attention map; greedy and beam search translate
// with a key/value cache.
//
// Sizes: L_e / L_d encoder / decoder layers, h heads, d model width, d_k = d / h, F feed-forward
// width, V vocabulary, S source pieces (with the appended </s>), T target steps.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "attn/core/layers.hpp"
#include "attn/core/multihead.hpp"
#include "attn/models/safetensors.hpp"
#include "attn/models/tokenizer.hpp"

namespace attn {

struct TransformerArchitecture {
  int encoder_layers = 0;   // L_e
  int decoder_layers = 0;   // L_d
  int heads = 0;            // h
  int model_dim = 0;        // d, a multiple of h
  int ff_dim = 0;           // F
  int vocab_size = 0;       // V
  int alignment_layer = 0;  // the decoder layer whose head was trained to align (information)
  int alignment_head = 0;   // that head
  int alignment_shift = 0;  // 1: that head aligns target piece t at the row where t is the decoder's input
  int head_dim() const { return model_dim / heads; }  // d_k
};

class TransformerModel {
 public:
  // Validates format, architecture, every tensor's presence, dtype (F32, F16, or a matrix I8 with
  // per-row scales), shape and values, and the tokenizer; throws attn::Error naming the first problem.
  static TransformerModel load(std::string bytes);
  static TransformerModel load(const SafeTensors& file);  // a file already parsed

  const TransformerArchitecture& architecture() const { return architecture_; }
  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  std::string metadata_value(const std::string& key) const;
  const Bpe& tokenizer() const { return tokenizer_; }
  // A multilingual model (docs/MODEL_FORMAT.md, "Multilingual models"): language code -> the tag
  // piece its decoder starts from to write that language (metadata "language_tags"); empty for a
  // model of one direction, whose decoder starts from <s>.
  const std::map<std::string, int>& language_tags() const { return language_tags_; }

  // The encoder's work for one sentence, shared by every decoder step.
  struct Encoding {
    int length = 0;                   // S, including the appended </s>
    std::vector<float> memory;        // encoder output after its final norm [S][d]
    std::vector<float> attention;     // encoder self-attention [L_e][h][S][S]
    std::vector<float> cross_keys;    // per decoder layer [L_d][h][S][d_k]
    std::vector<float> cross_values;  // [L_d][h][S][d_k]
  };
  // source_ids: the sentence's pieces; </s> is appended here.
  Encoding encode(const std::vector<int>& source_ids) const;

  struct Forced {
    std::vector<float> log_probs;  // [T]: log p(y_t | y_<t, x), T = target pieces + 1 (</s>)
    std::vector<float> cross;      // [L_d][h][T][S]
    std::vector<float> encoder;    // [L_e][h][S][S]
    std::vector<float> decoder;    // [L_d][h][T][T], zero above the diagonal
    double log_prob = 0.0;         // sum of log_probs
  };
  // Forced decoding of target_ids (</s> appended) by full recomputation with the causal mask.
  // Without with_log_probs, log_probs stays empty and log_prob 0: the maps need neither the output
  // layer nor the last decoder layer's feed-forward, which are skipped. `layers` > 0 runs only the
  // first that many decoder layers (cross and decoder then hold that many); it needs
  // with_log_probs false (the alignment head's layer is all an alignment reads).
  // `start` is the decoder's first input: <s>, or a multilingual model's language tag.
  Forced force(const Encoding& encoding, const std::vector<int>& target_ids, bool with_log_probs = true, int layers = 0,
               int start = Bpe::start_id) const;
  Forced force(const std::vector<int>& source_ids, const std::vector<int>& target_ids, bool with_log_probs = true,
               int layers = 0, int start = Bpe::start_id) const;

  // Keys and values of the decoder's self-attention for the pieces fed so far.
  struct Cache {
    int length = 0;                     // steps taken
    std::vector<KeyValueCache> layers;  // per decoder layer [L_d], each [h][length][d_k]
  };
  Cache start_cache() const;
  // One decoder step with `previous` (the piece fed at position cache.length) as input; appends
  // to the cache. Writes log p(. | ...) [V] (may be null), cross-attention [L_d][h][S] and
  // decoder self-attention [L_d][h][cache.length after the step] (each may be null).
  void step(const Encoding& encoding, Cache& cache, int previous, float* log_probs, float* cross,
            float* self_attention) const;
  // The same for `rows` hypotheses at once (a beam), whose caches all hold the same length:
  // previous [rows], log_probs [rows][V], cross [rows][L_d][h][S], self_attention
  // [rows][L_d][h][length + 1]. Every matmul is shared; self-attention runs per hypothesis.
  void step(const Encoding& encoding, Cache* const* caches, int rows, const int* previous, float* log_probs,
            float* cross, float* self_attention) const;

  struct Translation {
    std::vector<int> ids;      // without </s>
    std::vector<float> cross;  // [steps][L_d][h][S], one per predicted piece: ids, then </s> if finished
    double log_prob = 0.0;
    bool finished = false;  // ended with </s> (false: stopped at max_length)
  };
  // beam 1 is greedy (lowest id on ties); beam in 1..64; max_length 0 means 2 S + 10. Scores
  // with GNMT's length penalty, as RnnModel::translate.
  Translation translate(const Encoding& encoding, int beam = 4, int max_length = 0, int start = Bpe::start_id) const;

 private:
  struct FeedForward {
    Linear input, output;  // d -> F -> d
  };
  struct EncoderLayer {
    LayerNorm self_norm, feed_forward_norm;
    MultiHeadAttention self_attention;
    FeedForward feed_forward;
  };
  struct DecoderLayer {
    LayerNorm self_norm, cross_norm, feed_forward_norm;
    MultiHeadAttention self_attention, cross_attention;
    FeedForward feed_forward;
  };

  static TransformerArchitecture read_architecture(const SafeTensors& file);
  // x [rows][d] -> sqrt(d) e(id) + PE(first_position + row)
  void embed(const std::vector<int>& ids, int first_position, float* x) const;
  // x += FF(norm(x)) for x [rows][d]
  void feed_forward(const LayerNorm& norm, const FeedForward& ff, float* x, int rows) const;
  // x += SelfAttention(norm(x)) for a whole sequence x [rows][d] (causal for the decoder);
  // weights [h][rows][rows].
  void self_attend(const MultiHeadAttention& attention, const LayerNorm& norm, float* x, int rows, bool causal,
                   float* weights) const;
  // x += CrossAttention(norm(x)) over decoder layer l's keys and values of the encoding; weights
  // [h][rows][S].
  void cross_attend(int l, const Encoding& encoding, float* x, int rows, float* weights) const;
  // logits [rows][V] from decoder states [rows][d]: the final norm and the output layer
  void logits(const float* x, int rows, float* logits) const;
  // the same logits turned into log-probabilities
  void output(const float* x, int rows, float* log_probs) const;

  TransformerArchitecture architecture_;
  std::map<std::string, std::string> metadata_;
  Bpe tokenizer_;
  std::map<std::string, int> language_tags_;
  std::vector<float> embedding_;  // [V][d]
  Linear output_layer_;           // d -> V, the embedding tied (its weight is embedding_)
  PositionTable positions_;       // the first 256 positions' sinusoids, computed at load
  std::vector<EncoderLayer> encoder_;
  std::vector<DecoderLayer> decoder_;
  LayerNorm encoder_norm_, decoder_norm_;
};

}  // namespace attn
