"""A tiny random captioner and its numpy-reference outputs, for the C++ and JavaScript tests:

  python3 -m tools.train.captioner.make_fixture     (writes tests/data/captioner-tiny.safetensors,
                                                     tests/data/captioner-tiny.png and
                                                     tests/data/captioner-tiny.json)
  python3 -m tools.train.captioner.make_fixture --start mean+max
                                                    (captioner-tiny-max.{safetensors,json}: its
                                                     decoder starts from the mean and the maximum)

The model has the real file format and vocabulary with tiny sizes (a 16 x 16 input, a 4 x 4
grid) and random weights large enough that attention is far from uniform; the image is 20 x 14
RGBA with transparent pixels, so the resize and the compositing over white are exercised too.
The JSON holds the image's pixels, the prepared input, the annotations and the soft and hard
(seeds 1 and 7) captions as reference.py computes them."""
import argparse
import json
from pathlib import Path

import numpy as np
import torch
from PIL import Image

from tools.data.scenes import grammar, objects
from . import fileformat, model, pixels, reference

SIZES = {"image_size": 16, "channels": [4, 6, 8], "hidden_size": 12, "embedding_dim": 10, "attention_dim": 7,
         "max_words": 8}
OUT = Path("tests/data")


def tiny_model(seed, sizes=SIZES):
    torch.manual_seed(seed)
    m = model.Captioner(len(grammar.VOCABULARY), sizes)
    with torch.no_grad():
        for norm in m.encoder.norms:
            norm.running_mean.uniform_(-0.5, 0.5)
            norm.running_var.uniform_(0.5, 2.0)
            norm.weight.uniform_(0.5, 1.5)
            norm.bias.uniform_(-0.2, 0.2)
        m.encoder.position.normal_(0, 0.5)
        for decoder in (m.decoder, m.hard):
            decoder.att_score.mul_(8.0)
            decoder.att_annotation.weight.mul_(1.5)
            decoder.att_hidden.weight.mul_(6.0)
            decoder.output.weight.mul_(3.0)
    return m.eval()


def tiny_image():
    y, x = np.mgrid[0:14, 0:20]
    rgba = np.stack([(x * 13) % 256, (y * 19) % 256, ((x + y) * 7) % 256, np.full_like(x, 255)], -1)
    rgba[2:5, 3:9, 3] = 0
    rgba[9:12, 12:17, 3] = 128
    return rgba.astype(np.uint8)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--start", choices=model.STARTS, default="mean")
    args = p.parse_args()
    sizes = {**SIZES, "start": args.start} if args.start != "mean" else SIZES
    name = "captioner-tiny" + ("-max" if args.start == "mean+max" else "")
    image = tiny_image()
    for seed in range(100):
        m = tiny_model(seed, sizes)
        tensors = fileformat.from_torch(m)
        arch = fileformat.architecture(len(grammar.VOCABULARY), sizes)
        meta = fileformat.metadata(arch, grammar.VOCABULARY, objects.metadata(), model.PIXEL_MEAN, model.PIXEL_STD,
                                   {"fixture": "random weights, tools/train/captioner/make_fixture.py", "seed": seed},
                                   "none: a test fixture with random weights")
        path = OUT / f"{name}.safetensors"
        fileformat.write(path, tensors, meta, dtype="f32")
        tensors, parsed = fileformat.read(path)
        soft = reference.caption(tensors, parsed, image)
        if len(soft["words"]) >= 4 and len(set(soft["words"])) >= 3:
            break
    prepared = pixels.prepare(image, SIZES["image_size"], model.PIXEL_MEAN, model.PIXEL_STD).astype(np.float64)
    annotations = reference.encode(tensors, parsed["architecture"], prepared)
    Image.fromarray(image, "RGBA").save(OUT / "captioner-tiny.png")
    fixture = {"model": f"{name}.safetensors", "image_png": "captioner-tiny.png",
               "image": {"width": image.shape[1], "height": image.shape[0], "data": image.reshape(-1).tolist()},
               "prepared": prepared.tolist(), "annotations": annotations.tolist(),
               "soft": {k: soft[k] for k in ("words", "grid", "attention", "cells", "log_probs")},
               "hard": {}}
    for hard_seed in (1, 7):
        hard = reference.caption(tensors, parsed, image, hard=True, seed=hard_seed)
        fixture["hard"][str(hard_seed)] = {k: hard[k] for k in ("words", "grid", "attention", "alpha", "cells",
                                                                "log_probs")}
    fixture["splitmix64_seed_7_first_draws"] = [str(d) for d in (lambda r: [r.next() for _ in range(3)])(
        reference.SplitMix64(7))]
    (OUT / f"{name}.json").write_text(json.dumps(fixture) + "\n")
    print(f"{path}: soft {' '.join(soft['words'])!r}; hard seed 7 {' '.join(fixture['hard']['7']['words'])!r} "
          f"cells {fixture['hard']['7']['cells']}")


if __name__ == "__main__":
    main()
