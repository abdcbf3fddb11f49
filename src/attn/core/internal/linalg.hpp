// Small dense helpers around the matmul kernel.
#pragma once

#include <algorithm>
#include <vector>

#include "attn/core/internal/kernels.hpp"
#include "attn/core/layers.hpp"  // transposed
#include "attn/core/threads.hpp"

namespace attn {

// out[cols][rows] = in[rows][cols]^T
// out[c][r] = in[r][c], out with row stride ldo (>= rows).
inline void transpose(const float* in, int rows, int cols, float* out, long ldo) {
  kernels::transpose(in, rows, cols, out, ldo);
}

inline void transpose(const float* in, int rows, int cols, float* out) { transpose(in, rows, cols, out, rows); }

// A row stride of at least n floats that is not a multiple of 1 KiB: walking down a column of a
// matrix whose rows are a power-of-two size apart lands every element in the same few cache sets.
inline int padded_stride(int n) { return (n + 15) / 16 * 16 + 16; }

// kernels::matmul on the thread pool when it is large enough: C's columns in blocks of 64 (a
// whole number of every instruction set's register tiles), one block a part. Each element is
// the same sum in the same order however the columns are split, so the result does not depend
// on the thread count.
inline void parallel_matmul(int M, int N, int K, float alpha, const float* A, int lda, const float* B, int ldb,
                            float* C, int ldc, bool accumulate) {
  constexpr int block = 64;
  const int parts = (N + block - 1) / block;
  const int workers = workers_for(parts, double(M) * block * K);
  if (workers <= 1) {
    kernels::matmul(M, N, K, alpha, A, lda, B, ldb, C, ldc, accumulate);
    return;
  }
  parallel_for(parts, workers, [&](int part, int) {
    const int first = part * block, columns = N - first < block ? N - first : block;
    kernels::matmul(M, columns, K, alpha, A, lda, B + first, ldb, C + first, ldc, accumulate);
  });
}

// kernels::matmul_packed on the pool when large enough: parts of whole panels, the same bits on
// any thread count, as above. Where a panel is 16 columns or more (AVX2: 16, AVX-512: 64) a part is
// one panel (a 256-column product in 16 parts on AVX2, so the thread that finishes last waits
// less for the other); with four-lane vectors (WebAssembly, SSE, NEON: 8 columns) 32 columns,
// since that matmul_packed packs A again for every part (a part of 8 would pack it as often as
// it multiplies a panel). The epilogue's bias goes with each part's columns.
// With a `group` (0: none), C's columns go in groups of that many (N a multiple of it, it a
// multiple of P), each group a matrix of its own: group g's M rows at C + g * M * ldc, ldc apart.
// With ldc = group that is the heads' layout [heads][rows][width] straight from a projection,
// which split_heads copied on the calling thread while the others waited (2.3 % of a 2-thread
// forced decoding at 59 words, perf). Parts stay inside a group; on one thread, a call a group.
inline void parallel_matmul_packed(int M, int N, int K, const float* A, int lda, const float* packed, long panel_stride,
                                   float* C, int ldc, bool accumulate, kernels::Epilogue epilogue = {}, int group = 0) {
  const int P = kernels::packed_width();
  if (group <= 0) group = std::max(N, 1);
  // columns first .. first + count - 1 of group g
  const auto multiply = [&](int g, int first, int count) {
    const int column = g * group + first;
    kernels::Epilogue part_epilogue = epilogue;
    if (part_epilogue.bias) part_epilogue.bias += column;
    kernels::matmul_packed(M, count, K, A, lda, packed + static_cast<long>(column / P) * panel_stride, panel_stride,
                           C + static_cast<long>(g) * M * ldc + first, ldc, accumulate, part_epilogue);
  };
  const int part_columns = std::min(group, P >= 16 ? P : (32 + P - 1) / P * P);
  const int groups = N / group, parts_per_group = (group + part_columns - 1) / part_columns;
  const int workers = workers_for(groups * parts_per_group, double(M) * part_columns * K);
  if (workers <= 1) {
    for (int g = 0; g < groups; ++g) multiply(g, 0, group);
    return;
  }
  parallel_for(groups * parts_per_group, workers, [&](int item, int) {
    const int first = item % parts_per_group * part_columns;
    multiply(item / parts_per_group, first, std::min(part_columns, group - first));
  });
}

// y[rows][out] = x[rows][in] W^T + b, with W given already transposed: weight_t [in][out]
// (PyTorch's Linear stores W as [out][in]; transposing once lets the kernel run along rows).
// attn::Linear (layers.hpp) is the public form that owns its weights.
inline void linear(const float* x, int rows, int in, const float* weight_t, const float* bias, int out, float* y) {
  if (bias) {
    for (int r = 0; r < rows; ++r) {
      for (int o = 0; o < out; ++o) y[static_cast<long>(r) * out + o] = bias[o];
    }
  }
  parallel_matmul(rows, out, in, 1.0f, x, in, weight_t, out, y, out, bias != nullptr);
}

}  // namespace attn
