"""Join the Brown/apertium and gettext pairs, tokenize, filter, split.

Usage: python3 assemble.py WORK_DIR OUT_DIR [XL_WA_DEV_TSV]

Reads WORK_DIR/brown.en, WORK_DIR/brown.es (apertium output *with* its unknown-word marks),
WORK_DIR/catalog-pairs.tsv and WORK_DIR/catalog-stats.json. Writes OUT_DIR/{train,valid,test}.{en,es}
(space-separated tokens, one sentence a line), OUT_DIR/{train,valid,test}.origin (where each
pair came from) and OUT_DIR/stats.json (the count after every filter, quoted by
docs/DATA_CARD.md).
"""
import collections
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

from tools.data.pairs import write_pairs  # the twelve pairs' splits are written the same way
from tools.data.words import tokenize  # the rule the C++ side reimplements

SEED = 42
TEST_PAIRS = 1000
VALID_PAIRS = 1000
MAX_TOKENS = 50
MAX_RATIO = 2.5
RATIO_FROM = 4  # the ratio limit applies once the longer side has this many tokens

# apertium marks: *word unknown (copied through), #word generation error, @word transfer error
UNKNOWN = re.compile(r"\*(?=\w)")
LOWERCASE_UNKNOWN = re.compile(r"\*[^\W\d_A-Z]")  # *word starting with a lowercase letter
ERROR_MARK = re.compile(r"[#@](?=\w)")


def brown_pairs(work, stats):
    english = (work / "brown.en").read_text(encoding="utf-8").split("\n")[:-1]
    spanish = (work / "brown.es").read_text(encoding="utf-8").split("\n")[:-1]
    # apertium keeps one output line per input line; anything else means a shifted corpus
    assert len(english) == len(spanish), (len(english), len(spanish))
    counts = collections.Counter(raw=len(english))
    for en, es in zip(english, spanish):
        if re.search(r"[*#@]", en):
            counts["dropped: source has *, # or @ (would be confused with apertium marks)"] += 1
        elif re.search(r"\bAf\b", en):
            counts["dropped: source has a formula (Brown writes each as the token Af)"] += 1
        elif ERROR_MARK.search(es):
            counts["dropped: apertium generation/transfer error mark (# or @)"] += 1
        elif LOWERCASE_UNKNOWN.search(es):
            counts["dropped: English word left untranslated (*lowercase unknown)"] += 1
        else:
            # A capitalized or numeric unknown is a name or number, correctly copied through.
            counts["kept"] += 1
            yield "brown", en, UNKNOWN.sub("", es)
    stats["brown"] = dict(counts)


def catalog_pairs(work):
    for line in (work / "catalog-pairs.tsv").read_text(encoding="utf-8").splitlines():
        origin, en, es = line.split("\t")
        yield origin, en, es


def xl_wa_sentences(path):
    """Token-normalized, lowercased sentences (both languages) of the evaluation set."""
    keys = set()
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        en, es, _ = line.split("\t")
        for side in (en, es):
            keys.add(" ".join(tokenize(unicodedata.normalize("NFC", side))).lower())
    return keys


def filtered(pairs, held_out, stats):
    """Tokenized pairs that pass every filter, counting each drop in order."""
    counts = collections.Counter()
    seen = set()
    for origin, en, es in pairs:
        counts["input"] += 1
        en_tokens = tokenize(unicodedata.normalize("NFC", en))
        es_tokens = tokenize(unicodedata.normalize("NFC", es))
        shorter, longer = sorted((len(en_tokens), len(es_tokens)))
        en_line, es_line = " ".join(en_tokens), " ".join(es_tokens)
        if shorter < 1 or longer > MAX_TOKENS:
            counts[f"dropped: length outside 1..{MAX_TOKENS} tokens"] += 1
        elif longer >= RATIO_FROM and longer > MAX_RATIO * shorter:
            counts[f"dropped: length ratio > {MAX_RATIO}"] += 1
        elif en_tokens == es_tokens:
            counts["dropped: target identical to source (untranslated)"] += 1
        elif (en_line, es_line) in seen:
            counts["dropped: exact duplicate pair"] += 1
        elif en_line.lower() in held_out or es_line.lower() in held_out:
            counts["dropped: sentence of the XL-WA evaluation set"] += 1
        else:
            seen.add((en_line, es_line))
            counts["kept"] += 1
            yield origin, en_line, es_line
    stats["filters"] = dict(counts)


def split(pairs):
    """Test and validation pairs drawn by English sentence, so that no English sentence of the
    test or validation set has any translation in training."""
    by_source = collections.defaultdict(list)
    for pair in pairs:
        by_source[pair[1]].append(pair)
    sources = sorted(by_source)
    random.Random(SEED).shuffle(sources)
    parts = {"test": [], "valid": [], "train": []}
    for source in sources:
        if len(parts["test"]) < TEST_PAIRS:
            parts["test"] += by_source[source]
        elif len(parts["valid"]) < VALID_PAIRS:
            parts["valid"] += by_source[source]
        else:
            parts["train"] += by_source[source]
    return parts


def main():
    work, out = Path(sys.argv[1]), Path(sys.argv[2])
    stats = {"catalogs": json.loads((work / "catalog-stats.json").read_text())}
    held_out = set()
    if len(sys.argv) > 3:
        held_out = xl_wa_sentences(sys.argv[3])
        stats["xl_wa_sentences_checked"] = len(held_out)
    else:
        print("warning: no XL-WA file given, evaluation-set overlap not checked", file=sys.stderr)
    raw = list(brown_pairs(work, stats)) + list(catalog_pairs(work))
    parts = split(list(filtered(raw, held_out, stats)))
    for name, pairs in parts.items():
        write_pairs(out, name, "es", pairs)
        stats.setdefault("splits", {})[name] = {
            "pairs": len(pairs),
            "en_tokens": sum(len(en.split()) for _, en, _ in pairs),
            "es_tokens": sum(len(es.split()) for _, _, es in pairs),
            "from_brown": sum(origin.split("/")[0] == "brown" for origin, _, _ in pairs),
        }
    (out / "stats.json").write_text(json.dumps(stats, indent=1, ensure_ascii=False) + "\n")
    print(json.dumps(stats, indent=1, ensure_ascii=False))


if __name__ == "__main__":
    main()
