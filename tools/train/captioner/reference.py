"""The captioner's forward pass in numpy, from the model file alone (docs/MODEL_FORMAT.md §8):
the reference the C++ captioner is tested against (tests/data/captioner-tiny*.json).

  python3 -m tools.train.captioner.reference models/captioner.safetensors IMAGE.png [--hard --seed S]

prints {"words", "grid", "attention", "log_probs"} as `attn caption --json` does."""
import argparse
import json

import numpy as np

from . import fileformat, pixels

MASK64 = (1 << 64) - 1


class SplitMix64:
    """The hard sampler's generator: state starts at the seed; each draw adds 0x9E3779B97F4A7C15
    and mixes (Steele et al. 2014); uniform() = (draw >> 11) * 2^-53, in [0, 1)."""

    def __init__(self, seed):
        self.state = int(seed) & MASK64

    def next(self):
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def uniform(self):
        return (self.next() >> 11) * 2.0 ** -53


def sample_cell(alpha, rng):
    """The first cell i whose running sum alpha_0 + ... + alpha_i exceeds u = rng.uniform() (sums
    in float64); the last cell of nonzero alpha if rounding leaves u above the total."""
    u = rng.uniform()
    total = 0.0
    last = 0
    for i, a in enumerate(alpha):
        total += float(a)
        if a > 0:
            last = i
        if total > u:
            return i
    return last


def conv3x3(x, weight, bias):
    """x [H][W][C], weight [O][3][3][C] -> [H][W][O]: stride 1, zero padding 1."""
    H, W, _ = x.shape
    padded = np.pad(x, ((1, 1), (1, 1), (0, 0)))
    out = np.broadcast_to(bias, (H, W, len(bias))).copy()
    for dy in range(3):
        for dx in range(3):
            out += padded[dy:dy + H, dx:dx + W, :] @ weight[:, dy, dx, :].T
    return out


def max_pool2(x):
    H, W, C = x.shape
    return x[:H // 2 * 2, :W // 2 * 2].reshape(H // 2, 2, W // 2, 2, C).max(axis=(1, 3))


def encode(tensors, arch, image):
    """annotations [g*g][D] of a prepared image [S][S][3]."""
    x = image.astype(np.float64)
    layers = len(arch["channels"])
    for k in range(layers):
        x = np.maximum(conv3x3(x, tensors[f"encoder.conv{k}.weight"], tensors[f"encoder.conv{k}.bias"]), 0)
        if k < layers - 1:
            x = max_pool2(x)
    return x.reshape(-1, x.shape[2]) + tensors["encoder.position"]


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def decode(tensors, meta, annotations, prefix="decoder", hard=False, seed=0):
    """Greedy words (no <eos>), alpha [T][cells], chosen cells [T] (argmax of alpha for soft, the
    sample for hard) and each word's log-probability."""
    w = {k[len(prefix) + 1:]: v for k, v in tensors.items() if k.startswith(prefix + ".")}
    vocabulary, eos = meta["vocabulary"], meta["eos_id"]
    n = meta["hidden_size"]
    summary = annotations.mean(0)
    if meta["architecture"].get("start", "mean") == "mean+max":
        summary = np.concatenate([summary, annotations.max(0)])
    h = np.tanh(w["init_h.weight"] @ summary + w["init_h.bias"])
    c = np.tanh(w["init_c.weight"] @ summary + w["init_c.bias"])
    keys = annotations @ w["attention.annotation.weight"].T + w["attention.annotation.bias"]
    rng = SplitMix64(seed)
    previous = meta["bos_id"]
    words, alphas, cells, log_probs = [], [], [], []
    for _ in range(meta["architecture"]["max_words"]):
        scores = np.tanh(keys + w["attention.hidden.weight"] @ h) @ w["attention.score"]
        alpha = np.exp(scores - scores.max())
        alpha /= alpha.sum()
        beta = sigmoid(w["gate.weight"] @ h + w["gate.bias"][0])
        if hard:
            cell = sample_cell(alpha, rng)
            context = beta * annotations[cell]
        else:
            cell = int(np.argmax(alpha))
            context = beta * (alpha @ annotations)
        embedded = w["embedding"][previous]
        gates = (w["lstm.weight_ih"] @ np.concatenate([embedded, context]) + w["lstm.bias_ih"]
                 + w["lstm.weight_hh"] @ h + w["lstm.bias_hh"])
        i, f, g, o = sigmoid(gates[:n]), sigmoid(gates[n:2 * n]), np.tanh(gates[2 * n:3 * n]), sigmoid(gates[3 * n:])
        c = f * c + i * g
        h = o * np.tanh(c)
        logits = w["output.weight"] @ (embedded + w["output.hidden.weight"] @ h + w["output.hidden.bias"]
                                       + w["output.context.weight"] @ context) + w["output.bias"]
        top = logits.max()
        log_softmax = logits - top - np.log(np.exp(logits - top).sum())
        previous = int(np.argmax(logits))
        if previous == eos:
            break
        words.append(vocabulary[previous])
        alphas.append(alpha)
        cells.append(cell)
        log_probs.append(float(log_softmax[previous]))
    return words, np.array(alphas).reshape(len(words), -1), cells, log_probs


def caption(tensors, meta, image, hard=False, seed=0):
    """{"words", "grid", "attention" ([T][g*g]: alpha for soft, the sampled cell's one-hot for
    hard), "alpha", "cells", "log_probs"} of an image [H][W][3 or 4] uint8 of any size."""
    arch = meta["architecture"]
    prepared = pixels.prepare(image, arch["image_size"], meta["pixel_mean"], meta["pixel_std"]).astype(np.float64)
    words, alphas, cells, log_probs = decode(tensors, meta, encode(tensors, arch, prepared),
                                             "hard" if hard else "decoder", hard, seed)
    cell_count = arch["grid"][0] * arch["grid"][1]
    attention = np.eye(cell_count)[cells] if hard else alphas
    return {"words": words, "grid": arch["grid"], "attention": attention.reshape(len(words), cell_count).tolist(),
            "alpha": alphas.tolist(), "cells": cells, "log_probs": log_probs}


def main():
    from PIL import Image
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("image")
    p.add_argument("--hard", action="store_true")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args()
    tensors, meta = fileformat.read(args.model)
    out = caption(tensors, meta, np.asarray(Image.open(args.image).convert("RGBA")), args.hard, args.seed)
    print(json.dumps({k: out[k] for k in ("words", "grid", "attention", "log_probs")}))


if __name__ == "__main__":
    main()
