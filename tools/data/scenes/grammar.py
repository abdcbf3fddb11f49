"""Captions of scenes: a small grammar of counts, sizes and positions.

  caption   := phrase                                   one kind
             | phrase relation phrase                   two kinds, named in OBJECTS order
             | phrase "," phrase "and" phrase           three kinds, left to right
  phrase    := article [size] noun                      one object: "a small cat", "an apple"
             | number plural                            several: "two cats", "three keys"
  relation  := "to the left of" | "to the right of" | "above" | "below"
  size      := "small" | "big"                          only for one object of its kind

The vocabulary's first two words are <bos> and <eos>."""
from .objects import NAMES, PLURALS

NUMBERS = ("a", "two", "three", "four")
SIZE_WORDS = {"small": "small", "plain": None, "big": "big"}
RELATIONS = {"left": ("to", "the", "left", "of"), "right": ("to", "the", "right", "of"),
             "above": ("above",), "below": ("below",)}
BOS, EOS = "<bos>", "<eos>"
VOCABULARY = (BOS, EOS, "a", "an", "two", "three", "four", "small", "big", "to", "the", "left", "right", "of",
              "above", "below", ",", "and") + NAMES + tuple(p for p in PLURALS if p not in NAMES)


def phrase(kind, count, size):
    """Words naming count objects of kind; size ("small", "plain", "big") only counts for one object."""
    if count == 1:
        adjective = SIZE_WORDS[size]
        words = ([adjective] if adjective else []) + [NAMES[kind]]
        return ["an" if words[0][0] in "aeiou" else "a"] + words
    return [NUMBERS[count - 1], PLURALS[kind]]


def caption(groups, relation=None):
    """groups: [(kind, count, size)] in the order the caption names them; relation between the
    first and the second of two groups ("left": the first is to the left of the second, ...)."""
    phrases = [phrase(*g) for g in groups]
    if len(groups) == 1:
        return phrases[0]
    if len(groups) == 2:
        return phrases[0] + list(RELATIONS[relation]) + phrases[1]
    if len(groups) == 3:
        return phrases[0] + [","] + phrases[1] + ["and"] + phrases[2]
    raise ValueError(f"a caption names 1 to 3 kinds, not {len(groups)}")


def named_kinds(words):
    """{kind: count} a caption names (count 1 for "a"/"an", the number word's otherwise)."""
    from .objects import KIND_OF_WORD
    named = {}
    for i, word in enumerate(words):
        if word in KIND_OF_WORD:
            number = next((w for w in reversed(words[max(0, i - 2):i]) if w in NUMBERS or w == "an"), "a")
            named[KIND_OF_WORD[word]] = named.get(KIND_OF_WORD[word], 0) + (1 if number == "an" else NUMBERS.index(number) + 1)
    return named
