// `attn attentions` writes weights through native/json_weights.hpp: the same numbers as the
// snprintf("%.6g") + strtod + nlohmann::json path it replaced, each read back to the same double,
// in nlohmann's notation. (The old text was not always the shortest: nlohmann's Grisu2 wrote
// 0.0675136 as 0.06751359999999999, the same double; the new text is %.6g's digits.) Off-line,
// every float from the smallest subnormal to 1e12 was checked against snprintf the same way.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "../native/json_weights.hpp"
#include "support.hpp"

using testing::from_bits;

namespace {

std::string reference_text(float weight) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", double(weight));
  return nlohmann::json(std::strtod(text, nullptr)).dump();
}

// The same double read back (null for null), and the same notation: a decimal point in fixed
// notation exactly where nlohmann writes one, an exponent exactly where it writes one.
bool same_number(const std::string& got, const std::string& want) {
  if (got == "null" || want == "null") return got == want;
  const bool got_exponent = got.find('e') != std::string::npos, want_exponent = want.find('e') != std::string::npos;
  return std::strtod(got.c_str(), nullptr) == std::strtod(want.c_str(), nullptr) && got_exponent == want_exponent &&
         std::signbit(std::strtod(got.c_str(), nullptr)) == std::signbit(std::strtod(want.c_str(), nullptr));
}

}  // namespace

TEST_CASE("append_weight writes the numbers snprintf %.6g, strtod and nlohmann wrote", "[cli]") {
  std::vector<float> values = {0.0f,
                               -0.0f,
                               1.0f,
                               0.5f,
                               0.1f,
                               1e-4f,
                               9.99995e-5f,
                               1e-5f,
                               1e-7f,
                               9.9999997e-8f,
                               1e-8f,
                               1e-30f,
                               1e-45f,
                               0.9999995f,
                               0.99999946f,
                               0.99999952f,
                               9.999995f,
                               10.0f,
                               12345.678f,
                               1e15f,
                               1e16f,
                               3e38f,
                               -0.25f,
                               -1e-9f,
                               std::numeric_limits<float>::denorm_min(),
                               std::numeric_limits<float>::max(),
                               std::numeric_limits<float>::infinity(),
                               -std::numeric_limits<float>::infinity(),
                               std::numeric_limits<float>::quiet_NaN()};
  // every float between 1e-9 and 20 in steps of 2003 ulps, and values either side of
  // 6-digit rounding boundaries (k + 0.5) * 10^-m, where ties and near-ties decide a digit
  std::uint32_t low, high;
  const float lo = 1e-9f, hi = 20.0f;
  std::memcpy(&low, &lo, 4);
  std::memcpy(&high, &hi, 4);
  for (std::uint32_t bits = low; bits < high; bits += 2003) values.push_back(from_bits(bits));
  for (std::uint32_t bits = 1; bits < low; bits += 49999) values.push_back(from_bits(bits));  // down to subnormals
  for (int m = 6; m <= 12; ++m)
    for (int k = 100000; k < 1000000; k += 7919) {
      const float boundary = static_cast<float>((k + 0.5) * std::pow(10.0, -m));
      values.push_back(boundary);
      values.push_back(std::nextafter(boundary, 0.0f));
      values.push_back(std::nextafter(boundary, 1.0f));
    }
  int differ = 0, longer = 0;
  for (float v : values) {
    std::string got;
    attn::cli::append_weight(got, v);
    const std::string want = reference_text(v);
    if (!same_number(got, want) && ++differ <= 5) UNSCOPED_INFO(v << ": got " << got << ", want " << want);
    if (got.size() > want.size()) ++longer;  // never longer than the old text
  }
  CHECK(longer == 0);
  CHECK(values.size() > 100000);
  CHECK(differ == 0);
}

TEST_CASE("append_nested writes [layers][heads][rows][cols] as nlohmann wrote it", "[cli]") {
  const std::vector<float> data = {0.5f, 0.25f, 1e-9f, 0.0f, 1.0f, 0.125f, 3e-5f, 0.75f, 0.1f, 0.2f, 0.3f, 0.4f};
  std::string got;
  attn::cli::append_nested(got, data, 2, 1, 2, 3);
  CHECK(got == "[[[[0.5,0.25,1e-09],[0.0,1.0,0.125]]],[[[3e-05,0.75,0.1],[0.2,0.3,0.4]]]]");
}
