// Errors and argument checks shared by the whole core.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace attn {

// A field or argument named in an error message, written as the C++ API names it
// (query_length, additive.query_weight). The message records where each one stands, so the
// JavaScript bindings can show their own option names (queryLength) in the same message.
struct Field {
  const char* name;
};

// Every problem with caller input is reported as attn::Error, whose message names the
// argument and what is wrong with it. The bindings turn it into a JS Error.
class Error : public std::invalid_argument {
 public:
  // Where a Field stands in what(): [offset, offset + length).
  struct Span {
    std::size_t offset = 0;
    std::size_t length = 0;
  };

  explicit Error(const std::string& message, std::vector<Span> fields = {})
      : std::invalid_argument(message), fields_(std::make_shared<const std::vector<Span>>(std::move(fields))) {}

  // The fields the message names, in order.
  const std::vector<Span>& fields() const noexcept { return *fields_; }

 private:
  std::shared_ptr<const std::vector<Span>> fields_;  // shared: copying an exception must not throw
};

namespace detail {

// Builds a message from its parts, recording where each Field lands.
class Message {
 public:
  template <class Part>
  void add(const Part& part) {
    text_ << part;
  }
  void add(const Field& field) {
    const std::size_t offset = static_cast<std::size_t>(text_.tellp());
    text_ << field.name;
    fields_.push_back({offset, static_cast<std::size_t>(text_.tellp()) - offset});
  }
  Error error() const { return Error(text_.str(), fields_); }

 private:
  std::ostringstream text_;
  std::vector<Error::Span> fields_;
};

}  // namespace detail

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  detail::Message message;
  (message.add(parts), ...);
  throw message.error();
}

// Sizes are ints in the API (JS numbers); this bound keeps every product of two of them
// and every buffer we allocate far from overflow and from the 4 GiB wasm address space.
inline constexpr long long max_elements = 1LL << 28;

// In the helpers below, `name` is the field or argument as messages show it (a Field).
inline void check_size(const char* name, long long value, long long minimum = 1) {
  if (value < minimum) fail(Field{name}, " must be at least ", minimum, ", got ", value);
  if (value > max_elements) fail(Field{name}, " is too large: ", value, " (limit ", max_elements, ")");
}

// Whether every value is finite. A pass that compilers vectorize: inputs are checked on every
// call, and a per-element branch costs as much as a small attention. |x|'s bits reach those of
// +inf (0x7f800000) only for inf and NaN, so the largest of them says; an unsigned max and an AND
// a vector (i32x4.max_u in WebAssembly), where comparing the exponent took four instructions.
inline bool all_finite(const float* data, std::size_t count) {
  std::uint32_t largest = 0;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint32_t bits;
    std::memcpy(&bits, data + i, sizeof bits);
    bits &= 0x7fffffffu;
    largest = bits > largest ? bits : largest;
  }
  return largest < 0x7f800000u;
}

// Throws unless every value is finite; names the array and the first bad index.
inline void check_finite(const char* name, const float* data, std::size_t count) {
  if (all_finite(data, count)) return;
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(data[i])) {
      fail(Field{name}, " contains ", std::isnan(data[i]) ? "NaN" : "an infinite value", " at index ", i);
    }
  }
}

// Product of sizes with an overflow guard, for buffer lengths.
inline std::size_t element_count(const char* name, std::initializer_list<long long> sizes) {
  long long total = 1;
  for (long long size : sizes) {
    if (size < 0) fail(Field{name}, " has a negative size");
    if (size != 0 && total > max_elements / size)
      fail(Field{name}, " is too large (more than ", max_elements, " elements)");
    total *= size;
  }
  return static_cast<std::size_t>(total);
}

}  // namespace attn
