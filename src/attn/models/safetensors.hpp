// Reading safetensors files (the Hugging Face format: an 8-byte little-endian header length, a
// JSON header, then raw tensor bytes), validated completely before any tensor is used.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attn {

struct TensorInfo {
  std::string dtype;  // "F32", "F16", "BF16", "I8", "U8", "U16", "I32"
  std::vector<std::int64_t> shape;
  std::uint64_t begin = 0, end = 0;  // byte offsets into the data section
  std::int64_t element_count() const;
};

class SafeTensors {
 public:
  // Parses and validates `bytes` (copied). Throws attn::Error naming the problem: a size or
  // offset outside the file, a header that is not JSON or not the format, an unknown dtype, a
  // shape that does not match its byte range, overlapping or unaccounted-for data.
  static SafeTensors parse(std::string bytes);

  const std::map<std::string, std::string>& metadata() const { return metadata_; }
  const std::map<std::string, TensorInfo>& tensors() const { return tensors_; }
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  const TensorInfo& info(const std::string& name) const;

  // The tensor as float32 (F32 copied, F16/BF16 widened), after checking its shape when given.
  std::vector<float> floats(const std::string& name, const std::vector<std::int64_t>& expected_shape = {}) const;
  // An I32 tensor, after checking its shape when given.
  std::vector<std::int32_t> ints(const std::string& name, const std::vector<std::int64_t>& expected_shape = {}) const;
  // An I32 or U16 tensor as int32 (U16 widened), after checking its shape when given: word ids,
  // which a writer stores in two bytes where every id fits.
  std::vector<std::int32_t> indices(const std::string& name,
                                    const std::vector<std::int64_t>& expected_shape = {}) const;
  // An I8 tensor, after checking its shape when given.
  std::vector<std::int8_t> int8s(const std::string& name, const std::vector<std::int64_t>& expected_shape = {}) const;
  // A metadata value, or an error naming the missing key.
  const std::string& meta(const std::string& key) const;

 private:
  template <class T>
  std::vector<T> integers(const std::string& name, const std::vector<std::int64_t>& expected_shape,
                          const char* dtype) const;

  std::string bytes_;
  std::size_t data_start_ = 0;
  std::map<std::string, std::string> metadata_;
  std::map<std::string, TensorInfo> tensors_;
};

// Writes a safetensors file: tensors in name order, header padded to 8 bytes, F32, F16, I32, U16 or I8.
class SafeTensorsWriter {
 public:
  void add(const std::string& name, const std::vector<float>& values, std::vector<std::int64_t> shape,
           bool half = false);
  void add(const std::string& name, const std::vector<std::int32_t>& values, std::vector<std::int64_t> shape);
  void add(const std::string& name, const std::vector<std::int8_t>& values, std::vector<std::int64_t> shape);
  void add(const std::string& name, const std::vector<std::uint16_t>& values, std::vector<std::int64_t> shape);
  void metadata(const std::string& key, const std::string& value) { metadata_[key] = value; }
  std::string bytes() const;

 private:
  struct Entry {
    std::string dtype;
    std::vector<std::int64_t> shape;
    std::string data;
  };
  std::map<std::string, Entry> tensors_;
  std::map<std::string, std::string> metadata_;
};

// float to IEEE half, rounding to nearest even (overflow gives infinity).
std::uint16_t float_to_half(float value);

// IEEE half and bfloat16 to float, exactly (subnormals, infinities and NaN included).
float half_to_float(std::uint16_t bits);
float bfloat16_to_float(std::uint16_t bits);

}  // namespace attn
