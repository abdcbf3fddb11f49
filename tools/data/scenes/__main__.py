"""Writes scenes to disk: one PNG each and scenes.json (their objects, boxes and captions).

  python3 -m tools.data.scenes --split held-out --count 1000 --out data/scenes/held-out
  node tools/data/scenes/chromium.mjs data/scenes/held-out data/scenes/held-out-chromium

The second line draws the same scenes again with Chromium's canvas from the SVGs themselves (a
renderer other than the training one, librsvg + PIL)."""
import argparse
import json
from pathlib import Path

from PIL import Image

from . import generate, objects


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--split", choices=sorted(generate.SPLITS), default="held-out")
    p.add_argument("--count", type=int, default=1000)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--size", type=int, default=generate.IMAGE_SIZE, help="image side in pixels")
    p.add_argument("--out", required=True)
    args = p.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    scenes = []
    for i in range(args.count):
        s = generate.scene(args.seed, args.split, i)
        name = f"{i:05d}.png"
        Image.fromarray(generate.render(s, args.size)).save(out / name)
        scenes.append({"image": name, **s})
    kinds = [{**o, "svg": str(objects.svg_path(k))} for k, o in enumerate(objects.metadata())]
    (out / "scenes.json").write_text(json.dumps({"seed": args.seed, "split": args.split, "size": args.size,
                                                 "objects": kinds, "scenes": scenes}) + "\n")
    print(f"{out}: {args.count} {args.split} scenes of {args.size} px (seed {args.seed})")


if __name__ == "__main__":
    main()
