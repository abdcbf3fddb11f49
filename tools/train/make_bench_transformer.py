#!/usr/bin/python3
"""An untrained Transformer of the size tools/train/train.py trains (3 + 3 layers, d 256, 4 heads,
F 1024) with the shipped models' tokenizer, for timing only: the speed of forced decoding with
every attention map depends on the architecture, not on what the weights learned.

  /usr/bin/python3 -m tools.train.make_bench_transformer OUT.safetensors
  /usr/bin/python3 tools/train/make_bench_transformer.py OUT.safetensors   (the same, by its path)

./run bench makes build/bench/random-transformer.safetensors with it (when PyTorch is there) and
times it with attn_bench_models and tools/bench/models.mjs. Its translations are noise and run to
the length limit (2 S + 10 pieces): a pessimistic time for beam search, not a trained model's.
"""
import json
import sys
from pathlib import Path

import torch

if __package__:
    from tools.train import safetensors, spec
    from tools.train.transformer import Transformer
else:  # run by its path, as ../shared/bench/models/run does: tools/train/ is then on sys.path
    import safetensors
    import spec
    from transformer import Transformer

ROOT = Path(__file__).resolve().parents[2]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make_bench_transformer.py OUT.safetensors")
    _, metadata = safetensors.read(ROOT / "models" / "en-es-additive.safetensors")
    vocabulary = json.loads(metadata["tokenizer"])["vocab"]  # bpe.py's JSON: the pieces, id = index
    torch.manual_seed(1)
    model = Transformer(len(vocabulary)).eval()  # train.py's default architecture
    out = Path(sys.argv[1])
    out.parent.mkdir(parents=True, exist_ok=True)
    spec.write_model(out, model.tensors(), format=spec.TRANSFORMER, architecture=model.config,
                     tokenizer=metadata["tokenizer"], languages=spec.direction_metadata("en-es"),
                     training={"note": "untrained, for timing only"})
    print(f"wrote {out} ({out.stat().st_size / 2**20:.1f} MiB, {json.dumps(model.config, sort_keys=True)})")


if __name__ == "__main__":
    main()
