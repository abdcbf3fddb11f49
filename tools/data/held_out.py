#!/usr/bin/env python3
"""A training corpus without the sentence pairs of a choosing set, so that the set measures text the
aligner never saw (train_aligners.sh: XL-WA's silver pairs are also in the pairs' training text).

    held_out.py SET.tsv XX OUT CORPUS [CORPUS ...]

Writes OUT.en and OUT.XX: every line pair of CORPUS.en / CORPUS.XX, in order, except those whose
English or other side is a sentence of SET.tsv (its first two columns; case and spacing ignored).
Prints how many pairs were kept and how many left out.
"""
import sys


def key(line):
    return " ".join(line.lower().split())


def main(argv):
    if len(argv) < 5:
        sys.exit(__doc__.strip())
    chosen, xx, out, corpora = argv[1], argv[2], argv[3], argv[4:]
    english, other = set(), set()
    with open(chosen, encoding="utf-8") as f:
        for line in f:
            columns = line.rstrip("\n").split("\t")
            if len(columns) < 2:
                sys.exit(f"held_out.py: {chosen}: a line without two tab-separated sentences")
            english.add(key(columns[0]))
            other.add(key(columns[1]))
    kept = left_out = 0
    with open(f"{out}.en", "w", encoding="utf-8") as out_en, open(f"{out}.{xx}", "w", encoding="utf-8") as out_xx:
        for corpus in corpora:
            with open(f"{corpus}.en", encoding="utf-8") as en, open(f"{corpus}.{xx}", encoding="utf-8") as xs:
                for e, x in zip(en, xs, strict=True):  # files of unequal length are an error
                    if key(e) in english or key(x) in other:
                        left_out += 1
                        continue
                    out_en.write(e)
                    out_xx.write(x)
                    kept += 1
    print(f"{kept} pairs kept, {left_out} left out")


if __name__ == "__main__":
    main(sys.argv)
