"""Trains the captioner on scenes made on the fly (tools/data/scenes), resumable:

  python3 -m tools.train.captioner.train --phase soft --steps 2600     (runs/captioner/soft.pt)
  python3 -m tools.train.captioner.train --phase hard --steps 600      (runs/captioner/hard.pt,
                                                                       from soft.pt, encoder frozen)

Soft: cross-entropy of the caption plus the doubly stochastic penalty lambda sum_i (1 - sum_t
alpha_ti)^2. Hard (Xu et al. 2015, section 4.1): a cell is sampled from alpha at each word and its
annotation alone is the context; the decoder learns from log p(y | s), the attention by REINFORCE
with a moving-average baseline and an entropy bonus. Checkpoints every --checkpoint-minutes and at
the end; evaluation on held-out scenes (unseen object pairs) every --eval-every steps, appended to
runs/captioner/curve.jsonl."""
import argparse
import json
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from tools.data.scenes import generate, grammar, objects
from . import fileformat, metrics, pixels
from .model import PIXEL_MEAN, PIXEL_STD, SIZES, STARTS, Captioner, grid_side

RUNS = Path("runs/captioner")  # the default --runs
VOCAB = {w: i for i, w in enumerate(grammar.VOCABULARY)}
BOS, EOS = VOCAB[grammar.BOS], VOCAB[grammar.EOS]
RESAMPLES = ("lanczos", "bicubic", "bilinear", "box")


def image_batch(scenes, rng=None):
    """[B][S][S][3] normalized float32 tensor; with rng, the training augmentation: a random
    resampling filter for the sprites and, for a third of the scenes, drawn larger and resized to
    the input size by the model's own rule."""
    size = SIZES["image_size"]
    images = []
    for s in scenes:
        if rng is None:
            images.append(pixels.prepare(generate.render(s), size, PIXEL_MEAN, PIXEL_STD))
            continue
        resample = RESAMPLES[rng.integers(len(RESAMPLES))]
        drawn = int(rng.integers(100, 289)) if rng.random() < 1 / 3 else size
        images.append(pixels.prepare(generate.render(s, drawn, resample), size, PIXEL_MEAN, PIXEL_STD))
    return torch.from_numpy(np.stack(images))


def token_batch(scenes):
    """(inputs [B][T], targets [B][T], mask [B][T]): <bos> words -> words <eos>, eos-padded."""
    ids = [[BOS] + [VOCAB[w] for w in s["words"]] + [EOS] for s in scenes]
    T = max(len(i) for i in ids) - 1
    inputs = torch.full((len(ids), T), EOS, dtype=torch.long)
    targets = torch.full((len(ids), T), EOS, dtype=torch.long)
    mask = torch.zeros((len(ids), T))
    for b, seq in enumerate(ids):
        inputs[b, :len(seq) - 1] = torch.tensor(seq[:-1])
        targets[b, :len(seq) - 1] = torch.tensor(seq[1:])
        mask[b, :len(seq) - 1] = 1
    return inputs, targets, mask


def kinds_batch(scenes):
    """[B][kinds] 1 where the scene holds an object of that kind (the concepts head's targets)."""
    present = torch.zeros((len(scenes), len(objects.NAMES)))
    for b, s in enumerate(scenes):
        for o in s["objects"]:
            present[b, o["kind"]] = 1
    return present


def training_batch(seed, step, batch_size, kind_weights=None):
    scenes = [generate.scene(seed, "train", step * batch_size + i, kind_weights) for i in range(batch_size)]
    rng = np.random.default_rng([seed, 99, step])
    return image_batch(scenes, rng), *token_batch(scenes), kinds_batch(scenes)


class Batches(torch.utils.data.Dataset):
    """Step i's batch; made in a worker process ahead of the step that needs it."""

    def __init__(self, seed, start, steps, batch_size, kind_weights=None):
        self.seed, self.start, self.steps, self.batch_size = seed, start, steps, batch_size
        self.kind_weights = kind_weights

    def __len__(self):
        return max(0, self.steps - self.start)

    def __getitem__(self, i):
        torch.set_num_threads(1)
        return training_batch(self.seed, self.start + i, self.batch_size, self.kind_weights)


def sizes_of(channels, start="mean"):
    """SIZES with the encoder's channels given as "16,32,64,128" (a checkpoint's --channels) and
    the decoder's start (model.STARTS)."""
    sizes = {**SIZES, "channels": [int(c) for c in str(channels).split(",")]}
    return {**sizes, "start": start} if start != "mean" else sizes


def soft_loss(model, batch, penalty, word_dropout=0.0, concepts=None, concept_weight=0.0):
    """The caption's negative log-likelihood, the doubly stochastic penalty and, with a concepts
    head (training only, never exported), concept_weight times its loss: which kinds the scene holds,
    read from the mean annotation that starts the decoder, so that it holds every kind present."""
    images, inputs, targets, mask, kinds = batch
    annotations = model.encoder(images)
    logits, alphas = model.teacher_forced(annotations, inputs, word_dropout=word_dropout)
    nll = (F.cross_entropy(logits.transpose(1, 2), targets, reduction="none") * mask).sum(1)
    coverage = ((1 - (alphas * mask[:, :, None]).sum(1)) ** 2).sum(1)
    loss, parts = nll.mean() + penalty * coverage.mean(), {"nll": nll.mean().item(), "coverage": coverage.mean().item()}
    if concepts is not None and concept_weight > 0:
        aux = F.binary_cross_entropy_with_logits(concepts(annotations.mean(1)), kinds, reduction="none").sum(1).mean()
        loss, parts["concepts"] = loss + concept_weight * aux, aux.item()
    return loss, parts


def hard_loss(model, batch, state, entropy_bonus, generator):
    images, inputs, targets, mask, _ = batch
    with torch.no_grad():
        annotations = model.encoder(images)
    logits, _, _, log_alpha, entropy = model.teacher_forced(annotations, inputs, hard=True, generator=generator)
    nll = (F.cross_entropy(logits.transpose(1, 2), targets, reduction="none") * mask).sum(1)
    reward = -nll.detach()
    baseline = state.get("baseline", reward.mean().item())
    advantage = reward - baseline
    state["baseline"] = 0.9 * baseline + 0.1 * reward.mean().item()
    reinforce = -(advantage * (log_alpha * mask).sum(1)).mean()
    bonus = -entropy_bonus * (entropy * mask).sum(1).mean()
    return nll.mean() + reinforce + bonus, {"nll": nll.mean().item(), "baseline": baseline}


def rate(step, total, peak, warmup, floor):
    """Linear warm-up, then cosine decay from peak to floor at total."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, total - warmup))
    return floor + 0.5 * (peak - floor) * (1 + math.cos(math.pi * progress))


def evaluate(model, scenes, hard=False, seed=0):
    """metrics.score of greedy captions (soft: argmax cell per word; hard: the sampled cell)."""
    model.eval()
    generator = torch.Generator().manual_seed(seed)
    captions, cells = [], []
    for i in range(0, len(scenes), 100):
        chunk = scenes[i:i + 100]
        with torch.no_grad():
            annotations = model.encoder(image_batch(chunk))
        words, alphas, sampled = model.greedy(annotations, BOS, EOS, hard=hard, generator=generator)
        for b in range(len(chunk)):
            ids = words[b].tolist()
            n = ids.index(EOS) if EOS in ids else len(ids)
            captions.append([grammar.VOCABULARY[j] for j in ids[:n]])
            cells.append((sampled[b] if hard else alphas[b].argmax(1)).tolist()[:n])
    model.train()
    return metrics.score(scenes, captions, cells, grid_side(model.sizes))


def save(path, payload):
    partial = path.with_suffix(".part")
    torch.save(payload, partial)
    partial.rename(path)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--phase", choices=("soft", "hard"), default="soft")
    p.add_argument("--steps", type=int, default=2600)
    p.add_argument("--batch", type=int, default=48)
    p.add_argument("--rate", type=float, default=None, help="peak rate (soft 2e-3, hard 5e-4)")
    p.add_argument("--penalty", type=float, default=0.01, help="doubly stochastic penalty lambda")
    p.add_argument("--entropy", type=float, default=0.01, help="hard: entropy bonus")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval-every", type=int, default=200)
    p.add_argument("--eval-scenes", type=int, default=300)
    p.add_argument("--checkpoint-minutes", type=float, default=10)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--channels", default=",".join(map(str, SIZES["channels"])),
                   help="the encoder's channels per block, comma-separated (soft; hard takes soft.pt's)")
    p.add_argument("--start", choices=STARTS, default="mean",
                   help="what starts the decoder: the mean annotation, or the mean and the maximum over cells")
    p.add_argument("--runs", type=Path, default=RUNS, help="where checkpoints and curve.jsonl go")
    p.add_argument("--init", type=Path, default=None,
                   help="soft: start from a captioner file's encoder and soft decoder (BatchNorm unfolded)")
    p.add_argument("--kind-weights", default=None,
                   help="chances of 1, 2 and 3 kinds in a training scene, e.g. 0.15,0.45,0.4")
    p.add_argument("--word-dropout", type=float, default=0.0,
                   help="soft: chance that a previous word's embedding is zeroed in training")
    p.add_argument("--concepts", type=float, default=0.0,
                   help="soft: weight of a training-only head that names the scene's kinds from the mean annotation")
    p.add_argument("--warmup", type=int, default=None, help="warm-up steps (soft 100, hard 20)")
    args = p.parse_args()
    kind_weights = [float(w) for w in args.kind_weights.split(",")] if args.kind_weights else None
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    runs = args.runs
    runs.mkdir(parents=True, exist_ok=True)
    path = runs / f"{args.phase}.pt"
    if args.phase == "hard" and not path.exists():
        saved_args = torch.load(runs / "soft.pt")["args"]
    else:
        saved_args = torch.load(path)["args"] if path.exists() else vars(args)
    args.channels, args.start = saved_args.get("channels", args.channels), saved_args.get("start", "mean")
    model = Captioner(len(grammar.VOCABULARY), sizes_of(args.channels, args.start))
    if args.phase == "hard":
        params = list(model.hard.parameters())
        peak = args.rate or 5e-4
    else:
        params = list(model.encoder.parameters()) + list(model.decoder.parameters())
        peak = args.rate or 2e-3
    concepts = torch.nn.Linear(model.sizes["channels"][-1], len(objects.NAMES)) if args.concepts > 0 else None
    if concepts is not None:
        params += list(concepts.parameters())
    optimizer = torch.optim.Adam(params, lr=peak)
    state = {"step": 0, "minutes": 0.0, "curve": []}
    if path.exists():
        saved = torch.load(path)
        model.load_state_dict(saved["model"])
        if concepts is not None:
            concepts.load_state_dict(saved["concepts"])
        optimizer.load_state_dict(saved["optimizer"])
        state = saved["state"]
        print(f"resumed {path} at step {state['step']}", flush=True)
    elif args.init is not None:
        if args.phase != "soft":
            raise SystemExit("--init starts a soft phase; the hard phase starts from runs' soft.pt")
        tensors, meta = fileformat.read(args.init)
        trunk = lambda arch: {k: v for k, v in arch.items() if k != "start"}  # noqa: E731
        if trunk(meta["architecture"]) != trunk(fileformat.architecture(len(grammar.VOCABULARY), model.sizes)):
            raise SystemExit(f"{args.init}: its architecture differs from --channels {args.channels}")
        if meta["architecture"].get("start", "mean") not in ("mean", args.start):
            raise SystemExit(f"{args.init}: starts from {meta['architecture']['start']}, not --start {args.start}")
        calibration = image_batch([generate.scene(args.seed, "train", i) for i in range(4 * args.batch)])
        fileformat.to_torch(tensors, model, calibration)
        print(f"soft phase starts from {args.init}", flush=True)
    elif args.phase == "hard":
        soft = torch.load(runs / "soft.pt")
        model.load_state_dict(soft["model"])
        model.hard.load_state_dict(model.decoder.state_dict())
        print("hard decoder starts from the soft decoder of runs/captioner/soft.pt", flush=True)
    if args.phase == "hard":
        for parameter in model.encoder.parameters():
            parameter.requires_grad_(False)
    held_out = [generate.scene(args.seed, "held-out", i) for i in range(args.eval_scenes)]
    generator = torch.Generator().manual_seed(args.seed * 1000 + state["step"])
    model.train()
    if args.phase == "hard":
        model.encoder.eval()  # frozen: BatchNorm keeps its running statistics
    started, last_save = time.time() - state["minutes"] * 60, time.time()

    def checkpoint():
        state["minutes"] = (time.time() - started) / 60
        save(path, {"model": model.state_dict(), "optimizer": optimizer.state_dict(), "state": state,
                    "args": vars(args), **({"concepts": concepts.state_dict()} if concepts is not None else {})})

    batches = torch.utils.data.DataLoader(
        Batches(args.seed + (1000 if args.phase == "hard" else 0), state["step"], args.steps, args.batch,
                kind_weights),
        batch_size=None, num_workers=1, prefetch_factor=4)
    for batch in batches:
        step = state["step"]
        if step % args.eval_every == 0 and step > 0:
            figures = evaluate(model, held_out, hard=args.phase == "hard", seed=args.seed)
            point = {"phase": args.phase, "minutes": round((time.time() - started) / 60, 2), "step": step, **figures}
            state["curve"].append(point)
            with open(runs / "curve.jsonl", "a") as f:
                f.write(json.dumps(point) + "\n")
            print("eval " + json.dumps(point), flush=True)
            if args.phase == "hard":
                model.encoder.eval()
        for group in optimizer.param_groups:
            warmup = args.warmup if args.warmup is not None else 100 if args.phase == "soft" else 20
            group["lr"] = rate(step, args.steps, peak, warmup, peak / 40)
        if args.phase == "soft":
            loss, parts = soft_loss(model, batch, args.penalty, args.word_dropout, concepts, args.concepts)
        else:
            loss, parts = hard_loss(model, batch, state, args.entropy, generator)
        optimizer.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, 5.0)
        optimizer.step()
        state["step"] = step + 1
        if step % 20 == 0:
            print(f"step {step} loss {loss.item():.4f} {json.dumps({k: round(v, 4) for k, v in parts.items()})} "
                  f"lr {optimizer.param_groups[0]['lr']:.2e} {(time.time() - started) / 60:.1f} min", flush=True)
        if time.time() - last_save > args.checkpoint_minutes * 60:
            checkpoint()
            last_save = time.time()
    figures = evaluate(model, held_out, hard=args.phase == "hard", seed=args.seed)
    point = {"phase": args.phase, "minutes": round((time.time() - started) / 60, 2), "step": state["step"], **figures}
    state["curve"].append(point)
    with open(runs / "curve.jsonl", "a") as f:
        f.write(json.dumps(point) + "\n")
    print("eval " + json.dumps(point), flush=True)
    checkpoint()


if __name__ == "__main__":
    main()
