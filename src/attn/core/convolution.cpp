#include "attn/core/convolution.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attn/core/error.hpp"
#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/scratch.hpp"
#include "attn/core/threads.hpp"

namespace attn {

namespace {

// Output pixels per part of forward_im2col: a multiple of every instruction set's register tile height
// (4 and 6 rows), the same partition on any thread count.
constexpr int pixels_per_part = 48;

void check_window(int kernel, int stride, int padding, bool pooling) {
  check_size("kernel", kernel);
  check_size("stride", stride);
  if (padding < 0) fail(Field{"padding"}, " must not be negative, got ", padding);
  if (pooling && padding > kernel / 2)
    fail(Field{"padding"}, " must be at most half the kernel (", kernel / 2, "), got ", padding);
  if (!pooling && padding >= kernel)
    fail(Field{"padding"}, " must be smaller than the kernel (", kernel, "), got ", padding);
}

void check_input(const char* what, int height, int width, int kernel, int padding) {
  check_size("height", height);
  check_size("width", width);
  if (height + 2LL * padding < kernel || width + 2LL * padding < kernel) {
    fail("the ", what, " is ", height, " x ", width, ", smaller than the ", kernel, " x ", kernel,
         " kernel with padding ", padding);
  }
}

// The first and last output columns whose tap kx falls inside a row of `width` pixels.
void valid_columns(int width, int output_width, int kx, int stride, int padding, int& first, int& last) {
  // ox * stride + kx - padding in [0, width)
  first = padding > kx ? (padding - kx + stride - 1) / stride : 0;
  const int reach = width - 1 + padding - kx;  // negative: the tap lies right of every pixel
  last = reach < 0 ? -1 : std::min(output_width - 1, reach / stride);
}

// The rows of out in groups of `group` on the threads where the work (multiply-adds a row) is enough.
template <class Rows>
void for_output_rows(int rows, int group, double work_per_row, const Rows& rows_of) {
  const int groups = (rows + group - 1) / group;
  const int workers = workers_for(groups, work_per_row * group);
  parallel_for(groups, workers, [&](int g, int) {
    const int first = g * group;
    rows_of(first, std::min(group, rows - first));
  });
}

}  // namespace

int convolution_output_size(int size, int kernel, int stride, int padding) {
  const long long padded = static_cast<long long>(size) + 2LL * padding;
  if (kernel < 1 || stride < 1 || padded < kernel) return 0;
  return static_cast<int>((padded - kernel) / stride + 1);
}

Conv2d::Conv2d(const std::vector<float>& weight, std::vector<float> bias, int in_channels, int out_channels, int kernel,
               int stride, int padding)
    : in_channels_(in_channels),
      out_channels_(out_channels),
      kernel_(kernel),
      stride_(stride),
      padding_(padding),
      bias_(std::move(bias)) {
  check_size("in_channels", in_channels);
  check_size("out_channels", out_channels);
  check_window(kernel, stride, padding, false);
  const std::size_t taps = element_count("convolution weight", {kernel, kernel, in_channels});
  const std::size_t expected = element_count("convolution weight", {out_channels, kernel, kernel, in_channels});
  if (weight.size() != expected) {
    fail(Field{"convolution weight"}, " has ", weight.size(), " elements, expected ", expected, " (", out_channels,
         " x ", in_channels, " x ", kernel, " x ", kernel, ")");
  }
  check_finite("convolution weight", weight.data(), weight.size());
  if (!bias_.empty()) {
    if (bias_.size() != static_cast<std::size_t>(out_channels))
      fail(Field{"convolution bias"}, " has ", bias_.size(), " elements, expected ", out_channels);
    check_finite("convolution bias", bias_.data(), bias_.size());
  }
  // [out][in][ky][kx] -> B[(ky * kernel + kx) * in + c][out]: a patch's order in forward_im2col's rows,
  // and tap t's weights are rows t * in .. (t + 1) * in - 1 (forward's per-tap products)
  std::vector<float> columns(taps * out_channels);
  for (int o = 0; o < out_channels; ++o)
    for (int c = 0; c < in_channels; ++c)
      for (int t = 0; t < kernel * kernel; ++t)
        columns[(static_cast<std::size_t>(t) * in_channels + c) * out_channels + o] =
            weight[(static_cast<std::size_t>(o) * in_channels + c) * kernel * kernel + t];
  const int K = static_cast<int>(taps);
  packed_.resize(static_cast<std::size_t>(kernels::packed_size(K, out_channels)));
  kernels::pack_columns(K, out_channels, columns.data(), out_channels, packed_.data());
}

void Conv2d::check_image(const float* image, int height, int width, const float* out) const {
  check_input("image", height, width, kernel_, padding_);
  element_count("image", {height, width, in_channels_});
  element_count("convolution output", {output_size(height), output_size(width), out_channels_});
  if (!image || !out) fail("Conv2d::forward: the image and the output must not be null");
}

void Conv2d::forward_im2col(const float* image, int height, int width, float* out, bool relu) const {
  check_image(image, height, width, out);
  const int output_width = output_size(width), pixels = output_size(height) * output_width;
  const int C = in_channels_, K = kernel_ * kernel_ * C, P = kernels::packed_width();
  const int parts = (pixels + pixels_per_part - 1) / pixels_per_part;
  const int workers = std::max(1, workers_for(parts, double(pixels_per_part) * K * out_channels_));
  std::vector<Scratch> patches;
  for (int w = 0; w < workers; ++w) patches.emplace_back(static_cast<std::size_t>(pixels_per_part) * K);
  kernels::Epilogue epilogue;
  epilogue.bias = bias_.empty() ? nullptr : bias_.data();
  epilogue.relu = relu;
  parallel_for(parts, workers, [&](int part, int worker) {
    const int first = part * pixels_per_part, count = std::min(pixels_per_part, pixels - first);
    float* rows = patches[static_cast<std::size_t>(worker)].data();
    // im2col: row p holds pixel first + p's patch [kernel][kernel][C], zeros where it leaves the image
    for (int p = 0; p < count; ++p) {
      const int oy = (first + p) / output_width, ox = (first + p) % output_width;
      float* row = rows + static_cast<std::size_t>(p) * K;
      for (int ky = 0; ky < kernel_; ++ky) {
        const int iy = oy * stride_ + ky - padding_;
        for (int kx = 0; kx < kernel_; ++kx) {
          const int ix = ox * stride_ + kx - padding_;
          float* tap = row + static_cast<std::size_t>(ky * kernel_ + kx) * C;
          if (iy < 0 || iy >= height || ix < 0 || ix >= width)
            std::fill_n(tap, C, 0.0f);
          else
            std::copy_n(image + (static_cast<std::size_t>(iy) * width + ix) * C, C, tap);
        }
      }
    }
    kernels::matmul_packed(count, out_channels_, K, rows, K, packed_.data(), static_cast<long>(K) * P,
                           out + static_cast<std::size_t>(first) * out_channels_, out_channels_, false, epilogue);
  });
}

void Conv2d::forward(const float* image, int height, int width, float* out, bool relu) const {
  check_image(image, height, width, out);
  const int output_height = output_size(height), output_width = output_size(width);
  const int C = in_channels_, N = out_channels_, P = kernels::packed_width();
  const long panel_stride = static_cast<long>(kernel_) * kernel_ * C * P;
  for_output_rows(output_height, 1, double(output_width) * kernel_ * kernel_ * C * N, [&](int oy, int) {
    float* row = out + static_cast<std::size_t>(oy) * output_width * N;
    for (int ox = 0; ox < output_width; ++ox) {
      if (bias_.empty())
        std::fill_n(row + static_cast<std::size_t>(ox) * N, N, 0.0f);
      else
        std::copy_n(bias_.data(), N, row + static_cast<std::size_t>(ox) * N);
    }
    for (int ky = 0; ky < kernel_; ++ky) {
      const int iy = oy * stride_ + ky - padding_;
      if (iy < 0 || iy >= height) continue;
      for (int kx = 0; kx < kernel_; ++kx) {
        int first = 0, last = 0;
        valid_columns(width, output_width, kx, stride_, padding_, first, last);
        if (first > last) continue;
        const float* pixels = image + (static_cast<std::size_t>(iy) * width + first * stride_ + kx - padding_) * C;
        const float* tap = packed_.data() + static_cast<std::size_t>(ky * kernel_ + kx) * C * P;
        kernels::matmul_packed(last - first + 1, N, C, pixels, stride_ * C, tap, panel_stride,
                               row + static_cast<std::size_t>(first) * N, N, true);
      }
    }
    if (relu)
      for (std::size_t i = 0; i < static_cast<std::size_t>(output_width) * N; ++i) row[i] = kernels::relu(row[i]);
  });
}

namespace {

// One pooling: reduce(cell values of the window) for every output cell and channel.
template <class Window>
void pool(const char* name, const float* x, int height, int width, int channels, int kernel, int stride, int padding,
          float* out, const Window& window) {
  check_window(kernel, stride, padding, true);
  check_input("input", height, width, kernel, padding);
  check_size("channels", channels);
  element_count("input", {height, width, channels});
  if (!x || !out) fail(name, ": the input and the output must not be null");
  const int output_height = convolution_output_size(height, kernel, stride, padding);
  const int output_width = convolution_output_size(width, kernel, stride, padding);
  for_output_rows(output_height, 1, double(output_width) * channels * kernel * kernel, [&](int oy, int) {
    const int y0 = oy * stride - padding, y_first = std::max(0, y0), y_end = std::min(height, y0 + kernel);
    for (int ox = 0; ox < output_width; ++ox) {
      const int x0 = ox * stride - padding, x_first = std::max(0, x0), x_end = std::min(width, x0 + kernel);
      window(y_first, y_end, x_first, x_end, out + (static_cast<std::size_t>(oy) * output_width + ox) * channels);
    }
  });
}

}  // namespace

void max_pool2d(const float* x, int height, int width, int channels, int kernel, int stride, int padding, float* out) {
  pool("max_pool2d", x, height, width, channels, kernel, stride, padding, out,
       [&](int y_first, int y_end, int x_first, int x_end, float* cell) {
         std::fill_n(cell, channels, -std::numeric_limits<float>::infinity());
         for (int y = y_first; y < y_end; ++y) {
           for (int ix = x_first; ix < x_end; ++ix) {
             const float* in = x + (static_cast<std::size_t>(y) * width + ix) * channels;
             for (int c = 0; c < channels; ++c)
               if (in[c] > cell[c] || std::isnan(in[c])) cell[c] = std::isnan(cell[c]) ? cell[c] : in[c];
           }
         }
       });
}

void average_pool2d(const float* x, int height, int width, int channels, int kernel, int stride, int padding,
                    float* out, bool count_padding) {
  pool("average_pool2d", x, height, width, channels, kernel, stride, padding, out,
       [&](int y_first, int y_end, int x_first, int x_end, float* cell) {
         std::vector<double> sum(static_cast<std::size_t>(channels), 0.0);
         for (int y = y_first; y < y_end; ++y) {
           for (int ix = x_first; ix < x_end; ++ix) {
             const float* in = x + (static_cast<std::size_t>(y) * width + ix) * channels;
             for (int c = 0; c < channels; ++c) sum[c] += in[c];
           }
         }
         const double count = count_padding ? double(kernel) * kernel : double(y_end - y_first) * (x_end - x_first);
         for (int c = 0; c < channels; ++c) cell[c] = static_cast<float>(sum[c] / count);
       });
}

}  // namespace attn
