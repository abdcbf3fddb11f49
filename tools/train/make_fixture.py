#!/usr/bin/env python3
"""Tiny random models and their numpy-reference outputs, for the C++ tests (tests/test_rnn.cpp):

  /usr/bin/python3 -m tools.train.make_fixture      (writes tests/data/tiny-*.safetensors and
                                                     tests/data/tiny-reference.json)

The models have the real architecture and file format with tiny sizes and a 300-piece BPE, and
random weights large enough that attention is far from uniform, so the C++ core is checked
against translate.py (the reference implementation) on every equation of docs/MODEL_FORMAT.md.
"""
import collections
import json
from pathlib import Path

import numpy as np

here = Path(__file__).resolve().parent
from tools.data.words import tokenize
from tools.train import bpe as B, spec
from tools.train.translate import Model

ROOT = here.parents[1]
OUT = ROOT / "tests" / "data"
TEXT = """the cat sleeps on the sofa . el gato duerme en el sofá . the dog runs in the park .
el perro corre en el parque . a small house near the river . una casa pequeña cerca del río .
she reads books every evening . ella lee libros cada tarde . where is the station ?
¿ dónde está la estación ?"""
PAIRS = [
    ("the cat sleeps on the sofa .", "el gato duerme en el sofá ."),
    ("where is the station ?", "¿ dónde está la estación ?"),
    ("Fokker built Łódź airplanes", "Fokker construyó aviones en Łódź"),
]
WORDS = ["Łódź", "Fokker", "naïve", "日本語", "a▁b", "emoji🙂", "don't", "sofá"]
SIZES = {"embedding_dim": 8, "encoder_hidden": 6, "decoder_hidden": 10, "attention_dim": 7}


def tensors(attention, vocab_size, rng):
    shapes = spec.rnn_shapes(dict(SIZES, vocab_size=vocab_size), attention)
    return {name: (rng.standard_normal(shape) * 0.8).astype(np.float16) for name, shape in sorted(shapes.items())}


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    counts = collections.Counter(tokenize(TEXT))
    tokenizer = B.learn(counts, 300, min_char_count=1)
    reference = {"words": {w: [tokenizer.ids[p] for p in tokenizer.encode_word(w)] for w in WORDS}, "models": {}}
    reference["tokenize"] = {t: tokenize(t) for t in ["Atlanta's hard-fought \"primary\" -- 3.5%", "'quoted' l’homme", "a  b\u00a0c"]}
    for seed, attention in enumerate(("additive", "general")):
        rng = np.random.default_rng(42 + seed)
        path = OUT / f"tiny-{attention}.safetensors"
        spec.write_model(path, tensors(attention, len(tokenizer.vocab), rng), format=spec.RNN, attention=attention,
                         architecture=dict(SIZES, vocab_size=len(tokenizer.vocab)), tokenizer=tokenizer.to_json(),
                         languages=spec.direction_metadata("en-es"), training={"note": "random test fixture"})
        model = Model(str(path))
        cases = []
        for source, target in PAIRS:
            aligned = model.align(source, target)
            source_ids = tokenizer.encode(tokenize(source))
            greedy, rows, _ = model.run(source_ids, max_length=12)
            cases.append({"source": source, "target": target,
                          "piece_attention": aligned["piece_attention"], "word_attention": aligned["word_attention"],
                          "log_prob": aligned["log_prob"], "greedy_ids": greedy, "greedy_attention": rows.tolist()})
        reference["models"][attention] = cases
        print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes)")
    (OUT / "tiny-reference.json").write_text(json.dumps(reference, ensure_ascii=False, separators=(",", ":")))
    print("wrote tests/data/tiny-reference.json")


if __name__ == "__main__":
    main()
