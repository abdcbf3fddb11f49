#include "attn/models/image.hpp"

#include <algorithm>
#include <cmath>

#include "attn/core/error.hpp"

namespace attn {

std::vector<double> bilinear_weights(int in, int out) {
  std::vector<double> weights(static_cast<std::size_t>(out) * in, 0.0);
  const double scale = double(in) / out, support = std::max(scale, 1.0);
  for (int i = 0; i < out; ++i) {
    const double centre = (i + 0.5) * scale;
    // int() of PIL's C code truncates toward zero; both bounds are clamped after it
    const int low = std::max(static_cast<int>(centre - support + 0.5), 0);
    const int high = std::min(static_cast<int>(centre + support + 0.5), in);
    double* row = weights.data() + static_cast<std::size_t>(i) * in;
    double total = 0.0;
    for (int j = low; j < high; ++j) {
      row[j] = std::max(0.0, 1.0 - std::abs((j + 0.5 - centre) / support));
      total += row[j];
    }
    for (int j = low; j < high; ++j) row[j] /= total;
  }
  return weights;
}

std::vector<float> prepare_image(const std::uint8_t* pixels, int width, int height, int channels, int size,
                                 const double mean[3], const double std[3]) {
  if (width < 1 || height < 1) fail("the image has no pixels (", width, " x ", height, ")");
  if (width > max_image_side || height > max_image_side)
    fail("the image is ", width, " x ", height, ", larger than the limit of ", max_image_side, " pixels a side");
  if (channels != 3 && channels != 4) fail("an image has 3 (RGB) or 4 (RGBA) channels, got ", channels);
  check_size("image size", size);
  if (!pixels) fail("the image's pixels are missing (null)");
  for (int c = 0; c < 3; ++c)
    if (!(std[c] > 0.0) || !std::isfinite(mean[c])) fail("pixel_std must be positive and pixel_mean finite");
  // The horizontal pass row by row, each row composited over white as it is read (the only
  // buffers are one row and the [height][size][3] result: an 8192-pixel-wide photo needs no copy
  // of its own), then the vertical pass.
  const bool across = width != size, down = height != size;
  const std::vector<double> horizontal = across ? bilinear_weights(width, size) : std::vector<double>();
  const std::vector<double> vertical = down ? bilinear_weights(height, size) : std::vector<double>();
  std::vector<double> row(static_cast<std::size_t>(width) * 3), rows(static_cast<std::size_t>(height) * size * 3, 0.0);
  for (int y = 0; y < height; ++y) {
    const std::uint8_t* in = pixels + static_cast<std::size_t>(y) * width * channels;
    for (int x = 0; x < width; ++x, in += channels) {
      const double alpha = channels == 4 ? in[3] / 255.0 : 1.0;
      for (int c = 0; c < 3; ++c) row[x * 3 + c] = channels == 4 ? in[c] * alpha + 255.0 * (1.0 - alpha) : in[c];
    }
    double* out = rows.data() + static_cast<std::size_t>(y) * size * 3;
    if (!across) {
      std::copy(row.begin(), row.end(), out);
      continue;
    }
    for (int i = 0; i < size; ++i) {
      const double* w = horizontal.data() + static_cast<std::size_t>(i) * width;
      for (int x = 0; x < width; ++x) {
        if (w[x] == 0.0) continue;
        for (int c = 0; c < 3; ++c) out[i * 3 + c] += w[x] * row[x * 3 + c];
      }
    }
  }
  std::vector<float> prepared(static_cast<std::size_t>(size) * size * 3);
  std::vector<double> column(static_cast<std::size_t>(size) * 3);
  for (int i = 0; i < size; ++i) {
    const double* value = rows.data() + static_cast<std::size_t>(i) * size * 3;
    if (down) {
      std::fill(column.begin(), column.end(), 0.0);
      const double* w = vertical.data() + static_cast<std::size_t>(i) * height;
      for (int y = 0; y < height; ++y) {
        if (w[y] == 0.0) continue;
        const double* source = rows.data() + static_cast<std::size_t>(y) * size * 3;
        for (int k = 0; k < size * 3; ++k) column[k] += w[y] * source[k];
      }
      value = column.data();
    }
    for (int k = 0; k < size * 3; ++k)
      prepared[static_cast<std::size_t>(i) * size * 3 + k] =
          static_cast<float>((value[k] / 255.0 - mean[k % 3]) / std[k % 3]);
  }
  return prepared;
}

}  // namespace attn
