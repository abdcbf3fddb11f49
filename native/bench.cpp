// Native attention benchmark: softmax(Q K^T / sqrt(d)) V on the peers' shapes, with the SIMD
// kernels and with their scalar twins, one JSON line per case in the schema of
// ../shared/bench/peers (impl, shape, threads, ms = median, gflops = (4 L S D + 5 L S) per head /
// time, maxAbsErr against a float64 reference). The cases are timed in rounds that run each of them
// once, in a rotating order, so a machine-wide slowdown hits all of them alike.
//   attn_bench [--shapes 1x8x128x128x64,...] [--reps 30] [--threads N] [--no-scalar] [--memory] [--peak]
// --threads N: the SIMD kernels on N threads as well, in the same rounds as on one.
// --memory: peak resident memory of one 4096 x 4096 x 64 attention without weights (Linux).
// --peak: this core's multiply-add peak in the kernels' instruction set (a register-only loop).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <xsimd/xsimd.hpp>

#include "attn/attn.hpp"
#include "attn/core/internal/kernels.hpp"

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

struct Case {
  bool simd;
  int threads;
  std::vector<double> times;
  double error = 0.0;
};

// The pool stays started at the most threads any case uses, and each case's calls run under a
// ThreadLimit. Starting threads anew at every switch (set_threads) timed many 2-thread calls on
// one core: alternating 16 runs of each way (--reps 30, 2-core VM), 8x128x128x64's 2-thread
// speed-up was 0.96-1.44 (median 1.03) with set_threads and 1.03-2.19 (median 1.62) with the pool kept.
void configure(const Case& c) { attn::kernels::set_simd(c.simd); }

void run(const BenchShape& s, int reps, std::vector<Case> cases) {
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
  const auto call = [&] { attn::attention(shape, q.data(), k.data(), v.data(), options, outputs); };
  const std::vector<double> expected = reference(s, q, k, v);
  int most_threads = 1;
  for (const Case& c : cases) most_threads = std::max(most_threads, c.threads);
  if (attn::threads() != most_threads) {
    attn::set_threads(most_threads);
    // Linux may start a new thread on its parent's core and move it to the idle one only some
    // ticks later (a probe found the worker on the caller's core for its first 10 ms in 1 run of
    // 3): calls on every thread until that has passed.
    const auto settled = std::chrono::steady_clock::now() + std::chrono::milliseconds(200);
    while (std::chrono::steady_clock::now() < settled) call();
  }
  for (Case& c : cases) {
    configure(c);
    const attn::ThreadLimit limit(c.threads);
    call();
    for (std::size_t i = 0; i < expected.size(); ++i) c.error = std::max(c.error, std::abs(output[i] - expected[i]));
  }
  for (int r = 0; r < reps; ++r) {
    for (std::size_t j = 0; j < cases.size(); ++j) {
      Case& c = cases[(r + j) % cases.size()];
      configure(c);
      const attn::ThreadLimit limit(c.threads);
      // After a switch, calls for 20 ms: the pool's threads, asleep after the 1-thread cases, wake
      // and watch for work again, and the core that sat idle takes milliseconds to run at full
      // speed again on a virtual machine. 8x128x128x64's 2t/1t in 4 runs of 60 rounds after 1 ms
      // of calls: 1.40-1.86 (median 1.70); after 5 ms 1.71-1.88; after 20 ms 1.82-1.89, as in
      // back-to-back calls. PyTorch's times are back-to-back calls too.
      const auto warm_until = std::chrono::steady_clock::now() + std::chrono::milliseconds(20);
      do call();
      while (std::chrono::steady_clock::now() < warm_until);
      const auto start = std::chrono::steady_clock::now();
      call();
      c.times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
    }
  }
  const double flops = double(shape.heads) * (4.0 * s.queries * s.keys * s.dim + 5.0 * s.queries * s.keys);
  for (Case& c : cases) {
    std::nth_element(c.times.begin(), c.times.begin() + c.times.size() / 2, c.times.end());
    const double ms = c.times[c.times.size() / 2];
    configure(c);
    std::printf(
        "{\"impl\":\"attn-native-%s\",\"isa\":\"%s\",\"shape\":\"%s\",\"threads\":%d,\"ms\":%.4f,"
        "\"gflops\":%.2f,\"maxAbsErr\":%.3g}\n",
        c.simd ? "simd" : "scalar", attn::kernels::instruction_set(), s.name.c_str(), c.threads, ms, flops / ms / 1e6,
        c.error);
  }
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

// The multiply-add peak of one core in the kernels' instruction set: independent chains of
// fused multiply-adds on registers only (enough of them to cover the latency on every port), so
// attention's GFLOP/s can be read as a fraction of what the core can do.
// Twelve independent multiply-add chains for `iterations` steps, in registers: named locals in a
// function of their own (an array of batches, or accumulators live across the clock's calls, make
// GCC keep them in memory). A multiply-add has a latency of 4 cycles on two ports: eight would do.
constexpr int peak_chains = 12;
__attribute__((noinline)) float fma_chains(long iterations, float seed) {
  using F = xsimd::batch<float>;
  const F m(0.999999f), c(1e-7f);
  F a0(seed), a1(seed + 0.01f), a2(seed + 0.02f), a3(seed + 0.03f), a4(seed + 0.04f), a5(seed + 0.05f),
      a6(seed + 0.06f), a7(seed + 0.07f), a8(seed + 0.08f), a9(seed + 0.09f), a10(seed + 0.10f), a11(seed + 0.11f);
  for (long i = 0; i < iterations; ++i) {
    a0 = xsimd::fma(a0, m, c);
    a1 = xsimd::fma(a1, m, c);
    a2 = xsimd::fma(a2, m, c);
    a3 = xsimd::fma(a3, m, c);
    a4 = xsimd::fma(a4, m, c);
    a5 = xsimd::fma(a5, m, c);
    a6 = xsimd::fma(a6, m, c);
    a7 = xsimd::fma(a7, m, c);
    a8 = xsimd::fma(a8, m, c);
    a9 = xsimd::fma(a9, m, c);
    a10 = xsimd::fma(a10, m, c);
    a11 = xsimd::fma(a11, m, c);
  }
  return xsimd::hadd(a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + a8 + a9 + a10 + a11);
}

// The multiply-add peak of one core in the kernels' instruction set, so attention's GFLOP/s can
// be read as a fraction of what the core can do.
void peak_case() {
  const long iterations = 20'000'000;
  std::vector<double> times;
  float check = 0.0f;
  for (int round = 0; round < 5; ++round) {
    const auto start = std::chrono::steady_clock::now();
    check += fma_chains(iterations, 0.5f);
    times.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  const double flops = 2.0 * xsimd::batch<float>::size * peak_chains * double(iterations);
  std::printf("{\"impl\":\"fma-peak-native\",\"isa\":\"%s\",\"threads\":1,\"gflops\":%.1f,\"check\":%.3f}\n",
              xsimd::default_arch::name(), flops / times[times.size() / 2] / 1e9, double(check));
}

}  // namespace

int main(int argc, char** argv) {
  std::string shapes = "1x8x128x128x64,1x1x512x512x64,1x4x32x32x64,1x1x16x16x64";
  int reps = 30, threads = 1;
  bool scalar = true;
  try {
    for (int a = 1; a < argc; ++a) {
      if (!std::strcmp(argv[a], "--shapes") && a + 1 < argc)
        shapes = argv[++a];
      else if (!std::strcmp(argv[a], "--reps") && a + 1 < argc)
        reps = std::max(1, std::atoi(argv[++a]));
      else if (!std::strcmp(argv[a], "--threads") && a + 1 < argc)
        threads = std::atoi(argv[++a]);
      else if (!std::strcmp(argv[a], "--no-scalar"))
        scalar = false;
      else if (!std::strcmp(argv[a], "--memory")) {
        memory_case();
        return 0;
      } else if (!std::strcmp(argv[a], "--peak")) {
        peak_case();
        return 0;
      } else {
        std::fprintf(stderr,
                     "usage: %s [--shapes 1x8x128x128x64,...] [--reps 30] [--threads N] [--no-scalar] [--memory] "
                     "[--peak]\n",
                     argv[0]);
        return 2;
      }
    }
    std::vector<Case> cases{{true, 1, {}}};
    if (threads != 1) cases.push_back({true, threads, {}});
    if (scalar) cases.push_back({false, 1, {}});
    std::stringstream list(shapes);
    std::string item;
    while (std::getline(list, item, ',')) run(parse_shape(item), reps, cases);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "attn_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
