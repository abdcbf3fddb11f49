"""Minimal safetensors reader and writer in numpy (F16, F32 and I8 tensors), and the model format's
int8 weights: a matrix stored as I8 with a per-row F32 scale `NAME.scale` (docs/MODEL_FORMAT.md §3).

The file layout (https://github.com/huggingface/safetensors, written here by hand so that the
training tools need no extra package):

  8 bytes    N, the header length, unsigned little-endian
  N bytes    JSON: {"__metadata__": {str: str}, NAME: {"dtype": "F16"|"F32"|"I8", "shape": [...],
             "data_offsets": [begin, end]}, ...}, padded with spaces to a multiple of 8
  rest       raw little-endian tensor data; offsets are relative to the end of the header

Tensors are written in name order, each one contiguous and row-major.
"""
import json
import struct

import numpy as np

DTYPES = {"F16": np.dtype("<f2"), "F32": np.dtype("<f4"), "I8": np.dtype("i1")}
NAMES = {dtype: name for name, dtype in DTYPES.items()}


def check_tensors(label, expected, tensors):
    """ValueError naming the first difference between tensors ({name: array}) and the names and
    shapes a format gives (expected: {name: shape}); label names the format in the message."""
    missing, unexpected = sorted(set(expected) - set(tensors)), sorted(set(tensors) - set(expected))
    if missing or unexpected:
        raise ValueError(f"{label}: tensors missing {missing}, unexpected {unexpected}")
    for name, shape in expected.items():
        if tuple(np.shape(tensors[name])) != tuple(shape):
            raise ValueError(f"tensor {name} has shape {list(np.shape(tensors[name]))}, the architecture gives {list(shape)}")


def write(path, tensors, metadata):
    """tensors: {name: float16, float32 or int8 ndarray}; metadata: {str: str}."""
    header = {"__metadata__": {str(k): str(v) for k, v in metadata.items()}}
    blobs, offset = [], 0
    for name in sorted(tensors):
        array = np.ascontiguousarray(tensors[name])
        dtype = array.dtype.newbyteorder("<")
        if dtype not in NAMES:
            raise ValueError(f"{name}: dtype {array.dtype} is not F16, F32 or I8")
        data = array.astype(dtype, copy=False).tobytes()
        header[name] = {"dtype": NAMES[dtype], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 8)  # the data then starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for data in blobs:
            f.write(data)


def read(path):
    """({name: ndarray in the stored dtype}, metadata) of a safetensors file."""
    with open(path, "rb") as f:
        raw = f.read()
    (length,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8:8 + length].decode("utf-8"))
    metadata = header.pop("__metadata__", {})
    body = memoryview(raw)[8 + length:]
    tensors = {}
    for name, info in header.items():
        begin, end = info["data_offsets"]
        dtype = DTYPES[info["dtype"]]
        array = np.frombuffer(body[begin:end], dtype=dtype)
        tensors[name] = array.reshape(info["shape"])
    return tensors, metadata


def quantize_rows(matrix):
    """(int8 values, float32 scales) of a 2-D float matrix, symmetric per row: scale = max |w| / 127
    (0 for a row of zeros), q = round(w / scale); each value is then within scale / 2 of w."""
    matrix = np.asarray(matrix, dtype=np.float32)
    if matrix.ndim != 2:
        raise ValueError(f"only matrices are quantized, not shape {matrix.shape}")
    scales = np.abs(matrix).max(axis=1) / 127.0
    safe = np.where(scales > 0, scales, 1.0)
    values = np.clip(np.rint(matrix / safe[:, None]), -127, 127).astype(np.int8)
    return values, scales.astype(np.float32)


def dequantized(tensors):
    """tensors with every I8 matrix NAME and its NAME.scale replaced by NAME as float32."""
    out = {}
    for name, value in tensors.items():
        if value.dtype == np.int8:
            scale = tensors.get(name + ".scale")
            if scale is None or scale.shape != (value.shape[0],):
                raise ValueError(f"{name} is I8 but has no [{value.shape[0]}] {name}.scale")
            out[name] = value.astype(np.float32) * scale.astype(np.float32)[:, None]
        elif not (name.endswith(".scale") and tensors.get(name[:-len(".scale")], value).dtype == np.int8):
            out[name] = value
    return out
