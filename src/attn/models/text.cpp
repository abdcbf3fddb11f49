#include "attn/models/text.hpp"

#include <utf8proc.h>

#include <cstdlib>
#include <memory>

#include "attn/core/error.hpp"

namespace attn {

namespace {

// Whether next_code_point reads every byte of the text as part of a well-formed sequence.
bool is_valid_utf8(std::string_view text) noexcept {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    if (next_code_point(text, i) == replacement_character && i - start == 1) return false;
  }
  return true;
}

// utf8proc_map over the text, made valid first (utf8proc refuses invalid UTF-8 as a whole).
std::string mapped(std::string_view text, utf8proc_option_t options) {
  std::string valid;
  if (!is_valid_utf8(text)) {
    valid = valid_utf8(text);
    text = valid;
  }
  if (text.empty()) return {};
  utf8proc_uint8_t* result = nullptr;
  const utf8proc_ssize_t length = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(text.data()),
                                               static_cast<utf8proc_ssize_t>(text.size()), &result, options);
  const std::unique_ptr<utf8proc_uint8_t, decltype(&std::free)> owner(result, &std::free);
  if (length < 0) fail("utf8proc: ", utf8proc_errmsg(length));  // valid UTF-8 never gets here
  return std::string(reinterpret_cast<const char*>(result), static_cast<std::size_t>(length));
}

template <class Function>
std::vector<std::string> each(const std::vector<std::string>& words, Function function) {
  std::vector<std::string> out;
  out.reserve(words.size());
  for (const std::string& word : words) out.push_back(function(word));
  return out;
}

}  // namespace

char32_t next_code_point(std::string_view text, std::size_t& position) noexcept {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char b0 = byte(position);
  int extra = 0;
  char32_t c;
  if (b0 < 0x80) {
    c = b0;
  } else if ((b0 & 0xE0) == 0xC0) {
    c = b0 & 0x1F;
    extra = 1;
  } else if ((b0 & 0xF0) == 0xE0) {
    c = b0 & 0x0F;
    extra = 2;
  } else if ((b0 & 0xF8) == 0xF0) {
    c = b0 & 0x07;
    extra = 3;
  } else {
    ++position;
    return replacement_character;
  }
  for (int k = 1; k <= extra; ++k) {
    if (position + k >= text.size() || (byte(position + k) & 0xC0) != 0x80) {
      ++position;
      return replacement_character;
    }
    c = (c << 6) | (byte(position + k) & 0x3F);
  }
  static const char32_t minimum[] = {0, 0x80, 0x800, 0x10000};
  if (c < minimum[extra] || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) {  // overlong or not a scalar value
    ++position;
    return replacement_character;
  }
  position += extra + 1;
  return c;
}

void append_utf8(std::string& out, char32_t c) {
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
}

bool is_ascii(std::string_view text) noexcept {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) >= 0x80) return false;
  }
  return true;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) append_utf8(out, next_code_point(text, i));
  return out;
}

std::string printable_utf8(std::string_view text) {
  std::string out;
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t start = i;
    const char32_t c = next_code_point(text, i);
    if (c == replacement_character) continue;  // a malformed byte, or a U+FFFD of the text
    const utf8proc_category_t category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
    const bool hidden = category == UTF8PROC_CATEGORY_CC || (category == UTF8PROC_CATEGORY_CF && c != 0x200D) ||
                        category == UTF8PROC_CATEGORY_ZL || category == UTF8PROC_CATEGORY_ZP ||
                        category == UTF8PROC_CATEGORY_CO || category == UTF8PROC_CATEGORY_CS ||
                        category == UTF8PROC_CATEGORY_CN;
    if (!hidden) out.append(text.substr(start, i - start));
  }
  return out;
}

// Alignment normalizes every word, and most words are ASCII: those skip utf8proc.
std::string nfc(std::string_view text) {
  if (is_ascii(text)) return std::string(text);
  return mapped(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
}

std::vector<std::string> nfc(const std::vector<std::string>& words) {
  return each(words, [](const std::string& word) { return nfc(word); });
}

std::string treebank_unescaped(const std::string& word) {
  static const std::pair<const char*, const char*> escapes[] = {{"-LRB-", "("}, {"-RRB-", ")"}, {"-LSB-", "["},
                                                                {"-RSB-", "]"}, {"-LCB-", "{"}, {"-RCB-", "}"},
                                                                {"``", "\""},   {"''", "\""}};
  for (const auto& [escaped, text] : escapes) {
    if (word == escaped) return text;
  }
  return word;
}

std::vector<std::string> treebank_unescaped(const std::vector<std::string>& words) {
  return each(words, [](const std::string& word) { return treebank_unescaped(word); });
}

std::string case_folded(std::string_view text) {
  if (is_ascii(text)) {
    std::string out(text);
    for (char& c : out) {
      if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    }
    return out;
  }
  return mapped(text, static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_CASEFOLD));
}

std::vector<std::string> case_folded(const std::vector<std::string>& words) {
  return each(words, [](const std::string& word) { return case_folded(word); });
}

bool is_word_char(char32_t c) noexcept {
  if (c < 0x80) return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  const utf8proc_category_t category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_NO;  // Lu Ll Lt Lm Lo Mn Mc Me Nd Nl No
}

bool is_letter(char32_t c) noexcept {
  if (c < 0x80) return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
  const utf8proc_category_t category = utf8proc_category(static_cast<utf8proc_int32_t>(c));
  return category >= UTF8PROC_CATEGORY_LU && category <= UTF8PROC_CATEGORY_ME;  // Lu Ll Lt Lm Lo Mn Mc Me
}

bool is_space(char32_t c) noexcept {
  const utf8proc_property_t* property = utf8proc_get_property(static_cast<utf8proc_int32_t>(c));
  return property->category == UTF8PROC_CATEGORY_ZS || property->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
         property->bidi_class == UTF8PROC_BIDI_CLASS_B || property->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

std::vector<std::size_t> grapheme_starts(const std::vector<char32_t>& chars) {
  std::vector<std::size_t> starts;
  utf8proc_int32_t state = 0;
  for (std::size_t k = 0; k < chars.size(); ++k) {
    if (k == 0 || utf8proc_grapheme_break_stateful(static_cast<utf8proc_int32_t>(chars[k - 1]),
                                                   static_cast<utf8proc_int32_t>(chars[k]), &state)) {
      starts.push_back(k);
    }
  }
  starts.push_back(chars.size());
  return starts;
}

}  // namespace attn
