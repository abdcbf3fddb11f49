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

// One product C = A * B (+C) with B packed (kernels::matmul_packed's arguments, its epilogue), and
// an optional column `group` (0: none): C's columns in groups of that many (N a multiple of it, it
// a multiple of P), each group a matrix of its own, group g's M rows at C + g * M * ldc, ldc
// apart. With ldc = group that is the heads' layout [heads][rows][width] straight from a
// projection, which split_heads copied on the calling thread while the others waited (2.3 % of a
// 2-thread forced decoding at 59 words, perf).
struct PackedProduct {
  int M = 0, N = 0, K = 0;
  const float* A = nullptr;
  int lda = 0;
  const float* packed = nullptr;
  long panel_stride = 0;
  float* C = nullptr;
  int ldc = 0;
  bool accumulate = false;
  kernels::Epilogue epilogue;
  int group = 0;
};

// kernels::matmul_packed on the pool when large enough, for `count` products as one job: parts of
// whole panels, the same bits on any thread count (each element is the same sum in the same
// order however the columns are split). Where a panel is 16 columns or more (AVX2: 16, AVX-512:
// 64) a part is one panel (a 256-column product in 16 parts on AVX2, so the thread that finishes
// last waits less for the other); with four-lane vectors (WebAssembly, SSE, NEON: 8 columns) 32
// columns, since that matmul_packed packs A again for every part (a part of 8 would pack it as
// often as it multiplies a panel). The epilogue's bias goes with each part's columns, and parts
// stay inside a group. Several products in one job (a self-attention's queries, keys and values)
// let the threads meet once instead of once a product: each meeting costs the thread that finishes
// first the rest of the other's last part (2.5 % of the calling thread's time in the projections'
// joins at 59 words, 2 threads, perf). On one thread, each product a call a group, in order.
inline void parallel_matmul_packed(const PackedProduct* products, int count) {
  const int P = kernels::packed_width();
  const auto group_of = [](const PackedProduct& p) { return p.group > 0 ? p.group : std::max(p.N, 1); };
  const auto part_columns = [&](const PackedProduct& p) {
    return std::min(group_of(p), P >= 16 ? P : (32 + P - 1) / P * P);
  };
  const auto parts_per_group = [&](const PackedProduct& p) {
    return (group_of(p) + part_columns(p) - 1) / part_columns(p);
  };
  const auto parts_of = [&](const PackedProduct& p) { return p.N / group_of(p) * parts_per_group(p); };
  // columns first .. first + columns - 1 of group g of product p
  const auto multiply = [P](const PackedProduct& p, int group, int g, int first, int columns) {
    const int column = g * group + first;
    kernels::Epilogue part_epilogue = p.epilogue;
    if (part_epilogue.bias) part_epilogue.bias += column;
    kernels::matmul_packed(p.M, columns, p.K, p.A, p.lda, p.packed + static_cast<long>(column / P) * p.panel_stride,
                           p.panel_stride, p.C + static_cast<long>(g) * p.M * p.ldc + first, p.ldc, p.accumulate,
                           part_epilogue);
  };
  int items = 0;
  double work = 0.0;
  for (int i = 0; i < count; ++i) {
    const int parts = parts_of(products[i]);
    items += parts;
    work += double(parts) * products[i].M * part_columns(products[i]) * products[i].K;
  }
  const int workers = items > 0 ? workers_for(items, work / items) : 1;
  if (workers <= 1) {
    for (int i = 0; i < count; ++i) {
      const PackedProduct& p = products[i];
      const int group = group_of(p);
      for (int g = 0; g < p.N / group; ++g) multiply(p, group, g, 0, group);
    }
    return;
  }
  parallel_for(items, workers, [&](int item, int) {
    int i = 0;
    for (; item >= parts_of(products[i]); ++i) item -= parts_of(products[i]);  // its product (a few: a linear search)
    const PackedProduct& p = products[i];
    const int group = group_of(p), per_group = parts_per_group(p), columns = part_columns(p);
    const int first = item % per_group * columns;
    multiply(p, group, item / per_group, first, std::min(columns, group - first));
  });
}

// One product on the pool (see above).
inline void parallel_matmul_packed(int M, int N, int K, const float* A, int lda, const float* packed, long panel_stride,
                                   float* C, int ldc, bool accumulate, kernels::Epilogue epilogue = {}, int group = 0) {
  const PackedProduct product{M, N, K, A, lda, packed, panel_stride, C, ldc, accumulate, epilogue, group};
  parallel_matmul_packed(&product, 1);
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
