// SIMD kernels, written once in xsimd batch operations and instantiated per architecture.
//
// Under Emscripten, xsimd reaches WebAssembly SIMD128 through the SSE emulation headers, where
// float->int conversions, rcp/rsqrt and horizontal adds become scalar loops. The loops below use
// only operations that map 1:1 (add, mul, div, min/max, compares, selects, and/or, integer
// add and shifts by constants, loads, stores); horizontal reductions happen once per row.
// The kernels are noexcept: called from the noexcept dispatchers without being inlined, one that
// might throw would go through a JS invoke_* trampoline under Emscripten's exception handling.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "attn/core/internal/kernels_simd_math.hpp"
#include "attn/core/internal/kernels_simd_matmul.hpp"

namespace attn::kernels::simd_impl {

// Four running maxima: one would chain every step on the last (in WebAssembly a float max is a
// compare and a select, several cycles deep).
template <class Arch>
float max(const float* x, int n) noexcept {
  using F = floats<Arch>;
  constexpr int W = static_cast<int>(F::size);
  float best = x[0];
  int i = 0;
  if (n >= W) {
    F acc[4] = {F::load_unaligned(x), F::load_unaligned(x), F::load_unaligned(x), F::load_unaligned(x)};
    for (i = W; i + 4 * W <= n; i += 4 * W) {
      for (int a = 0; a < 4; ++a) acc[a] = xsimd::max(acc[a], F::load_unaligned(x + i + a * W));
    }
    for (; i + W <= n; i += W) acc[0] = xsimd::max(acc[0], F::load_unaligned(x + i));
    const F all = xsimd::max(xsimd::max(acc[0], acc[1]), xsimd::max(acc[2], acc[3]));
    alignas(64) float lanes[W];
    all.store_aligned(lanes);
    for (float lane : lanes) best = lane > best ? lane : best;
  }
  for (; i < n; ++i) best = x[i] > best ? x[i] : best;
  return best;
}

// Two vectors a step: the exp is a long chain of dependent instructions, and a second chain beside
// it keeps the vector units busy. The sum adds them in order, as one vector at a time would.
template <class Arch>
float exp_shifted_sum(float* x, int n, float shift) noexcept {
  using F = floats<Arch>;
  constexpr int W = static_cast<int>(F::size);
  const F offset(shift);
  F acc(0.0f);
  int i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const F e0 = exp<Arch>(F::load_unaligned(x + i) - offset);
    const F e1 = exp<Arch>(F::load_unaligned(x + i + W) - offset);
    e0.store_unaligned(x + i);
    e1.store_unaligned(x + i + W);
    acc += e0;
    acc += e1;
  }
  for (; i + W <= n; i += W) {
    const F e = exp<Arch>(F::load_unaligned(x + i) - offset);
    e.store_unaligned(x + i);
    acc += e;
  }
  float sum = xsimd::hadd(acc);
  if (i < n) {  // the tail goes through the same vector exp, so every element is computed alike
    alignas(64) float lanes[W] = {};
    for (int k = 0; i + k < n; ++k) lanes[k] = x[i + k];
    const F e = exp<Arch>(F::load_aligned(lanes) - offset);
    e.store_aligned(lanes);
    for (int k = 0; i + k < n; ++k) {
      x[i + k] = lanes[k];
      sum += lanes[k];
    }
  }
  return sum;
}

template <class Arch>
void scale(float* x, int n, float factor) noexcept {
  using F = floats<Arch>;
  constexpr int W = static_cast<int>(F::size);
  const F f(factor);
  int i = 0;
  for (; i + W <= n; i += W) (F::load_unaligned(x + i) * f).store_unaligned(x + i);
  for (; i < n; ++i) x[i] *= factor;
}

// out[c][r] = in[r][c] for rows [row_begin, rows) and columns [col_begin, cols), in 16x16 blocks
// so that the reads and the strided writes stay within a few cache lines.
inline void transpose_region(const float* in, int row_begin, int rows, int col_begin, int cols, int ld_in, float* out,
                             long ldo) noexcept {
  constexpr int block = 16;
  for (int r0 = row_begin; r0 < rows; r0 += block) {
    const int r1 = r0 + block < rows ? r0 + block : rows;
    for (int c0 = col_begin; c0 < cols; c0 += block) {
      const int c1 = c0 + block < cols ? c0 + block : cols;
      for (int r = r0; r < r1; ++r) {
        for (int c = c0; c < c1; ++c) out[c * ldo + r] = in[static_cast<long>(r) * ld_in + c];
      }
    }
  }
}

#if defined(__AVX__)
// Eight rows of eight floats (at in, row stride ld_in) become eight columns (at out, stride ldo):
// eight loads, 24 shuffles and eight stores, where element by element it is 64 of each. AVX's
// shuffles stay within 128-bit halves, which xsimd's generic batches cannot cross: intrinsics.
inline void transpose8(const float* in, long ld_in, float* out, long ldo) noexcept {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(in + i * ld_in);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    _mm256_storeu_ps(out + i * ldo, _mm256_permute2f128_ps(r[i], r[i + 4], 0x20));
    _mm256_storeu_ps(out + (i + 4) * ldo, _mm256_permute2f128_ps(r[i], r[i + 4], 0x31));
  }
}
#endif

// Whole blocks go through registers: 8x8 where the machine has AVX (natively, on AVX or AVX-512
// builds), 4x4 where a vector holds four floats (SSE, so WebAssembly); the edges, and every
// block elsewhere, element by element.
template <class Arch>
void transpose(const float* in, int rows, int cols, float* out, long ldo) noexcept {
  using F = floats<Arch>;
  int block_rows = 0, block_cols = 0;
#if defined(__AVX__)
  if constexpr (F::size >= 8) {
    block_rows = rows - rows % 8;
    block_cols = cols - cols % 8;
    for (int r = 0; r < block_rows; r += 8) {
      for (int c = 0; c < block_cols; c += 8)
        transpose8(in + static_cast<long>(r) * cols + c, cols, out + c * ldo + r, ldo);
    }
  }
#endif
  if constexpr (F::size == 4) {
    block_rows = rows - rows % 4;
    block_cols = cols - cols % 4;
    for (int r = 0; r < block_rows; r += 4) {
      const float* a = in + static_cast<long>(r) * cols;
      for (int c = 0; c < block_cols; c += 4) {
        F r0 = F::load_unaligned(a + c), r1 = F::load_unaligned(a + cols + c);
        F r2 = F::load_unaligned(a + 2 * cols + c), r3 = F::load_unaligned(a + 3 * cols + c);
        transpose4<Arch>(r0, r1, r2, r3);
        r0.store_unaligned(out + c * ldo + r);
        r1.store_unaligned(out + (c + 1) * ldo + r);
        r2.store_unaligned(out + (c + 2) * ldo + r);
        r3.store_unaligned(out + (c + 3) * ldo + r);
      }
    }
  }
  transpose_region(in, 0, block_rows, block_cols, cols, cols, out, ldo);  // right edge of the blocks
  transpose_region(in, block_rows, rows, 0, cols, cols, out, ldo);        // rows below them
}

template <class Arch>
void tanh(float* x, int n) noexcept {
  using F = floats<Arch>;
  constexpr int W = static_cast<int>(F::size);
  int i = 0;
  for (; i + W <= n; i += W) tanh<Arch>(F::load_unaligned(x + i)).store_unaligned(x + i);
  if (i < n) {
    alignas(64) float lanes[W] = {};
    for (int k = 0; i + k < n; ++k) lanes[k] = x[i + k];
    tanh<Arch>(F::load_aligned(lanes)).store_aligned(lanes);
    for (int k = 0; i + k < n; ++k) x[i + k] = lanes[k];
  }
}

// Vectorized over keys: each step adds v[h]*tanh(q[h] + K^T[h][j..j+W)), no horizontal adds.
template <class Arch>
void additive_scores(const float* query_projected, const float* keys_projected_t, int ldk, const float* v, int hidden,
                     int key_length, float* scores) noexcept {
  using F = floats<Arch>;
  constexpr int W = static_cast<int>(F::size);
  int j = 0;
  for (; j + W <= key_length; j += W) {
    F acc(0.0f);
    for (int h = 0; h < hidden; ++h) {
      const F k = F::load_unaligned(keys_projected_t + static_cast<long>(h) * ldk + j);
      acc = madd<Arch>(F(v[h]), tanh<Arch>(k + F(query_projected[h])), acc);
    }
    acc.store_unaligned(scores + j);
  }
  if (j < key_length) {
    const int rest = key_length - j;
    F acc(0.0f);
    alignas(64) float lanes[W] = {};
    for (int h = 0; h < hidden; ++h) {
      for (int k = 0; k < rest; ++k) lanes[k] = keys_projected_t[static_cast<long>(h) * ldk + j + k];
      acc = madd<Arch>(F(v[h]), tanh<Arch>(F::load_aligned(lanes) + F(query_projected[h])), acc);
    }
    acc.store_aligned(lanes);
    for (int k = 0; k < rest; ++k) scores[j + k] = lanes[k];
  }
}

}  // namespace attn::kernels::simd_impl
