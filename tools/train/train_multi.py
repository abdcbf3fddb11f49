"""train.py --languages: one Transformer for English <-> every listed language (multi.py).

  /usr/bin/python3 -m tools.train --arch transformer --languages bg,da,de,es,et,fr,hu,it,nl,pt,ru,sl \\
      --out build/train/multilingual.safetensors --minutes 600 --bf16

The schedule suits training spread over many runs: a warm-up, then a constant learning rate
for the trunk (runs/<name>.pt, resumed by rerunning the command with a larger --minutes); to
ship, copy the trunk's checkpoint and run a branch of it with --cooldown-minutes C, which decays
the rate to a tenth over its last C minutes (warmup-stable-decay). Every --eval-minutes the
supervised head's AER on every language's gold dev set is logged (multi.evaluate_alignment).
"""
import json
import random
import time
from pathlib import Path

import numpy as np
import torch

from tools.train import bpe as B, multi, safetensors, spec
from tools.train.train import ROOT, TRANSFORMER_KEYS, check_resumable, optimizer_step, save, training_record
from tools.train.transformer import Transformer


def corpus_factors(text):
    """--corpora "extra:1,prose:3" -> {"extra": 1.0, "prose": 3.0} (a factor defaults to 1)."""
    factors = {}
    for item in filter(None, (text or "").split(",")):
        name, _, factor = item.partition(":")
        if not name or name in ("train", "valid", "test") or "/" in name:
            raise SystemExit(f"--corpora: '{item}' is not NAME or NAME:FACTOR (NAME a file stem beside the splits)")
        try:
            factors[name] = float(factor or 1)
        except ValueError:
            raise SystemExit(f"--corpora: the factor of '{item}' is not a number") from None
    return factors


def language_factors(text, languages):
    """--language-factors "es:2" -> {"es": 2.0}: each of the language's sources drawn that much more."""
    factors = {}
    for item in filter(None, (text or "").split(",")):
        lang, _, factor = item.partition(":")
        if lang not in languages:
            raise SystemExit(f"--language-factors: '{item}' names no language of --languages")
        try:
            factors[lang] = float(factor)
        except ValueError:
            raise SystemExit(f"--language-factors: the factor of '{item}' is not a number") from None
        if not factors[lang] > 0:
            raise SystemExit(f"--language-factors: the factor of '{item}' is not above 0")
    return factors


def language_weights(sizes, factors=None, by_language=None):
    """Sampling weights n^0.5, normalized (Arivazhagan et al. 2019 use temperature sampling so
    that small languages are not drowned). A key "XX:NAME" is a corpus beside XX's splits (--corpora)
    drawn as a source of its own, its weight times the corpus's factor, so that a large corpus of
    software messages does not crowd out a small one of prose. by_language: a factor for every
    source of a language (--language-factors: more of the explorer's first pair, say)."""
    factors, by_language = factors or {}, by_language or {}
    raw = {key: n ** 0.5 * factors.get(key.partition(":")[2], 1.0) * by_language.get(key.partition(":")[0], 1.0)
           for key, n in sizes.items()}
    total = sum(raw.values())
    return {lang: w / total for lang, w in raw.items()}


def sampling_weights(args, sizes):
    """The run's weights of its sources (sizes: examples per key), with its --corpora and
    --language-factors."""
    return language_weights(sizes, corpus_factors(args.corpora),
                            language_factors(args.language_factors, args.languages.split(",")))


def draw_chunk(examples_by_lang, weights, index, seed, size):
    """`size` examples drawn across the languages by their weights (the index-th chunk)."""
    rng = random.Random(seed * 1_000_003 + index)
    chunk = []
    for lang, examples in examples_by_lang.items():
        count = min(len(examples), max(1, round(size * weights[lang])))
        chunk += rng.sample(examples, count)
    return chunk, rng


class BatchMaker:
    """The arrays of a batch (multi.arrays_for: no torch in worker processes), the alignment
    target as bytes (it holds 0 and 1) so that workers send a quarter of the data."""

    def __init__(self, corpus, shift):
        self.corpus, self.shift = corpus, shift

    def __call__(self, batch):
        source, target_in, target_out, gold = multi.arrays_for(self.corpus, batch, shift=self.shift)
        return source, target_in, target_out, gold.astype(np.uint8)


_MAKE = None


def _make_inherited(batch):
    return _MAKE(batch)


def batch_stream(make, draw, state, workers):
    """(chunk, batch index, arrays) from state's chunk and batch on, for ever; with workers, the
    next batches (16 per worker) are made ahead in worker processes, which close() ends."""
    def drawn():  # (chunk, batch index, batch) from the state's on, as draw() makes them
        chunk, batch = state["chunk"], state["batch"]
        while True:
            for index, b in enumerate(draw(chunk)[batch:], start=batch):
                yield chunk, index, b
            chunk, batch = chunk + 1, 0
    if workers <= 0:
        for chunk, index, b in drawn():
            yield chunk, index, make(b)
        return
    import collections
    import gc
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    global _MAKE
    _MAKE = make  # inherited by the forked workers: a task names only its batch, not the corpus
    gc.freeze()  # the corpus's objects: no collection walks (and so copies) them in the workers
    # not multiprocessing.Pool: its terminate() with tasks still queued can hang for ever (CPython
    # issues 78178 and 96995; it did here, about one test run in 100); the executor's shutdown
    # cancels what has not started and waits for the rest
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("fork"))
    try:
        queued, pending = collections.deque(), drawn()
        while True:
            while len(queued) < 16 * workers:
                chunk, index, b = next(pending)
                queued.append((chunk, index, pool.submit(_make_inherited, b)))
            chunk, index, made = queued.popleft()
            yield chunk, index, made.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def loss_of(model, arrays, align_weight, label_smoothing, bf16):
    """The training loss (label-smoothed, plus the alignment term), the summed cross-entropy (on
    the device) and the number of target pieces, of one batch's arrays (BatchMaker)."""
    device = next(model.parameters()).device
    source, target_in, target_out, gold = (torch.from_numpy(x).to(device, non_blocking=True) for x in arrays)
    mask, gold = source != B.PAD, gold.float()
    with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
        logits, weights = model(source, mask, target_in)
    logits = logits.float().reshape(-1, logits.shape[-1])
    targets = target_out.reshape(-1)
    tokens = int((arrays[2] != B.PAD).sum())  # counted on the host: no wait for the device
    loss_sum = torch.nn.functional.cross_entropy(logits, targets, ignore_index=B.PAD, reduction="sum")
    loss = torch.nn.functional.cross_entropy(logits, targets, ignore_index=B.PAD, reduction="sum",
                                             label_smoothing=label_smoothing) / tokens
    rows = gold.sum(2, keepdim=True)
    supervised = rows.squeeze(2) > 0
    if supervised.any():
        align_loss = -((gold / rows.clamp(min=1)) * torch.log(weights.float() + 1e-9)).sum() / supervised.sum()
        loss = loss + align_weight * align_loss
    return loss, loss_sum.detach(), tokens


@torch.no_grad()
def validate(model, corpus, valid, bf16):
    model.eval()
    device = next(model.parameters()).device
    total, tokens = 0.0, 0
    for batch in multi.batches(corpus, valid, 4000, random.Random(0), 10 ** 9):
        source, mask, target_in, target_out, _ = (
            None if x is None else x.to(device) for x in multi.tensors_for(corpus, batch, supervise=False))
        with torch.autocast(device.type, dtype=torch.bfloat16, enabled=bf16):
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
        training=training_record(args, state, threads=args.threads, bf16=args.bf16, batch_tokens=args.batch_tokens,
                                 lr=args.lr, cooldown_minutes=args.cooldown_minutes,
                                 align_supervision=supervision(Path(args.data), languages),
                                 corpora=args.corpora, language_factors=args.language_factors,
                                 cpu=cpu_model(), device=device_name(model),
                                 initialized_from=state.get("initialized_from")))
    print(f"exported {path}: {size} bytes", flush=True)


def supervision(data, languages):
    """The links the head learned from, as supervise.sh wrote them (DATA/en-XX/supervision: hmm or
    hybrid; links older than that file are the HMM's): one word, or each language's."""
    def method(lang):
        path = data / f"en-{lang}" / "supervision"
        return path.read_text(encoding="utf-8").strip() if path.exists() else "hmm"
    methods = {lang: method(lang) for lang in languages}
    return methods[languages[0]] if len(set(methods.values())) == 1 else methods


def device_name(model):
    device = next(model.parameters()).device
    return torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu"


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
    torch.backends.cuda.matmul.allow_tf32 = True
    languages = args.languages.split(",")
    shipped = None
    if args.init_from:
        tensors, metadata = safetensors.read(args.init_from)
        shipped = safetensors.dequantized(tensors), metadata
    bpe = vocabulary(args, languages, shipped)
    corpus, train_by_lang, valid = load_corpus(args, languages, bpe)
    device = torch.device(args.device or ("cuda" if torch.cuda.is_available() else "cpu"))
    model = Transformer(len(bpe.vocab), args.encoder_layers, args.decoder_layers, args.heads, args.model_dim,
                        args.ff_dim, args.dropout, args.alignment_layer, args.alignment_head, args.alignment_shift)
    args.alignment_layer = model.alignment_layer
    checkpoint = Path(args.checkpoint or ROOT / "runs" / (Path(args.out).stem + ".pt"))
    checkpoint.parent.mkdir(parents=True, exist_ok=True)
    state = {"step": 0, "chunk": 0, "batch": 0, "elapsed": 0.0, "history": [], "alignment": [],
             "languages": languages}
    if shipped is not None and not checkpoint.exists():
        state["initialized_from"] = initialize(model, shipped, args.init_from, bpe)
    elif shipped is not None:
        print(f"warning: {checkpoint} exists, so this run resumes it and --init-from {args.init_from} is not read "
              f"(delete the checkpoint or pass another --checkpoint to start from the file)", flush=True)
    model.to(device)
    count = sum(p.numel() for p in model.parameters())
    print(f"parameters: {count}; device: {device_name(model)}", flush=True)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    if checkpoint.exists():
        saved = torch.load(checkpoint, map_location=device, weights_only=False)
        check_resumable(checkpoint, saved["args"], args, TRANSFORMER_KEYS + ("languages",))
        model.load_state_dict(saved["model"])
        optimizer.load_state_dict(saved["optimizer"])
        state = saved["state"]
        print(f"resumed {checkpoint}: step {state['step']}, {state['elapsed'] / 60:.1f} of "
              f"{args.minutes} minutes", flush=True)
    Run(args, model, optimizer, state, checkpoint, corpus, valid, languages, bpe).train(train_by_lang)
    model.eval()
    export(model, args, bpe, state, languages, args.out)


def vocabulary(args, languages, shipped):
    """The joint BPE: DATA/bpe-multilingual.json, else the shipped file's, else learned now."""
    data = Path(args.data)
    bpe_path = Path(args.bpe) if args.bpe else data / "bpe-multilingual.json"
    if shipped is not None and not bpe_path.exists():  # a new machine: the shipped file's vocabulary
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
    return bpe


def written_directions(en_path, xx_path):
    """The directions a corpus is drawn in, as `to_english` values: both, unless a NAME.synthetic
    file beside it names the side a model wrote ("en": back-translated English, tools/data/fortunes.py),
    which is then only ever a source, never a target to learn."""
    marker = Path(en_path).with_suffix(".synthetic")
    if not marker.exists():
        return (False, True)
    side = marker.read_text(encoding="utf-8").strip()
    if side == "en":
        return (False,)
    if side == Path(xx_path).suffix[1:]:
        return (True,)
    raise SystemExit(f"{marker}: names '{side}', neither en nor {Path(xx_path).suffix[1:]} (the side a model wrote)")


def load_corpus(args, languages, bpe):
    """The encoded corpus, every language's training examples (both directions) and the
    validation examples (150 pairs of each language, both directions)."""
    data, started = Path(args.data), time.monotonic()
    corpus, jobs, keys = multi.Corpus(bpe), [], []
    corpora = corpus_factors(args.corpora)
    for lang in languages:
        folder = data / f"en-{lang}"
        jobs.append((folder / "train.en", folder / f"train.{lang}", lang, folder / "train.align"))
        keys.append(lang)
        if lang == "es" and not args.no_legacy and (data / "train.en").exists():
            jobs.append((data / "train.en", data / "train.es", "es", data / "train.align"))
            keys.append(lang)
        jobs.append((folder / "valid.en", folder / f"valid.{lang}", lang, None, 150))
        keys.append(lang)
        for name in corpora:  # beside the splits: drawn as a source of its own (language_weights)
            if (folder / f"{name}.{lang}").exists():
                jobs.append((folder / f"{name}.en", folder / f"{name}.{lang}", lang, folder / f"{name}.align"))
                keys.append(f"{lang}:{name}")
    train_by_lang, valid = {}, []
    for job, key, added in zip(jobs, keys, corpus.add_many(jobs, args.workers)):
        if len(job) == 5:
            valid += [(i, to_en) for i in added for to_en in (False, True)]
            continue
        unsupervised = sum(corpus.links[i] is None for i in added)
        if unsupervised:
            print(f"warning: {unsupervised} {key} pairs of {job[1]} have no alignment supervision", flush=True)
        directions = written_directions(job[0], job[1])
        train_by_lang.setdefault(key, []).extend((i, to_en) for i in added for to_en in directions)
    sizes = {key: len(e) for key, e in train_by_lang.items()}
    print(f"examples (both directions): {sizes}; weights "
          f"{ {k: round(v, 3) for k, v in sampling_weights(args, sizes).items()} }; valid {len(valid)}; "
          f"encoded in {time.monotonic() - started:.0f} s", flush=True)
    return corpus, train_by_lang, valid


def initialize(model, shipped, path, bpe=None):
    """The shipped file's weights into model (the trunk must match; the head's reading,
    alignment_shift, may change, retraining it); returns the file's training record. The
    vocabulary may have grown (bpe.extend: the file's pieces first, unchanged): a new piece's
    embedding starts as the mean of the rows of the pieces the file's vocabulary wrote it with (for
    Chinese, its characters' UTF-8 bytes), a new tag as the mean of the file's tags, and its output
    bias at the file's lowest, so that the model writes what it wrote before until it learns."""
    tensors, metadata = shipped
    trunk = lambda config: {k: v for k, v in config.items() if k not in ("alignment_shift", "vocab_size")}  # noqa: E731
    if trunk(json.loads(metadata["architecture"])) != trunk(model.config):
        raise SystemExit(f"{path} has architecture {metadata['architecture']}, not {model.config}")
    renamed = {"embedding": "embedding.weight", "output.bias": "output_bias"}
    state = {renamed.get(name, name): torch.from_numpy(np.asarray(value, dtype=np.float32))
             for name, value in tensors.items()}
    grown = model.embedding.weight.shape[0] - state["embedding.weight"].shape[0]
    if grown:
        old = B.BPE.from_json(metadata["tokenizer"])
        if bpe is None or grown < 0 or bpe.vocab[:len(old.vocab)] != old.vocab:
            raise SystemExit(f"{path}: its vocabulary ({len(old.vocab)} pieces) is not the start of this run's "
                             f"({model.embedding.weight.shape[0]}): grow it with bpe.py extend")
        state["embedding.weight"], state["output_bias"] = grown_rows(
            state["embedding.weight"], state["output_bias"], old, bpe)
        print(f"vocabulary grown by {grown} pieces from {len(old.vocab)}", flush=True)
    model.load_state_dict(state)
    done = json.loads(metadata["training"])
    print(f"initialized from {path} ({done['minutes']} minutes, {done['steps']} steps before; "
          f"the optimizer starts afresh)", flush=True)
    return done


def grown_rows(embedding, bias, old, bpe):
    """(embedding, output bias) with a row for each of bpe's pieces after old's (see initialize)."""
    rows, biases = [embedding], [bias]
    tags = [i for i, p in enumerate(old.vocab) if p.startswith("<2") and p.endswith(">")]
    for piece in bpe.vocab[len(old.vocab):]:
        if piece.startswith("<2") and piece.endswith(">"):
            ids = tags
        else:
            # a word-start piece as the old vocabulary writes that word; another by its characters
            ids = old.encode_word(piece[1:]) if piece.startswith(B.MARKER) else old.symbols(piece)[1:]
            ids = [old.ids[p] for p in ids]
        rows.append(embedding[ids].mean(0, keepdim=True))
        biases.append(bias.min().reshape(1))
    return torch.cat(rows), torch.cat(biases)


class Run:
    """The training loop: until --minutes of training time are spent, a checkpoint every
    --checkpoint-minutes (with the dev AER every --eval-minutes), the trunk exported to
    --trunk-out when the cool-down begins."""

    def __init__(self, args, model, optimizer, state, checkpoint, corpus, valid, languages, bpe):
        self.args, self.model, self.optimizer, self.state = args, model, optimizer, state
        self.checkpoint, self.corpus, self.valid, self.languages, self.bpe = checkpoint, corpus, valid, languages, bpe
        self.started = time.monotonic() - state["elapsed"]

    def checkpoint_now(self, reason, evaluate):
        state, model = self.state, self.model
        state["elapsed"] = time.monotonic() - self.started
        valid_loss = validate(model, self.corpus, self.valid, self.args.bf16)
        entry = {"step": state["step"], "minutes": round(state["elapsed"] / 60, 2), "valid_loss": round(valid_loss, 4)}
        state["history"].append(entry)
        line = f"[{reason}] step {state['step']} {entry['minutes']} min valid loss {valid_loss:.4f}"
        if evaluate and all(multi.gold_path(lang).exists() for lang in self.languages):
            began = time.monotonic()
            results = multi.evaluate_alignment(model, self.corpus, self.languages)
            state["alignment"].append({"step": state["step"], "minutes": entry["minutes"], "aer": results})
            line += f"\n  AER ({time.monotonic() - began:.0f} s): {multi.summary(results)}\n  {multi.dump(results)}"
        elif evaluate:
            line += " (no gold alignment sets beside the repository: AER not measured)"
        print(line, flush=True)
        # the clock keeps running while evaluating: count it as training time only once
        save(self.checkpoint, {"model": model.state_dict(), "optimizer": self.optimizer.state_dict(),
                               "state": state, "args": vars(self.args)})

    def train(self, train_by_lang):
        args, state, model = self.args, self.state, self.model
        weights = sampling_weights(args, {key: len(e) for key, e in train_by_lang.items()})

        def draw(chunk):
            examples, rng = draw_chunk(train_by_lang, weights, chunk, args.seed, args.chunk_examples)
            return multi.batches(self.corpus, examples, args.batch_tokens, rng, args.max_pieces)

        budget, cooldown_at = args.minutes * 60, (args.minutes - args.cooldown_minutes) * 60
        trunk_pending = args.trunk_out and args.cooldown_minutes and state["elapsed"] <= cooldown_at
        if args.trunk_out and not trunk_pending:
            print(f"warning: the cool-down began before this run resumed: --trunk-out {args.trunk_out} is not written",
                  flush=True)
        model.train()
        stream = batch_stream(BatchMaker(self.corpus, model.alignment_shift), draw, state, args.workers)
        try:
            self.steps(stream, budget, cooldown_at, trunk_pending)
        finally:
            stream.close()  # ends the worker processes, also when a step fails
        self.checkpoint_now("final", True)

    def steps(self, stream, budget, cooldown_at, trunk_pending):
        args, state, model, optimizer = self.args, self.state, self.model, self.optimizer
        last_save = last_eval = state["elapsed"]
        running, running_tokens = 0.0, 0
        while state["elapsed"] < budget:
            state["chunk"], state["batch"], arrays = next(stream)
            for group in optimizer.param_groups:
                group["lr"] = learning_rate(args, state["elapsed"])
            loss, loss_sum, tokens = loss_of(model, arrays, args.align_weight, args.label_smoothing, args.bf16)
            optimizer_step(model, optimizer, loss, args.clip)
            running += loss_sum
            running_tokens += tokens
            state["step"] += 1
            state["batch"] += 1  # the next batch to train on, if this chunk has one (else the next chunk's first)
            state["elapsed"] = time.monotonic() - self.started
            if state["step"] % args.log_every == 0:
                print(f"step {state['step']} {state['elapsed'] / 60:.1f} min train loss "
                      f"{float(running) / running_tokens:.4f} lr {optimizer.param_groups[0]['lr']:.2e}", flush=True)
                running, running_tokens = 0.0, 0
            if trunk_pending and state["elapsed"] >= cooldown_at:
                self.checkpoint_now("trunk", False)
                export(model, args, self.bpe, state, self.languages, args.trunk_out)
                trunk_pending, last_save = False, state["elapsed"]
            if state["elapsed"] - last_save >= args.checkpoint_minutes * 60:
                evaluate = state["elapsed"] - last_eval >= args.eval_minutes * 60
                self.checkpoint_now("checkpoint", evaluate)
                last_save = state["elapsed"]
                if evaluate:
                    last_eval = state["elapsed"]
