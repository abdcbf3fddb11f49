// Small dense helpers around the matmul kernel.
#pragma once

#include <vector>

#include "attn/kernels.hpp"

namespace attn {

// out[cols][rows] = in[rows][cols]^T
inline void transpose(const float* in, int rows, int cols, float* out) {
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) out[static_cast<long>(c) * rows + r] = in[static_cast<long>(r) * cols + c];
  }
}

inline std::vector<float> transposed(const float* in, int rows, int cols) {
  std::vector<float> out(static_cast<std::size_t>(rows) * cols);
  transpose(in, rows, cols, out.data());
  return out;
}

// y[rows][out] = x[rows][in] W^T + b, with W given already transposed: weight_t [in][out]
// (PyTorch's Linear stores W as [out][in]; transposing once lets the kernel run along rows).
inline void linear(const float* x, int rows, int in, const float* weight_t, const float* bias,
                   int out, float* y) {
  if (bias) {
    for (int r = 0; r < rows; ++r) {
      for (int o = 0; o < out; ++o) y[static_cast<long>(r) * out + o] = bias[o];
    }
  }
  kernels::matmul(rows, out, in, 1.0f, x, in, weight_t, out, y, out, bias != nullptr);
}

}  // namespace attn
