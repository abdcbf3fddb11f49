"""The PyTorch Transformer (transformer.py) and its export (train.export).

  /usr/bin/python3 -m pytest tools/train/test_transformer.py      (needs python3-torch; a few seconds)

Padding must not change what a sentence computes (the masks), the decoder must not see the
future, and the exported file must hold exactly the tensors and metadata that
docs/MODEL_FORMAT.md §7 lists.
"""
import json
import tempfile
from pathlib import Path

import numpy as np
import torch

from tools.train import bpe as B, safetensors
from tools.train.train import export
from tools.train.transformer import Transformer


def tiny(vocab_size=40):
    torch.manual_seed(0)
    return Transformer(vocab_size, encoder_layers=2, decoder_layers=3, heads=2, model_dim=8, ff_dim=12,
                       dropout=0.0).eval()


def test_padding_changes_nothing_for_a_sentence():
    model = tiny()
    source, target_in = [5, 6, 7, B.EOS], [B.BOS, 9, 10]
    padded_source = torch.tensor([source, [5, B.EOS, B.PAD, B.PAD]])
    padded_target = torch.tensor([target_in, [B.BOS, 11, B.PAD]])
    with torch.no_grad():
        alone, _ = model(torch.tensor([source]), torch.tensor([source]) != B.PAD, torch.tensor([target_in]))
        batch, weights = model(padded_source, padded_source != B.PAD, padded_target)
    assert torch.allclose(alone[0], batch[0], atol=1e-6)
    assert float(weights[1, :, 2:].abs().max()) == 0.0  # no attention to padding


def test_the_decoder_does_not_see_the_future():
    model = tiny()
    source = torch.tensor([[5, 6, B.EOS]])
    with torch.no_grad():
        memory, _ = model.encode(source, source != B.PAD)
        short, _, _ = model.decode(memory, source != B.PAD, torch.tensor([[B.BOS, 9]]))
        longer, self_maps, _ = model.decode(memory, source != B.PAD, torch.tensor([[B.BOS, 9, 30, 31]]))
    assert torch.allclose(short[0], longer[0, :2], atol=1e-6)
    for layer in self_maps:
        assert float(torch.triu(layer[0], diagonal=1).abs().max()) == 0.0


def test_the_supervised_head_defaults_to_the_penultimate_decoder_layer():
    assert tiny().alignment_layer == 1
    assert Transformer(40, 1, 1, 2, 8, 12).alignment_layer == 0


def test_export_writes_the_format_tensors_and_metadata():
    bpe = B.learn({w: 3 for w in "the cat el gato".split()}, 300, min_char_count=1)
    model = tiny(len(bpe.vocab))

    class Args:
        arch, direction, seed, align_supervision, export_dtype = "transformer", "en-es", 1, None, "f32"

    state = {"history": [], "step": 0, "epoch_progress": 0.0, "elapsed": 0.0}
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "t.safetensors"
        export(model, Args(), bpe, state, path)
        tensors, metadata = safetensors.read(path)
    assert metadata["format"] == "attnscope-transformer-v1"
    assert "attention" not in metadata
    architecture = json.loads(metadata["architecture"])
    assert architecture == {"encoder_layers": 2, "decoder_layers": 3, "heads": 2, "model_dim": 8, "ff_dim": 12,
                            "vocab_size": len(bpe.vocab), "alignment_layer": 1, "alignment_head": 0}
    assert all(t.dtype == np.float32 for t in tensors.values())
    names = {"embedding", "output.bias", "encoder.norm.weight", "encoder.norm.bias", "decoder.norm.weight",
             "decoder.norm.bias"}
    linear = lambda prefix, out, inp: {f"{prefix}.weight": (out, inp), f"{prefix}.bias": (out,)}  # noqa: E731
    shapes = {}
    for side, layers, parts in (("encoder", 2, ("self",)), ("decoder", 3, ("self", "cross"))):
        for i in range(layers):
            prefix = f"{side}.layers.{i}"
            for part in parts + ("feed_forward",):
                shapes.update(linear(f"{prefix}.{part}_norm", 8, 8))
                shapes[f"{prefix}.{part}_norm.weight"] = (8,)
            for part in parts:
                for projection in ("query", "key", "value", "output"):
                    shapes.update(linear(f"{prefix}.{part}_attention.{projection}", 8, 8))
            shapes.update(linear(f"{prefix}.feed_forward.input", 12, 8))
            shapes.update(linear(f"{prefix}.feed_forward.output", 8, 12))
    assert set(tensors) == names | set(shapes)
    for name, shape in shapes.items():
        assert tensors[name].shape == shape, (name, tensors[name].shape, shape)
    assert tensors["embedding"].shape == (len(bpe.vocab), 8)
