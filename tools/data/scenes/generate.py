"""Scenes: 1-4 OpenMoji objects on a plain light background, each a square sprite of 20-35 % of
the image side, anywhere, their art never overlapping, with the caption the grammar gives.

Every scene is a function of (seed, split, index): scene(seed, "train", i) is the same scene on
any machine. Object pairs: HELD_OUT pairs of kinds never appear together in a "train" scene; every
"held-out" scene has at least one of them, so a test on it measures composition, not memory.
"seen" scenes are new scenes of combinations training may have drawn."""
import itertools

import numpy as np
from PIL import Image

from . import grammar, sprites
from .objects import NAMES

IMAGE_SIZE = 96
SIZES = {"small": (0.20, 0.24), "plain": (0.255, 0.295), "big": (0.31, 0.35)}  # sprite side / image side
HELD_OUT_SEED = 2015
HELD_OUT_COUNT = 48  # of the 496 pairs of the 32 kinds
SPLITS = {"train": 0, "held-out": 1, "seen": 2}
GROUP_COUNTS = {1: [(1,), (2,), (3,), (4,)],
                2: [(1, 1), (1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1)],
                3: [(1, 1, 1), (1, 1, 1), (2, 1, 1), (1, 2, 1), (1, 1, 2)]}
KIND_COUNT_WEIGHTS = {1: 0.2, 2: 0.55, 3: 0.25}
MARGIN = 4 / 96  # how far apart (image sides) objects' centres are along the axis a caption orders them by


def held_out_pairs():
    """The HELD_OUT_COUNT pairs (a, b), a < b, that training never shows together."""
    pairs = list(itertools.combinations(range(len(NAMES)), 2))
    rng = np.random.default_rng(HELD_OUT_SEED)
    chosen = rng.choice(len(pairs), size=HELD_OUT_COUNT, replace=False)
    return frozenset(pairs[i] for i in sorted(chosen))


HELD_OUT = held_out_pairs()


def has_held_out_pair(kinds):
    return any((min(a, b), max(a, b)) in HELD_OUT for a, b in itertools.combinations(kinds, 2))


def _kinds(rng, split, n):
    if split == "held-out":
        if n == 1:
            raise ValueError("a held-out scene has at least two kinds")
        pairs = sorted(HELD_OUT)
        kinds = list(pairs[rng.integers(len(pairs))])
        while len(kinds) < n:
            k = int(rng.integers(len(NAMES)))
            if k not in kinds:
                kinds.append(k)
        rng.shuffle(kinds)
        return kinds
    while True:
        kinds = [int(k) for k in rng.choice(len(NAMES), size=n, replace=False)]
        if not has_held_out_pair(kinds):
            return kinds


def _place(rng, sizes, kinds_of):
    """Top-left corners (fractions) for sprites of the given sizes, their art boxes apart; None if
    they do not fit after a few tries."""
    from .sprites import art_box
    placed = []
    for s, kind in zip(sizes, kinds_of):
        bx0, by0, bx1, by1 = art_box(kind)
        for _ in range(60):
            x, y = rng.uniform(0, 1 - s), rng.uniform(0, 1 - s)
            box = (x + bx0 * s - 0.01, y + by0 * s - 0.01, x + bx1 * s + 0.01, y + by1 * s + 0.01)
            if all(box[2] <= o[0] or o[2] <= box[0] or box[3] <= o[1] or o[3] <= box[1] for _, o in placed):
                placed.append(((x, y), box))
                break
        else:
            return None
    return [p for p, _ in placed]


def _relation(objects, first, second):
    """The relation of kind first to kind second, or None when the scene does not show one clearly."""
    def centre(o):
        return o["x"] + o["size"] / 2, o["y"] + o["size"] / 2
    a = [centre(o) for o in objects if o["kind"] == first]
    b = [centre(o) for o in objects if o["kind"] == second]
    dx = np.mean([p[0] for p in b]) - np.mean([p[0] for p in a])
    dy = np.mean([p[1] for p in b]) - np.mean([p[1] for p in a])
    if max(abs(dx), abs(dy)) < 1.5 * min(abs(dx), abs(dy)):
        return None
    axis = 0 if abs(dx) > abs(dy) else 1
    sign = 1 if (dx if axis == 0 else dy) > 0 else -1
    if not all(sign * (q[axis] - p[axis]) >= MARGIN for p in a for q in b):
        return None
    return {(0, 1): "left", (0, -1): "right", (1, 1): "above", (1, -1): "below"}[(axis, sign)]


def _left_to_right(objects, kinds):
    """kinds ordered by x when every object of each lies left of every object of the next, else None."""
    centres = {k: [o["x"] + o["size"] / 2 for o in objects if o["kind"] == k] for k in kinds}
    order = sorted(kinds, key=lambda k: np.mean(centres[k]))
    for left, right in zip(order, order[1:]):
        if max(centres[left]) + MARGIN > min(centres[right]):
            return None
    return order


def scene(seed, split, index, kind_weights=None):
    """kind_weights: the chances of 1, 2 and 3 kinds in a "train" scene (KIND_COUNT_WEIGHTS unless
    given; the other splits always use KIND_COUNT_WEIGHTS, so test sets never change).
    Returns {"background": [r, g, b], "objects": [{"kind", "name", "x", "y", "size", "size_class", "box"}],
    "words": [...]}: x, y, size are the sprite square's (fractions of the image side), box the art's
    [x0, y0, x1, y1] (fractions)."""
    if split not in SPLITS:
        raise ValueError(f"split {split!r} is not one of {sorted(SPLITS)}")
    rng = np.random.default_rng([seed, SPLITS[split], index])
    weights = kind_weights if kind_weights is not None and split == "train" else \
        [KIND_COUNT_WEIGHTS[k] for k in (1, 2, 3)]
    if len(weights) != 3 or min(weights) < 0 or abs(sum(weights) - 1) > 1e-6:
        raise ValueError(f"kind_weights {weights!r}: three chances (1, 2, 3 kinds) that sum to 1")
    while True:
        n = 2 + int(rng.random() < KIND_COUNT_WEIGHTS[3] / (1 - KIND_COUNT_WEIGHTS[1])) if split == "held-out" else \
            int(rng.choice([1, 2, 3], p=weights))
        kinds = _kinds(rng, split, n)
        counts = GROUP_COUNTS[n][rng.integers(len(GROUP_COUNTS[n]))]
        kinds_of = [k for k, c in zip(kinds, counts) for _ in range(c)]
        classes = [str(rng.choice(list(SIZES))) for _ in kinds_of]
        sizes = [round(rng.uniform(*SIZES[c]) * IMAGE_SIZE) / IMAGE_SIZE for c in classes]
        corners = _place(rng, sizes, kinds_of)
        if corners is None:
            continue
        objects = []
        for kind, c, s, (x, y) in zip(kinds_of, classes, sizes, corners):
            x, y = round(x * IMAGE_SIZE) / IMAGE_SIZE, round(y * IMAGE_SIZE) / IMAGE_SIZE
            bx0, by0, bx1, by1 = sprites.art_box(kind)
            objects.append({"kind": kind, "name": NAMES[kind], "x": x, "y": y, "size": s, "size_class": c,
                            "box": [x + bx0 * s, y + by0 * s, x + bx1 * s, y + by1 * s]})
        groups = {k: [o for o in objects if o["kind"] == k] for k in kinds}

        def group(k):
            return (k, len(groups[k]), groups[k][0]["size_class"])
        if n == 1:
            words = grammar.caption([group(kinds[0])])
        elif n == 2:
            first, second = sorted(kinds)
            relation = _relation(objects, first, second)
            if relation is None:
                continue
            words = grammar.caption([group(first), group(second)], relation)
        else:
            order = _left_to_right(objects, kinds)
            if order is None:
                continue
            words = grammar.caption([group(k) for k in order])
        background = [int(v) for v in rng.integers(222, 256, size=3)]
        return {"background": background, "objects": objects, "words": words}


def render(s, size=IMAGE_SIZE, resample="lanczos"):
    """The scene as a size x size x 3 uint8 array (PIL composition of the librsvg sprites)."""
    image = Image.new("RGBA", (size, size), tuple(s["background"]) + (255,))
    for o in s["objects"]:
        side = max(1, round(o["size"] * size))
        sprite = sprites.sprite(o["kind"], side, resample)
        image.alpha_composite(sprite, (round(o["x"] * size), round(o["y"] * size)))
    return np.asarray(image.convert("RGB"))
