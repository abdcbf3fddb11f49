// Character classes of jieba's regular expressions (jieba/__init__.py re_han_default, re_skip;
// finalseg's re_han, re_skip), shared by the dictionary segmenter and its HMM. Not public API.
#pragma once

namespace attn::detail {

// A Han character as jieba reads one: U+4E00..U+9FD5.
inline bool is_han(char32_t c) { return c >= 0x4E00 && c <= 0x9FD5; }

inline bool is_ascii_alphanumeric(char32_t c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

}  // namespace attn::detail
