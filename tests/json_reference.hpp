// The tests' reading of reference outputs written as JSON by tools/train's fixture makers.
#pragma once

#include <nlohmann/json.hpp>

#include <vector>

namespace testing {

// Nested JSON arrays of numbers, flattened in row-major order.
inline void flatten_json(const nlohmann::json& value, std::vector<float>& out) {
  if (value.is_array()) {
    for (const auto& item : value) flatten_json(item, out);
  } else {
    out.push_back(value.get<float>());
  }
}

inline std::vector<float> flattened(const nlohmann::json& value) {
  std::vector<float> out;
  flatten_json(value, out);
  return out;
}

}  // namespace testing
