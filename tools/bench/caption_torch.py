"""The captioner in PyTorch for the captioner benchmark (tools/bench/caption.mjs): the training
model (tools/train/captioner/model.py) loaded from a model file's weights, timed on one thread, and
exported to ONNX as two graphs for onnxruntime-web, whose greedy loop runs in JavaScript:

  caption_encoder.onnx  image [1][S][S][4] uint8 RGBA -> annotations [1][cells][D], keys [1][cells][A]
                        (the attention's W_a a_i + b_a, once per image), h [1][n], c [1][n]
  caption_step.onnx     annotations, keys, previous [1] int64, h, c -> logits [1][V], alpha [1][cells], h, c

The file has each BatchNorm folded into its convolution, so the model's norms are identities here:
the network every implementation runs is convolution, bias and ReLU. Run from the repository root:

  /usr/bin/python3 -m tools.bench.caption_torch export MODEL SCENE.png... OUT_DIR
      OUT_DIR/caption_encoder.onnx, caption_step.onnx, scenes.rgba (the scenes' RGBA bytes, back to
      back) and scenes.json (the vocabulary, and each scene's caption by the training model)
  /usr/bin/python3 -m tools.bench.caption_torch time MODEL OUT_DIR [REPS] [WARMUP_MS]
      the scenes captioned in turn for WARMUP_MS, then REPS times each, in turn; one JSON line per
      scene: the median ms of its greedy captions, and the caption
"""
import json
import sys
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

from tools.train.captioner import fileformat
from tools.train.captioner.model import Captioner

OPSET = 17


def load(path):
    """(model.Captioner in eval mode with the file's weights and a .prepare (Prepare), the file's
    parsed metadata)."""
    tensors, meta = fileformat.read(path)
    arch = meta["architecture"]
    sizes = {k: arch[k] for k in ("image_size", "channels", "hidden_size", "embedding_dim", "attention_dim",
                                  "max_words", "start") if k in arch}
    model = Captioner(arch["vocab_size"], sizes)
    model.encoder.norms = nn.ModuleList(nn.Identity() for _ in model.encoder.convs)  # folded into the convs
    t = {k: torch.from_numpy(v.astype(np.float32)) for k, v in tensors.items()}
    state = {"encoder.position": t["encoder.position"]}
    for k in range(len(model.encoder.convs)):
        state[f"encoder.convs.{k}.weight"] = t[f"encoder.conv{k}.weight"].permute(0, 3, 1, 2).contiguous()
        state[f"encoder.convs.{k}.bias"] = t[f"encoder.conv{k}.bias"]
    names = {"att_annotation": "attention.annotation", "att_hidden": "attention.hidden",
             "out_hidden": "output.hidden", "out_context": "output.context"}
    for prefix in fileformat.DECODERS:
        for name in getattr(model, prefix).state_dict():
            module, _, param = name.rpartition(".")
            if name == "embedding.weight":
                source = "embedding"
            elif name == "att_score":
                source = "attention.score"
            elif module == "lstm":
                source = name
            else:
                source = f"{names.get(module, module)}.{param}"
            value = t[f"{prefix}.{source}"]
            state[f"{prefix}.{name}"] = value.reshape(1, -1) if name == "gate.weight" else value
    model.load_state_dict(state, strict=True)
    model.prepare = Prepare(meta)
    return model.eval(), meta


class Prepare(nn.Module):
    """RGBA uint8 [1][S][S][4] of the model's size -> the encoder's input [1][S][S][3]: composited over
    white, then (v / 255 - mean) / std (tools/train/captioner/pixels.py, without a resize)."""

    def __init__(self, meta):
        super().__init__()
        self.register_buffer("mean", torch.tensor(meta["pixel_mean"], dtype=torch.float32))
        self.register_buffer("std", torch.tensor(meta["pixel_std"], dtype=torch.float32))

    def forward(self, image):
        x = image.float()
        alpha = x[..., 3:] / 255.0
        rgb = x[..., :3] * alpha + 255.0 * (1.0 - alpha)
        return (rgb / 255.0 - self.mean) / self.std


class Encode(nn.Module):
    """The first graph: the image to the annotations and the soft decoder's starting state."""

    def __init__(self, model):
        super().__init__()
        self.prepare, self.encoder, self.decoder = model.prepare, model.encoder, model.decoder

    def forward(self, image):
        annotations = self.encoder(self.prepare(image))
        h, c, keys = self.decoder.start(annotations)
        return annotations, keys, h, c


class Step(nn.Module):
    """The second graph: one word of the soft decoder."""

    def __init__(self, model):
        super().__init__()
        self.decoder = model.decoder

    def forward(self, annotations, keys, previous, h, c):
        return self.decoder.step(annotations, keys, previous, h, c)


def words_of(ids, meta):
    """The caption's words: ids up to the end token."""
    out = []
    for i in ids:
        if i == meta["eos_id"]:
            break
        out.append(meta["vocabulary"][i])
    return out


@torch.no_grad()
def caption(model, meta, image):
    """The training model's greedy caption (Captioner.greedy) of one RGBA uint8 [S][S][4] image."""
    annotations = model.encoder(model.prepare(torch.from_numpy(image)[None]))
    ids, _, _ = model.greedy(annotations, meta["bos_id"], meta["eos_id"])
    return words_of(ids[0].tolist(), meta)


@torch.no_grad()
def caption_by_graphs(encode, step, meta, image):
    """The greedy loop that the benchmark runs over the two ONNX graphs, here over their modules."""
    annotations, keys, h, c = encode(torch.from_numpy(image)[None])
    previous, ids = torch.tensor([meta["bos_id"]]), []
    for _ in range(meta["architecture"]["max_words"]):
        logits, _, h, c = step(annotations, keys, previous, h, c)
        previous = logits.argmax(1)
        ids.append(int(previous))
        if ids[-1] == meta["eos_id"]:
            break
    return words_of(ids, meta)


def read_rgba(path):
    from PIL import Image
    return np.array(Image.open(path).convert("RGBA"))


def export(model, meta, out):
    """Writes the two graphs into the folder out."""
    encode, step = Encode(model).eval(), Step(model).eval()
    side = meta["architecture"]["image_size"]
    image = torch.full((1, side, side, 4), 255, dtype=torch.uint8)
    with torch.no_grad():
        annotations, keys, h, c = encode(image)
        torch.onnx.export(encode, (image,), str(out / "caption_encoder.onnx"), opset_version=OPSET,
                          input_names=["image"], output_names=["annotations", "keys", "h", "c"])
        previous = torch.tensor([meta["bos_id"]], dtype=torch.int64)
        torch.onnx.export(step, (annotations, keys, previous, h, c), str(out / "caption_step.onnx"),
                          opset_version=OPSET, input_names=["annotations", "keys", "previous", "h", "c"],
                          output_names=["logits", "alpha", "h_next", "c_next"])
    return encode, step


def export_main(model_path, images, out):
    out.mkdir(parents=True, exist_ok=True)
    model, meta = load(model_path)
    encode, step = export(model, meta, out)
    side = meta["architecture"]["image_size"]
    scenes, rgba = [], []
    for path in images:
        image = read_rgba(path)
        if image.shape[:2] != (side, side):
            sys.exit(f"{path}: {image.shape[1]} x {image.shape[0]}, the benchmark's scenes are {side} x {side}")
        words = caption(model, meta, image)
        by_graphs = caption_by_graphs(encode, step, meta, image)
        if by_graphs != words:
            sys.exit(f"{path}: the exported modules write {' '.join(by_graphs)!r}, the model {' '.join(words)!r}")
        scenes.append({"name": Path(path).stem, "caption": " ".join(words)})
        rgba.append(image.tobytes())
    (out / "scenes.rgba").write_bytes(b"".join(rgba))
    arch = meta["architecture"]
    (out / "scenes.json").write_text(json.dumps({
        "model": str(model_path), "image_size": side, "vocabulary": meta["vocabulary"], "bos_id": meta["bos_id"],
        "eos_id": meta["eos_id"], "max_words": arch["max_words"], "hidden_size": arch["hidden_size"],
        "scenes": scenes}, indent=1) + "\n")
    print(f"{out}: caption_encoder.onnx, caption_step.onnx (opset {OPSET}) and {len(scenes)} scenes, "
          f"torch {torch.__version__}")


def blas():
    """The BLAS library this process loaded (PyTorch's matrix-vector products go through it)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return ""
    files = {Path(line.split()[-1]) for line in maps.splitlines() if "blas" in line.split()[-1]}
    names = sorted(f"{f.parent.name}/{f.name}" for f in files if "lapack" not in f.name)
    return ", ".join(names)


def time_main(model_path, work, reps, warmup_ms):
    torch.set_num_threads(1)
    model, meta = load(model_path)
    about = json.loads((work / "scenes.json").read_text())
    side = about["image_size"]
    data = np.frombuffer(bytearray((work / "scenes.rgba").read_bytes()), dtype=np.uint8).reshape(-1, side, side, 4)
    images = [np.ascontiguousarray(image) for image in data]
    start, i = time.perf_counter(), 0
    while i < 10 * len(images) or time.perf_counter() - start < warmup_ms / 1e3:
        caption(model, meta, images[i % len(images)])
        i += 1
    times, words = [[] for _ in images], [[] for _ in images]
    for _ in range(reps):
        for index, image in enumerate(images):
            start = time.perf_counter()
            words[index] = caption(model, meta, image)
            times[index].append((time.perf_counter() - start) * 1e3)
    for index, ms in enumerate(times):
        print(json.dumps({"impl": "pytorch-cpu-1t", "threads": torch.get_num_threads(), "scene": index,
                          "words": len(words[index]), "ms": round(sorted(ms)[reps // 2], 3),
                          "caption": " ".join(words[index]), "torch": torch.__version__, "blas": blas()}), flush=True)


def main():
    args = sys.argv[1:]
    if len(args) >= 4 and args[0] == "export":
        export_main(Path(args[1]), [Path(a) for a in args[2:-1]], Path(args[-1]))
    elif 3 <= len(args) <= 5 and args[0] == "time":
        time_main(Path(args[1]), Path(args[2]), int(args[3]) if len(args) > 3 else 30,
                  int(args[4]) if len(args) > 4 else 2000)
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
