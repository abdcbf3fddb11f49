"""How any image becomes the captioner's input (docs/MODEL_FORMAT.md, the captioner's section):
RGBA is composited over white, the image is resized to image_size x image_size by PIL's BILINEAR
rule (a triangle filter widened by the scale when shrinking; horizontal pass, then vertical, in
float, no rounding), and each channel is normalized as (v / 255 - mean) / std."""
import functools

import numpy as np


@functools.lru_cache(maxsize=256)
def resize_matrix(in_size, out_size):
    """[out_size][in_size] weights: out = W @ in along one axis (PIL's precompute_coeffs, bilinear)."""
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = filterscale
    weights = np.zeros((out_size, in_size), dtype=np.float64)
    for i in range(out_size):
        center = (i + 0.5) * scale
        lo = max(int(center - support + 0.5), 0)
        hi = min(int(center + support + 0.5), in_size)
        x = np.arange(lo, hi)
        w = np.maximum(0.0, 1.0 - np.abs((x - center + 0.5) / filterscale))
        weights[i, lo:hi] = w / w.sum()
    return weights


def to_rgb(image):
    """[H][W][3 or 4] uint8 -> [H][W][3] float64 in 0..255, RGBA composited over white."""
    image = np.asarray(image)
    if image.ndim != 3 or image.shape[2] not in (3, 4) or image.shape[0] < 1 or image.shape[1] < 1:
        raise ValueError(f"an image is [height][width][3 or 4], not {list(image.shape)}")
    rgb = image[:, :, :3].astype(np.float64)
    if image.shape[2] == 4:
        alpha = image[:, :, 3:4].astype(np.float64) / 255.0
        rgb = rgb * alpha + 255.0 * (1.0 - alpha)
    return rgb


def resize(rgb, size):
    """[H][W][3] floats -> [size][size][3] floats (horizontal pass first, then vertical)."""
    h, w = rgb.shape[:2]
    if (h, w) == (size, size):
        return rgb
    across = np.tensordot(rgb, resize_matrix(w, size), axes=([1], [1]))  # [H][3][size]
    return np.tensordot(resize_matrix(h, size), across, axes=([1], [0])).transpose(0, 2, 1)


def prepare(image, size, mean, std):
    """The model's input [size][size][3] float32 from an image of any size."""
    rgb = resize(to_rgb(image), size)
    return ((rgb / 255.0 - np.asarray(mean)) / np.asarray(std)).astype(np.float32)
