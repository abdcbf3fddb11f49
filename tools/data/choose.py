#!/usr/bin/env python3
"""train_aligners.sh's choice among a pair's candidate aligners: the smallest file among those whose
default AER on the choosing set is not significantly above the lowest.

    choose.py GOLD NAME:BYTES:OUTPUT [NAME:BYTES:OUTPUT ...]

GOLD: the choosing set (tab-separated, links in the last column: "i-j" sure, "ipj" or "i?j" possible);
OUTPUT: a candidate's Pharaoh links for its lines. "Significantly" by a paired bootstrap (Koehn
2004): the sentences resampled 1,000 times (seed 1), the same resample for both candidates, and a
candidate is within the set's noise of the lowest unless the lowest wins in 95 % of the resamples.
Paired, because the candidates align the same sentences: their difference varies far less than
either AER does (the fixed margins used before, 0.003 on 1,000 silver pairs, were guesses of the
latter). Prints one line: AER, bytes, name of the choice; then, on stderr, each candidate's AER
and how often the lowest beat it.
"""
import random
import sys


def links(text):
    """Pharaoh links as attn aer reads them: "i-j" sure, "ipj" or "i?j" possible."""
    sure, possible = set(), set()
    for link in text.split():
        sep = next((c for c in "p?" if c in link), "-")
        i, j = link.split(sep)
        (possible if sep != "-" else sure).add((int(i), int(j)))
    return sure, sure | possible


def counts(gold, predicted):
    """Per sentence: |A & S|, |A & P|, |A|, |S|."""
    out = []
    for (sure, possible), line in zip(gold, predicted):
        a = links(line)[0]
        out.append((len(a & sure), len(a & possible), len(a), len(sure)))
    return out


def aer(c, sample):
    s = [sum(c[k][f] for k in sample) for f in range(4)]
    return 1.0 - (s[0] + s[1]) / (s[2] + s[3]) if s[2] + s[3] else 0.0


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__.strip())
    with open(argv[1], encoding="utf-8") as f:
        gold = [links(line.rstrip("\n").split("\t")[-1]) for line in f]  # the links: the last column
    candidates = []
    for spec in argv[2:]:
        name, size, output = spec.split(":", 2)
        with open(output, encoding="utf-8") as f:
            predicted = [line.rstrip("\n") for line in f]
        if len(predicted) != len(gold):
            sys.exit(f"choose.py: {output} has {len(predicted)} lines, {argv[1]} {len(gold)}")
        candidates.append((name, int(size), counts(gold, predicted)))
    everything = range(len(gold))
    scores = [aer(c, everything) for _, _, c in candidates]
    lowest = min(range(len(candidates)), key=lambda k: scores[k])
    rng = random.Random(1)
    samples = [[rng.randrange(len(gold)) for _ in everything] for _ in range(1000)]
    best = [aer(candidates[lowest][2], s) for s in samples]
    pick = None
    for k, (name, size, c) in enumerate(candidates):
        wins = sum(b < aer(c, s) for b, s in zip(best, samples)) / len(samples) if k != lowest else 0.0
        print(f"{name}\tAER {scores[k]:.4f}\tlowest better in {wins:.1%}", file=sys.stderr)
        if wins < 0.95 and (pick is None or size < candidates[pick][1]):
            pick = k
    print(f"{scores[pick]:.4f} {candidates[pick][1]} {candidates[pick][0]}")


if __name__ == "__main__":
    main(sys.argv)
