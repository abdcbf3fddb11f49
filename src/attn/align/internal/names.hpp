// Lists of names for error messages ("unknown method 'x' (known: a, b, c)"). Not public API.
#pragma once

#include <string>
#include <vector>

namespace attn::detail {

// "a, b, c"
inline std::string comma_joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace attn::detail
