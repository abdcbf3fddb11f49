// The elementwise math of the SIMD kernels (kernels_simd.hpp): multiply-subtract, exp and tanh in
// xsimd batch operations, per architecture, kept to operations that map 1:1 onto WebAssembly SIMD128.
#pragma once

#include <xsimd/xsimd.hpp>

#include <cstdint>
#include <type_traits>

namespace attn::kernels::simd_impl {

template <class Arch>
using floats = xsimd::batch<float, Arch>;
template <class Arch>
using ints = xsimd::batch<std::int32_t, Arch>;

// Whether xsimd::fma is one instruction on Arch. Elsewhere (SSE4.1, so WebAssembly) xsimd spells
// fma as a multiply and an add, and fnma as a negation, a multiply and an add.
template <class Arch>
constexpr bool fused_multiply_add =
    std::is_base_of<xsimd::fma3<xsimd::sse4_2>, Arch>::value || std::is_base_of<xsimd::fma3<xsimd::avx>, Arch>::value ||
    std::is_base_of<xsimd::fma3<xsimd::avx2>, Arch>::value || std::is_base_of<xsimd::avx512f, Arch>::value;

// Whether this is the relaxed-SIMD build (WebAssembly, -mrelaxed-simd): four-lane multiply-adds
// are f32x4.relaxed_madd, which engines fuse where the processor has FMA (one rounding) and
// compute as a multiply and an add elsewhere, so its results may differ from SIMD128's in the last bits.
#if defined(__wasm_relaxed_simd__)
constexpr bool relaxed_madd = true;
#else
constexpr bool relaxed_madd = false;
#endif

// x*y + z: every multiply-add of the kernels. xsimd::fma (one instruction natively with FMA, a
// multiply and an add in SIMD128), or f32x4.relaxed_madd in the relaxed-SIMD build (clang 14's
// builtin computes its first two operands' product plus the third).
template <class Arch>
inline floats<Arch> madd(floats<Arch> x, floats<Arch> y, floats<Arch> z) {
#if defined(__wasm_relaxed_simd__)
  if constexpr (floats<Arch>::size == 4) {
    return floats<Arch>(
        __builtin_wasm_fma_f32x4(static_cast<__m128>(x), static_cast<__m128>(y), static_cast<__m128>(z)));
  }
#endif
  return xsimd::fma(x, y, z);
}

// z - x*y, fused where the architecture can (the same rounding as xsimd::fnma either way); in the
// relaxed-SIMD build x*(-y) + z, y being a constant at every call (its negation folds away).
template <class Arch>
inline floats<Arch> minus_product(floats<Arch> x, floats<Arch> y, floats<Arch> z) {
  if constexpr (fused_multiply_add<Arch>) {
    return xsimd::fnma(x, y, z);
  } else if constexpr (relaxed_madd) {
    return madd<Arch>(x, -y, z);
  } else {
    return z - x * y;
  }
}

// exp(x) with a Cephes-style polynomial, accurate to about 1 ulp (7.6e-8 worst over [-87, 88] in
// float32 without FMA). The power of two is built from the bits of a float rounded by adding
// 1.5*2^23 (no float->int conversion), so it stays vector code in WebAssembly. x is clamped to
// [-88, 88] on its bits, two integer mins (unsigned: negative floats above -88 in magnitude; signed:
// positive ones above 88), where a float min or max would be a compare and a select, four
// WebAssembly instructions. Below about -87.68 the power of two is 2^-127, built as +0, so the
// result is exactly 0 (exp(-inf) = 0, as masking needs); above 88 it is exp(88).
template <class Arch>
inline floats<Arch> exp(floats<Arch> x) {
  using F = floats<Arch>;
  using I = ints<Arch>;
  using U = xsimd::batch<std::uint32_t, Arch>;
  x = xsimd::bitwise_cast<F>(xsimd::min(xsimd::bitwise_cast<U>(x), U(0xC2B00000u)));  // -88.0f
  x = xsimd::bitwise_cast<F>(xsimd::min(xsimd::bitwise_cast<I>(x), I(0x42B00000)));   // 88.0f
  const F magic(12582912.0f);  // 1.5 * 2^23: adding it rounds to an integer held in the low bits
  const F shifted = madd<Arch>(x, F(1.44269504088896341f), magic);
  const F n = shifted - magic;
  F r = minus_product<Arch>(n, F(0.693359375f), x);  // x - n*ln2, ln2 split in two for precision
  r = minus_product<Arch>(n, F(-2.12194440e-4f), r);
  // e^r = 1 + r + r^2 q(r), q of degree 4 fitted for relative error on |r| <= ln2/2 (Cephes's
  // form, one degree less than its q: as accurate in float32), by Estrin's scheme: two halves side
  // by side, a chain half as deep as Horner's for the same instruction count
  const F r2 = r * r;
  const F low = madd<Arch>(F(1.6666519642e-1f), r, F(4.9999994040e-1f));
  const F high = madd<Arch>(F(8.3687808365e-3f), r, F(4.1668392718e-2f));
  const F q = madd<Arch>(madd<Arch>(F(1.3814468402e-3f), r2, high), r2, low);
  const F p = madd<Arch>(q, r2, r) + F(1.0f);
  // 2^n: bits(shifted) = 0x4B400000 + n, which shifted left by 23 is n << 23 (the constant's low
  // 9 bits are 0); 127 << 23 (the bits of 1.0f) moves n + 127 into the exponent field
  const I exponent = (xsimd::bitwise_cast<I>(shifted) << 23) + I(0x3F800000);
  return p * xsimd::bitwise_cast<F>(exponent);
}

// tanh(x): an odd polynomial near 0 (where 1 - 2/(e^2x + 1) would cancel), the exp form elsewhere.
template <class Arch>
inline floats<Arch> tanh(floats<Arch> x) {
  using F = floats<Arch>;
  const F magnitude = xsimd::abs(x);
  const F e = exp<Arch>(magnitude + magnitude);
  F large = F(1.0f) - F(2.0f) / (e + F(1.0f));
  large = xsimd::select(x < F(0.0f), -large, large);
  const F z = x * x;
  F p = F(-5.70498872745e-3f);
  p = madd<Arch>(p, z, F(2.06390887954e-2f));
  p = madd<Arch>(p, z, F(-5.37397155531e-2f));
  p = madd<Arch>(p, z, F(1.33314422036e-1f));
  p = madd<Arch>(p, z, F(-3.33332819422e-1f));
  const F small = madd<Arch>(p * z, x, x);
  return xsimd::select(magnitude < F(0.625f), small, large);
}

}  // namespace attn::kernels::simd_impl
