// Errors and argument checks shared by the whole core.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>

namespace attn {

// Every problem with caller input is reported as attn::Error, whose message names the
// argument and what is wrong with it. The bindings turn it into a JS Error.
class Error : public std::invalid_argument {
 public:
  explicit Error(const std::string& message) : std::invalid_argument(message) {}
};

namespace detail {

template <class... Parts>
std::string concat(const Parts&... parts) {
  std::ostringstream out;
  (out << ... << parts);
  return out.str();
}

}  // namespace detail

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  throw Error(detail::concat(parts...));
}

// Sizes are ints in the API (JS numbers); this bound keeps every product of two of them
// and every buffer we allocate far from overflow and from the 4 GiB wasm address space.
inline constexpr long long max_elements = 1LL << 28;

inline void check_size(const char* name, long long value, long long minimum = 1) {
  if (value < minimum) fail(name, " must be at least ", minimum, ", got ", value);
  if (value > max_elements) fail(name, " is too large: ", value, " (limit ", max_elements, ")");
}

// Throws unless every value is finite; names the array and the first bad index.
inline void check_finite(const char* name, const float* data, std::size_t count) {
  // A first pass that compilers vectorize (an all-ones exponent is inf or NaN): inputs are
  // checked on every call, and a per-element branch costs as much as a small attention.
  std::uint32_t bad = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, data + i, sizeof bits);
    bad |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  if (!bad) return;
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i])) {
      fail(name, " contains ", std::isnan(data[i]) ? "NaN" : "an infinite value", " at index ", i);
    }
  }
}

// Product of sizes with an overflow guard, for buffer lengths.
inline std::size_t element_count(const char* name, std::initializer_list<long long> sizes) {
  long long total = 1;
  for (long long size : sizes) {
    if (size < 0) fail(name, " has a negative size");
    if (size != 0 && total > max_elements / size) fail(name, " is too large (more than ", max_elements, " elements)");
    total *= size;
  }
  return static_cast<std::size_t>(total);
}

}  // namespace attn
