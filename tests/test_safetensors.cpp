// The safetensors reader: well-formed files, half-precision conversion, and every kind of
// damage a download or a hostile file can bring, each with an error that names it.
#include <catch2/catch.hpp>

#include <cstring>

#include "attn/models/safetensors.hpp"
#include "support.hpp"

using namespace attn;
using Catch::Matchers::Contains;

namespace {

std::string with_length(const std::string& header, const std::string& data) {
  std::string bytes(8, '\0');
  std::uint64_t length = header.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((length >> (8 * i)) & 0xFF);
  return bytes + header + data;
}

std::string float_bytes(const std::vector<float>& values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(&out[0], values.data(), out.size());
  return out;
}

// a = F32 [2][3], b = F16 [2] = {1.0, -2.5}
std::string good_file() {
  const std::string header =
      R"({"__metadata__":{"format":"test"},"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
      R"("b":{"dtype":"F16","shape":[2],"data_offsets":[24,28]}})";
  std::string data = float_bytes({1, 2, 3, 4, 5, 6});
  data += std::string("\x00\x3c\x00\xc1", 4);  // 0x3C00 = 1.0, 0xC100 = -2.5
  return with_length(header, data);
}

}  // namespace

TEST_CASE("a well-formed file gives its metadata and tensors", "[safetensors]") {
  const SafeTensors file = SafeTensors::parse(good_file());
  CHECK(file.meta("format") == "test");
  CHECK(file.floats("a", {2, 3}) == std::vector<float>{1, 2, 3, 4, 5, 6});
  CHECK(file.floats("b") == std::vector<float>{1.0f, -2.5f});
  CHECK_THROWS_WITH(file.floats("a", {3, 2}), Contains("tensor 'a' has shape [2, 3], the architecture needs [3, 2]"));
  CHECK_THROWS_WITH(file.floats("c"), Contains("no tensor 'c'"));
  CHECK_THROWS_WITH(file.meta("direction"), Contains("no 'direction'"));
}

TEST_CASE("half precision converts exactly, subnormals and specials included", "[safetensors]") {
  CHECK(half_to_float(0x0000) == 0.0f);
  CHECK(std::signbit(half_to_float(0x8000)));
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0x7BFF) == 65504.0f);
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(half_to_float(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(std::isinf(half_to_float(0x7C00)));
  CHECK(std::isnan(half_to_float(0x7E00)));
  CHECK(bfloat16_to_float(0x3F80) == 1.0f);
  // every finite half round-trips through float and back by value
  for (std::uint32_t bits = 0; bits < 0x7C00; ++bits) {
    const float x = half_to_float(static_cast<std::uint16_t>(bits));
    REQUIRE(x >= 0.0f);
    if (bits) REQUIRE(x > half_to_float(static_cast<std::uint16_t>(bits - 1)));
  }
}

TEST_CASE("damaged files are rejected with the reason", "[safetensors]") {
  const std::string good = good_file();
  CHECK_THROWS_WITH(SafeTensors::parse("abc"), Contains("shorter than the 8-byte header length"));
  CHECK_THROWS_WITH(SafeTensors::parse(good.substr(0, good.size() - 1)), Contains("outside the 27-byte data section"));
  CHECK_THROWS_WITH(SafeTensors::parse(good.substr(0, 40)), Contains("truncated"));
  std::string huge_length = good;
  huge_length[5] = '\x7f';
  CHECK_THROWS_WITH(SafeTensors::parse(huge_length), Contains("over 100 MiB"));
  CHECK_THROWS_WITH(SafeTensors::parse(with_length("{not json", "")), Contains("not valid JSON"));
  CHECK_THROWS_WITH(SafeTensors::parse(with_length("[1,2]", "")), Contains("must be a JSON object"));
  CHECK_THROWS_WITH(SafeTensors::parse(
                        with_length(R"({"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]}})", std::string(8, '\0'))),
                    Contains("unsupported dtype 'F64'"));
  CHECK_THROWS_WITH(SafeTensors::parse(with_length(R"({"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})",
                                                   std::string(4, '\0'))),
                    Contains("non-negative"));
  CHECK_THROWS_WITH(SafeTensors::parse(
                        with_length(R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,4]}})", std::string(4, '\0'))),
                    Contains("needs 8 bytes, its data_offsets span 4"));
  CHECK_THROWS_WITH(
      SafeTensors::parse(with_length(
          R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[2,6]}})",
          std::string(6, '\0'))),
      Contains("overlaps"));
  CHECK_THROWS_WITH(SafeTensors::parse(
                        with_length(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})", std::string(9, '\0'))),
                    Contains("5 bytes that belong to no tensor"));
  CHECK_THROWS_WITH(SafeTensors::parse(with_length(R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,40]}})",
                                                   std::string(4, '\0'))),
                    Contains("outside"));
  CHECK_THROWS_WITH(SafeTensors::parse(with_length(R"({"__metadata__":{"x":1}})", "")),
                    Contains("metadata 'x' must be a string"));
  CHECK_THROWS_WITH(
      SafeTensors::parse(
          with_length(R"({"a":{"dtype":"F32","shape":[1000000,1000000],"data_offsets":[0,4]}})", std::string(4, '\0'))),
      Contains("too large"));
  const SafeTensors nan_file = SafeTensors::parse(
      with_length(R"({"a":{"dtype":"F16","shape":[1],"data_offsets":[0,2]}})", std::string("\x00\x7e", 2)));
  CHECK_THROWS_WITH(nan_file.floats("a"), Contains("non-finite value at index 0"));
}

TEST_CASE("every single-bit flip of the header either parses or fails cleanly", "[safetensors]") {
  const std::string good = good_file();
  int rejected = 0;
  const std::size_t header_end = 8 + 130;
  for (std::size_t byte = 0; byte < std::min(good.size(), header_end); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      std::string damaged = good;
      damaged[byte] = static_cast<char>(damaged[byte] ^ (1 << bit));
      try {
        const SafeTensors file = SafeTensors::parse(damaged);
        for (const auto& [name, info] : file.tensors()) {
          try {
            (void)file.floats(name);
          } catch (const Error&) {
            ++rejected;
          }
        }
      } catch (const Error&) {
        ++rejected;
      }
    }
  }
  CHECK(rejected > 500);
}

TEST_CASE("the writer round-trips through the reader, and float_to_half rounds to nearest even", "[safetensors]") {
  SafeTensorsWriter writer;
  writer.metadata("format", "roundtrip");
  writer.add("b.half", std::vector<float>{1.0f, -2.5f, 65504.0f, 1e-7f}, {2, 2}, true);
  writer.add("a.ids", std::vector<std::int32_t>{7, -1, 3}, {3});
  writer.add("c.full", std::vector<float>{0.1f, 0.2f}, {2});
  writer.add("d.q", std::vector<std::int8_t>{-128, -1, 0, 127}, {2, 2});
  const std::string bytes = writer.bytes();
  const SafeTensors file = SafeTensors::parse(bytes);
  CHECK(file.meta("format") == "roundtrip");
  CHECK(file.ints("a.ids", {3}) == std::vector<std::int32_t>{7, -1, 3});
  const std::vector<float> half = file.floats("b.half", {2, 2});
  CHECK(half[0] == 1.0f);
  CHECK(half[1] == -2.5f);
  CHECK(half[2] == 65504.0f);
  CHECK(half[3] == std::ldexp(1.0f, -23));  // 1e-7 rounds to the subnormal half 2 * 2^-24
  CHECK(file.floats("c.full") == std::vector<float>{0.1f, 0.2f});
  CHECK_THROWS_WITH(file.ints("c.full"), Contains("not I32"));
  CHECK(file.info("d.q").dtype == "I8");
  CHECK(file.int8s("d.q", {2, 2}) == std::vector<std::int8_t>{-128, -1, 0, 127});
  CHECK_THROWS_WITH(file.int8s("d.q", {4}), Contains("has shape [2, 2], expected [4]"));
  CHECK_THROWS_WITH(file.int8s("c.full"), Contains("is F32, not I8"));
  CHECK_THROWS_WITH(file.floats("d.q"), Contains("not a floating-point tensor"));
  // every half value converts back to itself; halfway cases round to even
  for (std::uint32_t bits = 0; bits < 0x7C00; ++bits)
    REQUIRE(float_to_half(half_to_float(static_cast<std::uint16_t>(bits))) == bits);
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);  // halfway between 1 and the next half: even
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
  CHECK(float_to_half(1e6f) == 0x7C00);
}

TEST_CASE("U16 tensors hold word ids: indices() widens them, ints() and floats() refuse them", "[safetensors]") {
  const std::string header = R"({"ids":{"dtype":"U16","shape":[3],"data_offsets":[0,6]},)"
                             R"("wide":{"dtype":"I32","shape":[1],"data_offsets":[8,12]}})";
  std::string data("\x01\x00\xff\xff\x34\x12\x00\x00", 8);  // 1, 65535, 0x1234, then 2 bytes unused by "ids"
  data += std::string("\x07\x00\x00\x00", 4);
  CHECK_THROWS_WITH(SafeTensors::parse(with_length(header, data)), Contains("leaves a gap at byte 6"));
  const std::string fitted = R"({"ids":{"dtype":"U16","shape":[3],"data_offsets":[0,6]},)"
                             R"("wide":{"dtype":"I32","shape":[1],"data_offsets":[6,10]}})";
  const SafeTensors file = SafeTensors::parse(with_length(fitted, data.substr(0, 6) + data.substr(8)));
  CHECK(file.indices("ids", {3}) == std::vector<std::int32_t>{1, 65535, 0x1234});
  CHECK(file.indices("wide") == std::vector<std::int32_t>{7});
  CHECK_THROWS_WITH(file.ints("ids"), Contains("tensor 'ids' is U16, not I32"));
  CHECK_THROWS_WITH(file.floats("ids"), Contains("not a floating-point tensor"));
  CHECK_THROWS_WITH(file.indices("ids", {4}), Contains("has shape [3], expected [4]"));
  SafeTensorsWriter writer;
  writer.add("u", std::vector<std::uint16_t>{0, 1, 65535}, {3});
  CHECK(SafeTensors::parse(writer.bytes()).indices("u") == std::vector<std::int32_t>{0, 1, 65535});
}
