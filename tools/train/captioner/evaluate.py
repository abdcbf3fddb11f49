"""Measures a captioner file on scenes written by `python3 -m tools.data.scenes` (and redrawn by
tools/data/scenes/chromium.mjs): exact caption, object recall and precision, BLEU-4 and the
pointing game, computed by the numpy reference (reference.py) from the file itself, beside a
nearest-neighbour baseline (the caption of the nearest of --baseline training scenes in 24 x 24
pixels).

  python3 -m tools.train.captioner.evaluate models/captioner.safetensors data/scenes/held-out
  python3 -m tools.train.captioner.evaluate models/captioner.safetensors data/scenes/held-out --hard --seed 1
  python3 -m tools.train.captioner.evaluate models/captioner.safetensors data/scenes/held-out --baseline 20000"""
import argparse
import json
from pathlib import Path

import numpy as np
from PIL import Image

from tools.data.scenes import generate
from . import fileformat, metrics, pixels, reference

THUMBNAIL = 24


def thumbnail(image):
    return pixels.resize(pixels.to_rgb(image), THUMBNAIL).reshape(-1) / 255.0


def nearest_neighbour_captions(images, count, seed):
    """The caption of the nearest of count training scenes (L2 over 24 x 24 RGB) for each image."""
    train = [generate.scene(seed, "train", i) for i in range(count)]
    bank = np.stack([thumbnail(generate.render(s)) for s in train])
    queries = np.stack([thumbnail(im) for im in images])
    distances = (queries ** 2).sum(1)[:, None] - 2 * queries @ bank.T + (bank ** 2).sum(1)[None, :]
    return [train[j]["words"] for j in distances.argmin(1)]


def load_scenes(directory, limit=None):
    directory = Path(directory)
    data = json.loads((directory / "scenes.json").read_text())
    scenes = data["scenes"][:limit] if limit else data["scenes"]
    images = [np.asarray(Image.open(directory / s["image"]).convert("RGBA")) for s in scenes]
    return scenes, images


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("scenes", help="a directory with scenes.json and its PNGs")
    p.add_argument("--hard", action="store_true", help="the hard decoder, one sampled cell per word")
    p.add_argument("--seed", type=int, default=1, help="hard: scene i is sampled with seed + i")
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--baseline", type=int, default=0, help="training scenes for the nearest-neighbour baseline")
    p.add_argument("--baseline-seed", type=int, default=1)
    args = p.parse_args()
    tensors, meta = fileformat.read(args.model)
    scenes, images = load_scenes(args.scenes, args.limit)
    captions, cells = [], []
    for i, image in enumerate(images):
        out = reference.caption(tensors, meta, image, hard=args.hard, seed=args.seed + i)
        captions.append(out["words"])
        cells.append(out["cells"])
    grid = meta["grid"][0]
    figures = metrics.score(scenes, captions, cells, grid)
    figures["bleu4"] = metrics.bleu4([s["words"] for s in scenes], captions)
    result = {"model": args.model, "scene_dir": args.scenes, "attention": "hard" if args.hard else "soft", **figures}
    if args.baseline:
        guesses = nearest_neighbour_captions(images, args.baseline, args.baseline_seed)
        base = metrics.score(scenes, guesses, [[0] * len(g) for g in guesses], grid)
        result["nearest_neighbour"] = {"training_scenes": args.baseline, "exact": base["exact"],
                                       "recall": base["recall"], "precision": base["precision"],
                                       "bleu4": metrics.bleu4([s["words"] for s in scenes], guesses)}
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
