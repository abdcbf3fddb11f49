#!/usr/bin/python3
"""The captioner benchmark's PyTorch side (tools/bench/caption_torch.py): the training model loaded
from models/captioner.safetensors, and the two modules exported to ONNX for onnxruntime-web, caption
held-out scenes as `attn caption` does, with the same attention. Needs python3-torch, python3-pil,
librsvg2-bin, tools/data's npm packages and a built `attn` ($ATTN_CLI, default build/bin/attn):

  /usr/bin/python3 -m pytest tools/bench/test_caption_torch.py      (from the repository root)
"""
import json
import os
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from tools.data.scenes import generate
from . import caption_torch

MODEL = Path("models/captioner.safetensors")
ATTN = os.environ.get("ATTN_CLI", "build/bin/attn")


def scenes(folder, count=3):
    """(RGBA uint8 image, PNG path) of the benchmark's first held-out scenes (seed 2)."""
    out = []
    for i in range(count):
        path = Path(folder) / f"{i:05d}.png"
        Image.fromarray(generate.render(generate.scene(2, "held-out", i))).save(path)
        out.append((caption_torch.read_rgba(path), path))
    return out


def attn_caption(path):
    result = subprocess.run([ATTN, "caption", "--json", "-m", str(MODEL), str(path)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_the_training_model_with_the_files_weights_captions_and_attends_as_attn_caption_does():
    model, meta = caption_torch.load(MODEL)
    with tempfile.TemporaryDirectory() as folder:
        for image, path in scenes(folder):
            expected = attn_caption(path)
            with torch.no_grad():
                annotations = model.encoder(model.prepare(torch.from_numpy(image)[None]))
                ids, alphas, _ = model.greedy(annotations, meta["bos_id"], meta["eos_id"])
            words = caption_torch.words_of(ids[0].tolist(), meta)
            assert words == expected["words"], (path, words, expected["words"])
            ours, theirs = alphas[0, :len(words)].numpy(), np.array(expected["attention"])
            assert ours.shape == theirs.shape and np.abs(ours - theirs).max() < 1e-3, np.abs(ours - theirs).max()


def test_the_exported_graphs_modules_in_the_benchmarks_greedy_loop_write_the_same_captions():
    model, meta = caption_torch.load(MODEL)
    with tempfile.TemporaryDirectory() as folder:
        encode, step = caption_torch.export(model, meta, Path(folder))
        for name in ("caption_encoder.onnx", "caption_step.onnx"):
            assert (Path(folder) / name).stat().st_size > 100_000, name
        for image, path in scenes(folder):
            expected = attn_caption(path)["words"]
            assert caption_torch.caption_by_graphs(encode, step, meta, image) == expected, path
            assert caption_torch.caption(model, meta, image) == expected, path

