#include "attn/models/safetensors.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "attn/core/error.hpp"

namespace attn {

namespace {

std::size_t dtype_size(const std::string& dtype) {
  if (dtype == "F32" || dtype == "I32") return 4;
  if (dtype == "F16" || dtype == "BF16" || dtype == "U16") return 2;
  if (dtype == "I8" || dtype == "U8") return 1;
  fail("unsupported dtype '", dtype, "' (expected F32, F16, BF16, I32, U16, I8 or U8)");
}

constexpr std::uint64_t max_header = 100u << 20;  // 100 MiB, the reference implementation's limit

std::string shape_text(const std::vector<std::int64_t>& shape) {
  std::string text = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

std::int64_t TensorInfo::element_count() const {
  std::int64_t count = 1;
  for (std::int64_t d : shape) count *= d;
  return count;
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = (bits & 0x8000u) << 16;
  std::uint32_t exponent = (bits >> 10) & 0x1Fu, mantissa = bits & 0x3FFu, out;
  if (exponent == 0x1F) {
    out = sign | 0x7F800000u | (mantissa << 13);  // inf / NaN
  } else if (exponent != 0) {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    out = sign;
  } else {  // subnormal: normalize
    int shift = 0;
    while (!(mantissa & 0x400u)) {
      mantissa <<= 1;
      ++shift;
    }
    out = sign | static_cast<std::uint32_t>(113 - shift) << 23 | ((mantissa & 0x3FFu) << 13);
  }
  float value;
  std::memcpy(&value, &out, sizeof value);
  return value;
}

float bfloat16_to_float(std::uint16_t bits) {
  const std::uint32_t out = static_cast<std::uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &out, sizeof value);
  return value;
}

std::uint16_t float_to_half(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const std::uint32_t sign = (bits >> 16) & 0x8000u;
  const std::uint32_t exponent = (bits >> 23) & 0xFFu;
  std::uint32_t mantissa = bits & 0x7FFFFFu;
  if (exponent == 0xFF) return static_cast<std::uint16_t>(sign | 0x7C00u | (mantissa ? 0x200u : 0u));
  const int e = static_cast<int>(exponent) - 127 + 15;
  if (e >= 31) return static_cast<std::uint16_t>(sign | 0x7C00u);  // overflow
  if (e <= 0) {                                                    // subnormal half or zero
    if (e < -10) return static_cast<std::uint16_t>(sign);
    mantissa |= 0x800000u;
    const int shift = 14 - e;
    std::uint32_t half = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1), halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (half & 1u))) ++half;
    return static_cast<std::uint16_t>(sign | half);
  }
  std::uint32_t half = (static_cast<std::uint32_t>(e) << 10) | (mantissa >> 13);
  const std::uint32_t rest = mantissa & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (half & 1u))) ++half;  // may carry into the exponent: correct
  return static_cast<std::uint16_t>(sign | half);
}

void SafeTensorsWriter::add(const std::string& name, const std::vector<float>& values, std::vector<std::int64_t> shape,
                            bool half) {
  Entry entry{half ? "F16" : "F32", std::move(shape), {}};
  if (half) {
    entry.data.resize(values.size() * 2);
    for (std::size_t i = 0; i < values.size(); ++i) {
      const std::uint16_t bits = float_to_half(values[i]);
      entry.data[2 * i] = static_cast<char>(bits & 0xFF);
      entry.data[2 * i + 1] = static_cast<char>(bits >> 8);
    }
  } else {
    entry.data.assign(reinterpret_cast<const char*>(values.data()), values.size() * 4);
  }
  tensors_[name] = std::move(entry);
}

void SafeTensorsWriter::add(const std::string& name, const std::vector<std::int32_t>& values,
                            std::vector<std::int64_t> shape) {
  tensors_[name] =
      Entry{"I32", std::move(shape), std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4)};
}

void SafeTensorsWriter::add(const std::string& name, const std::vector<std::uint16_t>& values,
                            std::vector<std::int64_t> shape) {
  Entry entry{"U16", std::move(shape), std::string(values.size() * 2, '\0')};
  for (std::size_t i = 0; i < values.size(); ++i) {  // little-endian, whatever the host
    entry.data[2 * i] = static_cast<char>(values[i] & 0xFF);
    entry.data[2 * i + 1] = static_cast<char>(values[i] >> 8);
  }
  tensors_[name] = std::move(entry);
}

void SafeTensorsWriter::add(const std::string& name, const std::vector<std::int8_t>& values,
                            std::vector<std::int64_t> shape) {
  tensors_[name] =
      Entry{"I8", std::move(shape), std::string(reinterpret_cast<const char*>(values.data()), values.size())};
}

std::string SafeTensorsWriter::bytes() const {
  nlohmann::json header = nlohmann::json::object();
  if (!metadata_.empty()) header["__metadata__"] = metadata_;
  std::uint64_t offset = 0;
  for (const auto& [name, entry] : tensors_) {
    header[name] = {
        {"dtype", entry.dtype}, {"shape", entry.shape}, {"data_offsets", {offset, offset + entry.data.size()}}};
    offset += entry.data.size();
  }
  std::string text = header.dump();
  text.append((8 - text.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[i] = static_cast<char>((static_cast<std::uint64_t>(text.size()) >> (8 * i)) & 0xFF);
  out += text;
  for (const auto& [name, entry] : tensors_) out += entry.data;
  return out;
}

namespace {

// The JSON header that follows the 8-byte little-endian header length; sets *data_start.
nlohmann::json read_header(const std::string& bytes, std::size_t* data_start) {
  if (bytes.size() < 8) fail("not a safetensors file: ", bytes.size(), " bytes, shorter than the 8-byte header length");
  std::uint64_t header_length = 0;
  for (int i = 7; i >= 0; --i) header_length = (header_length << 8) | static_cast<unsigned char>(bytes[i]);
  if (header_length > max_header) fail("not a safetensors file: header length ", header_length, " is over 100 MiB");
  if (header_length > bytes.size() - 8) {
    fail("truncated safetensors file: the header needs ", header_length, " bytes, the file has ", bytes.size() - 8,
         " after the length");
  }
  nlohmann::json header;
  try {
    header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<std::ptrdiff_t>(header_length));
  } catch (const nlohmann::json::exception& e) {
    fail("the safetensors header is not valid JSON (", e.what(), ")");
  }
  if (!header.is_object()) fail("the safetensors header must be a JSON object");
  *data_start = 8 + static_cast<std::size_t>(header_length);
  return header;
}

// One tensor's header entry, checked against the data section's size.
TensorInfo tensor_info(const std::string& name, const nlohmann::json& value, std::uint64_t data_size) {
  if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") || !value.contains("data_offsets")) {
    fail("tensor '", name, "' must have dtype, shape and data_offsets");
  }
  TensorInfo info;
  if (!value["dtype"].is_string()) fail("tensor '", name, "': dtype must be a string");
  info.dtype = value["dtype"].get<std::string>();
  const std::size_t element_size = dtype_size(info.dtype);
  if (!value["shape"].is_array()) fail("tensor '", name, "': shape must be an array");
  long long count = 1;
  for (const auto& d : value["shape"]) {
    if (!d.is_number_integer() || d.get<long long>() < 0)
      fail("tensor '", name, "': shape entries must be non-negative integers");
    const long long size = d.get<long long>();
    if (size > 0 && count > max_elements / size) fail("tensor '", name, "' is too large");
    count *= size;
    info.shape.push_back(size);
  }
  const auto& offsets = value["data_offsets"];
  if (!offsets.is_array() || offsets.size() != 2 || !offsets[0].is_number_unsigned() ||
      !offsets[1].is_number_unsigned()) {
    fail("tensor '", name, "': data_offsets must be two non-negative integers");
  }
  info.begin = offsets[0].get<std::uint64_t>();
  info.end = offsets[1].get<std::uint64_t>();
  if (info.begin > info.end || info.end > data_size) {
    fail("tensor '", name, "': data_offsets [", info.begin, ", ", info.end, "] fall outside the ", data_size,
         "-byte data section");
  }
  if (info.end - info.begin != static_cast<std::uint64_t>(count) * element_size) {
    fail("tensor '", name, "': ", info.dtype, " ", shape_text(info.shape), " needs ", count * element_size,
         " bytes, its data_offsets span ", info.end - info.begin);
  }
  return info;
}

// The data section is exactly the tensors, back to back: no overlap, no unexplained bytes.
void check_coverage(std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges, std::uint64_t data_size) {
  std::sort(ranges.begin(), ranges.end());
  std::uint64_t covered = 0;
  for (const auto& [begin, end] : ranges) {
    if (begin != covered)
      fail("tensor data overlaps or leaves a gap at byte ", std::min(begin, covered), " of the data section");
    covered = end;
  }
  if (covered != data_size) fail("the data section has ", data_size - covered, " bytes that belong to no tensor");
}

}  // namespace

SafeTensors SafeTensors::parse(std::string bytes) {
  SafeTensors file;
  const nlohmann::json header = read_header(bytes, &file.data_start_);
  const std::uint64_t data_size = bytes.size() - file.data_start_;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  for (auto item = header.begin(); item != header.end(); ++item) {
    const std::string& name = item.key();
    const nlohmann::json& value = item.value();
    if (name == "__metadata__") {
      if (!value.is_object()) fail("__metadata__ must be an object of strings");
      for (auto m = value.begin(); m != value.end(); ++m) {
        if (!m.value().is_string()) fail("metadata '", m.key(), "' must be a string");
        file.metadata_[m.key()] = m.value().get<std::string>();
      }
      continue;
    }
    TensorInfo info = tensor_info(name, value, data_size);
    ranges.emplace_back(info.begin, info.end);
    file.tensors_.emplace(name, std::move(info));
  }
  check_coverage(std::move(ranges), data_size);
  file.bytes_ = std::move(bytes);
  return file;
}

const TensorInfo& SafeTensors::info(const std::string& name) const {
  const auto found = tensors_.find(name);
  if (found == tensors_.end()) fail("the model has no tensor '", name, "'");
  return found->second;
}

const std::string& SafeTensors::meta(const std::string& key) const {
  const auto found = metadata_.find(key);
  if (found == metadata_.end()) fail("the model's metadata has no '", key, "'");
  return found->second;
}

// An integer tensor of `dtype` copied out, after checking its shape (when given) and dtype.
template <class T>
std::vector<T> SafeTensors::integers(const std::string& name, const std::vector<std::int64_t>& expected_shape,
                                     const char* dtype) const {
  const TensorInfo& tensor = info(name);
  if (!expected_shape.empty() && tensor.shape != expected_shape) {
    fail("tensor '", name, "' has shape ", shape_text(tensor.shape), ", expected ", shape_text(expected_shape));
  }
  if (tensor.dtype != dtype) fail("tensor '", name, "' is ", tensor.dtype, ", not ", dtype);
  std::vector<T> out(static_cast<std::size_t>(tensor.element_count()));
  std::memcpy(out.data(), bytes_.data() + data_start_ + tensor.begin, out.size() * sizeof(T));  // little-endian hosts
  return out;
}

std::vector<std::int32_t> SafeTensors::ints(const std::string& name,
                                            const std::vector<std::int64_t>& expected_shape) const {
  return integers<std::int32_t>(name, expected_shape, "I32");
}

std::vector<std::int32_t> SafeTensors::indices(const std::string& name,
                                               const std::vector<std::int64_t>& expected_shape) const {
  if (info(name).dtype != "U16") return ints(name, expected_shape);
  const std::vector<std::uint16_t> narrow = integers<std::uint16_t>(name, expected_shape, "U16");
  return std::vector<std::int32_t>(narrow.begin(), narrow.end());
}

std::vector<std::int8_t> SafeTensors::int8s(const std::string& name,
                                            const std::vector<std::int64_t>& expected_shape) const {
  return integers<std::int8_t>(name, expected_shape, "I8");
}

std::vector<float> SafeTensors::floats(const std::string& name, const std::vector<std::int64_t>& expected_shape) const {
  const TensorInfo& tensor = info(name);
  if (!expected_shape.empty() && tensor.shape != expected_shape) {
    fail("tensor '", name, "' has shape ", shape_text(tensor.shape), ", the architecture needs ",
         shape_text(expected_shape));
  }
  const std::size_t count = static_cast<std::size_t>(tensor.element_count());
  const unsigned char* data = reinterpret_cast<const unsigned char*>(bytes_.data()) + data_start_ + tensor.begin;
  std::vector<float> out(count);
  if (tensor.dtype == "F32") {
    std::memcpy(out.data(), data, count * 4);  // little-endian hosts only: x86-64 and wasm32
  } else if (tensor.dtype == "F16" || tensor.dtype == "BF16") {
    for (std::size_t i = 0; i < count; ++i) {
      const std::uint16_t bits = static_cast<std::uint16_t>(data[2 * i] | data[2 * i + 1] << 8);
      out[i] = tensor.dtype == "F16" ? half_to_float(bits) : bfloat16_to_float(bits);
    }
  } else {
    fail("tensor '", name, "' is ", tensor.dtype, ", not a floating-point tensor");
  }
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(out[i])) fail("tensor '", name, "' holds a non-finite value at index ", i);
  }
  return out;
}

}  // namespace attn
