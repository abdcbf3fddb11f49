// The operations a model is written in, as whisper.cpp writes its layers in ggml's public ops:
// linear projections on the core's matmul kernels (packed once), layer norm, the GRU cell,
// sinusoidal positions, the heads' layout, and the elementwise functions between them. Multi-head
// attention over projected keys and values, and the key/value cache a decoder appends to, are in
// attn/core/multihead.hpp; log_softmax in attn/core/probability.hpp.
//
// Weights follow PyTorch: a Linear's weight is [out][in] and y = x W^T + b. Matrices are row-major,
// shapes in brackets.
#pragma once

#include <vector>

namespace attn {

// C[M][N] = A[M][K] B[K][N] (plus the old C when accumulate), on the thread pool when it is large
// enough. Every element is the same sum in the same order on any thread count.
void matmul(int M, int N, int K, const float* A, const float* B, float* C, bool accumulate = false);
// in [rows][cols] -> [cols][rows]
std::vector<float> transposed(const float* in, int rows, int cols);

class Linear {
 public:
  Linear() = default;
  // weight [out][in], bias [out] or empty; throws attn::Error naming a wrong size or a non-finite value.
  Linear(const std::vector<float>& weight, std::vector<float> bias, int in, int out);

  int in() const { return in_; }
  int out() const { return out_; }
  // y [rows][out] = x [rows][in] W^T + b
  void forward(const float* x, int rows, float* y) const;
  // y = ReLU(x W^T + b), ReLU as x < 0 ? 0 : x (kernels::relu: -0 and NaN stay): forward, then
  // ReLU, in one pass (the same bits as forward and then relu_in_place)
  void forward_relu(const float* x, int rows, float* y) const;
  // y += x W^T + b: a residual connection (the bias is added first, then the product accumulates)
  void add_to(const float* x, int rows, float* y) const;
  // For an input that is a concatenation, the part that input columns first .. first + width - 1
  // contribute: forward_part writes y = x [rows][width] W[:, first : first + width]^T + b,
  // add_part adds the product without the bias.
  void forward_part(const float* x, int rows, int first, int width, float* y) const;
  void add_part(const float* x, int rows, int first, int width, float* y) const;
  // Some outputs only: y [rows][count] = x [rows][in] W[first : first + count, :]^T + b[first : ...],
  // for a caller that goes through a large layer a block of outputs at a time (a vocabulary's
  // logits, each block's weights read once for every row). first must be a multiple of
  // output_alignment() (any multiple of 256 is); the same bits as those columns of forward().
  void forward_outputs(const float* x, int rows, int first, int count, float* y) const;
  static int output_alignment();
  // y [heads][rows][out / heads] = forward's outputs split into heads (split_heads of forward(),
  // the same bits), written in that layout by the product itself where out / heads is a multiple
  // of output_alignment(), instead of copied there after it. heads must divide out.
  void forward_heads(const float* x, int rows, int heads, float* y) const;
  // forward_heads of one input through several layers, their products one job on the threads
  // (up to eight layers a job; a layer whose heads are not a whole number of output_alignment()
  // wide runs its own, product then copy): a self-attention's queries, keys and values, every
  // decoder layer's cross-attention keys and values from one encoder output. The same bits as
  // forward_heads layer by layer, the threads meeting once instead of once a layer. Every layer's
  // in() must be x's width and heads must divide each layer's outputs (checked for all before any
  // is written); the outputs must not overlap each other or x.
  struct HeadsOutput {
    const Linear* layer;
    float* y;
  };
  static void forward_heads(const float* x, int rows, int heads, const HeadsOutput* outputs, int count);

 private:
  void check_part(int first, int width) const;
  // y [rows][count] (+)= x[rows][width] W[first_out : first_out + count, first : first + width]^T
  // (+ the bias of those outputs where with_bias, as if y had held it, then ReLU where relu; the
  // product's epilogue: no pass of its own), first_out a multiple of output_alignment()
  void multiply(const float* x, int rows, int first, int width, int first_out, int count, float* y, bool accumulate,
                bool with_bias, bool relu) const;

  int in_ = 0, out_ = 0;
  // W^T [in][out] packed once into column panels (kernels::pack_columns), for matmul_packed
  std::vector<float> packed_;
  std::vector<float> bias_;
};

// Layer normalization over each row of width dim (PyTorch's LayerNorm): statistics in double.
class LayerNorm {
 public:
  LayerNorm() = default;
  LayerNorm(std::vector<float> weight, std::vector<float> bias, float epsilon = 1e-5f);
  int dim() const { return static_cast<int>(weight_.size()); }
  // y [rows][dim] = (x - mean) / sqrt(variance + epsilon) * weight + bias, row by row
  void forward(const float* x, int rows, float* y) const;

 private:
  // forward's rows on the calling thread
  void forward_rows(const float* x, int rows, float* y) const;

  std::vector<float> weight_, bias_;
  float epsilon_ = 1e-5f;
};

// A GRU cell in PyTorch's layout (gates r, z, n): weight_ih [3 hidden][input], weight_hh
// [3 hidden][hidden], biases [3 hidden].
class GruCell {
 public:
  GruCell() = default;
  GruCell(const std::vector<float>& weight_ih, const std::vector<float>& weight_hh, std::vector<float> bias_ih,
          std::vector<float> bias_hh, int input, int hidden);
  int input() const { return input_.in(); }
  int hidden() const { return hidden_; }
  // x W_ih^T + b_ih [rows][3 hidden]: a caller that knows many inputs at once projects them together
  const Linear& input_projection() const { return input_; }
  // state [rows][hidden] advances one step given each row's projected input [rows][3 hidden]
  void step(int rows, const float* input_projected, float* state) const;

 private:
  int hidden_ = 0;
  Linear input_, recurrent_;
};

// An LSTM cell in PyTorch's layout (gates i, f, g, o): weight_ih [4 hidden][input], weight_hh
// [4 hidden][hidden], biases [4 hidden] (either may be empty: no bias).
//   i = sigmoid(.), f = sigmoid(.), g = tanh(.), o = sigmoid(.) of x W_ih^T + b_ih + h W_hh^T + b_hh
//   c' = f c + i g,  h' = o tanh(c')
class LstmCell {
 public:
  LstmCell() = default;
  LstmCell(const std::vector<float>& weight_ih, const std::vector<float>& weight_hh, std::vector<float> bias_ih,
           std::vector<float> bias_hh, int input, int hidden);
  int input() const { return input_.in(); }
  int hidden() const { return hidden_; }
  // x W_ih^T + b_ih [rows][4 hidden]: a caller that knows many inputs at once projects them together
  const Linear& input_projection() const { return input_; }
  // hidden [rows][hidden] and cell [rows][hidden] advance one step given each row's projected
  // input [rows][4 hidden] (input_projection's output, to which a caller may have added more)
  void step(int rows, const float* input_projected, float* hidden, float* cell) const;

 private:
  int hidden_ = 0;
  Linear input_, recurrent_;
};

// x [rows][dim] = scale * table[ids[r]] + PE(first_position + r), summed in double: Vaswani et al.'s
// sinusoidal positions PE[p][2i] = sin(p / 10000^(2i/dim)), PE[p][2i+1] = cos(...). table [vocab][dim];
// an id outside the vocabulary is an attn::Error.
void embed_with_positions(const std::vector<float>& table, int dim, const int* ids, int rows, int first_position,
                          double scale, float* x);

// The sinusoidal positions of embed_with_positions, computed once for the first `cached`
// positions (in double, as that function adds them): a model embeds every sentence from position
// 0, and the sines and cosines were a twelfth of a 60-word forced decoding natively. Positions
// past the cached ones are computed when asked; the results are the same bits either way.
class PositionTable {
 public:
  PositionTable() = default;
  PositionTable(int dim, int cached);
  int dim() const { return dim_; }
  // embed_with_positions(table, dim(), ids, rows, first_position, scale, x), from the cache
  void embed(const std::vector<float>& table, const int* ids, int rows, int first_position, double scale,
             float* x) const;

 private:
  int dim_ = 0, cached_ = 0;
  std::vector<double> values_;  // [cached][dim]
};
// Rows of table [vocab][dim] into x [rows][dim]; an id outside the vocabulary is an attn::Error.
void embed(const std::vector<float>& table, int dim, const int* ids, int rows, float* x);

// [rows][heads * width] (heads side by side, as a projection writes them) <-> [heads][rows][width]
void split_heads(const float* x, int rows, int heads, int width, float* out);
void merge_heads(const float* x, int rows, int heads, int width, float* out);

void relu_in_place(float* x, std::size_t n);
void tanh_in_place(float* x, int n);  // the SIMD kernel

}  // namespace attn
