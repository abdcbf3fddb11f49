// A small seeded generator whose stream is identical natively and in WebAssembly
// (std:: distributions differ between libstdc++ and libc++, so we do not use them).
#pragma once

#include <cstdint>

namespace attn {

class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}

  // splitmix64: passes BigCrush, one add and three multiply-xorshifts per draw.
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, 1) with 24 random bits: exactly representable as float.
  float uniform() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
  // Uniform in [0, 1) with 53 random bits, as Python's reference samplers draw it (the captioner's
  // hard attention: tools/train/captioner/reference.py).
  double uniform_double() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

}  // namespace attn
