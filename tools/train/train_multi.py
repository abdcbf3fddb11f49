"""train.py --languages: one Transformer for English <-> every listed language (multi.py).

  /usr/bin/python3 tools/train/train.py --arch transformer --languages bg,da,de,es,et,fr,hu,it,nl,pt,ru,sl \\
      --out build/train/multilingual.safetensors --minutes 600 --bf16

The schedule suits training spread over many sessions: a warm-up, then a constant learning rate
for the trunk (runs/<name>.pt, resumed by rerunning the command with a larger --minutes); to
ship, copy the trunk's checkpoint and run a branch of it with --cooldown-minutes C, which decays
the rate to a tenth over its last C minutes (warmup-stable-decay). Every --eval-minutes the
supervised head's AER on every language's gold dev set is logged (multi.evaluate_alignment).
"""
import json
import math
import random
import time
from pathlib import Path

import numpy as np
import torch

import bpe as B
import multi
import safetensors
import spec
from train import ROOT, TRANSFORMER_KEYS, check_resumable, save, training_record
from transformer import Transformer

CHUNK = 30000  # examples drawn at a time, then cut into batches of similar length


def language_weights(sizes, alpha=0.5):
    """Sampling weights n^alpha, normalized (Arivazhagan et al. 2019 use temperature sampling so
    that small languages are not drowned)."""
    raw = {lang: n ** alpha for lang, n in sizes.items()}
    total = sum(raw.values())
    return {lang: w / total for lang, w in raw.items()}


def draw_chunk(examples_by_lang, weights, index, seed):
    rng = random.Random(seed * 1_000_003 + index)
    chunk = []
    for lang, examples in examples_by_lang.items():
        count = min(len(examples), max(1, round(CHUNK * weights[lang])))
        chunk += rng.sample(examples, count)
    return chunk, rng


def loss_of(model, corpus, batch, align_weight, label_smoothing, bf16):
    source, mask, target_in, target_out, gold = multi.tensors_for(corpus, batch,
                                                                  shift=model.alignment_shift)
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        logits, weights = model(source, mask, target_in)
    logits = logits.float().reshape(-1, logits.shape[-1])
    targets = target_out.reshape(-1)
    tokens = int((targets != B.PAD).sum())
    loss_sum = torch.nn.functional.cross_entropy(logits, targets, ignore_index=B.PAD, reduction="sum")
    loss = torch.nn.functional.cross_entropy(logits, targets, ignore_index=B.PAD, reduction="sum",
                                             label_smoothing=label_smoothing) / tokens
    rows = gold.sum(2, keepdim=True)
    supervised = rows.squeeze(2) > 0
    if supervised.any():
        align_loss = -((gold / rows.clamp(min=1)) * torch.log(weights.float() + 1e-9)).sum() / supervised.sum()
        loss = loss + align_weight * align_loss
    return loss, float(loss_sum), tokens


@torch.no_grad()
def validate(model, corpus, valid, bf16):
    model.eval()
    total, tokens = 0.0, 0
    for batch in multi.batches(corpus, valid, 4000, random.Random(0), 10 ** 9):
        source, mask, target_in, target_out, _ = multi.tensors_for(corpus, batch, supervise=False)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits, _ = model(source, mask, target_in)
        total += float(torch.nn.functional.cross_entropy(
            logits.float().reshape(-1, logits.shape[-1]), target_out.reshape(-1), ignore_index=B.PAD,
            reduction="sum"))
        tokens += int((target_out != B.PAD).sum())
    model.train()
    return total / tokens


def learning_rate(args, elapsed):
    minutes = elapsed / 60
    rate = args.lr * min(1.0, (minutes + 1e-3) / args.warmup_minutes) if args.warmup_minutes else args.lr
    if args.cooldown_minutes:
        into = minutes - (args.minutes - args.cooldown_minutes)
        if into > 0:
            rate *= max(0.1, 1 - 0.9 * into / args.cooldown_minutes)
    return rate


def export(model, args, bpe, state, languages, path):
    """The file of docs/MODEL_FORMAT.md with the multilingual metadata: `languages` (English
    first) and `language_tags` (language -> the piece id the decoder starts from)."""
    everyone = ["en", *languages]
    size = spec.write_model(
        path, model.tensors(), format=spec.TRANSFORMER, architecture=model.config, tokenizer=bpe.to_json(),
        languages=spec.multilingual_metadata(everyone, {lang: bpe.ids[multi.tag(lang)] for lang in everyone}),
        dtype=args.export_dtype,
        training=training_record(args, state, threads=args.threads, bf16=args.bf16,
                                 cooldown_minutes=args.cooldown_minutes, align_supervision="hmm", cpu=cpu_model()))
    print(f"exported {path}: {size} bytes", flush=True)


def cpu_model():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def main(args):
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    languages = args.languages.split(",")
    data = Path(args.data)
    bpe_path = Path(args.bpe) if args.bpe else data / "bpe-multilingual.json"
    shipped = None
    if args.init_from:  # a new machine: the shipped file's weights and vocabulary are the start
        shipped = safetensors.read(args.init_from)
        if not bpe_path.exists():
            bpe_path.write_text(shipped[1]["tokenizer"] + "\n", encoding="utf-8")
    if not bpe_path.exists():
        started = time.monotonic()
        print(f"learning the joint BPE ({args.vocab_size}) -> {bpe_path}", flush=True)
        multi.learn_vocabulary(data, languages, args.vocab_size, args.sentences_per_language, bpe_path)
        print(f"  {time.monotonic() - started:.0f} s", flush=True)
    bpe = B.BPE.from_json(bpe_path.read_text(encoding="utf-8"))
    missing = [multi.tag(lang) for lang in ["en", *languages] if multi.tag(lang) not in bpe.ids]
    if missing:
        raise SystemExit(f"{bpe_path} has no tag piece for {missing}: learn a new vocabulary")

    corpus = multi.Corpus(bpe)
    train_by_lang, valid = {}, []
    started = time.monotonic()
    for lang in languages:
        folder = data / f"en-{lang}"
        pairs = list(corpus.add(folder / "train.en", folder / f"train.{lang}", lang, folder / "train.align"))
        if lang == "es" and not args.no_legacy and (data / "train.en").exists():
            pairs += corpus.add(data / "train.en", data / "train.es", "es", data / "train.align")
        unsupervised = sum(corpus.links[i] is None for i in pairs)
        if unsupervised:
            print(f"warning: {unsupervised} {lang} pairs have no alignment supervision", flush=True)
        train_by_lang[lang] = [(i, to_en) for i in pairs for to_en in (False, True)]
        held = corpus.add(folder / "valid.en", folder / f"valid.{lang}", lang, limit=150)
        valid += [(i, to_en) for i in held for to_en in (False, True)]
    sizes = {lang: len(e) for lang, e in train_by_lang.items()}
    weights = language_weights(sizes)
    print(f"examples (both directions): {sizes}; weights "
          f"{ {k: round(v, 3) for k, v in weights.items()} }; valid {len(valid)}; "
          f"encoded in {time.monotonic() - started:.0f} s", flush=True)

    model = Transformer(len(bpe.vocab), args.encoder_layers, args.decoder_layers, args.heads, args.model_dim,
                        args.ff_dim, args.dropout, args.alignment_layer, args.alignment_head, args.alignment_shift)
    args.alignment_layer = model.alignment_layer
    if shipped is not None and not Path(args.checkpoint or ROOT / "runs" / (Path(args.out).stem + ".pt")).exists():
        tensors, metadata = shipped
        # the trunk must match; the head's reading (alignment_shift) may change, retraining it
        trunk = lambda config: {k: v for k, v in config.items() if k != "alignment_shift"}  # noqa: E731
        if trunk(json.loads(metadata["architecture"])) != trunk(model.config):
            raise SystemExit(f"{args.init_from} has architecture {metadata['architecture']}, not {model.config}")
        renamed = {"embedding": "embedding.weight", "output.bias": "output_bias"}
        state_dict = {renamed.get(name, name): torch.from_numpy(np.asarray(value, dtype=np.float32))
                      for name, value in tensors.items()}
        model.load_state_dict(state_dict)
        done = json.loads(metadata["training"])
        print(f"initialized from {args.init_from} ({done['minutes']} minutes, {done['steps']} steps before; "
              f"the optimizer starts afresh)", flush=True)
    count = sum(p.numel() for p in model.parameters())
    print(f"parameters: {count}", flush=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)

    checkpoint = Path(args.checkpoint or ROOT / "runs" / (Path(args.out).stem + ".pt"))
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    state = {"step": 0, "chunk": 0, "batch": 0, "elapsed": 0.0, "history": [], "alignment": [],
             "languages": languages}
    if checkpoint.exists():
        saved = torch.load(checkpoint)
        check_resumable(checkpoint, saved["args"], args, TRANSFORMER_KEYS + ("languages",))
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        state = saved["state"]
        print(f"resumed {checkpoint}: step {state['step']}, {state['elapsed'] / 60:.1f} of "
              f"{args.minutes} minutes", flush=True)

    budget = args.minutes * 60
    started = time.monotonic() - state["elapsed"]
    last_save = last_eval = state["elapsed"]
    running, running_tokens = 0.0, 0

    def checkpoint_now(reason, evaluate):
        state["elapsed"] = time.monotonic() - started
        valid_loss = validate(model, corpus, valid, args.bf16)
        entry = {"step": state["step"], "minutes": round(state["elapsed"] / 60, 2),
                 "valid_loss": round(valid_loss, 4)}
        state["history"].append(entry)
        line = f"[{reason}] step {state['step']} {entry['minutes']} min valid loss {valid_loss:.4f}"
        if evaluate:
            began = time.monotonic()
            results = multi.evaluate_alignment(model, corpus, languages)
            state["alignment"].append({"step": state["step"], "minutes": entry["minutes"], "aer": results})
            line += f"\n  AER ({time.monotonic() - began:.0f} s): {multi.summary(results)}\n  {multi.dump(results)}"
        print(line, flush=True)
        # the clock keeps running while evaluating: count it as training time only once
        save(checkpoint, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                          "state": state, "args": vars(args)})

    model.train()
    while state["elapsed"] < budget:
        chunk, rng = draw_chunk(train_by_lang, weights, state["chunk"], args.seed)
        chunk_batches = multi.batches(corpus, chunk, args.batch_tokens, rng, args.max_pieces)
        while state["batch"] < len(chunk_batches) and state["elapsed"] < budget:
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(args, state["elapsed"])
            loss, loss_sum, tokens = loss_of(model, corpus, chunk_batches[state["batch"]], args.align_weight,
                                             args.label_smoothing, args.bf16)
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            optimizer.step()
            running += loss_sum
            running_tokens += tokens
            state["step"] += 1
            state["batch"] += 1
            state["elapsed"] = time.monotonic() - started
            if state["step"] % args.log_every == 0:
                print(f"step {state['step']} {state['elapsed'] / 60:.1f} min train loss "
                      f"{running / running_tokens:.4f} lr {optimizer.param_groups[0]['lr']:.2e}", flush=True)
                running, running_tokens = 0.0, 0
            if state["elapsed"] - last_save >= args.checkpoint_minutes * 60:
                evaluate = state["elapsed"] - last_eval >= args.eval_minutes * 60
                checkpoint_now("checkpoint", evaluate)
                last_save = state["elapsed"]
                if evaluate:
                    last_eval = state["elapsed"]
        if state["batch"] >= len(chunk_batches):
            state["chunk"] += 1
            state["batch"] = 0

    checkpoint_now("final", True)
    model.eval()
    export(model, args, bpe, state, languages, args.out)
