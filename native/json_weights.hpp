// Attention weights as JSON numbers for `attn attentions`, fast: each weight rounded to 6
// significant digits and written the way nlohmann::json writes that double (shortest digits,
// "0.0" for zero, "1e-07" below 1e-4, "null" for NaN or infinity). The CLI used to get this text
// through snprintf("%.6g"), strtod and nlohmann's tree and dump: 63 ms for a 60-word line whose
// model takes 7 (219,000 numbers); tests/test_json_weights.cpp checks that the text is the same.
#pragma once

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

// The longest text write_weight writes ("-1.23456e-07" and the like; "null").
constexpr int longest_weight = 24;

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

// Most attention weights lie in [1e-4, 1), written "0." then -n zeros then the digits. Here with
// few branches that depend on the value (a weight's magnitude is unpredictable): the power of ten
// that brings x to six digits from its binary exponent, one decade either way chosen by a select.
// Returns null where rounding carries x up to 1 (0.9999995 -> "1.0"): the general path writes it.
inline char* write_small_weight(char* p, double x) {
  // 5 - floor(log10(2^e)) for the binades e = -14 .. -1 that hold [1e-4, 1)
  static constexpr signed char power_of_binade[] = {10, 9, 9, 9, 9, 8, 8, 8, 7, 7, 7, 6, 6, 6};
  std::uint64_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  const int binade = static_cast<int>((bits >> 52) & 0x7ff) - 1023;  // x in [2^binade, 2^(binade + 1))
  const int power = power_of_binade[binade + 14];
  const double v_high = x * powers_of_ten[power], v_low = x * powers_of_ten[power - 1];  // both exact
  const bool over = v_high >= 1e6;
  const auto r = static_cast<std::int64_t>(std::nearbyint(over ? v_low : v_high));
  if (r == 1000000) return nullptr;
  const int n = 6 - power + over;  // in -3 .. 0: 10^(n-1) <= x < 10^n
  std::memcpy(p, "0.000", 5);
  p += 2 - n;
  const auto r32 = static_cast<std::uint32_t>(r);
  std::memcpy(p, two_digits.text + 2 * (r32 / 10000), 2);
  std::memcpy(p + 2, two_digits.text + 2 * (r32 / 100 % 100), 2);
  std::memcpy(p + 4, two_digits.text + 2 * (r32 % 100), 2);
  int k = 6;
  if (r32 % 10 == 0) {
    while (k > 1 && p[k - 1] == '0') --k;
  }
  return p + k;
}

}  // namespace detail

// One weight at p (at most detail::longest_weight characters); returns the end.
inline char* write_weight(char* p, float weight) {
  double x = weight;
  if (x >= 1e-4 && x < 1.0) {
    if (char* end = detail::write_small_weight(p, x)) return end;
  }
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
  char digits[16];
  int k = 6, n;  // significant digits, position of the decimal point
  if (x >= 1e-7 && x < 10.0) {
    // The six digits of %.6g: x * 10^p lands in [10^5, 10^6) and is exact (a float's 24 bits
    // times 5^p, p <= 12, fit in a double's 53), so rounding it to an integer rounds the exact
    // value, ties to even, as printf does.
    int power = 5;
    double v = x * detail::powers_of_ten[power];
    while (v < 1e5) v = x * detail::powers_of_ten[++power];  // power <= 12 where x >= 1e-7
    int e10 = 5 - power;
    auto r = static_cast<std::int64_t>(std::nearbyint(v));
    if (r == 1000000) r = 100000, ++e10;
    for (int i = 5; i >= 0; --i, r /= 10) digits[i] = static_cast<char>('0' + r % 10);
    n = e10 + 1;
  } else {  // rare: printf's own digits
    char text[32];
    std::snprintf(text, sizeof text, "%.5e", x);  // d.ddddde+XX
    digits[0] = text[0];
    for (int i = 1; i < 6; ++i) digits[i] = text[i + 1];
    n = std::atoi(text + 8) + 1;
  }
  while (k > 1 && digits[k - 1] == '0') --k;
  return detail::write_decimal(p, digits, k, n);
}

inline void append_weight(std::string& out, float weight) {
  char text[detail::longest_weight];
  out.append(text, write_weight(text, weight));
}

// data [layers][heads][rows][cols] as nested JSON arrays, appended to out: written into this
// thread's scratch buffer (sized for the longest numbers once, then reused: a fresh buffer of
// that size a line cost more in page faults than the numbers), then appended as it is long.
inline void append_nested(std::string& out, const std::vector<float>& data, int layers, int heads, int rows,
                          int cols) {
  const std::size_t count = static_cast<std::size_t>(layers) * heads * rows * cols;
  const std::size_t brackets = 2 * (static_cast<std::size_t>(layers) * heads * rows + layers * heads + layers + 1);
  thread_local std::vector<char> scratch;
  if (scratch.size() < count * (detail::longest_weight + 1) + brackets) scratch.resize(count * (detail::longest_weight + 1) + brackets);
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
        for (int c = 0; c < cols; ++c) {
          if (c) *p++ = ',';
          p = write_weight(p, *at++);
        }
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
