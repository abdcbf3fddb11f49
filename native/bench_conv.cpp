// Convolution benchmark: Conv2d::forward (direct: one GEMM a kernel tap and output row, no patch
// matrix) against Conv2d::forward_im2col (one GEMM a block of pixels' patches) on the layers of
// a small image encoder (3 x 3 convolutions, padding 1, each after a 2 x 2 max pooling), and the
// pools themselves. One JSON line per case: layer shape, method, threads, ms (median), gflops
// (2 x multiply-adds / time). Rounds run every case once in a rotating order.
//   attn_bench_conv [--reps 30] [--threads N]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "attn/attn.hpp"
#include "attn/core/internal/kernels.hpp"
#include "timing.hpp"

namespace {

struct Layer {
  int size, in, out;
};

std::vector<float> random_values(std::size_t count, std::uint64_t seed) {
  attn::Rng rng(seed);
  std::vector<float> values(count);
  for (float& x : values) x = rng.uniform() * 2.0f - 1.0f;
  return values;
}

struct Case {
  std::string name, method;
  int threads;
  double multiply_adds;
  std::function<void()> run;
  std::vector<double> times;
};

}  // namespace

int main(int argc, char** argv) {
  int reps = 30, threads = 2;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: attn_bench_conv [--reps N] [--threads N]\n");
      return 2;
    }
  }
  attn::set_threads(threads);
  // the shipped captioner's encoder (models/captioner.safetensors: channels 16, 32, 64, 128 from 96 x 96)
  const Layer layers[] = {{96, 3, 16}, {48, 16, 32}, {24, 32, 64}, {12, 64, 128}};
  std::vector<attn::Conv2d> convs;
  std::vector<std::vector<float>> images, outputs;
  for (const Layer& l : layers) {
    convs.emplace_back(random_values(std::size_t(l.out) * l.in * 9, l.size), random_values(l.out, l.in), l.in, l.out, 3,
                       1, 1);
    images.push_back(random_values(std::size_t(l.size) * l.size * l.in, l.out));
    outputs.emplace_back(std::size_t(l.size) * l.size * l.out);
  }
  std::vector<Case> cases;
  for (std::size_t i = 0; i < convs.size(); ++i) {
    const Layer l = layers[i];
    const std::string name = std::to_string(l.size) + "x" + std::to_string(l.size) + "x" + std::to_string(l.in) + "->" +
                             std::to_string(l.out);
    const double work = double(l.size) * l.size * l.in * l.out * 9;
    for (int count : threads > 1 ? std::vector<int>{1, threads} : std::vector<int>{1}) {
      const attn::Conv2d* conv = &convs[i];
      const float* image = images[i].data();
      float* out = outputs[i].data();
      cases.push_back({name, "direct", count, work, [=] { conv->forward(image, l.size, l.size, out, true); }, {}});
      cases.push_back(
          {name, "im2col", count, work, [=] { conv->forward_im2col(image, l.size, l.size, out, true); }, {}});
      cases.push_back({name,
                       "max_pool2d",
                       count,
                       double(l.size) * l.size * l.in,
                       [=] { attn::max_pool2d(image, l.size, l.size, l.in, 2, 2, 0, out); },
                       {}});
    }
  }
  for (int round = -1; round < reps; ++round) {
    for (std::size_t k = 0; k < cases.size(); ++k) {
      Case& c = cases[(k + static_cast<std::size_t>(round + 1)) % cases.size()];
      attn::ThreadLimit limit(c.threads);
      const double ms = attn::bench::elapsed_ms(c.run);
      if (round >= 0) c.times.push_back(ms);
    }
  }
  for (const Case& c : cases) {
    const double ms = attn::bench::median(c.times);
    std::printf("{\"layer\":\"%s\",\"method\":\"%s\",\"isa\":\"%s\",\"threads\":%d,\"ms\":%.4f,\"gflops\":%.2f}\n",
                c.name.c_str(), c.method.c_str(), attn::kernels::instruction_set(), c.threads, ms,
                2.0 * c.multiply_adds / (ms * 1e6));
  }
  return 0;
}
