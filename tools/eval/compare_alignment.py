#!/usr/bin/env python3
"""Two model directories' alignments on every pair's gold dev set, with a paired bootstrap: does a
new model align better than the shipped one?

    python3 -m tools.eval.compare_alignment NEW_MODELS_DIR [--base models] [--methods "default attention"]
                                            [--set dev|silver] [en-XX ...]

Each pair's gold dev set (XL-WA's; Europarl's for en-de and en-fr, NIST's for en-zh) is aligned by `attn align --pair P`
(the pair's default method) and `--method attention`, once with ATTN_MODELS=BASE and once with
ATTN_MODELS=NEW_MODELS_DIR (a copy of models/ with the candidate file in its place). Prints one line
per pair and method: the two AERs and how often, over 1,000 resamples of the sentences (seed 1, the
same resample for both), the new model's AER is lower (Koehn 2004; choose.py's bootstrap). The last
line pools every pair's sentences. A directory is a whole catalogue: with models/pairs.json changed
in NEW_MODELS_DIR, it compares the pairs' settings (models/pairs.json's attachArticles was chosen so).
--set silver measures on XL-WA's silver train links instead (made by statistical aligners: the set
the HMM candidates are chosen on), for the pairs that have them; the others are left out.
"""
import argparse
import os
import random
import re
import subprocess
from pathlib import Path

from tools.data.choose import aer, counts, links

ROOT = Path(__file__).resolve().parents[2]
PAIRS = "en-es en-bg en-da en-de en-et en-fr en-hu en-it en-nl en-pt en-ru en-sl".split()


def gold_path(pair, which="dev"):
    """A pair's gold set (which: 'dev', or 'silver' for XL-WA's train links); None where it has none."""
    xx = pair.split("-")[1]
    data = ROOT.parent / "shared" / "data"
    if which == "silver":
        return None if xx in ("de", "fr", "zh") else data / "xl-wa" / xx / "train.tsv"
    if xx == "zh":
        return data / "nist-zh-gold" / "dev.tsv"
    group = "europarl-gold" if xx in ("de", "fr") else "xl-wa"
    return data / group / xx / "dev.tsv"


def aligned(models, pair, method, lines):
    command = [str(ROOT / "build/bin/attn"), "align", "--pair", pair]
    if method != "default":
        command += ["--method", method]
    run = subprocess.run(command, input="".join(f"{en} ||| {xx}\n" for en, xx in lines), capture_output=True,
                         text=True, check=True, env=dict(os.environ, ATTN_MODELS=str(models)))
    return run.stdout.splitlines()


def bootstrap(base, new, rounds=1000):
    """Share of resamples in which new's AER is below base's."""
    rng, n, wins = random.Random(1), len(base), 0
    for _ in range(rounds):
        sample = [rng.randrange(n) for _ in range(n)]
        wins += aer(new, sample) < aer(base, sample)
    return wins / rounds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("new")
    parser.add_argument("--base", default=str(ROOT / "models"))
    parser.add_argument("--methods", default="default attention")
    parser.add_argument("--set", choices=("dev", "silver"), default="dev")
    parser.add_argument("pairs", nargs="*", default=PAIRS)
    args = parser.parse_intermixed_args(argv)
    for pair in args.pairs:
        if not re.fullmatch(r"en-[a-z]{2,3}", pair):
            parser.error(f"a pair is named en-XX, as en-{pair} (got {pair!r})")
    pooled = {}
    for method in args.methods.split():
        for pair in args.pairs:
            path = gold_path(pair, args.set)
            if path is None:
                print(f"{pair}\t{method}\tno {args.set} set", flush=True)
                continue
            # english, other, links: the last three columns (XL-WA's silver lines hold more)
            rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line]
            gold = [links(row[-1]) for row in rows]
            lines = [(row[-3], row[-2]) for row in rows]
            base = counts(gold, aligned(args.base, pair, method, lines))
            new = counts(gold, aligned(args.new, pair, method, lines))
            everything = range(len(rows))
            print(f"{pair}\t{method}\tbase {aer(base, everything):.4f}\tnew {aer(new, everything):.4f}\t"
                  f"new lower in {bootstrap(base, new):.1%} of resamples", flush=True)
            pooled.setdefault(method, ([], []))
            pooled[method][0].extend(base)
            pooled[method][1].extend(new)
    for method, (base, new) in pooled.items():
        everything = range(len(base))
        print(f"all\t{method}\tbase {aer(base, everything):.4f}\tnew {aer(new, everything):.4f}\t"
              f"new lower in {bootstrap(base, new):.1%} of resamples")


if __name__ == "__main__":
    main()
