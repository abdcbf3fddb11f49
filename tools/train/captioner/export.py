"""Writes models/captioner.safetensors from the training checkpoints: the encoder and soft decoder
of runs/captioner/soft.pt, the hard decoder of runs/captioner/hard.pt, BatchNorm folded.

  python3 -m tools.train.captioner.export [--dtype f16|int8|f32] [--out models/captioner.safetensors]"""
import argparse
import json
from pathlib import Path

import torch

from tools.data.scenes import generate, grammar, objects
from . import fileformat
from .model import PIXEL_MEAN, PIXEL_STD, Captioner
from .train import RUNS, sizes_of

DATA = (f"OpenMoji {objects.OPENMOJI_VERSION} colour emoji (https://openmoji.org, {objects.OPENMOJI_LICENSE}), "
        f"{len(objects.OBJECTS)} kinds, composed into scenes of 1-4 objects by tools/data/scenes "
        f"(librsvg + PIL); {generate.HELD_OUT_COUNT} object pairs held out of training")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default="models/captioner.safetensors")
    p.add_argument("--dtype", choices=("f16", "f32", "int8"), default="f16")
    p.add_argument("--runs", type=Path, default=RUNS, help="the training checkpoints' directory")
    p.add_argument("--based-on", type=Path, default=None,
                   help="the captioner file the soft phase started from (train.py --init): its training record is kept")
    args = p.parse_args()
    soft, hard = torch.load(args.runs / "soft.pt"), torch.load(args.runs / "hard.pt")
    model = Captioner(len(grammar.VOCABULARY), sizes_of(soft["args"]["channels"], soft["args"].get("start", "mean")))
    model.load_state_dict(soft["model"])
    model.hard.load_state_dict({k[len("hard."):]: v for k, v in hard["model"].items() if k.startswith("hard.")})
    model.eval()
    arch = fileformat.architecture(len(grammar.VOCABULARY), model.sizes)
    training = {"soft": {"steps": soft["state"]["step"], "minutes": round(soft["state"]["minutes"], 1),
                         **{k: soft["args"][k] for k in ("batch", "penalty", "seed")}},
                "hard": {"steps": hard["state"]["step"], "minutes": round(hard["state"]["minutes"], 1),
                         **{k: hard["args"][k] for k in ("batch", "entropy", "seed")}},
                "torch": torch.__version__, "held_out_pairs": generate.HELD_OUT_COUNT,
                "held_out_seed": generate.HELD_OUT_SEED}
    if args.based_on is not None:
        training["soft"]["kind_weights"] = soft["args"].get("kind_weights")
        training["soft"]["word_dropout"] = soft["args"].get("word_dropout", 0.0)
        training["based_on"] = fileformat.read(args.based_on)[1]["training"]
    meta = fileformat.metadata(arch, grammar.VOCABULARY, objects.metadata(), PIXEL_MEAN, PIXEL_STD, training, DATA)
    size = fileformat.write(args.out, fileformat.from_torch(model), meta, dtype=args.dtype)
    if size > fileformat.MAX_FILE_BYTES:
        raise SystemExit(f"{args.out}: {size} bytes, over the {fileformat.MAX_FILE_BYTES} limit")
    print(f"{args.out}: {size} bytes ({args.dtype}); training {json.dumps(training)}")


if __name__ == "__main__":
    main()
