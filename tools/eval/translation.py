#!/usr/bin/env python3
"""chrF (Popović 2015: character 6-gram F-score, beta = 2, as in sacrebleu's default) of a model's
translations of the held-out test split, made with the C++ tool (build/bin/attn translate).

  python3 -m tools.eval.translation models/en-es-additive.safetensors [--beam 4] [--limit 500]
  python3 -m tools.eval.translation MODEL --direction fr-en     (data/en-fr/test.*: a pair's held-out split;
                                                                 a multilingual file needs --direction)
  python3 -m tools.eval.translation MODEL --gold --direction en-fr   (out of domain: the sentences of the
                                                                 pair's gold alignment dev set, never trained on)
  python3 -m tools.eval.translation MODEL --gold --all          (every pair of the file, both directions: a table)

Prints the corpus chrF and a few example translations.
"""
import argparse
import collections
import json
import subprocess
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


def gold_table(model, beam):
    """chrF of every direction of a multilingual file on its pairs' gold dev sentences."""
    header = json.loads(Path(model).read_bytes()[8:8 + int.from_bytes(Path(model).read_bytes()[:8], "little")])
    languages = [lang for lang in json.loads(header["__metadata__"]["languages"]) if lang != "en"]
    rows = {}
    for other in languages:
        english, foreign = gold_sentences(other)
        rows[other] = {f"en-{other}": round(chrf(translate(model, english, other, beam), foreign), 2),
                       f"{other}-en": round(chrf(translate(model, foreign, "en", beam), english), 2),
                       "pairs": len(english)}
        print(json.dumps({"model": model, "pair": f"en-{other}", **rows[other]}), flush=True)
    return rows


def char_ngrams(text, n):
    text = text.replace(" ", "")  # sacrebleu's chrF ignores whitespace
    return collections.Counter(text[i:i + n] for i in range(len(text) - n + 1))


def chrf(hypotheses, references, order=6, beta=2.0):
    """Corpus-level chrF: n-gram statistics summed over sentences, averaged over n = 1..order."""
    matches = [0] * order
    hyp_total = [0] * order
    ref_total = [0] * order
    for hypothesis, reference in zip(hypotheses, references):
        for n in range(1, order + 1):
            h, r = char_ngrams(hypothesis, n), char_ngrams(reference, n)
            matches[n - 1] += sum((h & r).values())
            hyp_total[n - 1] += sum(h.values())
            ref_total[n - 1] += sum(r.values())
    precision = sum(m / h for m, h in zip(matches, hyp_total) if h) / order
    recall = sum(m / r for m, r in zip(matches, ref_total) if r) / order
    if precision + recall == 0:
        return 0.0
    return 100 * (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)


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
    args = parser.parse_args()
    if args.gold and args.all:
        gold_table(args.model, args.beam)
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
