// Scratch floats for the buffers a computation writes whole before it reads them. Internal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

namespace attn {

// `size` floats, left uninitialized (a std::vector<float> clears them on every call: the
// Transformer's buffers took 2-3% of a forced decoding in memset) and 64-byte aligned: with rows a
// multiple of 16 floats apart, the column parts that threads write in a matrix product
// (parallel_matmul_packed) then own whole cache lines, where a 16-byte-aligned buffer put two
// threads' stores into the same line on every row.
class Scratch {
 public:
  static constexpr std::size_t alignment = 64;

  explicit Scratch(std::size_t size = 0) : data_(allocate(size)), size_(size) {}
  ~Scratch() { release(); }
  Scratch(Scratch&& other) noexcept : data_(other.data_), size_(other.size_) {
    other.data_ = nullptr;
    other.size_ = 0;
  }
  Scratch& operator=(Scratch&& other) noexcept {
    if (this != &other) {
      release();
      data_ = other.data_;
      size_ = other.size_;
      other.data_ = nullptr;
      other.size_ = 0;
    }
    return *this;
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;

  float* data() noexcept { return data_; }
  const float* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  static float* allocate(std::size_t size) {
    if (size == 0) return nullptr;
    if (size > SIZE_MAX / sizeof(float)) throw std::bad_array_new_length();  // size_t is 32 bits in wasm
    return static_cast<float*>(::operator new[](size * sizeof(float), std::align_val_t(alignment)));
  }
  void release() noexcept {
    if (data_) ::operator delete[](data_, std::align_val_t(alignment));
  }

  float* data_;
  std::size_t size_;
};

}  // namespace attn
