// Attention weights as JSON numbers for `attn attentions`, fast: each weight rounded to 6
// significant digits and written the way nlohmann::json writes that double (shortest digits,
// "0.0" for zero, "1e-07" below 1e-4, "null" for NaN or infinity). The CLI used to get this text
// through snprintf("%.6g"), strtod and nlohmann's tree and dump: 63 ms for a 60-word line whose
// model takes 7 (219,000 numbers); tests/test_json_weights.cpp checks that the text is the same.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace attn::cli {

namespace detail {

// nlohmann's format_buffer (min_exp -4, max_exp 15) for the significant digits d[0..k) of a
// value d * 10^(n - k): fixed notation while -4 < n <= 15, else d.ddde+XX. Writes at p, returns
// the end (at most 22 characters).
inline char* write_decimal(char* p, const char* d, int k, int n) {
  if (k <= n && n <= 15) {
    for (int i = 0; i < k; ++i) *p++ = d[i];
    for (int i = k; i < n; ++i) *p++ = '0';
    *p++ = '.';
    *p++ = '0';
  } else if (0 < n && n <= 15) {
    for (int i = 0; i < n; ++i) *p++ = d[i];
    *p++ = '.';
    for (int i = n; i < k; ++i) *p++ = d[i];
  } else if (-4 < n && n <= 0) {
    *p++ = '0';
    *p++ = '.';
    for (int i = n; i < 0; ++i) *p++ = '0';
    for (int i = 0; i < k; ++i) *p++ = d[i];
  } else {
    *p++ = d[0];
    if (k > 1) {
      *p++ = '.';
      for (int i = 1; i < k; ++i) *p++ = d[i];
    }
    int e = n - 1;
    *p++ = 'e';
    *p++ = e < 0 ? '-' : '+';
    e = e < 0 ? -e : e;
    if (e >= 100) *p++ = static_cast<char>('0' + e / 100);
    *p++ = static_cast<char>('0' + e / 10 % 10);
    *p++ = static_cast<char>('0' + e % 10);
  }
  return p;
}

// 10^p for p in 0..12, exact in double
constexpr double powers_of_ten[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12};

// The longest text a weight takes ("-1.23456e-07" and the like; "null").
constexpr int longest_weight = 24;

// Six digits of a positive x below 1e-7 (down to the smallest float) and its decimal position n:
// x * 10^p in doubles, within 1e-9 of the exact product (at most three roundings of 2^-53 on a
// number below 10^6), so rounding it gives the exact product's digits unless it lies within 1e-7 of a
// tie; false there (printf decides). The map of a trained model holds many such weights.
inline bool tiny_digits(double x, char* digits, int& n) {
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int binade = static_cast<int>((bits >> 52) & 0x7ff) - 1023;  // x in [2^binade, 2^(binade + 1))
  // 10^0 .. 10^30, each the double nearest the power
  static constexpr double large_powers[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10,
                                            1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21,
                                            1e22, 1e23, 1e24, 1e25, 1e26, 1e27, 1e28, 1e29, 1e30};
  int power = 5 - ((binade * 78913) >> 18);  // 5 - floor(binade log10 2) for |binade| < 2^10: 12 .. 51
  const auto scaled = [x](int p) { return p <= 22 ? x * large_powers[p] : x * 1e22 * large_powers[p - 22]; };
  double v = scaled(power);
  if (v >= 1e6) v = scaled(--power);
  const double r = std::nearbyint(v);
  if (std::abs(std::abs(v - r) - 0.5) < 1e-7 || r < 1e5) return false;
  auto digits_value = static_cast<std::int64_t>(r);
  int e10 = 5 - power;
  if (digits_value == 1000000) digits_value = 100000, ++e10;
  for (int i = 5; i >= 0; --i, digits_value /= 10) digits[i] = static_cast<char>('0' + digits_value % 10);
  n = e10 + 1;
  return true;
}

// Any weight: %.6g's digits, then nlohmann's notation. x * 10^p is exact for p <= 12 (a float's
// 24 bits times 5^p fit in a double's 53), so rounding it to an integer rounds the exact value,
// ties to even, as printf does; below 1e-7 see tiny_digits; from 10 on, printf's digits
// (std::to_chars where the library has it).
inline char* write_any_weight(char* p, float weight) {
  double x = weight;
  if (!std::isfinite(x)) {
    for (char c : {'n', 'u', 'l', 'l'}) *p++ = c;
    return p;
  }
  if (std::signbit(x)) {
    *p++ = '-';
    x = -x;
  }
  if (x == 0.0) {
    for (char c : {'0', '.', '0'}) *p++ = c;
    return p;
  }
  char digits[32];
  int k = 6, n;  // significant digits, position of the decimal point
  if (x >= 1e-7 && x < 10.0) {
    int power = 5;
    double v = x * powers_of_ten[power];
    while (v < 1e5) v = x * powers_of_ten[++power];  // power <= 12 where x >= 1e-7
    int e10 = 5 - power;
    auto r = static_cast<std::int64_t>(std::nearbyint(v));
    if (r == 1000000) r = 100000, ++e10;
    for (int i = 5; i >= 0; --i, r /= 10) digits[i] = static_cast<char>('0' + r % 10);
    n = e10 + 1;
  } else if (x < 1e-7 && tiny_digits(x, digits, n)) {
  } else {  // rare: printf's d.ddddde+XX
    char text[32];
#if defined(__cpp_lib_to_chars)
    const char* end = std::to_chars(text, text + sizeof text, x, std::chars_format::scientific, 5).ptr;
#else  // Emscripten's libc++ 14 (the tests build this header for WebAssembly too) has no float to_chars
    const char* end = text + std::snprintf(text, sizeof text, "%.5e", x);
#endif
    digits[0] = text[0];
    for (int i = 1; i < 6; ++i) digits[i] = text[i + 1];
    int exponent = 0;
    std::from_chars(text + 8 + (text[8] == '+'), end, exponent);
    n = exponent + 1;
  }
  while (k > 1 && digits[k - 1] == '0') --k;
  return write_decimal(p, digits, k, n);
}

// "00" .. "99"
struct TwoDigits {
  char text[200];
  constexpr TwoDigits() : text() {
    for (int i = 0; i < 100; ++i) {
      text[2 * i] = static_cast<char>('0' + i / 10);
      text[2 * i + 1] = static_cast<char>('0' + i % 10);
    }
  }
};
constexpr TwoDigits two_digits{};

// One row of weights, comma-separated, in two passes. First, each weight in [2^-23, 1) (most of a
// map's, with its zeros) to its six digits and decimal position, with few branches that depend on
// the value (a weight's magnitude is unpredictable): the power of ten from the binary exponent,
// one decade either way chosen by a select; each weight apart, so the processor overlaps them.
// Then the text. (In one pass, each number's place waited for the previous number's length, which
// waited for its whole conversion.)
inline char* write_row(char* p, const float* x, int cols) {
  // 5 - floor(log10(2^e)) for the binades e = -23 .. -1
  static constexpr signed char power_of_binade[] = {12, 12, 12, 12, 11, 11, 11, 10, 10, 10, 9, 9,
                                                    9,  9,  8,  8,  8,  7,  7,  7,  6,  6,  6};
  constexpr int chunk = 64;
  std::uint32_t digits[chunk];
  int place[chunk];  // n in -6 .. 0 (10^(n-1) <= x < 10^n); 1: zero; 2: the general path
  for (int c0 = 0; c0 < cols; c0 += chunk) {
    const int count = cols - c0 < chunk ? cols - c0 : chunk;
    for (int i = 0; i < count; ++i) {
      const double v = x[c0 + i];
      const bool fast = v >= 0x1p-23 && v < 1.0;
      const double w = fast ? v : 0.5;  // a value of the range, for the branch-free pass
      std::uint64_t bits;
      std::memcpy(&bits, &w, sizeof bits);
      const int power = power_of_binade[static_cast<int>((bits >> 52) & 0x7ff) - 1023 + 23];
      const double high = w * powers_of_ten[power], low = w * powers_of_ten[power - 1];  // both exact
      const bool over = high >= 1e6;
      const auto r = static_cast<std::uint32_t>(static_cast<std::int64_t>(std::nearbyint(over ? low : high)));
      digits[i] = r;
      const bool zero = v == 0.0 && !std::signbit(v);
      place[i] = fast && r != 1000000 ? 6 - power + over : zero ? 1 : 2;
    }
    for (int i = 0; i < count; ++i) {
      if (c0 + i) *p++ = ',';
      const int n = place[i];
      if (n > 0) {
        if (n == 1) {
          std::memcpy(p, "0.0", 3);
          p += 3;
        } else {
          p = write_any_weight(p, x[c0 + i]);
        }
        continue;
      }
      // the six digits in a register, written whole (built byte by byte in memory, then read as
      // one, each number's copy waited for the store buffer)
      const std::uint32_t r = digits[i];
      std::uint16_t high, middle, low;
      std::memcpy(&high, two_digits.text + 2 * (r / 10000), 2);
      std::memcpy(&middle, two_digits.text + 2 * (r / 100 % 100), 2);
      std::memcpy(&low, two_digits.text + 2 * (r % 100), 2);
      const std::uint64_t d = high | std::uint64_t{middle} << 16 | std::uint64_t{low} << 32;  // little-endian
      int k = 6;
      for (std::uint32_t q = r; k > 1 && q % 10 == 0; q /= 10) --k;
      if (n > -4) {  // 0.000ddd: "0." and -n zeros, then the digits over the rest
        std::memcpy(p, "0.000", 5);
        p += 2 - n;
        std::memcpy(p, &d, 8);  // 8 bytes written, k kept: the buffer has room past every number
        p += k;
      } else {  // d.ddddde-0X, X = 1 - n in 5 .. 7
        const std::uint64_t e = (d & 0xff) | std::uint64_t{'.'} << 8 | (d >> 8) << 16;
        std::memcpy(p, &e, 8);
        p += k > 1 ? k + 1 : 1;
        std::memcpy(p, "e-0", 3);
        p[3] = static_cast<char>('0' + 1 - n);
        p += 4;
      }
    }
  }
  return p;
}

}  // namespace detail

// One weight at p (at most detail::longest_weight characters, and up to 8 bytes past them may be
// written over); returns the end.
inline char* write_weight(char* p, float weight) { return detail::write_row(p, &weight, 1); }

inline void append_weight(std::string& out, float weight) {
  char text[detail::longest_weight + 8];
  out.append(text, write_weight(text, weight));
}

// data [layers][heads][rows][cols] as nested JSON arrays, appended to out: written into this
// thread's scratch buffer (sized for the longest numbers once, then reused: a fresh buffer of
// that size a line cost more in page faults than the numbers), then appended as it is long.
inline void append_nested(std::string& out, const std::vector<float>& data, int layers, int heads, int rows, int cols) {
  const std::size_t count = static_cast<std::size_t>(layers) * heads * rows * cols;
  const std::size_t brackets = 2 * (static_cast<std::size_t>(layers) * heads * rows + layers * heads + layers + 1);
  thread_local std::vector<char> scratch;
  if (scratch.size() < count * (detail::longest_weight + 1) + brackets + 8) {
    scratch.resize(count * (detail::longest_weight + 1) + brackets + 8);
  }
  char* const begin = scratch.data();
  char* p = begin;
  const float* at = data.data();
  *p++ = '[';
  for (int l = 0; l < layers; ++l) {
    if (l) *p++ = ',';
    *p++ = '[';
    for (int h = 0; h < heads; ++h) {
      if (h) *p++ = ',';
      *p++ = '[';
      for (int r = 0; r < rows; ++r) {
        if (r) *p++ = ',';
        *p++ = '[';
        p = detail::write_row(p, at, cols);
        at += cols;
        *p++ = ']';
      }
      *p++ = ']';
    }
    *p++ = ']';
  }
  *p++ = ']';
  out.append(begin, p);
}

}  // namespace attn::cli
