// Unicode text, the one way every entry point reads it (docs/MODEL_FORMAT.md §1): one UTF-8
// decoder, NFC normalization and case folding from utf8proc, and the word tokenizer's character
// classes from Unicode general categories. The aligners reach Unicode only through these.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace attn {

constexpr char32_t replacement_character = 0xFFFD;

// Decodes the code point at text[position] and advances position past it. A byte that does not
// begin a well-formed sequence (stray continuation, truncated, overlong, surrogate, beyond
// U+10FFFF) gives U+FFFD and advances one byte, so the next byte is read afresh.
char32_t next_code_point(std::string_view text, std::size_t& position) noexcept;
// Appends the UTF-8 bytes of a Unicode scalar value.
void append_utf8(std::string& out, char32_t code_point);

bool is_ascii(std::string_view text) noexcept;
// The text with each byte next_code_point rejects replaced by U+FFFD.
std::string valid_utf8(std::string_view text);
// The text's well-formed code points that show as text: bytes next_code_point rejects, U+FFFD,
// controls, format characters (but the emoji joiner U+200D), line and paragraph separators,
// private-use, surrogate and unassigned code points are dropped (a model's byte pieces decoded).
std::string printable_utf8(std::string_view text);

// Canonical composition (NFC), as the training data was normalized; invalid bytes become U+FFFD
// first. ASCII text is already NFC and comes back unchanged without a trip through utf8proc.
std::string nfc(std::string_view text);
std::vector<std::string> nfc(const std::vector<std::string>& words);
// NFC of the full Unicode case folding (CaseFolding.txt C + F, utf8proc's UTF8PROC_CASEFOLD),
// for matching words whatever their case: ИВАН -> иван, ÉCOLE -> école, Straße -> strasse.
// ASCII text is lowercased byte by byte.
std::string case_folded(std::string_view text);
std::vector<std::string> case_folded(const std::vector<std::string>& words);

// The word tokenizer's classes (§1). Word character: general category L*, M* or N*. Space: what
// Python's str.isspace() accepts, general category Zs or bidirectional class WS, B or S.
bool is_word_char(char32_t code_point) noexcept;
bool is_space(char32_t code_point) noexcept;
// A word as the Penn Treebank escapes it read back: -LRB- (, -RRB- ), -LSB- [, -RSB- ], -LCB- {,
// -RCB- }, `` and '' the double quote; any other word as it is. Gold alignment sets tokenized
// the Treebank's way (NIST's English–Chinese) write brackets and quotes so.
std::string treebank_unescaped(const std::string& word);
std::vector<std::string> treebank_unescaped(const std::vector<std::string>& words);

// A letter: general category L* or M* (a mark that NFC left uncombined belongs to its letter).
bool is_letter(char32_t code_point) noexcept;

// Where each user-perceived character (extended grapheme cluster, UAX #29 by utf8proc) of the
// code points starts, in order; a last entry chars.size() closes the last cluster. An emoji ZWJ
// sequence, a flag or a letter with its marks is one cluster.
std::vector<std::size_t> grapheme_starts(const std::vector<char32_t>& chars);

}  // namespace attn
