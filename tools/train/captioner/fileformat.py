"""The captioner's model file, attnscope-captioner-v1 (docs/MODEL_FORMAT.md §8), stated once:
every tensor's name and shape, the metadata keys, write() which checks a model against them and
writes the safetensors file, read() which loads one back as float arrays, and from_torch() which
folds each BatchNorm into its convolution so that a reader needs only convolution, bias and ReLU.

Tensors (D = channels[-1], n = hidden_size, E = embedding_dim, A = attention_dim, V = vocab_size,
g = grid side; each decoder tensor exists twice: "decoder." for soft attention and "hard." for
the decoder trained with hard attention):

  encoder.conv{k}.weight   [C_k+1][3][3][C_k]   (output, kernel row, kernel column, input)
  encoder.conv{k}.bias     [C_k+1]
  encoder.position         [g*g][D]             added to the annotations, cells row-major
  P.embedding              [V][E]
  P.init_h.weight [n][S], P.init_h.bias [n], P.init_c.weight [n][S], P.init_c.bias [n]
                           S = D, or 2D where the architecture's "start" is "mean+max"
  P.attention.annotation.weight [A][D], P.attention.annotation.bias [A]
  P.attention.hidden.weight     [A][n]
  P.attention.score             [A]
  P.gate.weight [n], P.gate.bias [1]
  P.lstm.weight_ih [4n][E+D], P.lstm.weight_hh [4n][n], P.lstm.bias_ih [4n], P.lstm.bias_hh [4n]
                           gates in the order input, forget, cell, output (PyTorch's LSTMCell)
  P.output.hidden.weight [E][n], P.output.hidden.bias [E], P.output.context.weight [E][D]
  P.output.weight [V][E], P.output.bias [V]
"""
import json
from pathlib import Path

import numpy as np

from tools.train import safetensors

FORMAT = "attnscope-captioner-v1"
DECODERS = ("decoder", "hard")
MAX_FILE_BYTES = 4 * 1024 * 1024
METADATA_KEYS = ("format", "architecture", "vocabulary", "bos_id", "eos_id", "objects", "image_size", "grid",
                 "annotation_dim", "hidden_size", "pixel_mean", "pixel_std", "resize", "hard", "data", "training")
RESIZE = ("RGBA composited over white; resized to image_size x image_size with PIL's BILINEAR rule "
          "(per axis: scale = in/out, support = max(scale, 1), output i centred at (i + 0.5) * scale, "
          "weights max(0, 1 - |(j + 0.5 - centre) / support|) over inputs j from "
          "max(int(centre - support + 0.5), 0) to min(int(centre + support + 0.5), in) - 1, normalized; "
          "horizontal pass first, in float, no rounding); then (v / 255 - pixel_mean) / pixel_std")
HARD = ("hard.* is a decoder trained with hard attention (Xu et al. 2015, section 4.1): at each word a cell s "
        "is drawn from alpha and the context is beta * a_s; fine-tuned from the soft decoder with the "
        "encoder frozen, by REINFORCE with a moving-average baseline and an entropy bonus")


def architecture(vocab_size, sizes):
    g = sizes["image_size"] // 2 ** (len(sizes["channels"]) - 1)
    return {"name": "captioner", "image_size": sizes["image_size"], "channels": list(sizes["channels"]),
            "grid": [g, g], "annotation_dim": sizes["channels"][-1], "hidden_size": sizes["hidden_size"],
            "embedding_dim": sizes["embedding_dim"], "attention_dim": sizes["attention_dim"],
            "vocab_size": vocab_size, "max_words": sizes["max_words"],
            **({"start": sizes["start"]} if sizes.get("start", "mean") != "mean" else {})}


def start_dim(arch):
    """The width of what starts the decoder: D for the mean annotation, 2D for mean+max."""
    return arch["annotation_dim"] * (2 if arch.get("start", "mean") == "mean+max" else 1)


def shapes(arch):
    """{tensor name: shape} of a file of this architecture."""
    channels = [3] + list(arch["channels"])
    n, E, A, V, D = (arch[k] for k in ("hidden_size", "embedding_dim", "attention_dim", "vocab_size",
                                        "annotation_dim"))
    g, S = arch["grid"][0] * arch["grid"][1], start_dim(arch)
    out = {"encoder.position": (g, D)}
    for k, (a, b) in enumerate(zip(channels, channels[1:])):
        out[f"encoder.conv{k}.weight"] = (b, 3, 3, a)
        out[f"encoder.conv{k}.bias"] = (b,)
    for p in DECODERS:
        out.update({f"{p}.embedding": (V, E), f"{p}.init_h.weight": (n, S), f"{p}.init_h.bias": (n,),
                    f"{p}.init_c.weight": (n, S), f"{p}.init_c.bias": (n,),
                    f"{p}.attention.annotation.weight": (A, D), f"{p}.attention.annotation.bias": (A,),
                    f"{p}.attention.hidden.weight": (A, n), f"{p}.attention.score": (A,),
                    f"{p}.gate.weight": (n,), f"{p}.gate.bias": (1,),
                    f"{p}.lstm.weight_ih": (4 * n, E + D), f"{p}.lstm.weight_hh": (4 * n, n),
                    f"{p}.lstm.bias_ih": (4 * n,), f"{p}.lstm.bias_hh": (4 * n,),
                    f"{p}.output.hidden.weight": (E, n), f"{p}.output.hidden.bias": (E,),
                    f"{p}.output.context.weight": (E, D), f"{p}.output.weight": (V, E), f"{p}.output.bias": (V,)})
    return out


def metadata(arch, vocabulary, objects, pixel_mean, pixel_std, training, data):
    """The file's metadata (all values strings; JSON where structured)."""
    return {"format": FORMAT, "architecture": json.dumps(arch, sort_keys=True),
            "vocabulary": json.dumps(list(vocabulary)), "bos_id": str(vocabulary.index("<bos>")),
            "eos_id": str(vocabulary.index("<eos>")), "objects": json.dumps(list(objects)),
            "image_size": str(arch["image_size"]), "grid": json.dumps(arch["grid"]),
            "annotation_dim": str(arch["annotation_dim"]), "hidden_size": str(arch["hidden_size"]),
            "pixel_mean": json.dumps(list(pixel_mean)), "pixel_std": json.dumps(list(pixel_std)),
            "resize": RESIZE, "hard": HARD, "data": data, "training": json.dumps(training, sort_keys=True)}


def write(path, tensors, meta, dtype="f16"):
    """Writes the file; tensors must be exactly shapes(architecture)'s (ValueError naming the first
    difference). dtype "f16", "f32", or "int8" (every matrix I8 with a per-row F32 NAME.scale,
    docs/MODEL_FORMAT.md §3; other tensors F16). Returns the size in bytes."""
    arch = json.loads(meta["architecture"])
    expected = shapes(arch)
    safetensors.check_tensors(FORMAT, expected, tensors)
    missing_keys = [k for k in METADATA_KEYS if k not in meta]
    if missing_keys:
        raise ValueError(f"{FORMAT}: metadata missing {missing_keys}")
    arrays = {}
    for name, value in tensors.items():
        value = np.asarray(value, dtype=np.float32)
        if dtype == "int8" and value.ndim == 2:
            arrays[name], arrays[name + ".scale"] = safetensors.quantize_rows(value)
        else:
            arrays[name] = value.astype(np.float32 if dtype == "f32" else np.float16)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    safetensors.write(path, arrays, meta)
    return path.stat().st_size


def read(path):
    """(tensors as float64 arrays, metadata with JSON values parsed) of a captioner file."""
    raw, meta = safetensors.read(path)
    if meta.get("format") != FORMAT:
        raise ValueError(f"{path}: format {meta.get('format')!r}, expected {FORMAT}")
    tensors = {k: np.asarray(v, dtype=np.float64) for k, v in safetensors.dequantized(raw).items()}
    parsed = dict(meta)
    for key in ("architecture", "vocabulary", "objects", "grid", "pixel_mean", "pixel_std", "training"):
        parsed[key] = json.loads(meta[key])
    for key in ("bos_id", "eos_id", "image_size", "annotation_dim", "hidden_size"):
        parsed[key] = int(meta[key])
    expected = shapes(parsed["architecture"])
    if set(expected) != set(tensors) or any(tensors[k].shape != tuple(s) for k, s in expected.items()):
        raise ValueError(f"{path}: tensors do not match the architecture")
    return tensors, parsed


def fold_batch_norm(conv, norm):
    """(weight [out][3][3][in], bias [out]) of conv followed by norm in inference mode."""
    scale = (norm.weight / (norm.running_var + norm.eps).sqrt()).detach().double().numpy()
    weight = conv.weight.detach().double().numpy() * scale[:, None, None, None]
    bias = norm.bias.detach().double().numpy() + (conv.bias.detach().double().numpy()
                                                  - norm.running_mean.detach().double().numpy()) * scale
    return weight.transpose(0, 2, 3, 1), bias


# A decoder's tensors in the file (after "decoder." or "hard.") and the model.Decoder parameters
# they hold; the gate's weight is stored as a vector.
DECODER_PARAMETERS = (
    ("embedding", "embedding.weight"), ("init_h.weight", "init_h.weight"), ("init_h.bias", "init_h.bias"),
    ("init_c.weight", "init_c.weight"), ("init_c.bias", "init_c.bias"),
    ("attention.annotation.weight", "att_annotation.weight"), ("attention.annotation.bias", "att_annotation.bias"),
    ("attention.hidden.weight", "att_hidden.weight"), ("attention.score", "att_score"),
    ("gate.weight", "gate.weight"), ("gate.bias", "gate.bias"),
    ("lstm.weight_ih", "lstm.weight_ih"), ("lstm.weight_hh", "lstm.weight_hh"),
    ("lstm.bias_ih", "lstm.bias_ih"), ("lstm.bias_hh", "lstm.bias_hh"),
    ("output.hidden.weight", "out_hidden.weight"), ("output.hidden.bias", "out_hidden.bias"),
    ("output.context.weight", "out_context.weight"), ("output.weight", "output.weight"),
    ("output.bias", "output.bias"))


def decoder_tensors(prefix, decoder):
    parameters = dict(decoder.named_parameters())
    out = {f"{prefix}.{name}": parameters[attr].detach().double().numpy() for name, attr in DECODER_PARAMETERS}
    out[f"{prefix}.gate.weight"] = out[f"{prefix}.gate.weight"][0]
    return out


def from_torch(model):
    """The file's tensors (float64) of a model.Captioner: BatchNorm folded into each convolution
    (inference mode, running statistics), convolution weights channels-last."""
    tensors = {"encoder.position": model.encoder.position.detach().double().numpy()}
    for k, (conv, norm) in enumerate(zip(model.encoder.convs, model.encoder.norms)):
        tensors[f"encoder.conv{k}.weight"], tensors[f"encoder.conv{k}.bias"] = fold_batch_norm(conv, norm)
    tensors.update(decoder_tensors("decoder", model.decoder))
    tensors.update(decoder_tensors("hard", model.hard))
    return tensors


def to_torch(tensors, model, calibration):
    """Loads a file's tensors (read()) into a model.Captioner for further training: the inverse of
    from_torch. Each folded convolution gets a BatchNorm that is the identity in inference mode and
    close to it in training mode: its running statistics, scale and shift are the mean and spread of
    the convolution's output over calibration ([B][H][W][3] normalized pixels)."""
    import torch

    def put(parameter, value):
        with torch.no_grad():
            parameter.copy_(torch.as_tensor(np.asarray(value), dtype=parameter.dtype).reshape(parameter.shape))
    enc = model.encoder
    put(enc.position, tensors["encoder.position"])
    for k, (conv, norm) in enumerate(zip(enc.convs, enc.norms)):
        put(conv.weight, tensors[f"encoder.conv{k}.weight"].transpose(0, 3, 1, 2))
        put(conv.bias, tensors[f"encoder.conv{k}.bias"])
    x = calibration.permute(0, 3, 1, 2)
    with torch.no_grad():
        for k, (conv, norm) in enumerate(zip(enc.convs, enc.norms)):
            y = conv(x)
            mean, var = y.mean((0, 2, 3)), y.var((0, 2, 3), unbiased=False)
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(var)
            norm.weight.copy_((var + norm.eps).sqrt())
            norm.bias.copy_(mean)
            x = torch.relu(y)
            if k < len(enc.convs) - 1:
                x = torch.nn.functional.max_pool2d(x, 2)
    for prefix, decoder in (("decoder", model.decoder), ("hard", model.hard)):
        parameters = dict(decoder.named_parameters())
        for name, attr in DECODER_PARAMETERS:
            value = tensors[f"{prefix}.{name}"]
            wanted = tuple(parameters[attr].shape)
            if name in ("init_h.weight", "init_c.weight") and value.shape[1] * 2 == wanted[1]:
                # a mean-started file into a mean+max model: the max half starts at zero, so the
                # model begins as the file's and learns what the maximum adds
                value = np.concatenate([value, np.zeros_like(value)], 1)
            put(parameters[attr], value)
    return model
