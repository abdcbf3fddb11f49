"""Word tokenizer shared by the data pipeline, the BPE and the reference translator.

The C++ core reimplements exactly this rule (docs/MODEL_FORMAT.md, "Word tokenizer"), so it is
kept deliberately small:

  * a *word character* is any code point whose Unicode general category starts with L (letter),
    M (mark) or N (number), by Python's `unicodedata` (Unicode 14.0 in Python 3.11);
  * a *word* is a maximal run of word characters; an apostrophe (U+0027 ' or U+2019 ’) that has a
    word character on both sides is part of the word ("Atlanta's", "don't", "l'homme");
  * *space* is any code point for which Python's `str.isspace()` is true; it separates tokens and
    is dropped;
  * every other code point is a token of its own ("-", ",", "%", "€", "«").

No case folding and no Unicode normalization happen here: the data pipeline NFC-normalizes text
before tokenizing, as the C++ library does at its entry points (src/attn/models/text.hpp).

Run `python3 tools/words.py --ranges` to print the word-character and space code-point ranges, to
compare with the C++ classes (which come from utf8proc's Unicode data).
"""
import sys
import unicodedata

APOSTROPHES = ("'", "\u2019")


def is_word_char(ch):
    return unicodedata.category(ch)[0] in "LMN"


def tokenize(text):
    """Split `text` into word and punctuation tokens (see module docstring)."""
    tokens = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch.isspace():
            i += 1
        elif is_word_char(ch):
            start = i
            i += 1
            while i < n:
                if is_word_char(text[i]):
                    i += 1
                elif text[i] in APOSTROPHES and i + 1 < n and is_word_char(text[i + 1]):
                    i += 2  # the apostrophe and the word character after it
                else:
                    break
            tokens.append(text[start:i])
        else:
            tokens.append(ch)
            i += 1
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
