#!/usr/bin/env python3
"""Does a translation model copy emoji and symbols? The share of symbols written back unchanged.

  python3 -m tools.eval.symbols MODEL [--languages es,zh] [--beam 4] [--json]

Reads data/en-XX/symbols-held-out.{en,XX} (tools/data/symbols.py --held-out: sentences of the
valid split, never trained on, with code points no training pair carries), translates each side
with build/bin/attn (English -> XX and XX -> English), and counts, per direction, the symbols of
the source found in the translation (each as often as in the source) and the sentences whose
every symbol came through. A symbol is a token made of symbol characters only (Unicode So, Sm, Sk,
with variation selectors and joiners).
"""
import argparse
import collections
import json
import sys
import unicodedata
from pathlib import Path

from tools.eval.translation import ROOT, languages_of, translate

PARTS = {"So", "Sm", "Sk", "Mn", "Cf"}


def is_symbol(token):
    return (any(unicodedata.category(c) in ("So", "Sm", "Sk") for c in token)
            and all(unicodedata.category(c) in PARTS for c in token))


def symbols(line):
    return collections.Counter(token for token in line.split() if is_symbol(token))


def copied(sources, hypotheses):
    """(symbols copied, symbols, sentences with every symbol copied, sentences with a symbol)."""
    found = total = whole = sentences = 0
    for source, hypothesis in zip(sources, hypotheses):
        want, got = symbols(source), symbols(hypothesis)
        if not want:
            continue
        sentences += 1
        total += sum(want.values())
        hits = sum(min(count, got[token]) for token, count in want.items())
        found += hits
        whole += hits == sum(want.values())
    return found, total, whole, sentences


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--languages", help="default: every language of the model file")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--data", default=str(ROOT / "data"))
    args = parser.parse_args(argv)
    languages = args.languages.split(",") if args.languages else languages_of(args.model)
    sums = [0, 0, 0, 0]
    for lang in languages:
        folder = Path(args.data) / f"en-{lang}"
        english = (folder / "symbols-held-out.en").read_text(encoding="utf-8").splitlines()
        other = (folder / f"symbols-held-out.{lang}").read_text(encoding="utf-8").splitlines()
        for direction, sources, target in ((f"en-{lang}", english, lang), (f"{lang}-en", other, "en")):
            counts = copied(sources, translate(args.model, sources, target, args.beam))
            sums = [a + b for a, b in zip(sums, counts)]
            print(json.dumps({"model": args.model, "direction": direction, "symbols": counts[1],
                              "copied": round(counts[0] / max(counts[1], 1), 4),
                              "sentences": counts[3], "whole": round(counts[2] / max(counts[3], 1), 4)}), flush=True)
    print(json.dumps({"model": args.model, "direction": "all", "symbols": sums[1],
                      "copied": round(sums[0] / max(sums[1], 1), 4), "sentences": sums[3],
                      "whole": round(sums[2] / max(sums[3], 1), 4)}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
