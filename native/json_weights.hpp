// Attention weights as JSON numbers for `attn attentions`: each weight rounded to 6 significant
// digits as printf's "%.6g" rounds it, written in nlohmann::json's notation for that double (the
// CLI's other numbers are nlohmann's): shortest digits, "0.0" for zero, "1.0" for one, "1e-07"
// below 1e-4, "null" for NaN or infinity. tests/test_json_weights.cpp checks the text against
// snprintf, strtod and nlohmann's dump; native/bench_json.cpp times it.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

namespace attn::cli {

namespace detail {

// The longest text a weight takes ("-1.23456e-07" and the like; "null").
constexpr int longest_weight = 24;

// "%.5e" of x, exact (to_chars with a precision prints the binary value's decimal expansion).
inline void exact_six_digits(float x, char* text, int size) {
#if defined(__cpp_lib_to_chars)
  std::to_chars(text, text + size, double(x), std::chars_format::scientific, 5);
#else  // Emscripten's libc++ 14, which the tests compile this header with too, has no float to_chars
  std::snprintf(text, size, "%.5e", double(x));
#endif
}

// The digits of d[.ddd]e±XX into digits[0..k) and n; returns k.
inline int read_scientific(const char* text, char* digits, int& n) {
  int k = 0;
  const char* c = text;
  for (; *c != 'e'; ++c) {
    if (*c != '.') digits[k++] = *c;
  }
  const int exponent = (c[2] - '0') * 10 + (c[3] - '0');  // two digits for any float
  n = c[1] == '-' ? 1 - exponent : exponent + 1;
  return k;
}

// x's significant digits, rounded to six exactly as "%.5e" rounds (ties to even), trailing zeros
// dropped: digits[0..k) with the value 0.d1d2... * 10^n; returns k. x is finite and positive.
// The float's shortest round-trip digits (std::to_chars without a precision, Ryu) round to the
// same six digits as its exact value unless they end on a tie, a 5 in seventh place: a normal
// float is within 6e-8 of its shortest digits relatively, a sixth digit's half is 5e-7 or more.
// There, and for subnormals (with fewer bits than that), to_chars with precision 5 decides; it is
// exact but slower (native/bench_json.cpp).
inline int six_digits(float x, char* digits, int& n) {
  char text[32];
  int k;
#if defined(__cpp_lib_to_chars)
  if (x >= std::numeric_limits<float>::min()) {
    std::to_chars(text, text + sizeof text, x, std::chars_format::scientific);  // shortest: d.ddde-XX
    k = read_scientific(text, digits, n);
    if (k == 7 && digits[6] == '5') {  // a tie of the shortest digits: the exact value decides
      exact_six_digits(x, text, sizeof text);
      k = read_scientific(text, digits, n);
    } else if (k > 6) {
      if (digits[6] >= '5') {  // up, carrying
        int i = 5;
        while (i >= 0 && digits[i] == '9') digits[i--] = '0';
        if (i >= 0) {
          ++digits[i];
        } else {
          digits[0] = '1';
          ++n;
        }
      }
      k = 6;
    }
  } else
#endif
  {
    exact_six_digits(x, text, sizeof text);
    k = read_scientific(text, digits, n);
  }
  while (k > 1 && digits[k - 1] == '0') --k;
  return k;
}

// nlohmann's format_buffer (min_exp -4, max_exp 15) for digits d[0..k) of a value 0.d * 10^n:
// fixed notation while -4 < n <= 15, else d.ddde+XX. Writes at p, returns the end.
// d holds 8 readable bytes (digits past k are ignored); p has 8 bytes of room past the text.
inline char* write_decimal(char* p, const char* d, int k, int n) {
  if (k <= n && n <= 15) {  // an integer: its digits, zeros, ".0"
    std::memcpy(p, d, k);
    std::memset(p + k, '0', n - k);
    p += n;
    std::memcpy(p, ".0", 2);
    return p + 2;
  }
  if (0 < n && n <= 15) {  // ddd.ddd
    std::memcpy(p, d, n);
    p[n] = '.';
    std::memcpy(p + n + 1, d + n, k - n);
    return p + k + 1;
  }
  if (-4 < n && n <= 0) {  // 0.000ddd: whole 8-byte copies, the length kept apart
    std::memcpy(p, "0.000000", 8);
    std::memcpy(p + 2 - n, d, 8);
    return p + 2 - n + k;
  }
  p[0] = d[0];  // d.ddde-XX
  p[1] = '.';
  std::memcpy(p + 2, d + 1, 8);
  p += k > 1 ? k + 1 : 1;
  const int exponent = n < 1 ? 1 - n : n - 1;  // a float's: at most 45 (two digits, as nlohmann writes)
  p[0] = 'e';
  p[1] = n < 1 ? '-' : '+';
  p[2] = static_cast<char>('0' + exponent / 10);
  p[3] = static_cast<char>('0' + exponent % 10);
  return p + 4;
}

}  // namespace detail

// One weight at p (at most detail::longest_weight characters, and up to 8 bytes past them may be
// written over); returns the end.
inline char* write_weight(char* p, float weight) {
  if (!std::isfinite(weight)) {
    std::memcpy(p, "null", 4);
    return p + 4;
  }
  if (std::signbit(weight)) *p++ = '-';
  const float x = std::fabs(weight);
  if (x == 0.0f) {
    std::memcpy(p, "0.0", 3);
    return p + 3;
  }
  char digits[16];
  int n;
  const int k = detail::six_digits(x, digits, n);
  return detail::write_decimal(p, digits, k, n);
}

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
