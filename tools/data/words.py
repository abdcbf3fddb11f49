"""Word tokenizer shared by the data pipeline, the BPE and the reference translator.

The C++ core reimplements exactly this rule (docs/MODEL_FORMAT.md, "Word tokenizer"), so it is
kept deliberately small:

  * a *word character* is any code point whose Unicode general category starts with L (letter),
    M (mark) or N (number), by Python's `unicodedata` (Unicode 14.0 in Python 3.11);
  * a *word* is a maximal run of word characters; an apostrophe (U+0027 ' or U+2019 ’) that has a
    word character on both sides is part of the word ("Atlanta's", "don't", "l'homme"), and so is
    a comma or full stop with an ASCII digit on both sides ("1,250", "3.14");
  * *space* is any code point for which Python's `str.isspace()` is true; it separates tokens and
    is dropped;
  * every other code point is a token of its own ("-", ",", "%", "€", "«");
  * the units are user-perceived characters: a code point keeps the marks, variation selectors,
    emoji modifiers and tags after it, a zero-width joiner joins the next code point, and regional
    indicators pair into flags, so "❤️" and "👨‍👩‍👧" are one token each. The C++ library takes
    utf8proc's grapheme clusters (UAX #29); this is the same for every text but exotic ones.

Chinese (`tokenize(text, "zh")`) has no spaces between words: every token holding a Han character
(U+4E00-U+9FD5, jieba's range) is cut into words by jieba's accurate mode with its HMM
(`jieba.cut(token, HMM=True)`, Debian's python3-jieba; the C++ library has the same segmenter), the
rest stays as above. Text that is already segmented, with whitespace between two Han characters, is
taken as given: nothing is cut.

No case folding and no Unicode normalization happen here: the data pipeline NFC-normalizes text
before tokenizing, as the C++ library does at its entry points (src/attn/models/text.hpp).

Run `python3 tools/data/words.py --ranges` to print the word-character and space code-point ranges, to
compare with the C++ classes (which come from utf8proc's Unicode data).
"""
import re
import sys
import unicodedata

APOSTROPHES = ("'", "\u2019")
NUMBER_SEPARATORS, DIGITS = (",", "."), "0123456789"


def is_word_char(ch):
    return unicodedata.category(ch)[0] in "LMN"


def _extends(ch):
    """True for a code point that belongs to the user-perceived character before it."""
    cp = ord(ch)
    return (unicodedata.category(ch)[0] == "M" or 0xFE00 <= cp <= 0xFE0F or 0xE0100 <= cp <= 0xE01EF
            or 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F)


def _cluster_end(text, i):
    """The end of the user-perceived character that starts at text[i]."""
    n = len(text)
    if 0x1F1E6 <= ord(text[i]) <= 0x1F1FF and i + 1 < n and 0x1F1E6 <= ord(text[i + 1]) <= 0x1F1FF:
        return i + 2  # a flag: two regional indicators
    i += 1
    while i < n:
        if _extends(text[i]):
            i += 1
        elif text[i] == "\u200d":
            i += 2 if i + 1 < n else 1  # the joiner and what it joins
        else:
            break
    return min(i, n)


HAN = re.compile("[\u4e00-\u9fd5]")
SEGMENTED = re.compile("[\u4e00-\u9fd5]\\s+[\u4e00-\u9fd5]")
_jieba = None


def segment_chinese(tokens):
    """Each token with a Han character cut into jieba's words (accurate mode, HMM on)."""
    global _jieba
    if _jieba is None:
        import jieba
        jieba.setLogLevel(60)  # no "Building prefix dict" lines on stderr
        _jieba = jieba
    out = []
    for token in tokens:
        out += _jieba.lcut(token, HMM=True) if HAN.search(token) else [token]
    return out


def tokenize(text, lang=None):
    """Split `text` into word and punctuation tokens (see module docstring); lang "zh" segments Han."""
    tokens = _tokens(text)
    if lang == "zh" and not SEGMENTED.search(text):
        tokens = segment_chinese(tokens)
    return tokens


def _tokens(text):
    tokens = []
    i, n = 0, len(text)
    while i < n:
        end = _cluster_end(text, i)
        ch = text[i]
        if ch.isspace():
            i = end
        elif is_word_char(ch):
            start, i = i, end
            while i < n:
                if is_word_char(text[i]):
                    i = _cluster_end(text, i)
                elif text[i] in APOSTROPHES and _cluster_end(text, i) == i + 1 and i + 1 < n and is_word_char(text[i + 1]):
                    i = _cluster_end(text, i + 1)  # the apostrophe and the character after it
                elif (text[i] in NUMBER_SEPARATORS and _cluster_end(text, i) == i + 1 and i + 1 < n
                      and text[i - 1] in DIGITS and text[i + 1] in DIGITS):
                    i = _cluster_end(text, i + 1)  # "1,250", "3.14": the separator and the digit after it
                else:
                    break
            tokens.append(text[start:i])
        else:
            tokens.append(text[i:end])
            i = end
    return tokens


def _ranges(predicate):
    """Inclusive [first, last] code-point ranges where `predicate` holds (surrogates excluded)."""
    out, start = [], None
    for cp in range(0x110000):
        ok = not (0xD800 <= cp <= 0xDFFF) and predicate(chr(cp))
        if ok and start is None:
            start = cp
        elif not ok and start is not None:
            out.append((start, cp - 1))
            start = None
    if start is not None:
        out.append((start, 0x10FFFF))
    return out


if __name__ == "__main__":
    if sys.argv[1:] == ["--ranges"]:
        print(f"# unicodedata {unicodedata.unidata_version}")
        for name, pred in (("word", is_word_char), ("space", str.isspace)):
            ranges = _ranges(pred)
            print(f"{name} {len(ranges)}")
            print(" ".join(f"{a:X}-{b:X}" for a, b in ranges))
    else:
        for line in sys.stdin:
            print(" ".join(tokenize(line)))
