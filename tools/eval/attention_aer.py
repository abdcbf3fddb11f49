#!/usr/bin/python3
"""Alignment error rate of a model's attention on the XL-WA English-Spanish dev set.

  /usr/bin/python3 -m tools.eval.attention_aer models/en-es-additive.safetensors

Forced decoding with the numpy reference (translate.py) gives word-level attention; each target
word is linked to its most-attended source word unless that is the null (</s>) column. XL-WA's
sentences come pre-tokenized; where our tokenizer splits one of their tokens further (e.g.
"NOS/NTR"), our words map back to the XL-WA token they came from. All XL-WA links are sure
links, so AER = 1 - F1.
"""
import argparse
from pathlib import Path

from tools.train.translate import Model

DEV = Path(__file__).resolve().parents[3] / "shared" / "data" / "xl-wa-es-dev" / "dev.tsv"


def words_of(model, tokens):
    """Our words of a pre-tokenized sentence and, per word, the index of its source token."""
    words, origin = [], []
    for index, token in enumerate(tokens):
        pieces = model.words(token)
        words += pieces
        origin += [index] * len(pieces)
    return words, origin


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("--dev", default=str(DEV))
    args = parser.parse_args()
    model = Model(args.model)
    english_source = model.metadata["source_language"] == "en"
    found = gold_count = correct = 0
    for line in Path(args.dev).read_text(encoding="utf-8").splitlines():
        english, spanish, links = line.split("\t")
        gold = {tuple(map(int, link.split("-"))) for link in links.split()}  # (en, es)
        en_words, en_origin = words_of(model, english.split())
        es_words, es_origin = words_of(model, spanish.split())
        source, target = (en_words, es_words) if english_source else (es_words, en_words)
        result = model.align(" ".join(source), " ".join(target))
        assert result["source_words"] == source and result["target_words"] == target
        predicted = set()
        for s, t in result["links"]:
            en, es = (s, t) if english_source else (t, s)
            predicted.add((en_origin[en], es_origin[es]))
        found += len(predicted)
        gold_count += len(gold)
        correct += len(predicted & gold)
    precision, recall = correct / max(found, 1), correct / gold_count
    f1 = 2 * precision * recall / max(precision + recall, 1e-9)
    print(f"{args.model}: precision {precision:.3f} recall {recall:.3f} AER {1 - f1:.3f} "
          f"({correct} of {found} predicted links correct, {gold_count} gold links)")


if __name__ == "__main__":
    main()
