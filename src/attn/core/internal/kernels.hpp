// The hot loops of attention, each in two versions that the tests compare:
//   attn::kernels::scalar::*  plain C++, the reference twin;
//   attn::kernels::simd::*    xsimd batches (kernels_simd.hpp), when ATTN_SIMD is on.
// attn::kernels::* (no sub-namespace) is what the rest of the core calls: the SIMD version
// when the build has it (and set_simd has not switched it off), the scalar one otherwise. All matrices are row-major
// float with an explicit leading dimension (row stride, in elements).
#pragma once

#include <cstdint>
#include <cstring>

namespace attn::kernels {

// True when the SIMD kernels are in use (native xsimd, or WebAssembly SIMD128).
bool simd_enabled() noexcept;
// Switches between the SIMD kernels and their scalar twins at run time, for comparisons and
// benchmarks; a no-op towards SIMD in a build without it. Process-wide.
void set_simd(bool enabled);
// Name of the instruction set the SIMD kernels were compiled for ("avx512bw", "sse4.1", "scalar").
const char* instruction_set();

// ReLU with the semantics of x < 0 ? 0 : x on every build: -0 and a NaN come back as they went
// in. Written as a test on the bits (sign set, magnitude nonzero and at most infinity's) because
// Emscripten's clang 14 compiles std::max(x, 0.0f), and x < 0 ? 0 : x itself, to WebAssembly's
// f32.max, which turns -0 into +0 and returns a NaN of its own (DEVELOPERS.md); this form
// compiles to a select, and its loops to a bitselect. Every scalar ReLU of the core is this one.
inline float relu(float x) noexcept {
  std::uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  return (bits >> 31) != 0 && magnitude != 0 && magnitude <= 0x7f800000u ? 0.0f : x;
}

// What matmul_packed does to the sums as it stores them, so that a layer's bias and activation
// need no pass of their own over C: bias[N] (or null) is added to every row, as if C had been
// filled with it (or, accumulating, it had been added to the old C) before the product; relu then
// applies relu() above (the vector paths a select of the same semantics).
struct Epilogue {
  const float* bias = nullptr;
  bool relu = false;
};

#define ATTN_KERNEL_DECLARATIONS                                                                                     \
  /* C[M][N] = alpha * A[M][K] B[K][N], plus the old C when accumulate. */                                           \
  void matmul(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float* C, int ldc, \
              bool accumulate) noexcept;                                                                             \
  /* C[M][N] = A[M][K] B[K][N] (+ the old C) with B packed by pack_columns, its panels panel_stride */               \
  /* floats apart (K * packed_width() for a whole B); the same bits as matmul's with alpha 1. With an */             \
  /* epilogue, the same bits as filling C with the bias (or adding it to the old C) before the product */            \
  /* and applying max(x, 0) to C after it. */                                                                        \
  void matmul_packed(int M, int N, int K, const float* A, int lda, const float* packed, long panel_stride, float* C, \
                     int ldc, bool accumulate, Epilogue epilogue = {}) noexcept;                                     \
  /* Largest element of x[0..n); n >= 1. */                                                                          \
  float max(const float* x, int n) noexcept;                                                                         \
  /* x[i] = exp(x[i] - shift); returns the sum of the new values. exp(-inf) = 0. */                                  \
  float exp_shifted_sum(float* x, int n, float shift) noexcept;                                                      \
  /* x[i] *= factor */                                                                                               \
  void scale(float* x, int n, float factor) noexcept;                                                                \
  /* out[c][r] = in[r][c]: in [rows][cols], out with row stride ldo >= rows */                                       \
  void transpose(const float* in, int rows, int cols, float* out, long ldo) noexcept;                                \
  /* x[i] = tanh(x[i]) */                                                                                            \
  void tanh(float* x, int n) noexcept;                                                                               \
  /* Bahdanau's score for one query against every key:                                                               \
     scores[j] = sum_h v[h] * tanh(query_projected[h] + keys_projected_t[h][j]),                                     \
     keys_projected_t: [hidden][key_length] with row stride ldk. */                                                  \
  void additive_scores(const float* query_projected, const float* keys_projected_t, int ldk, const float* v,         \
                       int hidden, int key_length, float* scores) noexcept;

// B[K][N] (row stride ldb) packed for matmul_packed: ceil(N / packed_width()) panels of
// packed_width() columns, each K x packed_width() k-major, the last panel's missing columns zeros.
// The width is fixed per build (a SIMD register tile's), the same for both twins, so a matrix
// packed once serves either after set_simd. packed_size gives the floats `packed` must hold.
int packed_width() noexcept;
long packed_size(int K, int N) noexcept;
void pack_columns(int K, int N, const float* B, int ldb, float* packed) noexcept;

namespace scalar {
ATTN_KERNEL_DECLARATIONS
}  // namespace scalar

#if ATTN_SIMD
namespace simd {
ATTN_KERNEL_DECLARATIONS
}  // namespace simd
#endif

ATTN_KERNEL_DECLARATIONS

#undef ATTN_KERNEL_DECLARATIONS

}  // namespace attn::kernels
