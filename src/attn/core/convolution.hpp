// 2-D convolution and pooling over images, for the encoders of models that look at pixels (Xu et
// al.'s captioner: convolutions, ReLU and max pooling down to a grid of annotation vectors).
//
// Images and feature maps are channels LAST everywhere in the core: [height][width][channels],
// row-major, so a pixel's channels are contiguous and a convolution's output is already the
// [cells][channels] matrix that attention reads as keys. Weights follow PyTorch's Conv2d:
// [out_channels][in_channels][kernel][kernel], packed once at construction.
//
// Output sizes are PyTorch's (no dilation, floor mode): (size + 2 padding - kernel) / stride + 1.
#pragma once

#include <vector>

namespace attn {

// The output height or width of a convolution or pooling over `size`: (size + 2 padding - kernel)
// / stride + 1, or 0 when the padded input is smaller than the kernel.
int convolution_output_size(int size, int kernel, int stride, int padding);

class Conv2d {
 public:
  Conv2d() = default;
  // weight [out_channels][in_channels][kernel][kernel], bias [out_channels] or empty; a square
  // kernel, the same stride and zero padding on both axes. Throws attn::Error naming a size that
  // is not positive (padding: negative, or not below the kernel), a weight or bias of the wrong
  // length, or a non-finite value.
  Conv2d(const std::vector<float>& weight, std::vector<float> bias, int in_channels, int out_channels, int kernel,
         int stride = 1, int padding = 0);

  int in_channels() const { return in_channels_; }
  int out_channels() const { return out_channels_; }
  int kernel() const { return kernel_; }
  int stride() const { return stride_; }
  int padding() const { return padding_; }
  int output_size(int size) const { return convolution_output_size(size, kernel_, stride_, padding_); }

  // image [height][width][in_channels] -> out [output_size(height)][output_size(width)][out_channels],
  // out = conv(image) + bias, then ReLU (x < 0 ? 0 : x, kernels::relu) where relu. For each output
  // row and each kernel tap, one product of the core's GEMM (kernels::matmul_packed) of the pixels
  // under that tap (a strided view of the image: no patch matrix) with the tap's packed weights,
  // accumulated onto the bias; the rows on the thread pool, each computed alone: the same bits on
  // any thread count. Throws attn::Error for an image smaller than the kernel (after padding), a
  // size that is not positive, or a missing buffer.
  void forward(const float* image, int height, int width, float* out, bool relu = false) const;

  // The same convolution by im2col: each block of 48 output pixels' patches [kernel][kernel][in]
  // copied into a matrix, then one product with the bias and ReLU in its epilogue. Close to
  // forward's result, not its bits (forward rounds each tap's sum). forward's way measured faster
  // on the shipped captioner's layers but the first (3 input channels, natively) in WebAssembly
  // SIMD and natively (native/bench_conv.cpp); this one stays for that comparison.
  void forward_im2col(const float* image, int height, int width, float* out, bool relu = false) const;

 private:
  void check_image(const float* image, int height, int width, const float* out) const;

  int in_channels_ = 0, out_channels_ = 0, kernel_ = 0, stride_ = 1, padding_ = 0;
  // W as [kernel][kernel][in_channels][out_channels] (a patch's order), packed into column panels
  // (kernels::pack_columns) for matmul_packed
  std::vector<float> packed_;
  std::vector<float> bias_;
};

// Max pooling: out [output height][output width][channels], each cell the largest input value in
// its kernel x kernel window (cells of the padding are not candidates; a NaN in a window wins, as
// in PyTorch). padding at most kernel / 2 (PyTorch's rule), so every window holds an input cell.
// The rows on the thread pool; every cell is computed alone (the same bits on any thread count).
// Throws attn::Error naming a bad size or an input smaller than the kernel.
void max_pool2d(const float* x, int height, int width, int channels, int kernel, int stride, int padding, float* out);

// Average pooling over the same windows: the window's sum (in double) divided by kernel * kernel
// when count_padding (PyTorch's default count_include_pad), else by the input cells it covers.
void average_pool2d(const float* x, int height, int width, int channels, int kernel, int stride, int padding,
                    float* out, bool count_padding = true);

}  // namespace attn
