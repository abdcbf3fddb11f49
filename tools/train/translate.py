#!/usr/bin/python3
"""Reference implementation in numpy: greedy translation and forced-decoding attention.

Reads only the exported .safetensors file (never a torch checkpoint), computes in float32 with
the equations of docs/MODEL_FORMAT.md, and is what the C++ core is compared against.

  translate.py MODEL "The jury said it did find that."            greedy translation
  translate.py MODEL --file data/test.en                          one translation a line
  translate.py MODEL "He was the father ." --force "Fue padre ."  attention and word links
  add --json for machine-readable output (pieces, piece- and word-level matrices)
"""
import argparse
import json
import unicodedata
from pathlib import Path

import numpy as np

from tools.data.words import tokenize
from tools.train import bpe as B, safetensors


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


class Model:
    def __init__(self, path):
        tensors, self.metadata = safetensors.read(path)
        tensors = safetensors.dequantized(tensors)
        if self.metadata.get("format") != "attnscope-rnn-v1":
            raise ValueError(f"{path}: not an attnscope-rnn-v1 file")
        self.w = {name: t.astype(np.float32) for name, t in tensors.items()}
        self.architecture = json.loads(self.metadata["architecture"])
        self.attention = self.metadata["attention"]
        self.bpe = B.BPE.from_json(self.metadata["tokenizer"])

    def gru(self, prefix, x_projected, h):
        """One GRU step; x_projected = W_ih x + b_ih (precomputed for the encoder)."""
        w = self.w
        gh = w[prefix + "weight_hh"] @ h + w[prefix + "bias_hh"]
        size = h.shape[0]
        r = sigmoid(x_projected[:size] + gh[:size])
        z = sigmoid(x_projected[size:2 * size] + gh[size:2 * size])
        n = np.tanh(x_projected[2 * size:] + r * gh[2 * size:])
        return (1 - z) * n + z * h

    def encode(self, source_ids):
        """keys [S][2H] (forward state ; backward state) and the decoder start state s0."""
        embedded = self.w["embedding"][source_ids]                       # [S][E]
        hidden = self.architecture["encoder_hidden"]
        keys = np.zeros((len(source_ids), 2 * hidden), dtype=np.float32)
        for direction, order, half in (("forward", range(len(source_ids)), slice(0, hidden)),
                                       ("backward", reversed(range(len(source_ids))),
                                        slice(hidden, 2 * hidden))):
            prefix = f"encoder.{direction}."
            inputs = embedded @ self.w[prefix + "weight_ih"].T + self.w[prefix + "bias_ih"]
            h = np.zeros(hidden, dtype=np.float32)
            for j in order:
                h = self.gru(prefix, inputs[j], h)
                keys[j, half] = h
        s0 = np.tanh(self.w["init.weight"] @ keys[0, hidden:] + self.w["init.bias"])
        return keys, s0

    def step(self, keys, projected, state, previous_id):
        """One decoder step from s_{t-1}: (logits_t, s_t, alpha_t)."""
        w = self.w
        if self.attention == "additive":
            scores = np.tanh(projected + w["attention.query"] @ state) @ w["attention.score"]
        else:
            scores = projected @ state
        alpha = softmax(scores)
        context = alpha @ keys
        embedded = w["embedding"][previous_id]
        x = w["decoder.weight_ih"] @ np.concatenate([embedded, context]) + w["decoder.bias_ih"]
        state = self.gru("decoder.", x, state)
        out = np.tanh(w["output.weight"] @ np.concatenate([state, context, embedded])
                      + w["output.bias"])
        logits = w["embedding"] @ out + w["output.vocab_bias"]
        return logits, state, alpha

    def run(self, source_ids, target_ids=None, max_length=None):
        """Greedy decoding, or forced decoding of target_ids. Source gets </s> appended.
        Returns (target piece ids incl. final </s>, attention [T][S], log-prob per step)."""
        source = list(source_ids) + [B.EOS]
        keys, state = self.encode(source)
        projected = keys @ self.w["attention.key"].T  # [S][A] additive, [S][D] general
        forced = None if target_ids is None else list(target_ids) + [B.EOS]
        limit = len(forced) if forced else (max_length or 2 * len(source) + 10)
        previous, output, rows, log_probs = B.BOS, [], [], []
        for t in range(limit):
            logits, state, alpha = self.step(keys, projected, state, previous)
            log_p = logits - logits.max()
            log_p = log_p - np.log(np.exp(log_p).sum())
            previous = forced[t] if forced else int(np.argmax(logits))
            output.append(previous)
            rows.append(alpha)
            log_probs.append(float(log_p[previous]))
            if previous == B.EOS and not forced:
                break
        return output, np.stack(rows), log_probs

    # -- text level -------------------------------------------------------------------------
    def words(self, text):
        return tokenize(unicodedata.normalize("NFC", text))

    def translate(self, text):
        ids, _, _ = self.run(self.bpe.encode(self.words(text)))
        return self.bpe.decode(ids)

    def align(self, source_text, target_text):
        """Word-level attention [target word][source word + null] and links, from the piece
        matrix: a target word's row is the mean of its pieces' rows, a source word's column the
        sum of its pieces' columns; the source </s> column is the null column and the target
        </s> row is dropped."""
        source_words, target_words = self.words(source_text), self.words(target_text)
        source_ids, target_ids = self.bpe.encode(source_words), self.bpe.encode(target_words)
        _, pieces, log_probs = self.run(source_ids, target_ids)
        source_of = self.bpe.word_starts(source_ids) + [len(source_words)]   # </s> -> null
        target_of = self.bpe.word_starts(target_ids)
        words = np.zeros((len(target_words), len(source_words) + 1), dtype=np.float32)
        counts = np.zeros(len(target_words), dtype=np.float32)
        for t, tw in enumerate(target_of):
            counts[tw] += 1
            for s, sw in enumerate(source_of):
                words[tw, sw] += pieces[t, s]
        words /= counts[:, None]
        links = [(int(np.argmax(row)), tw) for tw, row in enumerate(words)
                 if np.argmax(row) < len(source_words)]
        return {"source_words": source_words, "target_words": target_words,
                "source_pieces": [self.bpe.vocab[i] for i in source_ids] + ["</s>"],
                "target_pieces": [self.bpe.vocab[i] for i in target_ids] + ["</s>"],
                "piece_attention": pieces.tolist(), "word_attention": words.tolist(),
                "links": links, "log_prob": float(sum(log_probs))}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model")
    parser.add_argument("text", nargs="?")
    parser.add_argument("--file", help="translate every line of this file")
    parser.add_argument("--force", help="target sentence for forced decoding")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    model = Model(args.model)
    if args.force:
        result = model.align(args.text, args.force)
        if args.json:
            print(json.dumps(result, ensure_ascii=False))
            return
        source, target = result["source_words"], result["target_words"]
        print("\t" + "\t".join(source + ["(null)"]))
        for word, row in zip(target, result["word_attention"]):
            print(word + "\t" + "\t".join(f"{v:.2f}" for v in row))
        print("links (source-target):", " ".join(f"{s}-{t}" for s, t in result["links"]))
        return
    lines = Path(args.file).read_text(encoding="utf-8").splitlines() if args.file else [args.text]
    for line in lines:
        words = model.translate(line)
        print(json.dumps({"source": line, "translation": words}, ensure_ascii=False)
              if args.json else " ".join(words), flush=True)


if __name__ == "__main__":
    main()
