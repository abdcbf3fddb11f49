#!/usr/bin/python3
"""Train one attnscope translation model and export it as safetensors.

  /usr/bin/python3 -m tools.train --direction en-es --attention additive \\
      --out models/en-es-additive.safetensors --minutes 80
  /usr/bin/python3 -m tools.train --arch transformer --direction en-es \\
      --encoder-layers 3 --decoder-layers 3 --heads 4 --model-dim 256 --ff-dim 1024 \\
      --out models/en-es-transformer.safetensors --minutes 60

Needs Debian's python3-torch and python3-numpy (use /usr/bin/python3: another python3 on PATH
may lack them) and the data of tools/data/build.sh. The joint BPE (data/bpe.json) is learned on
first use. Training is resumable: a checkpoint is written to runs/<name>.pt every
--checkpoint-minutes and at the end, and a rerun of the same command continues from it until
--minutes of training time are spent, then exports. docs/MODEL_FORMAT.md describes the file;
spec.py states it for the tools (sizes, defaults, tensor names and shapes, write_model).
"""
import argparse
import math
import os
import random
import sys
import time
from pathlib import Path

import torch

from tools.train import batching, bpe as B, spec
from tools.train.model import Seq2Seq
from tools.train.transformer import Transformer

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE_KEYS = tuple(spec.RNN_SIZES)
TRANSFORMER_KEYS = tuple(spec.TRANSFORMER_SIZES) + ("alignment_layer", "alignment_head", "alignment_shift")
# What a checkpoint written before a setting existed was trained with (checked on resume).
CHECKPOINT_DEFAULTS = {"arch": "rnn", "alignment_shift": 0}


def saved_setting(saved_args, key):
    """A checkpoint's setting `key`, as it was trained: checkpoints before encoder and decoder
    depths were set apart have one --layers for both."""
    if key in saved_args and saved_args[key] is not None:
        return saved_args[key]
    if key in ("encoder_layers", "decoder_layers") and saved_args.get("layers") is not None:
        return saved_args["layers"]
    return CHECKPOINT_DEFAULTS.get(key)


def check_resumable(checkpoint, saved_args, args, keys):
    """Exits naming the first setting the checkpoint was trained with differently."""
    for key in keys:
        if saved_setting(saved_args, key) != getattr(args, key):
            sys.exit(f"{checkpoint} was trained with {key}={saved_setting(saved_args, key)}, this run has "
                     f"{getattr(args, key)}; delete it or pass --checkpoint to start anew")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--arch", choices=["rnn", "transformer"], default="rnn")
    p.add_argument("--direction", choices=["en-es", "es-en"], default=None,
                   help="one direction of the legacy data (data/{train,valid}.{en,es})")
    p.add_argument("--languages", default=None,
                   help="comma-separated XX of data/en-XX/: one multilingual Transformer for "
                        "English <-> each, both directions (multi.py)")
    p.add_argument("--plan-minutes", type=float, default=None,
                   help="multilingual: unused by the schedule, recorded (warm-up, then constant; "
                        "--cooldown-minutes decays over a run's last minutes)")
    p.add_argument("--warmup-minutes", type=float, default=3.0, help="multilingual")
    p.add_argument("--cooldown-minutes", type=float, default=0.0,
                   help="multilingual: decay the learning rate linearly to a tenth over the last "
                        "this many minutes of --minutes (a branch of the trunk's checkpoint)")
    p.add_argument("--bf16", action="store_true", help="bfloat16 autocast (on the CPU or the GPU)")
    p.add_argument("--init-from", default=None,
                   help="multilingual: start from a shipped file's weights and vocabulary (a new machine "
                        "without runs/); ignored once the checkpoint exists")
    p.add_argument("--corpora", default=None,
                   help="multilingual: corpora beside the splits to train on too, NAME[:FACTOR],...: "
                        "DATA/en-XX/NAME.{en,XX} (+ NAME.align), each drawn as a source of its own, its "
                        "weight times FACTOR (e.g. extra:1,prose:3); with NAME.synthetic (the side a "
                        "model wrote, as 'en' for back-translations) only towards the other side")
    p.add_argument("--language-factors", default=None,
                   help="multilingual: XX:FACTOR,...: every source of language XX drawn FACTOR times as "
                        "often as n^0.5 gives (e.g. es:1.5)")
    p.add_argument("--sentences-per-language", type=int, default=40000,
                   help="multilingual: sentences of each language the BPE is learned on")
    p.add_argument("--no-legacy", action="store_true",
                   help="multilingual: leave the legacy en-es data (general English) out")
    p.add_argument("--eval-minutes", type=float, default=15, help="multilingual: AER on dev every ...")
    p.add_argument("--attention", choices=spec.ATTENTIONS, default=None, help="rnn only (required there)")
    p.add_argument("--out", required=True, help="exported .safetensors file")
    p.add_argument("--minutes", type=float, required=True, help="training time budget")
    p.add_argument("--data", default=str(ROOT / "data"))
    p.add_argument("--bpe", default=None, help="joint BPE json (default DATA/bpe.json)")
    p.add_argument("--vocab-size", type=int, default=8192, help="when learning the BPE")
    for key, value in spec.RNN_SIZES.items():
        p.add_argument("--" + key.replace("_", "-"), type=int, default=value, help="rnn")
    p.add_argument("--dropout", type=float, default=None, help=f"default {spec.DROPOUT}")
    # transformer only
    p.add_argument("--layers", type=int, default=None, help="transformer: encoder and decoder layers each")
    for key, value in spec.TRANSFORMER_SIZES.items():
        p.add_argument("--" + key.replace("_", "-"), type=int, default=None,
                       help=f"transformer (default {'--layers, else ' if key.endswith('layers') else ''}{value})")
    p.add_argument("--alignment-layer", type=int, default=None,
                   help="transformer: decoder layer of the supervised head (default the penultimate)")
    p.add_argument("--alignment-head", type=int, default=0, help="transformer")
    p.add_argument("--alignment-shift", type=int, choices=[0, 1], default=0,
                   help="transformer --languages: supervise the head where a target piece is the decoder's "
                        "input (1) rather than where it is predicted (0)")
    p.add_argument("--label-smoothing", type=float, default=None, help=f"default {spec.LABEL_SMOOTHING}")
    p.add_argument("--export-dtype", choices=["f16", "f32", "int8"], default="f16",
                   help="int8: every matrix I8 with per-row scales, half the size of f16")
    p.add_argument("--lr", type=float, default=None, help=f"Adam learning rate (default {spec.LEARNING_RATE})")
    p.add_argument("--clip", type=float, default=1.0, help="gradient norm limit")
    p.add_argument("--batch-tokens", type=int, default=3000, help="target pieces per batch")
    p.add_argument("--max-pieces", type=int, default=100, help="longer training pairs are skipped")
    p.add_argument("--align-supervision", default=None,
                   help="Pharaoh file, one line per training pair: 'i-j' = English word i, "
                        "Spanish word j (0-based), as in XL-WA")
    p.add_argument("--align-weight", type=float, default=0.5)
    p.add_argument("--checkpoint", default=None, help="default runs/<out name>.pt")
    p.add_argument("--checkpoint-minutes", type=float, default=10)
    p.add_argument("--log-every", type=int, default=100, help="steps between log lines")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default=None, help="default cuda when present, else cpu")
    p.add_argument("--workers", type=int, default=0,
                   help="multilingual: processes that encode the corpus and make batches ahead (0: none)")
    p.add_argument("--chunk-examples", type=int, default=30000,
                   help="multilingual: examples drawn at a time, then cut into batches of similar length")
    p.add_argument("--trunk-out", default=None,
                   help="multilingual: also export the weights when the cool-down begins (the trunk's)")
    args = p.parse_args()
    if (args.direction is None) == (args.languages is None):
        p.error("give --direction (one direction) or --languages (a multilingual Transformer)")
    if args.trunk_out and not (args.languages and args.cooldown_minutes):
        p.error("--trunk-out exports the weights where the cool-down begins: it needs --languages and --cooldown-minutes")
    if args.languages and args.arch != "transformer":
        p.error("--languages needs --arch transformer")
    if args.alignment_shift and not args.languages:
        p.error("--alignment-shift is implemented for --languages (train_multi.py) only")
    if args.arch == "rnn" and args.attention is None:
        p.error("--arch rnn needs --attention")
    for key, value in spec.TRANSFORMER_SIZES.items():  # --encoder-layers, else --layers, else the spec's
        if getattr(args, key) is None:
            setattr(args, key, args.layers if key.endswith("layers") and args.layers is not None else value)
    if args.dropout is None:
        args.dropout = spec.DROPOUT[args.arch]
    if args.label_smoothing is None:
        args.label_smoothing = spec.LABEL_SMOOTHING[args.arch]
    if args.lr is None:
        args.lr = spec.LEARNING_RATE["multilingual" if args.languages else args.arch]
    return args


# -- data ----------------------------------------------------------------------------------------
def load_pairs(data, split, direction, bpe, cache):
    source_lang, target_lang = direction.split("-")
    sources = (Path(data) / f"{split}.{source_lang}").read_text(encoding="utf-8").splitlines()
    targets = (Path(data) / f"{split}.{target_lang}").read_text(encoding="utf-8").splitlines()
    assert len(sources) == len(targets), split

    def encode(line):  # word -> pieces is cached: the corpus has few distinct words
        ids, word_of_piece = [], []
        for index, word in enumerate(line.split()):
            if word not in cache:
                cache[word] = [bpe.ids[p] for p in bpe.encode_word(word)]
            ids += cache[word]
            word_of_piece += [index] * len(cache[word])
        return ids, word_of_piece

    return [encode(s) + encode(t) for s, t in zip(sources, targets)]


def load_alignments(path, direction, count):
    """Per training pair, the set of (source word, target word) links."""
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    assert len(lines) == count, f"{path}: {len(lines)} lines for {count} training pairs"
    out = []
    for line in lines:
        links = {tuple(map(int, link.split("-"))) for link in line.split()}
        out.append(links if direction == "en-es" else {(j, i) for i, j in links})
    return out


def batches(indices, pairs, batch_tokens, rng):
    """Batches of similar target length holding about `batch_tokens` target pieces, in random
    order; the random tie-break makes each epoch's batches a little different."""
    order = sorted(indices, key=lambda i: (len(pairs[i][2]), len(pairs[i][0]), rng.random()))
    return batching.pack(((i, len(pairs[i][2]) + 1) for i in order), batch_tokens, rng)


def tensors_for(batch, pairs, alignments=None):
    """Padded source (with </s>), its mask, target input (<s> y) and output (y </s>)."""
    size = len(batch)
    source_len = max(len(pairs[i][0]) for i in batch) + 1
    target_len = max(len(pairs[i][2]) for i in batch) + 1
    source = torch.full((size, source_len), B.PAD, dtype=torch.long)
    target_in = torch.full((size, target_len), B.PAD, dtype=torch.long)
    target_out = torch.full((size, target_len), B.PAD, dtype=torch.long)
    gold = torch.zeros(size, target_len, source_len) if alignments else None
    for row, i in enumerate(batch):
        src, src_words, tgt, tgt_words = pairs[i]
        source[row, :len(src) + 1] = torch.tensor(src + [B.EOS])
        target_in[row, :len(tgt) + 1] = torch.tensor([B.BOS] + tgt)
        target_out[row, :len(tgt) + 1] = torch.tensor(tgt + [B.EOS])
        if alignments:
            # Garg et al. 2019 at the subword level: a target piece of word j attends uniformly
            # to the pieces of every source word linked to j.
            links = alignments[i]
            for t, j in enumerate(tgt_words):
                for s, k in enumerate(src_words):
                    if (k, j) in links:
                        gold[row, t, s] = 1.0
    return source, source != B.PAD, target_in, target_out, gold


# -- training ------------------------------------------------------------------------------------
def loss_of(model, batch, pairs, alignments=None, align_weight=0.0, label_smoothing=0.0):
    """The training loss (label-smoothed, plus the alignment term) and the plain summed
    cross-entropy, which validation and the log report."""
    device = next(model.parameters()).device
    source, mask, target_in, target_out, gold = (
        None if x is None else x.to(device) for x in tensors_for(batch, pairs, alignments))
    logits, weights = model(source, mask, target_in)
    flat_logits, flat_targets = logits.reshape(-1, logits.shape[-1]), target_out.reshape(-1)
    loss_sum = torch.nn.functional.cross_entropy(flat_logits, flat_targets, ignore_index=B.PAD, reduction="sum")
    tokens = int((target_out != B.PAD).sum())
    loss = loss_sum / tokens
    if label_smoothing:
        loss = torch.nn.functional.cross_entropy(flat_logits, flat_targets, ignore_index=B.PAD, reduction="sum",
                                                 label_smoothing=label_smoothing) / tokens
    if gold is not None:
        rows = gold.sum(2, keepdim=True)
        supervised = rows.squeeze(2) > 0
        if supervised.any():
            target = gold / rows.clamp(min=1)
            align_loss = -(target * torch.log(weights + 1e-9)).sum() / supervised.sum()
            loss = loss + align_weight * align_loss
    return loss, float(loss_sum), tokens


def validate(model, pairs):
    model.eval()
    total, tokens = 0.0, 0
    with torch.no_grad():
        for batch in batches(range(len(pairs)), pairs, 4000, random.Random(0)):
            _, loss_sum, n = loss_of(model, batch, pairs)
            total += loss_sum
            tokens += n
    model.train()
    return total / tokens


def learning_rate(base, fraction):
    """Constant, then linear decay to a tenth over the last 30% of the time budget."""
    return base if fraction < 0.7 else base * max(0.1, 1 - 3 * (fraction - 0.7))


def save(path, state):
    tmp = Path(str(path) + ".tmp")
    torch.save(state, tmp)
    os.replace(tmp, path)  # a run killed while saving keeps the previous checkpoint


def training_record(args, state, **more):
    """The "training" metadata of an exported file: how far the run got and with what."""
    return {"valid_loss": state["history"][-1]["valid_loss"] if state["history"] else None,
            "steps": state["step"], "minutes": round(state["elapsed"] / 60, 1), "seed": args.seed,
            "torch": torch.__version__, **more}


def export(model, args, bpe, state, path):
    transformer = getattr(args, "arch", "rnn") == "transformer"
    format = spec.TRANSFORMER if transformer else spec.RNN
    architecture = dict(model.config) if transformer else dict(
        {key: getattr(args, key) for key in ARCHITECTURE_KEYS}, vocab_size=len(bpe.vocab))
    size = spec.write_model(
        path, model.tensors(), format=format, architecture=architecture, attention=None if transformer else args.attention,
        tokenizer=bpe.to_json(),  # joint vocabulary: source and target use this one table
        languages=spec.direction_metadata(args.direction), dtype=getattr(args, "export_dtype", "f16"),
        training=training_record(args, state, epochs=round(state["epoch_progress"], 3),
                                 align_supervision=bool(args.align_supervision)))
    print(f"exported {path}: {size} bytes ({size / 2**20:.2f} MiB)", flush=True)
    if size > spec.MAX_FILE_BYTES[format]:
        print(f"warning: the file is larger than the {spec.MAX_FILE_BYTES[format] // 2**20} MiB budget", flush=True)


def load_data(args, bpe):
    """Training and validation pairs of the direction, the supervision links, and the usable pairs."""
    data, cache = Path(args.data), {}
    train = load_pairs(data, "train", args.direction, bpe, cache)
    valid = load_pairs(data, "valid", args.direction, bpe, cache)
    alignments = (load_alignments(args.align_supervision, args.direction, len(train))
                  if args.align_supervision else None)
    usable = [i for i, p in enumerate(train)
              if len(p[0]) + 1 <= args.max_pieces and len(p[2]) + 1 <= args.max_pieces]
    pieces = sum(len(train[i][2]) + 1 for i in usable)
    print(f"train {len(usable)} pairs ({len(train) - len(usable)} longer than "
          f"{args.max_pieces} pieces skipped), {pieces} target pieces; valid {len(valid)} pairs",
          flush=True)
    return train, valid, alignments, usable


def joint_bpe(args):
    """The joint BPE of the legacy data, learned on first use."""
    data = Path(args.data)
    bpe_path = Path(args.bpe) if args.bpe else data / "bpe.json"
    if not bpe_path.exists():
        print(f"learning the joint BPE -> {bpe_path}", flush=True)
        learned = B.learn(B.count_words([data / "train.en", data / "train.es"]), args.vocab_size)
        bpe_path.write_text(learned.to_json() + "\n", encoding="utf-8")
    return B.BPE.from_json(bpe_path.read_text(encoding="utf-8"))


def build_model(args, vocab_size):
    """The architecture's model at args's sizes (a Transformer's alignment layer resolved into args)."""
    if args.arch == "transformer":
        model = Transformer(vocab_size, args.encoder_layers, args.decoder_layers, args.heads, args.model_dim,
                            args.ff_dim, args.dropout, args.alignment_layer, args.alignment_head,
                            args.alignment_shift)
        args.alignment_layer = model.alignment_layer  # the resolved default, checked on resume
        return model
    return Seq2Seq(vocab_size, args.embedding_dim, args.encoder_hidden, args.decoder_hidden, args.attention_dim,
                   args.attention, args.dropout)


def resume(checkpoint, args, model, optimizer, device):
    """The run's state: from its checkpoint when there is one (trained with the same settings), else new."""
    state = {"step": 0, "epoch": 0, "batch": 0, "elapsed": 0.0, "epoch_progress": 0.0, "history": []}
    if not checkpoint.exists():
        return state
    saved = torch.load(checkpoint, map_location=device)
    keys = TRANSFORMER_KEYS if args.arch == "transformer" else ARCHITECTURE_KEYS + ("attention",)
    check_resumable(checkpoint, saved["args"], args, keys + ("arch", "direction"))
    model.load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    state = saved["state"]
    print(f"resumed {checkpoint}: step {state['step']}, epoch {state['epoch']}, "
          f"{state['elapsed'] / 60:.1f} of {args.minutes} minutes", flush=True)
    return state


def main(args=None):
    args = args or parse_args()
    if args.languages:
        raise SystemExit("--languages: python3 -m tools.train trains the multilingual Transformer (train_multi.py)")
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    bpe = joint_bpe(args)
    train, valid, alignments, usable = load_data(args, bpe)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    model = build_model(args, len(bpe.vocab)).to(device)
    print(f"device: {device}", flush=True)
    count = sum(p.numel() for p in model.parameters())
    print(f"parameters: {count} ({count * 2 / 2**20:.2f} MiB as fp16, before metadata)", flush=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    checkpoint = Path(args.checkpoint or ROOT / "runs" / (Path(args.out).stem + ".pt"))
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    state = resume(checkpoint, args, model, optimizer, device)
    run(args, model, optimizer, state, checkpoint, (train, valid, alignments, usable))
    model.eval()
    export(model, args, bpe, state, args.out)


def optimizer_step(model, optimizer, loss, clip):
    """One update (train.py's and train_multi.py's): the loss's gradients, clipped to norm clip, applied."""
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
    optimizer.step()


def run(args, model, optimizer, state, checkpoint, data):
    """Trains until --minutes of training time are spent, with a checkpoint every --checkpoint-minutes."""
    train, valid, alignments, usable = data
    budget = args.minutes * 60
    last_save = state["elapsed"]
    running, running_tokens = 0.0, 0
    started = time.monotonic() - state["elapsed"]
    epoch_started = time.monotonic()

    def checkpoint_now(reason):
        state["elapsed"] = time.monotonic() - started
        valid_loss = validate(model, valid)
        state["history"].append({"step": state["step"], "minutes": round(state["elapsed"] / 60, 2),
                                 "epoch": round(state["epoch_progress"], 3),
                                 "valid_loss": round(valid_loss, 4)})
        print(f"[{reason}] step {state['step']} epoch {state['epoch_progress']:.2f} "
              f"valid loss {valid_loss:.4f} (ppl {math.exp(valid_loss):.1f})", flush=True)
        save(checkpoint, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                          "state": state, "args": vars(args)})

    model.train()
    while state["elapsed"] < budget:
        epoch_batches = batches(usable, train, args.batch_tokens,
                                random.Random(args.seed * 1000 + state["epoch"]))
        while state["batch"] < len(epoch_batches) and state["elapsed"] < budget:
            batch = epoch_batches[state["batch"]]
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(args.lr, state["elapsed"] / budget)
            loss, loss_sum, tokens = loss_of(model, batch, train, alignments, args.align_weight,
                                             args.label_smoothing)
            optimizer_step(model, optimizer, loss, args.clip)
            running += loss_sum
            running_tokens += tokens
            state["step"] += 1
            state["batch"] += 1
            state["epoch_progress"] = state["epoch"] + state["batch"] / len(epoch_batches)
            state["elapsed"] = time.monotonic() - started
            if state["step"] % args.log_every == 0:
                print(f"step {state['step']} epoch {state['epoch_progress']:.2f} "
                      f"{state['elapsed'] / 60:.1f} min train loss {running / running_tokens:.4f}"
                      f" lr {optimizer.param_groups[0]['lr']:.2e}", flush=True)
                running, running_tokens = 0.0, 0
            if state["elapsed"] - last_save >= args.checkpoint_minutes * 60:
                checkpoint_now("checkpoint")
                last_save = state["elapsed"]
        if state["batch"] >= len(epoch_batches):
            print(f"epoch {state['epoch'] + 1} done: {len(epoch_batches)} batches, "
                  f"{time.monotonic() - epoch_started:.0f} s", flush=True)
            epoch_started = time.monotonic()
            state["epoch"] += 1
            state["batch"] = 0
    checkpoint_now("final")


if __name__ == "__main__":
    main()
