#!/usr/bin/env python3
"""chrF (Popović 2015: character 6-gram F-score, beta = 2, as in sacrebleu's default) of a model's
translations of the held-out test split, made with the C++ tool (build/bin/attn translate).

  python3 -m tools.eval.translation models/en-es-additive.safetensors [--beam 4] [--limit 500]
  python3 -m tools.eval.translation MODEL --direction fr-en     (data/en-fr/test.*: a pair's held-out split;
                                                                 a multilingual file needs --direction)
  python3 -m tools.eval.translation MODEL --gold --direction en-fr   (out of domain: the sentences of the
                                                                 pair's gold alignment dev set, never trained on)
  python3 -m tools.eval.translation MODEL --gold --all          (every pair of the file, both directions: a table)
  python3 -m tools.eval.translation MODEL --gold --all --base OTHER   (and OTHER's, with the share of 1,000 paired
                                                                 bootstrap resamples on which MODEL is better, per
                                                                 direction, per pair and over all)

Prints the corpus chrF and a few example translations.
"""
import argparse
import collections
import json
import random
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOLD = ROOT.parent / "shared" / "data"
EUROPARL = ("de", "fr")  # XL-WA has no French or German: Europarl's gold set


def gold_sentences(other):
    """(English, other) sentences of the pair's gold alignment dev set (tokenized, as the data)."""
    path = (GOLD / "nist-zh-gold" / "dev.tsv" if other == "zh"
            else GOLD / ("europarl-gold" if other in EUROPARL else "xl-wa") / other / "dev.tsv")
    rows = [line.split("\t") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [row[0] for row in rows], [row[1] for row in rows]


def translate(model, sources, target_language, beam):
    command = [str(ROOT / "build/bin/attn"), "translate", "-m", model, "--beam", str(beam)]
    if target_language:
        command += ["--target-language", target_language]
    run = subprocess.run(command, input="\n".join(sources) + "\n", capture_output=True, text=True, check=True)
    hypotheses = run.stdout.splitlines()
    assert len(hypotheses) == len(sources), (len(hypotheses), len(sources))
    return hypotheses


def languages_of(model):
    raw = Path(model).read_bytes()
    header = json.loads(raw[8:8 + int.from_bytes(raw[:8], "little")])
    return [lang for lang in json.loads(header["__metadata__"]["languages"]) if lang != "en"]


def gold_table(model, beam, base=None, resamples=1000):
    """chrF of every direction of a multilingual file on its pairs' gold dev sentences; with base
    (another file), the base's too and, per direction, per pair (both directions' mean) and over
    all, the share of paired bootstrap resamples on which the model is better."""
    languages = languages_of(model)
    if base:
        missing = [lang for lang in languages if lang not in languages_of(base)]
        languages = [lang for lang in languages if lang not in missing]
        if missing:
            print(f"--base {base} has no {','.join(missing)}: compared on the others", file=sys.stderr)
    rows, pooled_model, pooled_base = {}, [], []
    for other in languages:
        english, foreign = gold_sentences(other)
        row, pair_model, pair_base = {}, [], []
        for direction, sources, references, target in ((f"en-{other}", english, foreign, other),
                                                        (f"{other}-en", foreign, english, "en")):
            stats = [sentence_stats(h, r) for h, r in zip(translate(model, sources, target, beam), references)]
            row[direction] = round(chrf_of(summed(stats)), 2)
            pair_model.append(stats)
            if base:
                base_stats = [sentence_stats(h, r) for h, r in zip(translate(base, sources, target, beam), references)]
                row[f"base {direction}"] = round(chrf_of(summed(base_stats)), 2)
                row[f"better {direction}"] = paired_bootstrap([stats], [base_stats], resamples)
                pair_base.append(base_stats)
        if base:
            row["better pair"] = paired_bootstrap(pair_model, pair_base, resamples)
        pooled_model += pair_model
        pooled_base += pair_base
        rows[other] = {**row, "pairs": len(english)}
        print(json.dumps({"model": model, "pair": f"en-{other}", **rows[other]}), flush=True)
    if base and pooled_model:
        mean = sum(chrf_of(summed(s)) for s in pooled_model) / len(pooled_model)
        base_mean = sum(chrf_of(summed(s)) for s in pooled_base) / len(pooled_base)
        print(json.dumps({"model": model, "base": base, "directions": len(pooled_model), "mean": round(mean, 2),
                          "base mean": round(base_mean, 2),
                          "better": paired_bootstrap(pooled_model, pooled_base, resamples)}), flush=True)
    return rows


def char_ngrams(text, n):
    text = text.replace(" ", "")  # sacrebleu's chrF ignores whitespace
    return collections.Counter(text[i:i + n] for i in range(len(text) - n + 1))


def sentence_stats(hypothesis, reference, order=6):
    """A sentence's chrF statistics: per n = 1..order, (matches, hypothesis n-grams, reference n-grams)."""
    stats = []
    for n in range(1, order + 1):
        h, r = char_ngrams(hypothesis, n), char_ngrams(reference, n)
        stats.append((sum((h & r).values()), sum(h.values()), sum(r.values())))
    return stats


def chrf_of(stats, beta=2.0):
    """chrF of statistics summed over sentences: [(matches, hypothesis, reference)] per n."""
    order = len(stats)
    precision = sum(m / h for m, h, _ in stats if h) / order
    recall = sum(m / r for m, _, r in stats if r) / order
    if precision + recall == 0:
        return 0.0
    return 100 * (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)


def summed(sentences, indices=None):
    """Statistics of sentences (each sentence_stats) summed over indices (default all)."""
    chosen = sentences if indices is None else [sentences[i] for i in indices]
    return [tuple(sum(s[n][k] for s in chosen) for k in range(3)) for n in range(len(chosen[0]))] if chosen else []


def chrf(hypotheses, references, order=6, beta=2.0):
    """Corpus-level chrF: n-gram statistics summed over sentences, averaged over n = 1..order."""
    sentences = [sentence_stats(h, r, order) for h, r in zip(hypotheses, references)]
    return chrf_of(summed(sentences), beta) if sentences else 0.0


def paired_bootstrap(candidate, base, resamples=1000, seed=1):
    """The share of `resamples` resamples of the sentences (with replacement, the same for both:
    Koehn 2004) on which the candidate's corpus chrF is above the base's. candidate, base: lists of
    lists of sentence_stats (several directions pooled: a resample draws from each list alike, and
    the score is the mean of their chrF)."""
    rng = random.Random(seed)
    wins = 0
    for _ in range(resamples):
        draws = [[rng.randrange(len(c)) for _ in c] for c in candidate]
        a = sum(chrf_of(summed(c, d)) for c, d in zip(candidate, draws)) / len(candidate)
        b = sum(chrf_of(summed(c, d)) for c, d in zip(base, draws)) / len(base)
        wins += a > b
    return wins / resamples


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--beam", type=int, default=4)
    parser.add_argument("--limit", type=int, default=500, help="test pairs to translate")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--direction", default=None,
                        help="XX-YY: the held-out split of data/en-XX/ (or en-YY/); default the model's own "
                             "direction on the legacy data/test.*")
    parser.add_argument("--gold", action="store_true",
                        help="translate the pair's gold alignment dev set (out of domain) instead of the held-out split")
    parser.add_argument("--all", action="store_true", help="with --gold: every direction of a multilingual file")
    parser.add_argument("--base", help="with --gold --all: another file, compared by paired bootstrap (1,000 resamples)")
    args = parser.parse_args()
    if args.base and not (args.gold and args.all):
        parser.error("--base compares every direction: use it with --gold --all")
    if args.gold and args.all:
        gold_table(args.model, args.beam, args.base)
        return
    header = json.loads(Path(args.model).read_bytes()[8:8 + int.from_bytes(Path(args.model).read_bytes()[:8], "little")])
    direction = args.direction or header["__metadata__"]["direction"]
    source_language, target_language = direction.split("-")
    folder = ROOT / "data"
    if args.direction:
        other = target_language if source_language == "en" else source_language
        folder = folder / f"en-{other}"
    if args.gold:
        english, foreign = gold_sentences(target_language if source_language == "en" else source_language)
        sources, references = (english, foreign) if source_language == "en" else (foreign, english)
    else:
        sources = (folder / f"test.{source_language}").read_text(encoding="utf-8").splitlines()[:args.limit]
        references = (folder / f"test.{target_language}").read_text(encoding="utf-8").splitlines()[:args.limit]
    hypotheses = translate(args.model, sources, target_language if args.direction else None, args.beam)
    score = chrf(hypotheses, references)
    examples = [{"source": s, "reference": r, "translation": h} for s, r, h in list(zip(sources, references, hypotheses))[:6]]
    if args.json:
        print(json.dumps({"model": args.model, "direction": direction, "chrF": round(score, 2), "pairs": len(sources), "examples": examples}, ensure_ascii=False))
        return
    print(f"{args.model} {direction}: chrF {score:.2f} on {len(sources)} held-out pairs (beam {args.beam})")
    for e in examples:
        print(f"  EN {e['source']}\n  REF {e['reference']}\n  OUT {e['translation']}\n")


if __name__ == "__main__":
    main()
