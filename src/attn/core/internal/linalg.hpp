// Small dense helpers around the matmul kernel.
#pragma once

#include <vector>

#include "attn/core/internal/kernels.hpp"

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

inline std::vector<float> transposed(const float* in, int rows, int cols) {
  std::vector<float> out(static_cast<std::size_t>(rows) * cols);
  transpose(in, rows, cols, out.data());
  return out;
}

// y[rows][out] = x[rows][in] W^T + b, with W given already transposed: weight_t [in][out]
// (PyTorch's Linear stores W as [out][in]; transposing once lets the kernel run along rows).
inline void linear(const float* x, int rows, int in, const float* weight_t, const float* bias, int out, float* y) {
  if (bias) {
    for (int r = 0; r < rows; ++r) {
      for (int o = 0; o < out; ++o) y[static_cast<long>(r) * out + o] = bias[o];
    }
  }
  kernels::matmul(rows, out, in, 1.0f, x, in, weight_t, out, y, out, bias != nullptr);
}

}  // namespace attn
