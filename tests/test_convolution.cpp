// Conv2d, max_pool2d and average_pool2d against a float64 reference over odd sizes, strides and
// paddings; their bits on one thread and two; the errors they give for bad shapes.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "attn/core/convolution.hpp"
#include "support.hpp"

using namespace attn;
using testing::random_values;

namespace {

struct ConvCase {
  int height, width, in, out, kernel, stride, padding;
};

// out[oy][ox][o] = bias[o] + sum_{c, ky, kx} weight[o][c][ky][kx] image[oy*s+ky-p][ox*s+kx-p][c], in double
std::vector<double> reference_conv(const ConvCase& k, const std::vector<float>& image, const std::vector<float>& weight,
                                   const std::vector<float>& bias, bool relu) {
  const int oh = convolution_output_size(k.height, k.kernel, k.stride, k.padding);
  const int ow = convolution_output_size(k.width, k.kernel, k.stride, k.padding);
  std::vector<double> out(std::size_t(oh) * ow * k.out);
  for (int oy = 0; oy < oh; ++oy)
    for (int ox = 0; ox < ow; ++ox)
      for (int o = 0; o < k.out; ++o) {
        double sum = bias.empty() ? 0.0 : bias[o];
        for (int c = 0; c < k.in; ++c)
          for (int ky = 0; ky < k.kernel; ++ky)
            for (int kx = 0; kx < k.kernel; ++kx) {
              const int iy = oy * k.stride + ky - k.padding, ix = ox * k.stride + kx - k.padding;
              if (iy < 0 || iy >= k.height || ix < 0 || ix >= k.width) continue;
              sum += double(weight[((std::size_t(o) * k.in + c) * k.kernel + ky) * k.kernel + kx]) *
                     image[(std::size_t(iy) * k.width + ix) * k.in + c];
            }
        out[(std::size_t(oy) * ow + ox) * k.out + o] = relu && sum < 0.0 ? 0.0 : sum;
      }
  return out;
}

std::vector<ConvCase> conv_cases() {
  std::vector<ConvCase> cases;
  attn::Rng rng(42);
  const int sizes[] = {1, 2, 3, 7, 17};
  for (int kernel : {1, 2, 3, 5})
    for (int stride : {1, 2, 3})
      for (int padding = 0; padding < kernel && padding <= 2; ++padding)
        for (int s = 0; s < 5; ++s) {
          const int height = sizes[s], width = sizes[(s + stride + kernel) % 5];
          if (height + 2 * padding < kernel || width + 2 * padding < kernel) continue;
          cases.push_back({height, width, sizes[testing::random_int(rng, 0, 4)], sizes[testing::random_int(rng, 0, 4)],
                           kernel, stride, padding});
        }
  cases.push_back({96, 96, 3, 16, 3, 1, 1});   // many parts of pixels, the captioner's first layer
  cases.push_back({12, 12, 65, 64, 3, 1, 1});  // a wide patch: K = 585
  return cases;
}

}  // namespace

TEST_CASE("Conv2d matches a double reference over odd sizes, strides, paddings, with and without bias and ReLU",
          "[convolution]") {
  int checked = 0;
  std::uint64_t seed = 1000;
  for (const ConvCase& k : conv_cases()) {
    const auto image = random_values(std::size_t(k.height) * k.width * k.in, ++seed);
    const auto weight = random_values(std::size_t(k.out) * k.in * k.kernel * k.kernel, ++seed);
    const auto bias = (seed % 2 == 0) ? random_values(k.out, ++seed) : std::vector<float>();
    const Conv2d conv(weight, bias, k.in, k.out, k.kernel, k.stride, k.padding);
    const int oh = conv.output_size(k.height), ow = conv.output_size(k.width);
    for (bool relu : {false, true}) {
      const auto want = reference_conv(k, image, weight, bias, relu);
      REQUIRE(want.size() == std::size_t(oh) * ow * k.out);
      std::vector<float> got(want.size(), 7.0f), columns(want.size(), 7.0f);
      conv.forward(image.data(), k.height, k.width, got.data(), relu);
      conv.forward_im2col(image.data(), k.height, k.width, columns.data(), relu);
      const double tolerance = 1e-6 + 2e-7 * k.in * k.kernel * k.kernel;
      INFO(k.height << "x" << k.width << "x" << k.in << " -> " << k.out << ", kernel " << k.kernel << " stride "
                    << k.stride << " padding " << k.padding << (relu ? " relu" : ""));
      CHECK(testing::max_abs_difference(got, want) <= tolerance);
      CHECK(testing::max_abs_difference(columns, want) <= tolerance);
      ++checked;
    }
  }
  CHECK(checked > 100);
}

TEST_CASE("Conv2d's output sizes are PyTorch's floor((size + 2 padding - kernel) / stride) + 1", "[convolution]") {
  CHECK(convolution_output_size(96, 3, 1, 1) == 96);
  CHECK(convolution_output_size(96, 2, 2, 0) == 48);
  CHECK(convolution_output_size(7, 3, 2, 1) == 4);
  CHECK(convolution_output_size(17, 5, 3, 2) == 6);
  CHECK(convolution_output_size(2, 5, 1, 1) == 0);
}

TEST_CASE("Conv2d and the pools give the same bits on one thread or two", "[convolution]") {
  const int height = 40, width = 37, in = 24, out = 40;
  const auto image = random_values(std::size_t(height) * width * in, 77);
  const Conv2d conv(random_values(std::size_t(out) * in * 9, 78), random_values(out, 79), in, out, 3, 1, 1);
  std::vector<float> want(std::size_t(height) * width * out), want_max(std::size_t(20) * 19 * in),
      want_average(want_max.size());
  conv.forward(image.data(), height, width, want.data(), true);
  max_pool2d(image.data(), height, width, in, 3, 2, 1, want_max.data());
  average_pool2d(image.data(), height, width, in, 3, 2, 1, want_average.data());
  for (int count : {1, 2}) {
    if (count > 1 && !threads_supported()) continue;
    set_threads(count);
    std::vector<float> got(want.size()), got_max(want_max.size()), got_average(want_max.size());
    conv.forward(image.data(), height, width, got.data(), true);
    max_pool2d(image.data(), height, width, in, 3, 2, 1, got_max.data());
    average_pool2d(image.data(), height, width, in, 3, 2, 1, got_average.data());
    set_threads(1);
    INFO(count << " thread(s)");
    CHECK(std::memcmp(want.data(), got.data(), want.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(want_max.data(), got_max.data(), want_max.size() * sizeof(float)) == 0);
    CHECK(std::memcmp(want_average.data(), got_average.data(), want_max.size() * sizeof(float)) == 0);
  }
}

TEST_CASE("max and average pooling match a double reference over odd sizes, strides and paddings", "[convolution]") {
  int checked = 0;
  std::uint64_t seed = 5000;
  for (int kernel : {1, 2, 3, 5})
    for (int stride : {1, 2, 3})
      for (int padding = 0; padding <= kernel / 2; ++padding)
        for (int height : {1, 2, 3, 7, 17})
          for (int width : {1, 3, 17}) {
            if (height + 2 * padding < kernel || width + 2 * padding < kernel) continue;
            const int channels = (height + width) % 2 == 0 ? 3 : 7;
            const auto x = random_values(std::size_t(height) * width * channels, ++seed);
            const int oh = convolution_output_size(height, kernel, stride, padding);
            const int ow = convolution_output_size(width, kernel, stride, padding);
            std::vector<double> want_max(std::size_t(oh) * ow * channels), want_with(want_max.size()),
                want_without(want_max.size());
            for (int oy = 0; oy < oh; ++oy)
              for (int ox = 0; ox < ow; ++ox)
                for (int c = 0; c < channels; ++c) {
                  double top = -1e300, sum = 0.0;
                  int cells = 0;
                  for (int ky = 0; ky < kernel; ++ky)
                    for (int kx = 0; kx < kernel; ++kx) {
                      const int iy = oy * stride + ky - padding, ix = ox * stride + kx - padding;
                      if (iy < 0 || iy >= height || ix < 0 || ix >= width) continue;
                      const double v = x[(std::size_t(iy) * width + ix) * channels + c];
                      top = std::max(top, v);
                      sum += v;
                      ++cells;
                    }
                  const std::size_t i = (std::size_t(oy) * ow + ox) * channels + c;
                  want_max[i] = top;
                  want_with[i] = sum / (kernel * kernel);
                  want_without[i] = sum / cells;
                }
            std::vector<float> got_max(want_max.size(), 9.0f), got_with(want_max.size(), 9.0f),
                got_without(want_max.size(), 9.0f);
            max_pool2d(x.data(), height, width, channels, kernel, stride, padding, got_max.data());
            average_pool2d(x.data(), height, width, channels, kernel, stride, padding, got_with.data());
            average_pool2d(x.data(), height, width, channels, kernel, stride, padding, got_without.data(), false);
            INFO(height << "x" << width << "x" << channels << " kernel " << kernel << " stride " << stride
                        << " padding " << padding);
            CHECK(testing::max_abs_difference(got_max, want_max) == 0.0);
            CHECK(testing::max_abs_difference(got_with, want_with) <= 1e-7);
            CHECK(testing::max_abs_difference(got_without, want_without) <= 1e-7);
            ++checked;
          }
  CHECK(checked > 100);
}

TEST_CASE("max pooling lets a NaN in a window through, as PyTorch does", "[convolution]") {
  std::vector<float> x = {1.0f, 2.0f, 3.0f, 4.0f};
  x[2] = std::numeric_limits<float>::quiet_NaN();
  float out = 0.0f;
  max_pool2d(x.data(), 2, 2, 1, 2, 2, 0, &out);
  CHECK(std::isnan(out));
}

TEST_CASE("Conv2d and the pools name the problem with a bad shape", "[convolution]") {
  using Catch::Matchers::Contains;
  const auto weight = random_values(2 * 3 * 9, 1);
  CHECK_THROWS_WITH(Conv2d(weight, {}, 3, 2, 2), Contains("convolution weight has 54 elements, expected 24"));
  CHECK_THROWS_WITH(Conv2d(weight, {1.0f}, 3, 2, 3), Contains("convolution bias has 1 elements, expected 2"));
  CHECK_THROWS_WITH(Conv2d(weight, {}, 3, 2, 3, 0), Contains("stride must be at least 1"));
  CHECK_THROWS_WITH(Conv2d(weight, {}, 3, 2, 3, 1, 3), Contains("padding must be smaller than the kernel (3)"));
  CHECK_THROWS_WITH(Conv2d(weight, {}, 3, 2, 3, 1, -1), Contains("padding must not be negative"));
  CHECK_THROWS_WITH(Conv2d(weight, {}, 0, 2, 3), Contains("in_channels must be at least 1"));
  auto bad = weight;
  bad[5] = std::numeric_limits<float>::infinity();
  CHECK_THROWS_WITH(Conv2d(bad, {}, 3, 2, 3), Contains("convolution weight contains an infinite value at index 5"));
  const Conv2d conv(weight, {}, 3, 2, 3);
  std::vector<float> image(2 * 5 * 3), out(100);
  CHECK_THROWS_WITH(conv.forward(image.data(), 2, 5, out.data()),
                    Contains("the image is 2 x 5, smaller than the 3 x 3 kernel with padding 0"));
  CHECK_THROWS_WITH(conv.forward(image.data(), 0, 5, out.data()), Contains("height must be at least 1"));
  CHECK_THROWS_WITH(conv.forward(nullptr, 3, 3, out.data()), Contains("must not be null"));
  CHECK_THROWS_WITH(max_pool2d(image.data(), 2, 5, 3, 3, 1, 2, out.data()),
                    Contains("padding must be at most half the kernel (1), got 2"));
  CHECK_THROWS_WITH(average_pool2d(image.data(), 2, 5, 3, 3, 1, 0, out.data()),
                    Contains("the input is 2 x 5, smaller than the 3 x 3 kernel"));
  CHECK_THROWS_WITH(max_pool2d(image.data(), 2, 5, 0, 2, 1, 0, out.data()), Contains("channels must be at least 1"));
  CHECK_THROWS_WITH(max_pool2d(image.data(), 2, 5, 3, 0, 1, 0, out.data()), Contains("kernel must be at least 1"));
}
