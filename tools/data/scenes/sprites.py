"""The objects' artwork as RGBA images: each OpenMoji SVG rasterized once by librsvg
(`rsvg-convert`, Debian's librsvg2-bin) at MASTER pixels square, cached under data/scenes/sprites/
(git-ignored), then scaled by PIL to the size a scene asks for. The SVG's whole 72 x 72 view box is
the sprite's square, as any renderer that draws the SVG into a square gives it."""
import functools
import subprocess
from pathlib import Path

import numpy as np
from PIL import Image

from . import objects

MASTER = 288
CACHE = Path(__file__).resolve().parents[3] / "data" / "scenes" / "sprites"
RESAMPLES = {"lanczos": Image.LANCZOS, "bicubic": Image.BICUBIC, "bilinear": Image.BILINEAR, "box": Image.BOX}


def master_path(kind):
    path = CACHE / f"{objects.HEXCODES[kind]}-{MASTER}.png"
    if not path.is_file():
        CACHE.mkdir(parents=True, exist_ok=True)
        partial = path.with_suffix(".part.png")
        subprocess.run(["rsvg-convert", "-w", str(MASTER), "-h", str(MASTER), "-o", str(partial),
                        str(objects.svg_path(kind))], check=True)
        partial.rename(path)
    return path


@functools.lru_cache(maxsize=None)
def master(kind):
    """The MASTER x MASTER RGBA rendering of kind."""
    return Image.open(master_path(kind)).convert("RGBA")


@functools.lru_cache(maxsize=4096)
def sprite(kind, size, resample="lanczos"):
    """kind's artwork as a size x size RGBA PIL image."""
    return master(kind).resize((size, size), RESAMPLES[resample])


@functools.lru_cache(maxsize=None)
def art_box(kind):
    """(x0, y0, x1, y1) of the artwork's opaque pixels inside the unit square (fractions, x1/y1
    exclusive): where the drawn object is within its sprite."""
    alpha = np.asarray(master(kind))[:, :, 3]
    rows, cols = np.nonzero(alpha > 32)
    return (cols.min() / MASTER, rows.min() / MASTER, (cols.max() + 1) / MASTER, (rows.max() + 1) / MASTER)
