// The matrix products of the SIMD kernels (register tiles, packing, micro-kernels, matmul and
// matmul_packed over weights packed once), written in xsimd batch operations and instantiated
// per architecture; kernels_simd.hpp holds the rest and states the rules both follow (operations
// that map 1:1 to WebAssembly SIMD128, noexcept).
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstddef>
#include <type_traits>

#include "attn/core/internal/kernels.hpp"
#include "attn/core/internal/kernels_simd_math.hpp"

// Forced inlining where a function only names a part of a kernel: left to itself, GCC keeps
// multiply_panel() out of line and then the micro-kernels too, and matmul loses a few percent.
#if defined(__GNUC__) || defined(__clang__)
#define ATTN_ALWAYS_INLINE __attribute__((always_inline))
#else
#define ATTN_ALWAYS_INLINE
#endif

namespace attn::kernels::simd_impl {

// Register tile of the matrix product: Rows rows of C by Cols vectors of columns, so that each
// B load feeds Rows multiply-adds and each broadcast of A feeds Cols. Sized per architecture to
// the vector registers it has: 32 on AVX-512, 16 elsewhere (and WebAssembly, where the engine has
// 16 XMM registers and no FMA, so a multiply-add also needs a temporary).
template <class Arch>
struct Tile {
  static constexpr int width = static_cast<int>(xsimd::batch<float, Arch>::size);
  static constexpr int rows = width >= 16 ? 6 : width == 8 ? 6 : 4;
  static constexpr int cols = width >= 16 ? 4 : 2;
};

// f(std::integral_constant<int, rows>()) for 1 <= rows <= Max: a panel's micro-kernel as tall as
// its rows, chosen at run time among the heights compiled.
template <int Max, class F>
ATTN_ALWAYS_INLINE inline void with_height(int rows, F&& f) {
  if constexpr (Max > 1) {
    if (rows < Max) return with_height<Max - 1>(rows, f);
  }
  f(std::integral_constant<int, Max>());
}

// The panels that cover `rows` rows, at most R each, as equal in height as they can be: 17 rows
// make 4, 4, 3, 3, 3 rather than 4, 4, 4, 4, 1, since a short panel's micro-kernel has too few
// independent sums to keep the adders busy (one row: a chain of additions per vector of columns,
// each waiting for the last), and the last of a decoder's 17 rows cost about a sixth of the product.
struct PanelHeights {
  int count, base, extra;
  PanelHeights(int rows, int R)
      : count(rows > 0 ? (rows + R - 1) / R : 0), base(count ? rows / count : 0), extra(count ? rows % count : 0) {}
  int operator[](int panel) const { return base + (panel < extra ? 1 : 0); }
};

// Four vectors of four lanes, rows of a 4x4 block, become its columns: eight shuffles.
template <class Arch>
inline void transpose4(floats<Arch>& r0, floats<Arch>& r1, floats<Arch>& r2, floats<Arch>& r3) {
  using F = floats<Arch>;
  using D = xsimd::batch<double, Arch>;  // pairs of lanes move together as one double
  static_assert(F::size == 4, "a 4x4 block");
  const D t0 = xsimd::bitwise_cast<D>(xsimd::zip_lo(r0, r1)), t1 = xsimd::bitwise_cast<D>(xsimd::zip_hi(r0, r1));
  const D t2 = xsimd::bitwise_cast<D>(xsimd::zip_lo(r2, r3)), t3 = xsimd::bitwise_cast<D>(xsimd::zip_hi(r2, r3));
  r0 = xsimd::bitwise_cast<F>(xsimd::zip_lo(t0, t2));
  r1 = xsimd::bitwise_cast<F>(xsimd::zip_hi(t0, t2));
  r2 = xsimd::bitwise_cast<F>(xsimd::zip_lo(t1, t3));
  r3 = xsimd::bitwise_cast<F>(xsimd::zip_hi(t1, t3));
}

// A panel of Rows rows of A (times alpha), packed k-major (panel[k * Rows + r]) so that one
// pointer walks it with constant offsets; rows past `rows` are zeros. Where a panel is as tall as
// a vector is wide (four rows of four lanes: SSE, so WebAssembly), a full panel goes through 4x4
// transposes in registers, four loads and eight shuffles where scalar copies take sixteen loads.
template <class Arch, int Rows>
inline void pack_panel(int rows, int K, float alpha, const float* A, int lda, float* panel) {
  using F = floats<Arch>;
  int k0 = 0;
  if constexpr (Rows == 4 && F::size == 4) {
    if (rows == Rows) {
      const F scale(alpha);
      for (const float* a = A; k0 + 4 <= K; k0 += 4, a += 4, panel += 4 * Rows) {
        F r0 = F::load_unaligned(a) * scale, r1 = F::load_unaligned(a + lda) * scale;
        F r2 = F::load_unaligned(a + 2 * lda) * scale, r3 = F::load_unaligned(a + 3 * lda) * scale;
        transpose4<Arch>(r0, r1, r2, r3);
        r0.store_unaligned(panel);
        r1.store_unaligned(panel + 4);
        r2.store_unaligned(panel + 8);
        r3.store_unaligned(panel + 12);
      }
    }
  }
  for (int r = 0; r < Rows; ++r) {
    const float* a = A + static_cast<long>(r) * lda;
    if (r < rows) {
      for (int k = k0; k < K; ++k) panel[(k - k0) * Rows + r] = alpha * a[k];
    } else {
      for (int k = k0; k < K; ++k) panel[(k - k0) * Rows + r] = 0.0f;
    }
  }
}

// A sum of the product as it is stored: out = sum + (old C + bias), the old C where accumulate
// and the bias (a vector of columns, or null) where given, then ReLU where relu, with relu()'s
// semantics (kernels.hpp: out < 0 ? 0 : out, -0 and NaN stay).
template <class Arch>
ATTN_ALWAYS_INLINE inline floats<Arch> finish_sum(floats<Arch> out, const float* c, const float* bias, bool accumulate,
                                                  bool relu) {
  using F = floats<Arch>;
  if (bias) {
    const F b = F::load_unaligned(bias);
    out += accumulate ? F::load_unaligned(c) + b : b;
  } else if (accumulate) {
    out += F::load_unaligned(c);
  }
  if (relu) out = xsimd::select(out < F(0.0f), F(0.0f), out);
  return out;
}

// C[Rows][Cols*W] = alpha * A * B[.][0..Cols*W) (+ C when accumulate, + bias, then ReLU: see
// finish_sum): the micro-kernel, held in registers. A is a packed panel (panel[k * Rows + r], lda
// unused) or, when Direct, Rows rows of A read in place (A[r * lda + k]): packing costs as much as
// a fifth of the multiply-adds for long K (probabilities times values), while broadcasting from
// Rows row pointers costs nothing natively.
template <class Arch, int Rows, int Cols, bool Direct = false>
inline void micro_kernel(int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc, bool accumulate,
                         float alpha = 1.0f, const float* bias = nullptr, bool relu = false) {
  using F = floats<Arch>;
  constexpr int W = static_cast<int>(F::size);
  const long row_step = Direct ? lda : 1, k_step = Direct ? 1 : Rows;
  F acc[Rows][Cols];
  for (int r = 0; r < Rows; ++r)
    for (int c = 0; c < Cols; ++c) acc[r][c] = F(0.0f);
  // pointers bumped rather than indices multiplied: the loop body stays loads and arithmetic
  const float* b = B;
  const float* a = A;
  for (int k = 0; k < K; ++k, b += ldb, a += k_step) {
    F bv[Cols];
    for (int c = 0; c < Cols; ++c) bv[c] = F::load_unaligned(b + c * W);
    for (int r = 0; r < Rows; ++r) {
      const F av(a[r * row_step]);
      for (int c = 0; c < Cols; ++c) acc[r][c] = madd<Arch>(av, bv[c], acc[r][c]);
    }
  }
  if (alpha != 1.0f) {
    for (int r = 0; r < Rows; ++r)
      for (int c = 0; c < Cols; ++c) acc[r][c] *= F(alpha);
  }
  for (int r = 0; r < Rows; ++r) {
    float* c_row = C + static_cast<long>(r) * ldc;
    for (int c = 0; c < Cols; ++c) {
      const F out = finish_sum<Arch>(acc[r][c], c_row + c * W, bias ? bias + c * W : nullptr, accumulate, relu);
      out.store_unaligned(c_row + c * W);
    }
  }
}

// B's last `rest` columns (from column `vectors`) for one chunk of kc rows, zero-padded to W.
template <int W>
inline void pack_edge(int kc, const float* b_chunk, int ldb, int vectors, int rest, float* edge) {
  for (int k = 0; k < kc; ++k)
    for (int c = 0; c < W; ++c) edge[k * W + c] = c < rest ? b_chunk[static_cast<long>(k) * ldb + vectors + c] : 0.0f;
}

// A panel of exactly Rows rows of C for one chunk of kc rows of B, written to C directly: whole
// tiles, single vectors and the zero-padded edge (through `tile`, copied out by the caller). A's
// elements are packed times pack_alpha and the sums scaled by sum_alpha (see multiply_panel).
// Natively (8 or 16 lanes) A is broadcast in place when the panel is whole tiles wide; the
// four-lane build (WebAssembly) packs, by register transposes.
template <class Arch, int Rows>
ATTN_ALWAYS_INLINE inline void multiply_rows(int N, int kc, float pack_alpha, float sum_alpha, const float* A, int lda,
                                             const float* b_chunk, int ldb, const float* edge, float* c_block, int ldc,
                                             bool add, float* panel, float* tile, bool direct) {
  constexpr int W = static_cast<int>(floats<Arch>::size), Cols = Tile<Arch>::cols;
  const int full = N - N % (Cols * W), vectors = N - N % W;
  if (direct) {
    for (int j = 0; j < full; j += Cols * W)
      micro_kernel<Arch, Rows, Cols, true>(kc, A, lda, b_chunk + j, ldb, c_block + j, ldc, add, sum_alpha);
    return;
  }
  pack_panel<Arch, Rows>(Rows, kc, pack_alpha, A, lda, panel);
  for (int j = 0; j < full; j += Cols * W)
    micro_kernel<Arch, Rows, Cols>(kc, panel, 0, b_chunk + j, ldb, c_block + j, ldc, add, sum_alpha);
  for (int j = full; j < vectors; j += W)
    micro_kernel<Arch, Rows, 1>(kc, panel, 0, b_chunk + j, ldb, c_block + j, ldc, add, sum_alpha);
  if (vectors < N) micro_kernel<Arch, Rows, 1>(kc, panel, 0, edge, W, tile, W, false, sum_alpha);
}

// One panel of C (rows <= R rows, N columns) for one chunk of kc rows of B, added to C when add,
// by a micro-kernel as tall as the panel: a single last row goes alone (a matrix-vector product,
// as the decoder runs, must not pay for R rows), and so does every other height (a block of 64
// query rows ends with four where a full panel is six; a decoder's 17 rows end with five).
// Natively alpha scales the sums, on every path alike, so a row's bits do not depend on the path
// it takes (the panel's height, the width of the product); packing scaled A's elements one by one,
// a fifteenth of the scores' product at 64 dimensions (the same bits where alpha is a power of two,
// 1/8 at 64 dimensions). The four-lane build (WebAssembly), which always packs, scales A's
// elements as it packs them.
template <class Arch>
ATTN_ALWAYS_INLINE inline void multiply_panel(int rows, int N, int kc, float alpha, const float* A, int lda,
                                              const float* b_chunk, int ldb, const float* edge, float* c_block, int ldc,
                                              bool add, float* panel, float* tile) {
  constexpr int W = static_cast<int>(floats<Arch>::size), R = Tile<Arch>::rows, Cols = Tile<Arch>::cols;
  const int full = N - N % (Cols * W);  // columns in whole tiles
  const int vectors = N - N % W;        // ... and in whole vectors
  const int rest = N - vectors;         // columns past the last whole vector
  const bool in_place = W >= 8 && full == N;
  const float pack_alpha = W >= 8 ? 1.0f : alpha, sum_alpha = W >= 8 ? alpha : 1.0f;
  if (rows == 1) {
    multiply_rows<Arch, 1>(N, kc, pack_alpha, sum_alpha, A, lda, b_chunk, ldb, edge, c_block, ldc, add, panel, tile,
                           false);
  } else {
    with_height<R>(rows, [&](auto height) {
      multiply_rows<Arch, decltype(height)::value>(N, kc, pack_alpha, sum_alpha, A, lda, b_chunk, ldb, edge, c_block,
                                                   ldc, add, panel, tile, in_place);
    });
  }
  if (rest > 0) {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < rest; ++c) {
        float* out = c_block + static_cast<long>(r) * ldc + vectors + c;
        *out = tile[r * W + c] + (add ? *out : 0.0f);
      }
  }
}

// C = alpha*A*B (+C). Micro-kernels the full tile or one vector wide: the last columns go through
// zero padding instead of more variants, so they stay vector code and the function stays smaller
// (V8 compiles it to optimized code sooner). K goes in chunks, so the packed panels live on the
// stack: no allocation, nothing to throw.
template <class Arch>
void matmul(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb, float* C, int ldc,
            bool accumulate) noexcept {
  constexpr int W = static_cast<int>(floats<Arch>::size), R = Tile<Arch>::rows;
  constexpr int chunk = 256;
  if (K == 0) {  // the empty sum
    if (!accumulate)
      for (int i = 0; i < M; ++i)
        for (int j = 0; j < N; ++j) C[static_cast<long>(i) * ldc + j] = 0.0f;
    return;
  }
  const int vectors = N - N % W, rest = N - vectors;
  alignas(64) float panel[R * chunk];
  alignas(64) float edge[chunk * W];  // B's last `rest` columns, zero-padded to W
  alignas(64) float tile[R * W];
  for (int k0 = 0; k0 < K; k0 += chunk) {
    const int kc = K - k0 < chunk ? K - k0 : chunk;
    const bool add = accumulate || k0 > 0;
    const float* b_chunk = B + static_cast<long>(k0) * ldb;
    if (rest > 0) pack_edge<W>(kc, b_chunk, ldb, vectors, rest, edge);
    for (int i = 0; i < M;) {
      const int rows = M - i >= R ? R : M - i;
      multiply_panel<Arch>(rows, N, kc, alpha, A + static_cast<long>(i) * lda + k0, lda, b_chunk, ldb, edge,
                           C + static_cast<long>(i) * ldc, ldc, add, panel, tile);
      i += rows;
    }
  }
}

// Columns per panel of a packed B (pack_columns): one register tile's width.
template <class Arch>
constexpr int packed_width() {
  return Tile<Arch>::cols * static_cast<int>(floats<Arch>::size);
}

// C = A * B (+C) with B packed once (pack_columns: panels of P = packed_width columns, k-major
// inside, the last zero-padded, panels panel_stride floats apart), as a model's weights are. Every
// panel's kc x P block is contiguous, so the micro-kernel walks B with unit stride where the
// unpacked matmul strides by a whole row of B (32 KiB for an output layer of 8192 pieces: every k
// in the same few L1 sets). Each element is the same sum in the same order as matmul's (FMAs along
// k in chunks of 256, each chunk's sum added to C), so the two give the same bits.
// Natively A is read in place and B streamed once, panel by panel, for every row; the four-lane
// build (WebAssembly), whose micro-kernel wants A packed, packs a block of rows per chunk once and
// walks every panel of B for it, so each panel's chunk is used by the block's rows while in L1.
// The epilogue (kernels.hpp) goes with the sums as they are stored: its bias with the first chunk
// of K, its ReLU with the last, through finish_sum (finish_scalar, its element-by-element twin,
// for a last panel's few columns and for the empty sum).
template <class Arch>
void matmul_packed(int M, int N, int K, const float* A, int lda, const float* packed, long panel_stride, float* C,
                   int ldc, bool accumulate, Epilogue epilogue = {}) noexcept {
  constexpr int W = static_cast<int>(floats<Arch>::size), R = Tile<Arch>::rows, Cols = Tile<Arch>::cols;
  constexpr int P = Cols * W, chunk = 256;
  constexpr bool pack_a = W < 8;
  constexpr int block_rows = pack_a ? 8 * R : 1 << 30;
  // finish_sum one element at a time: rows x cols of C from `sums` (row stride P; none for the
  // empty sum, where C is its base alone: a -0 bias stays -0, which 0 + -0 would not)
  const auto finish_scalar = [&](float* c_block, const float* sums, int rows, int cols, bool add, const float* bias,
                                 bool relu) {
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) {
        float* out = c_block + static_cast<long>(r) * ldc + c;
        const float base = bias ? (add ? *out + bias[c] : bias[c]) : (add ? *out : 0.0f);
        const float value = sums ? sums[r * P + c] + base : base;
        *out = relu ? kernels::relu(value) : value;
      }
  };
  if (K == 0) {
    finish_scalar(C, nullptr, M, N, accumulate, epilogue.bias, epilogue.relu);
    return;
  }
  alignas(64) float wide[R * P];
  alignas(64) float panels_a[pack_a ? 8 * R * chunk : R * chunk];
  const int panel_count = (N + P - 1) / P;
  for (int i0 = 0; i0 < M; i0 += block_rows) {
    const int block = M - i0 < block_rows ? M - i0 : block_rows;
    const PanelHeights heights(block, R);
    for (int k0 = 0; k0 < K; k0 += chunk) {
      const int kc = K - k0 < chunk ? K - k0 : chunk;
      const bool add = accumulate || k0 > 0;
      const float* bias = k0 == 0 ? epilogue.bias : nullptr;
      const bool relu = epilogue.relu && k0 + kc == K;
      if constexpr (pack_a) {
        // each panel packed as tall as it is, for a micro-kernel of its height (padding a short
        // one with zeros to the tile's height would compute rows that are thrown away)
        for (int panel = 0, i = 0; panel < heights.count; i += heights[panel], ++panel) {
          with_height<R>(heights[panel], [&](auto height) {
            constexpr int h = decltype(height)::value;
            pack_panel<Arch, h>(h, kc, 1.0f, A + static_cast<long>(i0 + i) * lda + k0, lda, panels_a + i * kc);
          });
        }
      }
      for (int p = 0; p < panel_count; ++p) {
        const int j = p * P, cols = N - j < P ? N - j : P;
        const float* b = packed + p * panel_stride + static_cast<long>(k0) * P;
        const float* panel_bias = bias ? bias + j : nullptr;
        for (int panel = 0, i = 0; panel < heights.count; i += heights[panel], ++panel) {
          const int rows = heights[panel];
          const float* a = A + static_cast<long>(i0 + i) * lda + k0;
          float* c_block = C + static_cast<long>(i0 + i) * ldc + j;
          const bool whole = cols == P;
          if constexpr (pack_a) {
            const float* pa = panels_a + i * kc;
            float* out = whole ? c_block : wide;
            with_height<R>(rows, [&](auto height) {
              micro_kernel<Arch, decltype(height)::value, Cols>(kc, pa, 0, b, P, out, whole ? ldc : P, whole && add,
                                                                1.0f, whole ? panel_bias : nullptr, whole && relu);
            });
            if (!whole) finish_scalar(c_block, wide, rows, cols, add, panel_bias, relu);
          } else if (whole) {  // A read in place, by a micro-kernel as tall as the panel
            with_height<R>(rows, [&](auto height) {
              micro_kernel<Arch, decltype(height)::value, Cols, true>(kc, a, lda, b, P, c_block, ldc, add, 1.0f,
                                                                      panel_bias, relu);
            });
          } else {
            pack_panel<Arch, R>(rows, kc, 1.0f, a, lda, panels_a);
            micro_kernel<Arch, R, Cols>(kc, panels_a, 0, b, P, wide, P, false);
            finish_scalar(c_block, wide, rows, cols, add, panel_bias, relu);
          }
        }
      }
    }
  }
}

}  // namespace attn::kernels::simd_impl
