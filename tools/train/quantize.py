#!/usr/bin/env python3
"""Stores a model file's matrices as int8 with per-row scales (docs/MODEL_FORMAT.md §3): half the
bytes of F16, the same architecture, tokenizer and metadata; vectors (biases, norms) stay F16.

  python3 -m tools.train.quantize models/multilingual-transformer.safetensors OUT.safetensors

Prints the file sizes and the largest error per value relative to its row's largest value
(at most 1/254 by construction). Whether a quantized model aligns and translates as well is
measured, not assumed: tools/eval/pairs.sh and tools/eval/translation.py on both files."""
import argparse
from pathlib import Path

import numpy as np

from tools.train import safetensors


def quantize(tensors):
    """{name: array} with every matrix as I8 + NAME.scale (F32) and every other tensor as F16."""
    out = {}
    for name, value in safetensors.dequantized(tensors).items():
        value = np.asarray(value, dtype=np.float32)
        if value.ndim == 2:
            out[name], out[name + ".scale"] = safetensors.quantize_rows(value)
        else:
            out[name] = value.astype(np.float16)
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model", help="a .safetensors model file (F32, F16 or already int8)")
    p.add_argument("out", help="the int8 file to write")
    args = p.parse_args()
    tensors, metadata = safetensors.read(args.model)
    if "format" not in metadata:
        raise SystemExit(f"{args.model}: no 'format' in its metadata: not an attnscope model file")
    quantized = quantize(tensors)
    metadata = dict(metadata, quantization="int8: each matrix row q * scale, scale = max |w| / 127 (F32)")
    safetensors.write(args.out, quantized, metadata)
    before = safetensors.dequantized(tensors)
    after = safetensors.dequantized(quantized)
    worst = max(float(np.max(np.abs(after[n] - before[n].astype(np.float32)) /
                             np.maximum(np.abs(before[n].astype(np.float32)).max(axis=1, keepdims=True), 1e-30)))
                for n in before if before[n].ndim == 2)
    print(f"{args.model}: {Path(args.model).stat().st_size} bytes -> {args.out}: {Path(args.out).stat().st_size} "
          f"bytes; largest error {worst:.5f} of a row's largest value")


if __name__ == "__main__":
    main()
