// The WebAssembly SIMD128 peak of this machine: f32x4.mul and f32x4.add on registers only (no
// loads or stores in the loop), the ceiling for matmul-shaped work without FMA (relaxed SIMD is not
// used: browsers reject Emscripten 3.1.6's pre-standard opcodes). Built standalone (no imports) by
// the wasm-simd build; tools/bench/peak.mjs times every export, warmed up so that V8's optimizing
// tier runs it, and reports the best.
//
// Two loop shapes, each for several counts of independent chains (too few leave the latency of
// the arithmetic uncovered, too many no longer fit V8's 16 XMM registers and spill):
//   chains_N: N chains of x = x * scale + offset, the multiply and the add one after the other;
//   pairs_N:  N pairs of x = x * scale and sum += x, the multiply-accumulate of a matrix product,
//             whose products do not wait on the sums;
//   split_N:  N chains of x = x * scale beside N chains of y = y + offset, independent of each other.
// scale and offset come from JS at run time, so neither the compiler nor V8 can fold them.
#include <wasm_simd128.h>

namespace {

// Four steps of every chain per loop iteration, so the loop's counter and branch are noise.
constexpr int unroll = 4;

float lanes_sum(v128_t v) {
  return wasm_f32x4_extract_lane(v, 0) + wasm_f32x4_extract_lane(v, 1) + wasm_f32x4_extract_lane(v, 2) +
         wasm_f32x4_extract_lane(v, 3);
}

template <int Chains>
float chains(int iterations, float scale, float offset) {
  const v128_t s = wasm_f32x4_splat(scale), o = wasm_f32x4_splat(offset);
  v128_t x[Chains];
  for (int c = 0; c < Chains; ++c) x[c] = wasm_f32x4_splat(1.0f + 0.125f * c);
  for (int i = 0; i < iterations; ++i) {
    for (int u = 0; u < unroll; ++u) {
      for (int c = 0; c < Chains; ++c) x[c] = wasm_f32x4_add(wasm_f32x4_mul(x[c], s), o);
    }
  }
  v128_t sum = x[0];
  for (int c = 1; c < Chains; ++c) sum = wasm_f32x4_add(sum, x[c]);
  return lanes_sum(sum);
}

template <int Pairs>
float pairs(int iterations, float scale, float offset) {
  const v128_t s = wasm_f32x4_splat(scale);
  v128_t x[Pairs], sum[Pairs];
  for (int c = 0; c < Pairs; ++c) {
    x[c] = wasm_f32x4_splat(1.0f + 0.125f * c);
    sum[c] = wasm_f32x4_splat(offset);
  }
  for (int i = 0; i < iterations; ++i) {
    for (int u = 0; u < unroll; ++u) {
      for (int c = 0; c < Pairs; ++c) {
        x[c] = wasm_f32x4_mul(x[c], s);
        sum[c] = wasm_f32x4_add(sum[c], x[c]);
      }
    }
  }
  v128_t total = sum[0];
  for (int c = 1; c < Pairs; ++c) total = wasm_f32x4_add(total, sum[c]);
  return lanes_sum(total);
}

template <int Pairs>
float split(int iterations, float scale, float offset) {
  const v128_t s = wasm_f32x4_splat(scale), o = wasm_f32x4_splat(offset);
  v128_t x[Pairs], y[Pairs];
  for (int c = 0; c < Pairs; ++c) {
    x[c] = wasm_f32x4_splat(1.0f + 0.125f * c);
    y[c] = wasm_f32x4_splat(0.125f * c);
  }
  for (int i = 0; i < iterations; ++i) {
    for (int u = 0; u < unroll; ++u) {
      for (int c = 0; c < Pairs; ++c) {
        x[c] = wasm_f32x4_mul(x[c], s);
        y[c] = wasm_f32x4_add(y[c], o);
      }
    }
  }
  v128_t total = x[0];
  for (int c = 1; c < Pairs; ++c) total = wasm_f32x4_add(total, x[c]);
  for (int c = 0; c < Pairs; ++c) total = wasm_f32x4_add(total, y[c]);
  return lanes_sum(total);
}

}  // namespace

// NAME_N(iterations, scale, offset) runs iterations * 4 steps of N chains (pairs): a multiply and
// an add of four lanes each per step, so 32 * iterations * N flops.
#define ATTN_PEAK(KIND, N)                                                                                   \
  extern "C" __attribute__((export_name(#KIND "_" #N))) float KIND##_##N(int iterations, float s, float o) { \
    return KIND<N>(iterations, s, o);                                                                        \
  }
ATTN_PEAK(chains, 1)
ATTN_PEAK(chains, 2)
ATTN_PEAK(chains, 4)
ATTN_PEAK(chains, 8)
ATTN_PEAK(chains, 10)
ATTN_PEAK(chains, 12)
ATTN_PEAK(chains, 13)
ATTN_PEAK(chains, 14)
ATTN_PEAK(chains, 16)
ATTN_PEAK(pairs, 1)
ATTN_PEAK(pairs, 2)
ATTN_PEAK(pairs, 4)
ATTN_PEAK(pairs, 5)
ATTN_PEAK(pairs, 6)
ATTN_PEAK(pairs, 7)
ATTN_PEAK(pairs, 8)
ATTN_PEAK(split, 4)
ATTN_PEAK(split, 5)
ATTN_PEAK(split, 6)
ATTN_PEAK(split, 7)
