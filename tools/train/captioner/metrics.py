"""Caption quality on scenes with known objects: exact caption, object recall and precision (kinds
named against kinds present), and the pointing game: for each object word of the caption whose
kind is in the scene, whether the cell the word attended most (or hard attention's sampled cell)
overlaps the box of an object of that kind ("pointing": the artwork's box; "pointing_square": the
square the sprite was drawn in), or, stricter, has its centre inside it ("pointing_centre",
"pointing_centre_square")."""
import numpy as np

from tools.data.scenes import grammar
from tools.data.scenes.objects import KIND_OF_WORD


def cell_overlaps(cell, grid, box):
    """Whether cell (row-major index on a grid x grid) overlaps box [x0, y0, x1, y1] (fractions)."""
    r, c = divmod(int(cell), grid)
    return c / grid < box[2] and (c + 1) / grid > box[0] and r / grid < box[3] and (r + 1) / grid > box[1]


def centre_inside(cell, grid, box):
    """Whether the cell's centre lies inside box (the stricter reading of the pointing game)."""
    r, c = divmod(int(cell), grid)
    x, y = (c + 0.5) / grid, (r + 0.5) / grid
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def square(o):
    return [o["x"], o["y"], o["x"] + o["size"], o["y"] + o["size"]]


def score(scenes, captions, cells, grid):
    """scenes: the scenes' dicts; captions: each scene's words (no <eos>); cells: each scene's chosen
    cell per word (argmax of alpha, or hard's sample). Returns a dict of figures."""
    exact = found = present = named = 0
    hits = {"art": 0, "square": 0, "centre_art": 0, "centre_square": 0}
    pointed = 0
    for s, words, chosen in zip(scenes, captions, cells):
        exact += list(words) == list(s["words"])
        kinds = {o["kind"] for o in s["objects"]}
        said = set(grammar.named_kinds(words))
        found += len(kinds & said)
        present += len(kinds)
        named += len(said)
        for t, word in enumerate(words):
            kind = KIND_OF_WORD.get(word)
            if kind is None or kind not in kinds:
                continue
            pointed += 1
            objects = [o for o in s["objects"] if o["kind"] == kind]
            hits["art"] += any(cell_overlaps(chosen[t], grid, o["box"]) for o in objects)
            hits["square"] += any(cell_overlaps(chosen[t], grid, square(o)) for o in objects)
            hits["centre_art"] += any(centre_inside(chosen[t], grid, o["box"]) for o in objects)
            hits["centre_square"] += any(centre_inside(chosen[t], grid, square(o)) for o in objects)
    n = max(len(scenes), 1)
    return {"scenes": len(scenes), "exact": exact / n, "recall": found / max(present, 1),
            "precision": found / max(named, 1), "pointing": hits["art"] / max(pointed, 1),
            "pointing_square": hits["square"] / max(pointed, 1),
            "pointing_centre": hits["centre_art"] / max(pointed, 1),
            "pointing_centre_square": hits["centre_square"] / max(pointed, 1), "pointed_words": pointed}


def bleu4(references, hypotheses):
    """Corpus BLEU-4 (Papineni et al. 2002) with one reference per hypothesis, uniform weights and
    the brevity penalty; no smoothing."""
    import collections
    import math
    matches, totals = [0] * 4, [0] * 4
    ref_length = hyp_length = 0
    for ref, hyp in zip(references, hypotheses):
        ref_length += len(ref)
        hyp_length += len(hyp)
        for n in range(1, 5):
            ref_grams = collections.Counter(tuple(ref[i:i + n]) for i in range(len(ref) - n + 1))
            hyp_grams = collections.Counter(tuple(hyp[i:i + n]) for i in range(len(hyp) - n + 1))
            matches[n - 1] += sum(min(c, ref_grams[g]) for g, c in hyp_grams.items())
            totals[n - 1] += max(len(hyp) - n + 1, 0)
    if min(matches) == 0:
        return 0.0
    log_precision = sum(math.log(m / t) for m, t in zip(matches, totals)) / 4
    brevity = min(0.0, 1 - ref_length / max(hyp_length, 1))
    return float(np.exp(log_precision + brevity))
