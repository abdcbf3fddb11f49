// Native attention benchmark: softmax(Q K^T / sqrt(d)) V on the peers' shapes, with the SIMD
// kernels and with their scalar twins, one JSON line per case in the schema of
// ../shared/bench/peers (impl, shape, ms = median, gflops = (4 L S D + 5 L S) per head / time,
// maxAbsErr against a float64 reference).
//   attn_bench [--shapes 1x8x128x128x64,...] [--reps 30] [--memory]
// --memory: peak resident memory of one 4096 x 4096 x 64 attention without weights (Linux).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "attn/attn.hpp"
#include "attn/core/internal/kernels.hpp"
#include "timing.hpp"

namespace {

struct BenchShape {
  int batch, heads, queries, keys, dim;
  std::string name;
};

BenchShape parse_shape(const std::string& text) {
  BenchShape s{};
  if (std::sscanf(text.c_str(), "%dx%dx%dx%dx%d", &s.batch, &s.heads, &s.queries, &s.keys, &s.dim) != 5) {
    throw attn::Error("shape '" + text + "' is not BxHxLxSxD");
  }
  s.name = text;
  return s;
}

std::vector<float> random_values(std::size_t count, std::uint64_t seed) {
  attn::Rng rng(seed);
  std::vector<float> values(count);
  for (float& x : values) x = rng.uniform() * 2.0f - 1.0f;
  return values;
}

// float64 softmax(QK^T/sqrt(d))V, per head.
std::vector<double> reference(const BenchShape& s, const std::vector<float>& q, const std::vector<float>& k,
                              const std::vector<float>& v) {
  const int heads = s.batch * s.heads;
  std::vector<double> out(static_cast<std::size_t>(heads) * s.queries * s.dim, 0.0), row(s.keys);
  const double scale = 1.0 / std::sqrt(double(s.dim));
  for (int h = 0; h < heads; ++h) {
    const float* qh = q.data() + static_cast<std::size_t>(h) * s.queries * s.dim;
    const float* kh = k.data() + static_cast<std::size_t>(h) * s.keys * s.dim;
    const float* vh = v.data() + static_cast<std::size_t>(h) * s.keys * s.dim;
    for (int i = 0; i < s.queries; ++i) {
      double top = -1e300, sum = 0.0;
      for (int j = 0; j < s.keys; ++j) {
        double dot = 0.0;
        for (int d = 0; d < s.dim; ++d) dot += double(qh[i * s.dim + d]) * kh[j * s.dim + d];
        row[j] = dot * scale;
        top = std::max(top, row[j]);
      }
      for (int j = 0; j < s.keys; ++j) sum += (row[j] = std::exp(row[j] - top));
      double* o = out.data() + (static_cast<std::size_t>(h) * s.queries + i) * s.dim;
      for (int j = 0; j < s.keys; ++j) {
        for (int d = 0; d < s.dim; ++d) o[d] += row[j] / sum * vh[j * s.dim + d];
      }
    }
  }
  return out;
}

void run(const BenchShape& s, int reps, bool simd) {
  attn::kernels::set_simd(simd);
  attn::Shape shape;
  shape.heads = s.batch * s.heads;
  shape.query_length = s.queries;
  shape.key_length = s.keys;
  shape.dim = s.dim;
  const auto q = random_values(static_cast<std::size_t>(shape.heads) * s.queries * s.dim, 1);
  const auto k = random_values(static_cast<std::size_t>(shape.heads) * s.keys * s.dim, 2);
  const auto v = random_values(static_cast<std::size_t>(shape.heads) * s.keys * s.dim, 3);
  std::vector<float> output(q.size());
  attn::AttentionOptions options;
  attn::AttentionOutputs outputs;
  outputs.output = output.data();
  const double ms =
      attn::bench::median_ms(reps, [&] { attn::attention(shape, q.data(), k.data(), v.data(), options, outputs); });
  const double flops = double(shape.heads) * (4.0 * s.queries * s.keys * s.dim + 5.0 * s.queries * s.keys);
  const std::vector<double> expected = reference(s, q, k, v);
  double error = 0.0;
  for (std::size_t i = 0; i < expected.size(); ++i) error = std::max(error, std::abs(output[i] - expected[i]));
  std::printf(
      "{\"impl\":\"attn-native-%s\",\"isa\":\"%s\",\"shape\":\"%s\",\"ms\":%.4f,\"gflops\":%.2f,\"maxAbsErr\":%.3g}\n",
      simd ? "simd" : "scalar", attn::kernels::instruction_set(), s.name.c_str(), ms, flops / ms / 1e6, error);
  std::fflush(stdout);
}

// VmHWM (peak resident set) or VmRSS of this process in MiB, from /proc/self/status.
double resident_mib(const char* field) {
  std::FILE* status = std::fopen("/proc/self/status", "r");
  if (!status) return -1.0;
  char line[256];
  double kib = -1.0;
  while (std::fgets(line, sizeof line, status)) {
    if (std::strncmp(line, field, std::strlen(field)) == 0) kib = std::atof(line + std::strlen(field) + 1);
  }
  std::fclose(status);
  return kib / 1024.0;
}

// The memory claim: without weights, attention keeps a [block][keys] scratch, not the [L][L]
// score matrix (64 MiB here), so the peak grows by O(L d) over the inputs and output.
void memory_case() {
  const int length = 4096, dim = 64;
  attn::Shape shape;
  shape.query_length = shape.key_length = length;
  shape.dim = dim;
  const auto q = random_values(static_cast<std::size_t>(length) * dim, 1);
  const auto k = random_values(static_cast<std::size_t>(length) * dim, 2);
  const auto v = random_values(static_cast<std::size_t>(length) * dim, 3);
  std::vector<float> output(q.size(), 0.0f);
  const double before = resident_mib("VmRSS:");
  attn::AttentionOutputs outputs;
  outputs.output = output.data();
  attn::attention(shape, q.data(), k.data(), v.data(), attn::AttentionOptions{}, outputs);
  const double peak = resident_mib("VmHWM:");
  std::printf(
      "{\"impl\":\"attn-native-simd\",\"case\":\"memory 1x1x4096x4096x64, no weights\",\"rssBeforeMiB\":%.1f,"
      "\"peakRssMiB\":%.1f,\"extraMiB\":%.1f,\"scoreMatrixMiB\":%.1f}\n",
      before, peak, peak - before, double(length) * length * 4 / (1 << 20));
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes = "1x8x128x128x64,1x1x512x512x64,1x4x32x32x64,1x1x16x16x64";
  int reps = 30;
  for (int a = 1; a < argc; ++a) {
    if (!std::strcmp(argv[a], "--shapes") && a + 1 < argc)
      shapes = argv[++a];
    else if (!std::strcmp(argv[a], "--reps") && a + 1 < argc)
      reps = std::max(1, std::atoi(argv[++a]));
    else if (!std::strcmp(argv[a], "--memory")) {
      memory_case();
      return 0;
    } else {
      std::fprintf(stderr, "usage: %s [--shapes 1x8x128x128x64,...] [--reps 30]\n", argv[0]);
      return 2;
    }
  }
  try {
    std::stringstream list(shapes);
    std::string item;
    while (std::getline(list, item, ',')) {
      const BenchShape shape = parse_shape(item);
      for (bool simd : {true, false}) run(shape, reps, simd);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attn_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
