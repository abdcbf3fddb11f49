// Show, Attend and Tell (Xu et al. 2015) in the core's operations: a small CNN encoder gives a grid
// of annotation vectors, and an LSTM decoder writes a caption, attending to the grid at every word
// with Bahdanau's additive score and the gating scalar beta. Soft attention (the context is the
// weighted mean of the annotations) or hard attention (one cell sampled from alpha is the
// context), each with its own trained decoder. File format attnscope-captioner-v1
// (docs/MODEL_FORMAT.md; the exact math is that of tools/train/captioner/reference.py).
#pragma once

#include "attn/core/rng.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "attn/core/convolution.hpp"
#include "attn/core/layers.hpp"

namespace attn {

class SafeTensors;

struct CaptionerArchitecture {
  int image_size = 0;         // S: the encoder's input is S x S x 3
  std::vector<int> channels;  // of each 3 x 3 convolution; a 2 x 2 max pooling after each but the last
  int grid_height = 0, grid_width = 0;
  int annotation_dim = 0;  // D = channels.back()
  int hidden_size = 0, embedding_dim = 0, attention_dim = 0, vocab_size = 0;
  int max_words = 0;
  // what starts the decoder: the mean annotation (Xu et al.), or with start_max ("start": "mean+max"
  // in the file) the mean beside the element-wise maximum over the cells
  bool start_max = false;
  int cells() const { return grid_height * grid_width; }
  int start_dim() const { return annotation_dim * (start_max ? 2 : 1); }
};

struct CaptionObject {
  std::string name, hexcode;  // an object the model knows, and its OpenMoji artwork
  std::string plural;         // its plural as captions write it ("" when the file gives none)
};

struct CaptionOptions {
  int beam = 1;            // 1: greedy; 1..64 (soft attention only)
  bool hard = false;       // the hard-attention decoder, its cell sampled at every word
  std::uint64_t seed = 0;  // the hard sampler's seed (attn::Rng, SplitMix64, uniform_double())
};

struct Caption {
  std::vector<std::string> words;  // without the end token
  // [words][cells]: soft, each word's alpha; hard, the one-hot map of its sampled cell
  std::vector<float> attention;
  std::vector<float> alpha;      // [words][cells]: the distribution each word's context came from
  std::vector<int> cells;        // each word's cell: sampled (hard), else alpha's largest
  std::vector<float> log_probs;  // log p of each word given the image and the words before it
  bool finished = false;         // the decoder ended with its end token (else it stopped at max_words)
};

class CaptionerModel {
 public:
  // Reads an attnscope-captioner-v1 file; throws attn::Error naming what is wrong (format,
  // architecture, metadata, a tensor missing, of the wrong shape or dtype, or one it does not know).
  static CaptionerModel load(std::string bytes);
  static CaptionerModel load(const SafeTensors& file);

  const CaptionerArchitecture& architecture() const { return architecture_; }
  const std::vector<std::string>& vocabulary() const { return vocabulary_; }
  const std::vector<CaptionObject>& objects() const { return objects_; }
  std::string metadata_value(const std::string& key) const;  // "" when absent

  // pixels [height][width][channels] (3: RGB, 4: RGBA) of any size -> the encoder's input
  // [S][S][3]: composited over white, resized (PIL's bilinear) and normalized (attn/models/image.hpp).
  std::vector<float> prepare(const std::uint8_t* pixels, int width, int height, int channels) const;
  // prepared [S][S][3] -> annotations [cells][D], cells row-major
  std::vector<float> encode(const float* prepared) const;
  // The caption of annotations [cells][D] (encode's). Throws attn::Error for a beam outside
  // 1..64, or a beam above 1 with hard attention.
  Caption decode(const std::vector<float>& annotations, const CaptionOptions& options = {}) const;
  // prepare, encode and decode
  Caption caption(const std::uint8_t* pixels, int width, int height, int channels,
                  const CaptionOptions& options = {}) const;

  // One decoder's weights (soft: "decoder.*", hard: "hard.*"). Public for the decoder's code.
  struct Decoder {
    std::vector<float> embedding;  // [V][E]
    Linear init_h, init_c;         // D -> n
    Linear annotation;             // D -> A (with its bias: the keys' side of the score)
    std::vector<float> hidden_t;   // attention.hidden^T [n][A]
    std::vector<float> score;      // [A]
    std::vector<float> gate;       // [n]
    float gate_bias = 0.0f;
    LstmCell lstm;          // input [E + D]
    Linear output_hidden;   // n -> E
    Linear output_context;  // D -> E, no bias
    Linear output;          // E -> V
  };

 private:
  CaptionerArchitecture architecture_;
  std::vector<Conv2d> convolutions_;
  std::vector<float> position_;  // [cells][D]
  Decoder soft_, hard_;
  std::vector<std::string> vocabulary_;
  int bos_id_ = 0, eos_id_ = 1;
  std::vector<CaptionObject> objects_;
  double pixel_mean_[3] = {0, 0, 0}, pixel_std_[3] = {1, 1, 1};
  std::map<std::string, std::string> metadata_;
};

// The first cell i whose running sum alpha_0 + ... + alpha_i (in double) exceeds u; the last cell
// of nonzero alpha when rounding leaves u above the total.
int sample_cell(const float* alpha, int cells, double u);

}  // namespace attn
