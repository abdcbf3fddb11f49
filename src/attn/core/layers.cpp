#include "attn/core/layers.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "attn/core/error.hpp"
#include "attn/core/internal/linalg.hpp"
#include "attn/core/internal/scratch.hpp"

namespace attn {

namespace {

void check_floats(const char* name, const std::vector<float>& data, std::size_t expected) {
  if (data.size() != expected) fail(Field{name}, " has ", data.size(), " elements, expected ", expected);
  check_finite(name, data.data(), data.size());
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// rows(first, count) over `rows` rows in groups of `group`, the groups on the threads where their
// work is enough (work_per_row in multiply-adds of a product, the unit workers_for weighs work
// in), all in one call otherwise. Each row must be computed as it is alone, so that the bits do
// not depend on the threads.
template <class Rows>
void for_row_groups(int rows, int group, double work_per_row, const Rows& rows_of) {
  const int groups = (rows + group - 1) / group;
  const int workers = workers_for(groups, work_per_row * group);
  if (workers <= 1) {
    rows_of(0, rows);
    return;
  }
  parallel_for(groups, workers, [&](int g, int) { rows_of(g * group, std::min(group, rows - g * group)); });
}

// A linear layer's product (its packed panels from output first_out, a multiple of P), for
// parallel_matmul_packed: y [rows][count] (+)= x [rows][width] times those panels' rows first ..
// first + width - 1, as the epilogue finishes it, in C columns `group` wide (0: one matrix).
PackedProduct linear_product(const std::vector<float>& packed, int in, int first_out, const float* x, int rows,
                             int first, int width, int count, float* y, int ldc, bool accumulate, const float* bias,
                             bool relu, int group) {
  const int P = kernels::packed_width();
  const long panel_stride = static_cast<long>(in) * P;
  const float* panels = packed.data() + static_cast<std::size_t>(first_out / P) * panel_stride;
  kernels::Epilogue epilogue;
  epilogue.bias = bias;
  epilogue.relu = relu;
  return PackedProduct{rows,         count, width, x,          width,    panels + static_cast<std::size_t>(first) * P,
                       panel_stride, y,     ldc,   accumulate, epilogue, group};
}

}  // namespace

void matmul(int M, int N, int K, const float* A, const float* B, float* C, bool accumulate) {
  parallel_matmul(M, N, K, 1.0f, A, K, B, N, C, N, accumulate);
}

std::vector<float> transposed(const float* in, int rows, int cols) {
  std::vector<float> out(static_cast<std::size_t>(rows) * cols);
  transpose(in, rows, cols, out.data());
  return out;
}

Linear::Linear(const std::vector<float>& weight, std::vector<float> bias, int in, int out)
    : in_(in), out_(out), bias_(std::move(bias)) {
  check_size("linear input width", in);
  check_size("linear output width", out);
  check_floats("linear weight", weight, element_count("linear weight", {out, in}));
  if (!bias_.empty()) check_floats("linear bias", bias_, static_cast<std::size_t>(out));
  const std::vector<float> weight_t = transposed(weight.data(), out, in);
  packed_.resize(static_cast<std::size_t>(kernels::packed_size(in, out)));
  kernels::pack_columns(in, out, weight_t.data(), out, packed_.data());
}

void Linear::forward(const float* x, int rows, float* y) const { forward_part(x, rows, 0, in_, y); }

void Linear::forward_part(const float* x, int rows, int first, int width, float* y) const {
  check_part(first, width);
  multiply(x, rows, first, width, 0, out_, y, false, true, false);
}

void Linear::forward_relu(const float* x, int rows, float* y) const {
  multiply(x, rows, 0, in_, 0, out_, y, false, true, true);
}

void Linear::multiply(const float* x, int rows, int first, int width, int first_out, int count, float* y,
                      bool accumulate, bool with_bias, bool relu) const {
  const float* bias = with_bias && !bias_.empty() ? bias_.data() + first_out : nullptr;
  const PackedProduct product =
      linear_product(packed_, in_, first_out, x, rows, first, width, count, y, count, accumulate, bias, relu, 0);
  parallel_matmul_packed(&product, 1);
}

int Linear::output_alignment() { return kernels::packed_width(); }

void Linear::forward_outputs(const float* x, int rows, int first, int count, float* y) const {
  const int P = kernels::packed_width();
  if (first < 0 || count < 1 || first > out_ || count > out_ - first || first % P != 0) {
    fail("outputs ", first, "..", first + count - 1, " are not a block of the linear layer's ", out_,
         " outputs starting at a multiple of ", P);
  }
  multiply(x, rows, 0, in_, first, count, y, false, true, false);
}

void Linear::forward_heads(const float* x, int rows, int heads, float* y) const {
  const HeadsOutput output{this, y};
  forward_heads(x, rows, heads, &output, 1);
}

void Linear::forward_heads(const float* x, int rows, int heads, const HeadsOutput* outputs, int count) {
  if (count < 0) fail("forward_heads: the count of outputs must not be negative, got ", count);
  if (count > 0 && !outputs) fail("forward_heads: the outputs are missing (null) for a count of ", count);
  if (count > 0 && !x && rows > 0) fail("forward_heads: the input x is missing (null)");
  // every layer checked before any output is written
  for (int i = 0; i < count; ++i) {
    if (!outputs[i].layer || !outputs[i].y) fail("forward_heads: output ", i, " needs a layer and a buffer");
    const Linear& layer = *outputs[i].layer;
    if (heads < 1 || layer.out_ % heads != 0) {
      fail(Field{"heads"}, " must divide the linear layer's ", layer.out_, " outputs, got ", heads,
           count > 1 ? " (layer " + std::to_string(i) + ")" : std::string());
    }
    if (i > 0 && layer.in_ != outputs[0].layer->in_)
      fail("forward_heads: layer ", i, " takes ", layer.in_, " inputs where layer 0 takes ", outputs[0].layer->in_);
    element_count("projected inputs", {rows, layer.out_});
  }
  // The products that write the heads' layout themselves (one head: forward's layout, a single
  // group), run together in jobs of up to 8; a head that does not start on a panel is the product,
  // then the copy.
  const int P = kernels::packed_width();
  constexpr int most = 8;
  PackedProduct products[most];
  int pending = 0;
  for (int i = 0; i < count; ++i) {
    const Linear& layer = *outputs[i].layer;
    float* y = outputs[i].y;
    const int width = layer.out_ / heads;
    const float* bias = layer.bias_.empty() ? nullptr : layer.bias_.data();
    if (heads == 1 || width % P == 0) {
      products[pending++] = linear_product(layer.packed_, layer.in_, 0, x, rows, 0, layer.in_, layer.out_, y, width,
                                           false, bias, false, width);
    } else {
      Scratch side_by_side(element_count("projected inputs", {rows, layer.out_}));
      layer.forward(x, rows, side_by_side.data());
      split_heads(side_by_side.data(), rows, heads, width, y);
    }
    if (pending == most || (i + 1 == count && pending > 0)) {
      parallel_matmul_packed(products, pending);
      pending = 0;
    }
  }
}

void Linear::check_part(int first, int width) const {
  if (first < 0 || width < 1 || first + width > in_)
    fail("input columns ", first, "..", first + width - 1, " are outside the linear layer's ", in_);
}

void Linear::add_to(const float* x, int rows, float* y) const {
  multiply(x, rows, 0, in_, 0, out_, y, true, true, false);
}

void Linear::add_part(const float* x, int rows, int first, int width, float* y) const {
  check_part(first, width);
  multiply(x, rows, first, width, 0, out_, y, true, false, false);
}

LayerNorm::LayerNorm(std::vector<float> weight, std::vector<float> bias, float epsilon)
    : weight_(std::move(weight)), bias_(std::move(bias)), epsilon_(epsilon) {
  check_size("layer norm width", static_cast<long long>(weight_.size()));
  check_floats("layer norm weight", weight_, weight_.size());
  check_floats("layer norm bias", bias_, weight_.size());
  if (!(epsilon > 0.0f)) fail(Field{"epsilon"}, " must be positive, got ", epsilon);
}

void LayerNorm::forward(const float* x, int rows, float* y) const {
  // Groups of four rows (see forward_rows) on the threads for a long sentence: the normalization
  // between a decoder's products was 2.3 % of a 2-thread forced decoding at 59 words, all of it on
  // the calling thread while the other waited (perf). A row takes about as long as 46 x d
  // multiply-adds of a product (measured natively).
  const int d = dim();
  for_row_groups(rows, 4, 46.0 * d, [&](int first, int count) {
    const std::size_t offset = static_cast<std::size_t>(first) * d;
    forward_rows(x + offset, count, y + offset);
  });
}

void LayerNorm::forward_rows(const float* x, int rows, float* y) const {
  const int d = dim();
  const auto finish = [&](const float* in, double mean, double variance, float* o) {
    const double inverse = 1.0 / std::sqrt(variance / d + epsilon_);
    for (int c = 0; c < d; ++c) o[c] = static_cast<float>((in[c] - mean) * inverse * weight_[c] + bias_[c]);
  };
  // Four rows at a time: each row's sums in their own order, as one row alone, but four
  // independent chains of double additions keep the adder busy where one waited on each add.
  constexpr int group = 4;
  int r = 0;
  for (; r + group <= rows; r += group) {
    const float* in[group];
    double mean[group], variance[group];
    for (int g = 0; g < group; ++g) {
      in[g] = x + static_cast<std::size_t>(r + g) * d;
      mean[g] = variance[g] = 0.0;
    }
    for (int c = 0; c < d; ++c)
      for (int g = 0; g < group; ++g) mean[g] += in[g][c];
    for (int g = 0; g < group; ++g) mean[g] /= d;
    for (int c = 0; c < d; ++c)
      for (int g = 0; g < group; ++g) variance[g] += (in[g][c] - mean[g]) * (in[g][c] - mean[g]);
    for (int g = 0; g < group; ++g) finish(in[g], mean[g], variance[g], y + static_cast<std::size_t>(r + g) * d);
  }
  for (; r < rows; ++r) {
    const float* in = x + static_cast<std::size_t>(r) * d;
    double mean = 0.0, variance = 0.0;
    for (int c = 0; c < d; ++c) mean += in[c];
    mean /= d;
    for (int c = 0; c < d; ++c) variance += (in[c] - mean) * (in[c] - mean);
    finish(in, mean, variance, y + static_cast<std::size_t>(r) * d);
  }
}

GruCell::GruCell(const std::vector<float>& weight_ih, const std::vector<float>& weight_hh, std::vector<float> bias_ih,
                 std::vector<float> bias_hh, int input, int hidden)
    : hidden_(hidden),
      input_(weight_ih, std::move(bias_ih), input, 3 * hidden),
      recurrent_(weight_hh, std::move(bias_hh), hidden, 3 * hidden) {}

void GruCell::step(int rows, const float* input_projected, float* state) const {
  const int K = hidden_;
  std::vector<float> recurrent(static_cast<std::size_t>(rows) * 3 * K);
  recurrent_.forward(state, rows, recurrent.data());
  for (int r = 0; r < rows; ++r) {
    const float* x = input_projected + static_cast<std::size_t>(r) * 3 * K;
    const float* h = recurrent.data() + static_cast<std::size_t>(r) * 3 * K;
    float* s = state + static_cast<std::size_t>(r) * K;
    for (int k = 0; k < K; ++k) {
      const float reset = sigmoid(x[k] + h[k]);
      const float update = sigmoid(x[K + k] + h[K + k]);
      const float candidate = std::tanh(x[2 * K + k] + reset * h[2 * K + k]);
      s[k] = (1.0f - update) * candidate + update * s[k];
    }
  }
}

LstmCell::LstmCell(const std::vector<float>& weight_ih, const std::vector<float>& weight_hh, std::vector<float> bias_ih,
                   std::vector<float> bias_hh, int input, int hidden)
    : hidden_(hidden),
      input_(weight_ih, std::move(bias_ih), input, 4 * hidden),
      recurrent_(weight_hh, std::move(bias_hh), hidden, 4 * hidden) {}

void LstmCell::step(int rows, const float* input_projected, float* hidden, float* cell) const {
  const int H = hidden_;
  Scratch gates(static_cast<std::size_t>(rows) * 4 * H);
  recurrent_.forward(hidden, rows, gates.data());
  for (int r = 0; r < rows; ++r) {
    const float* x = input_projected + static_cast<std::size_t>(r) * 4 * H;
    const float* g = gates.data() + static_cast<std::size_t>(r) * 4 * H;
    float* h = hidden + static_cast<std::size_t>(r) * H;
    float* c = cell + static_cast<std::size_t>(r) * H;
    for (int k = 0; k < H; ++k) {
      const float input_gate = sigmoid(x[k] + g[k]);
      const float forget_gate = sigmoid(x[H + k] + g[H + k]);
      const float candidate = std::tanh(x[2 * H + k] + g[2 * H + k]);
      const float output_gate = sigmoid(x[3 * H + k] + g[3 * H + k]);
      c[k] = forget_gate * c[k] + input_gate * candidate;
      h[k] = output_gate * std::tanh(c[k]);
    }
  }
}

void embed(const std::vector<float>& table, int dim, const int* ids, int rows, float* x) {
  const long long vocab = static_cast<long long>(table.size() / dim);
  for (int r = 0; r < rows; ++r) {
    if (ids[r] < 0 || ids[r] >= vocab) fail("piece id ", ids[r], " is outside the vocabulary");
    std::copy_n(table.data() + static_cast<std::size_t>(ids[r]) * dim, dim, x + static_cast<std::size_t>(r) * dim);
  }
}

namespace {

// 1 / 10000^(2i/dim) for each column c = 2i, 2i + 1
std::vector<double> position_frequencies(int dim) {
  std::vector<double> frequency(static_cast<std::size_t>(dim));
  for (int c = 0; c < dim; ++c) frequency[c] = std::exp((c / 2 * 2) * (-std::log(10000.0) / dim));
  return frequency;
}

void position_row(const std::vector<double>& frequency, double position, double* out) {
  const int dim = static_cast<int>(frequency.size());
  for (int c = 0; c < dim; ++c) {
    const double angle = position * frequency[c];
    out[c] = c % 2 == 0 ? std::sin(angle) : std::cos(angle);
  }
}

void check_ids(const std::vector<float>& table, int dim, const int* ids, int rows) {
  const long long vocab = static_cast<long long>(table.size() / dim);
  for (int r = 0; r < rows; ++r) {
    if (ids[r] < 0 || ids[r] >= vocab) fail("piece id ", ids[r], " is outside the vocabulary");
  }
}

void add_row(const float* e, double scale, const double* position, int dim, float* x) {
  for (int c = 0; c < dim; ++c) x[c] = static_cast<float>(e[c] * scale + position[c]);
}

}  // namespace

void embed_with_positions(const std::vector<float>& table, int dim, const int* ids, int rows, int first_position,
                          double scale, float* x) {
  check_ids(table, dim, ids, rows);
  const std::vector<double> frequency = position_frequencies(dim);
  std::vector<double> position(static_cast<std::size_t>(dim));
  for (int r = 0; r < rows; ++r) {
    position_row(frequency, first_position + static_cast<double>(r), position.data());
    add_row(table.data() + static_cast<std::size_t>(ids[r]) * dim, scale, position.data(), dim,
            x + static_cast<std::size_t>(r) * dim);
  }
}

PositionTable::PositionTable(int dim, int cached) : dim_(dim), cached_(cached) {
  check_size("position width", dim);
  if (cached < 0) fail(Field{"cached positions"}, " must not be negative, got ", cached);
  const std::vector<double> frequency = position_frequencies(dim);
  values_.resize(element_count("cached positions", {cached, dim}));
  for (int p = 0; p < cached; ++p) position_row(frequency, p, values_.data() + static_cast<std::size_t>(p) * dim);
}

void PositionTable::embed(const std::vector<float>& table, const int* ids, int rows, int first_position, double scale,
                          float* x) const {
  if (first_position < 0 || first_position + static_cast<long long>(rows) > cached_) {
    embed_with_positions(table, dim_, ids, rows, first_position, scale, x);
    return;
  }
  check_ids(table, dim_, ids, rows);
  // Groups of 8 rows on the threads for a long sentence: each row is a vocabulary row read from
  // memory (a table of megabytes), 0.8-1.2 % of a 2-thread forced decoding at 59 words on the
  // calling thread alone (perf). A row costs about as long as 75 x dim multiply-adds (measured
  // natively).
  for_row_groups(rows, 8, 75.0 * dim_, [&](int first, int count) {
    for (int r = first; r < first + count; ++r) {
      add_row(table.data() + static_cast<std::size_t>(ids[r]) * dim_, scale,
              values_.data() + static_cast<std::size_t>(first_position + r) * dim_, dim_,
              x + static_cast<std::size_t>(r) * dim_);
    }
  });
}

void split_heads(const float* x, int rows, int heads, int width, float* out) {
  for (int r = 0; r < rows; ++r) {
    for (int h = 0; h < heads; ++h) {
      std::copy_n(x + (static_cast<std::size_t>(r) * heads + h) * width, width,
                  out + (static_cast<std::size_t>(h) * rows + r) * width);
    }
  }
}

void merge_heads(const float* x, int rows, int heads, int width, float* out) {
  for (int h = 0; h < heads; ++h) {
    for (int r = 0; r < rows; ++r) {
      std::copy_n(x + (static_cast<std::size_t>(h) * rows + r) * width, width,
                  out + (static_cast<std::size_t>(r) * heads + h) * width);
    }
  }
}

void relu_in_place(float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) x[i] = kernels::relu(x[i]);
}

void tanh_in_place(float* x, int n) { kernels::tanh(x, n); }

}  // namespace attn
