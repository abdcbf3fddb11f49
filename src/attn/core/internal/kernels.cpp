#include "attn/core/internal/kernels.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>

#if ATTN_SIMD
#include "attn/core/internal/kernels_simd.hpp"
#endif

namespace attn::kernels {

int packed_width() noexcept {
#if ATTN_SIMD
  return simd_impl::packed_width<xsimd::default_arch>();
#else
  return 16;
#endif
}

long packed_size(int K, int N) noexcept {
  const int P = packed_width();
  return static_cast<long>((N + P - 1) / P) * K * P;
}

void pack_columns(int K, int N, const float* B, int ldb, float* packed) noexcept {
  const int P = packed_width();
  for (int j0 = 0; j0 < N; j0 += P) {
    const int cols = N - j0 < P ? N - j0 : P;
    for (int k = 0; k < K; ++k, packed += P) {
      const float* b = B + static_cast<long>(k) * ldb + j0;
      for (int j = 0; j < P; ++j) packed[j] = j < cols ? b[j] : 0.0f;
    }
  }
}

namespace scalar {

void matmul(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
            bool accumulate) noexcept {
  for (int i = 0; i < M; ++i) {
    float* c = C + static_cast<long>(i) * ldc;
    if (!accumulate) {
      for (int j = 0; j < N; ++j) c[j] = 0.0f;
    }
    for (int k = 0; k < K; ++k) {
      const float a = alpha * A[static_cast<long>(i) * lda + k];
      const float* b = B + static_cast<long>(k) * ldb;
      for (int j = 0; j < N; ++j) c[j] += a * b[j];
    }
  }
}

// The same sums in the same order as scalar::matmul, B read from its panels.
void matmul_packed(int M, int N, int K, const float* A, int lda, const float* packed, long panel_stride, float* C,
                   int ldc, bool accumulate, Epilogue epilogue) noexcept {
  const int P = packed_width();
  for (int i = 0; i < M; ++i) {
    float* c = C + static_cast<long>(i) * ldc;
    if (!accumulate) {
      for (int j = 0; j < N; ++j) c[j] = 0.0f;
    }
    if (epilogue.bias) {
      for (int j = 0; j < N; ++j) c[j] = accumulate ? c[j] + epilogue.bias[j] : epilogue.bias[j];
    }
    for (int j0 = 0; j0 < N; j0 += P) {
      const int cols = N - j0 < P ? N - j0 : P;
      const float* panel = packed + (j0 / P) * panel_stride;
      for (int k = 0; k < K; ++k) {
        const float a = A[static_cast<long>(i) * lda + k];
        const float* b = panel + static_cast<long>(k) * P;
        for (int j = 0; j < cols; ++j) c[j0 + j] += a * b[j];
      }
    }
    if (epilogue.relu) {
      for (int j = 0; j < N; ++j) c[j] = relu(c[j]);
    }
  }
}

float max(const float* x, int n) noexcept {
  float best = x[0];
  for (int i = 1; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

float exp_shifted_sum(float* x, int n, float shift) noexcept {
  float sum = 0.0f;
  for (int i = 0; i < n; ++i) {
    x[i] = std::exp(x[i] - shift);
    sum += x[i];
  }
  return sum;
}

void scale(float* x, int n, float factor) noexcept {
  for (int i = 0; i < n; ++i) x[i] *= factor;
}

// In 16x16 blocks, so that both the reads and the strided writes stay within a few cache lines.
void transpose(const float* in, int rows, int cols, float* out, long ldo) noexcept {
  constexpr int block = 16;
  for (int r0 = 0; r0 < rows; r0 += block) {
    const int r1 = r0 + block < rows ? r0 + block : rows;
    for (int c0 = 0; c0 < cols; c0 += block) {
      const int c1 = c0 + block < cols ? c0 + block : cols;
      for (int r = r0; r < r1; ++r) {
        for (int c = c0; c < c1; ++c) out[c * ldo + r] = in[static_cast<long>(r) * cols + c];
      }
    }
  }
}

void tanh(float* x, int n) noexcept {
  for (int i = 0; i < n; ++i) x[i] = std::tanh(x[i]);
}

void additive_scores(const float* query_projected, const float* keys_projected_t, int ldk, const float* v, int hidden,
                     int key_length, float* scores) noexcept {
  for (int j = 0; j < key_length; ++j) scores[j] = 0.0f;
  for (int h = 0; h < hidden; ++h) {
    const float* k = keys_projected_t + static_cast<long>(h) * ldk;
    for (int j = 0; j < key_length; ++j) scores[j] += v[h] * std::tanh(query_projected[h] + k[j]);
  }
}

}  // namespace scalar

#if ATTN_SIMD
namespace simd {

// The best instruction set this translation unit was compiled for (-march=native natively,
// SSE4.1 mapped onto SIMD128 under Emscripten).
using arch = xsimd::default_arch;

void matmul(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
            bool accumulate) noexcept {
  simd_impl::matmul<arch>(M, N, K, alpha, A, lda, B, ldb, C, ldc, accumulate);
}
void matmul_packed(int M, int N, int K, const float* A, int lda, const float* packed, long panel_stride, float* C,
                   int ldc, bool accumulate, Epilogue epilogue) noexcept {
  simd_impl::matmul_packed<arch>(M, N, K, A, lda, packed, panel_stride, C, ldc, accumulate, epilogue);
}
float max(const float* x, int n) noexcept { return simd_impl::max<arch>(x, n); }
float exp_shifted_sum(float* x, int n, float shift) noexcept { return simd_impl::exp_shifted_sum<arch>(x, n, shift); }
void scale(float* x, int n, float factor) noexcept { simd_impl::scale<arch>(x, n, factor); }
void transpose(const float* in, int rows, int cols, float* out, long ldo) noexcept {
  simd_impl::transpose<arch>(in, rows, cols, out, ldo);
}
void tanh(float* x, int n) noexcept { simd_impl::tanh<arch>(x, n); }
void additive_scores(const float* query_projected, const float* keys_projected_t, int ldk, const float* v, int hidden,
                     int key_length, float* scores) noexcept {
  simd_impl::additive_scores<arch>(query_projected, keys_projected_t, ldk, v, hidden, key_length, scores);
}

}  // namespace simd
#endif

namespace {
std::atomic<bool> use_simd{ATTN_SIMD != 0};

// The matrix products are called through pointers that set_simd writes, so that no optimizer can
// inline them into their caller: under WebAssembly, binaryen inlines a function into its only
// caller, and V8 then allocates registers over the whole merged function; the micro-kernel's
// loop, alone in a function, ran at 25 GMAC/s (the SIMD128 multiply-add peak), merged with the
// dispatcher and the scalar twin at 17 (measured in Node 20).
using MatmulKernel = void (*)(int, int, int, float, const float*, int, const float*, int, float*, int, bool) noexcept;
using MatmulPackedKernel = void (*)(int, int, int, const float*, int, const float*, long, float*, int, bool,
                                    Epilogue) noexcept;
#if ATTN_SIMD
std::atomic<MatmulKernel> matmul_kernel{&simd::matmul};
std::atomic<MatmulPackedKernel> matmul_packed_kernel{&simd::matmul_packed};
#else
std::atomic<MatmulKernel> matmul_kernel{&scalar::matmul};
std::atomic<MatmulPackedKernel> matmul_packed_kernel{&scalar::matmul_packed};
#endif
}  // namespace

bool simd_enabled() noexcept { return use_simd.load(std::memory_order_relaxed); }

void set_simd(bool enabled) {
  if (enabled && !ATTN_SIMD) return;  // this build has no SIMD kernels to switch to
  use_simd.store(enabled, std::memory_order_relaxed);
#if ATTN_SIMD
  matmul_kernel.store(enabled ? &simd::matmul : &scalar::matmul, std::memory_order_relaxed);
  matmul_packed_kernel.store(enabled ? &simd::matmul_packed : &scalar::matmul_packed, std::memory_order_relaxed);
#endif
}

const char* instruction_set() {
#if ATTN_SIMD
#if defined(__wasm_relaxed_simd__)
  if (simd_enabled()) return "relaxed-simd";  // SSE4.1's kernels with f32x4.relaxed_madd (kernels_simd_math.hpp)
#endif
  if (simd_enabled()) return simd::arch::name();
#endif
  return "scalar";
}

// Every dispatcher picks the SIMD kernel when the build has it and it is switched on.
#if ATTN_SIMD
#define ATTN_DISPATCH(call) return simd_enabled() ? simd::call : scalar::call
#else
#define ATTN_DISPATCH(call) return scalar::call
#endif

void matmul(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
            bool accumulate) noexcept {
  matmul_kernel.load(std::memory_order_relaxed)(M, N, K, alpha, A, lda, B, ldb, C, ldc, accumulate);
}
void matmul_packed(int M, int N, int K, const float* A, int lda, const float* packed, long panel_stride, float* C,
                   int ldc, bool accumulate, Epilogue epilogue) noexcept {
  matmul_packed_kernel.load(std::memory_order_relaxed)(M, N, K, A, lda, packed, panel_stride, C, ldc, accumulate,
                                                       epilogue);
}
float max(const float* x, int n) noexcept { ATTN_DISPATCH(max(x, n)); }
float exp_shifted_sum(float* x, int n, float shift) noexcept { ATTN_DISPATCH(exp_shifted_sum(x, n, shift)); }
void scale(float* x, int n, float factor) noexcept { ATTN_DISPATCH(scale(x, n, factor)); }
void transpose(const float* in, int rows, int cols, float* out, long ldo) noexcept {
  ATTN_DISPATCH(transpose(in, rows, cols, out, ldo));
}
void tanh(float* x, int n) noexcept { ATTN_DISPATCH(tanh(x, n)); }
void additive_scores(const float* query_projected, const float* keys_projected_t, int ldk, const float* v, int hidden,
                     int key_length, float* scores) noexcept {
  ATTN_DISPATCH(additive_scores(query_projected, keys_projected_t, ldk, v, hidden, key_length, scores));
}

#undef ATTN_DISPATCH

}  // namespace attn::kernels
