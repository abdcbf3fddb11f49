#!/usr/bin/python3
"""A tiny random Transformer and its PyTorch reference outputs, for tests/test_transformer.cpp:

  /usr/bin/python3 -m tools.train.make_transformer_fixture   (writes tests/data/tiny-transformer.safetensors
                                                               and tests/data/tiny-transformer-reference.json,
                                                               tests/data/tiny-multilingual.safetensors and
                                                               tests/data/tiny-multilingual-reference.json)

2 + 2 layers, d 16, 2 heads, F 24, the 300-piece BPE of make_fixture.py's text. The weights are
rounded to fp16 and stored so, and the reference runs in float64 on those same values, so the C++
core (float32) is compared with exact arithmetic. Per pair: forced decoding's log p(y_t) for
every step and every attention map (cross [layer][head][T][S], encoder [layer][head][S][S],
decoder [layer][head][T][T]), and the greedy translation. The multilingual twin (docs/MODEL_FORMAT.md
§7.1) has the same sizes, a vocabulary ending in the tags <2en> <2es> <2fr>, and a reference per
pair and target language, the decoder starting from that language's tag.
"""
import collections
import json
from pathlib import Path

import torch

here = Path(__file__).resolve().parent
from tools.data.words import tokenize
from tools.train import bpe as B, spec
from tools.train.make_fixture import PAIRS, TEXT
from tools.train.transformer import Transformer

ROOT = here.parents[1]
OUT = ROOT / "tests" / "data"
SIZES = {"encoder_layers": 2, "decoder_layers": 2, "heads": 2, "model_dim": 16, "ff_dim": 24}
MAX_LENGTH = 12


def random_model(vocab_size):
    torch.manual_seed(7)
    model = Transformer(vocab_size, dropout=0.0, **SIZES).eval()
    with torch.no_grad():
        for name, p in model.named_parameters():
            # larger than at initialisation, so attention is far from uniform and a wrong equation
            # shows; layer-norm gains around 1; then fp16, as the file stores them
            if "norm" in name and name.endswith("weight"):
                p.copy_(1.0 + 0.3 * torch.randn_like(p))
            else:
                p.copy_(torch.randn_like(p) * (0.6 if p.dim() > 1 else 0.3))
            p.copy_(p.half().float())
    return model.double()


def forced(model, source_ids, target_ids, start=B.BOS):
    """Forced decoding of target_ids (</s> appended) after `start`: log p(y_t) [T] and the maps."""
    source = torch.tensor([source_ids + [B.EOS]])
    target_in = torch.tensor([[start] + target_ids])
    target_out = target_ids + [B.EOS]
    mask = torch.ones_like(source, dtype=torch.bool)
    with torch.no_grad():
        memory, encoder = model.encode(source, mask)
        logits, decoder, cross = model.decode(memory, mask, target_in)
        log_probs = torch.log_softmax(logits[0], dim=-1)
    maps = lambda layers: torch.stack([m[0] for m in layers]).tolist()  # noqa: E731
    return {"log_probs": [log_probs[t, y].item() for t, y in enumerate(target_out)],
            "cross": maps(cross), "encoder": maps(encoder), "decoder": maps(decoder)}


def greedy(model, source_ids, start=B.BOS):
    """Greedy search by full recomputation: argmax (lowest id on ties) until </s> or MAX_LENGTH."""
    ids = []
    source = torch.tensor([source_ids + [B.EOS]])
    mask = torch.ones_like(source, dtype=torch.bool)
    with torch.no_grad():
        memory, _ = model.encode(source, mask)
        while len(ids) < MAX_LENGTH:
            logits, _, _ = model.decode(memory, mask, torch.tensor([[start] + ids]))
            ids.append(int(torch.argmax(logits[0, -1])))
            if ids[-1] == B.EOS:
                break
    return ids


def main():
    counts = collections.Counter(tokenize(TEXT))
    tokenizer = B.learn(counts, 300, min_char_count=1)
    model = random_model(len(tokenizer.vocab))
    path = OUT / "tiny-transformer.safetensors"
    spec.write_model(path, model.tensors(), format=spec.TRANSFORMER, architecture=model.config,
                     tokenizer=tokenizer.to_json(), languages=spec.direction_metadata("en-es"),
                     training={"note": "random test fixture"})
    cases = []
    for source, target in PAIRS:
        source_ids = tokenizer.encode(tokenize(source))
        target_ids = tokenizer.encode(tokenize(target))
        case = {"source": source, "target": target, "source_ids": source_ids, "target_ids": target_ids}
        case.update(forced(model, source_ids, target_ids))
        case["greedy_ids"] = greedy(model, source_ids)
        cases.append(case)
    reference = {"architecture": model.config, "max_length": MAX_LENGTH, "cases": cases}
    (OUT / "tiny-transformer-reference.json").write_text(json.dumps(reference, separators=(",", ":")))
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes) and tests/data/tiny-transformer-reference.json")
    multilingual(counts)


def multilingual(counts):
    languages = ["en", "es", "fr"]
    learned = B.learn(counts, 300 - len(languages), min_char_count=1)
    tokenizer = B.BPE(learned.vocab + [f"<2{lang}>" for lang in languages], learned.merges)
    model = random_model(len(tokenizer.vocab))
    tags = {lang: tokenizer.ids[f"<2{lang}>"] for lang in languages}
    path = OUT / "tiny-multilingual.safetensors"
    spec.write_model(path, model.tensors(), format=spec.TRANSFORMER, architecture=model.config,
                     tokenizer=tokenizer.to_json(), languages=spec.multilingual_metadata(languages, tags),
                     training={"note": "random test fixture"})
    cases = []
    for source, target in PAIRS:
        for language in ("es", "fr"):
            source_ids = tokenizer.encode(tokenize(source))
            target_ids = tokenizer.encode(tokenize(target))
            case = {"source": source, "target": target, "language": language, "source_ids": source_ids,
                    "target_ids": target_ids}
            case.update(forced(model, source_ids, target_ids, tags[language]))
            case["greedy_ids"] = greedy(model, source_ids, tags[language])
            cases.append(case)
    reference = {"architecture": model.config, "max_length": MAX_LENGTH, "tags": tags, "cases": cases}
    (OUT / "tiny-multilingual-reference.json").write_text(json.dumps(reference, separators=(",", ":")))
    print(f"wrote {path.relative_to(ROOT)} ({path.stat().st_size} bytes) and tests/data/tiny-multilingual-reference.json")


if __name__ == "__main__":
    main()
