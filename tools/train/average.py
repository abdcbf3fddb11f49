#!/usr/bin/env python3
"""The mean of model files' weights, tensor by tensor (weight averaging of files trained from one
another: the same architecture and vocabulary), written as F32 for tools.train.quantize.

  python3 -m tools.train.average A.safetensors B.safetensors [...] --out MEAN.safetensors

int8 files are read dequantized. The metadata is the last file's (the newest run, whose tokenizer
and architecture every file must share), its training record keeping the others' records under
"averaged_with". Whether the mean aligns and translates better is measured, not assumed."""
import argparse
import json
import struct

import numpy as np

from tools.train import safetensors


def average(files):
    """({name: float32 mean}, metadata) of [(file name, (tensors, metadata)), ...]; ValueError naming the file that
    differs from the last in architecture, tokenizer, tensor names or shapes."""
    if len(files) < 2:
        raise ValueError("averaging needs at least two files")
    names = [name for name, _ in files]
    loaded = [(name, safetensors.dequantized(tensors), metadata) for name, (tensors, metadata) in files]
    _, last, metadata = loaded[-1]
    for name, tensors, meta in loaded[:-1]:
        for key in ("architecture", "tokenizer"):
            if meta.get(key) != metadata.get(key):
                raise ValueError(f"{name}: its {key} differs from {names[-1]}'s")
        try:
            safetensors.check_tensors(name, {k: np.shape(v) for k, v in last.items()}, tensors)
        except ValueError as error:
            raise ValueError(f"{name} and {names[-1]} differ: {error}") from None
    mean = {k: np.mean([np.asarray(t[k], dtype=np.float32) for _, t, _ in loaded], axis=0).astype(np.float32)
            for k in last}
    for k, value in mean.items():
        if not np.isfinite(value).all():
            raise ValueError(f"tensor {k}: the mean is not finite (a file holds NaN or infinity)")
    record = json.loads(metadata.get("training", "{}"))
    record["averaged_with"] = [json.loads(meta.get("training", "{}")) for _, _, meta in loaded[:-1]]
    out = {k: v for k, v in metadata.items() if k != "quantization"}
    out["training"] = json.dumps(record, sort_keys=True)
    return mean, out


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("models", nargs="+", help="model files (F32, F16 or int8), the newest run last")
    p.add_argument("--out", required=True, help="the F32 file to write")
    args = p.parse_args()
    files = []
    for path in args.models:
        try:
            files.append((path, safetensors.read(path)))
        except (OSError, ValueError, KeyError, struct.error) as error:
            raise SystemExit(f"average: {path} is not a readable safetensors file ({error})") from None
    try:
        mean, metadata = average(files)
    except ValueError as error:
        raise SystemExit(f"average: {error}") from None
    safetensors.write(args.out, mean, metadata)
    print(f"{args.out}: the mean of {len(args.models)} files, {len(mean)} tensors")


if __name__ == "__main__":
    main()
