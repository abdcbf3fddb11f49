"""Byte-fallback BPE over words, with a SentencePiece-style word-start marker.

The C++ core reimplements `BPE.encode_word` and `BPE.decode` exactly; docs/MODEL_FORMAT.md
("Subword vocabulary") is the specification and this file its reference. In short:

  * a word (a token of tools/data/words.py) starts as the marker "▁" followed by its characters;
    a character that is not in the vocabulary (and the marker character itself, should a user
    type it) becomes its UTF-8 bytes, each the token <0xNN>, so every string is representable;
  * merges are applied greedily by rank: repeatedly merge the adjacent pair with the lowest rank
    (leftmost on a tie) into the concatenated string, until no adjacent pair is in the list;
    byte tokens are never part of a merge;
  * a piece that starts with "▁" starts a word, so subword attention sums back to words.

Learning (`learn`) is classic BPE (Sennrich et al. 2016) over word types: merge the most frequent
adjacent pair (ties: the lexicographically smallest (left, right)), stop at the vocabulary size
or when no pair occurs twice.

Usage:
  python3 -m tools.train.bpe learn --vocab-size 8192 --out data/bpe.json data/train.en data/train.es
  python3 -m tools.train.bpe encode data/bpe.json < text      (subword pieces, one sentence a line)
"""
import argparse
import collections
import heapq
import json
import sys
from pathlib import Path

from tools.data.words import tokenize

MARKER = "\u2581"  # ▁
SPECIALS = ["<pad>", "<s>", "</s>"]
PAD, BOS, EOS = 0, 1, 2
BYTES = [f"<0x{b:02X}>" for b in range(256)]
FORMAT = "attnscope-bpe-v1"


class BPE:
    """vocab: piece strings, id = index; merges: (left, right) pairs, rank = index."""

    def __init__(self, vocab, merges):
        assert vocab[:len(SPECIALS)] == SPECIALS and vocab[3:259] == BYTES and vocab[259] == MARKER
        self.vocab = list(vocab)
        self.merges = [tuple(m) for m in merges]
        self.ids = {piece: i for i, piece in enumerate(self.vocab)}
        self.ranks = {pair: rank for rank, pair in enumerate(self.merges)}
        # Base characters: the single-character pieces (merges always yield two or more).
        self.chars = {p for p in self.vocab[259:] if len(p) == 1 and p != MARKER}

    # -- encoding ---------------------------------------------------------------------------
    def symbols(self, word):
        """Initial symbols of a word: the marker, then characters or their UTF-8 bytes."""
        out = [MARKER]
        for ch in word:
            if ch in self.chars:
                out.append(ch)
            else:
                out.extend(BYTES[b] for b in ch.encode("utf-8"))
        return out

    def encode_word(self, word):
        symbols = self.symbols(word)
        while len(symbols) > 1:
            best, best_rank = -1, len(self.merges)
            for i in range(len(symbols) - 1):
                rank = self.ranks.get((symbols[i], symbols[i + 1]), best_rank)
                if rank < best_rank:  # strict: the leftmost of equal ranks wins
                    best, best_rank = i, rank
            if best < 0:
                break
            symbols[best:best + 2] = [symbols[best] + symbols[best + 1]]
        return symbols

    def encode(self, words):
        """Piece ids of a list of words (no <s> or </s>: the model adds those)."""
        return [self.ids[p] for word in words for p in self.encode_word(word)]

    # -- decoding ---------------------------------------------------------------------------
    def word_starts(self, ids):
        """For each piece, the index of the word it belongs to (-1 before the first word)."""
        index, out = -1, []
        for i in ids:
            if self.vocab[i].startswith(MARKER):
                index += 1
            out.append(index)
        return out

    def decode(self, ids):
        """Words of a piece-id sequence; specials are skipped, bytes reassembled as UTF-8."""
        words = []
        for i in ids:
            piece = self.vocab[i]
            if i < len(SPECIALS):
                continue
            if piece.startswith(MARKER):
                words.append(bytearray())
                piece = piece[len(MARKER):]
            if not words:
                words.append(bytearray())  # a sequence that does not start a word
            if i < 259:
                words[-1].append(i - len(SPECIALS))  # byte token <0xNN>
            else:
                words[-1].extend(piece.encode("utf-8"))
        return [w.decode("utf-8", errors="replace") for w in words]

    # -- storage ----------------------------------------------------------------------------
    def to_json(self):
        return json.dumps({"type": FORMAT, "word_marker": MARKER, "specials": SPECIALS,
                           "vocab": self.vocab, "merges": [list(m) for m in self.merges]},
                          ensure_ascii=False, separators=(",", ":"))

    @classmethod
    def from_json(cls, text):
        data = json.loads(text)
        assert data["type"] == FORMAT, data["type"]
        return cls(data["vocab"], data["merges"])


def learn(word_counts, vocab_size, min_char_count=20):
    """BPE learned from {word: count}. Characters seen fewer than `min_char_count` times stay
    out of the base vocabulary, so the byte tokens are trained on real rare characters."""
    char_counts = collections.Counter()
    for word, count in word_counts.items():
        for ch in word:
            char_counts[ch] += count
    chars = sorted((c for c, n in char_counts.items() if n >= min_char_count and c != MARKER),
                   key=lambda c: (-char_counts[c], c))
    bpe = BPE(SPECIALS + BYTES + [MARKER] + chars, [])

    return BPE(*_learn_merges(bpe, [bpe.symbols(w) for w in word_counts], list(word_counts.values()), vocab_size))


def extend(base, word_counts, new_pieces, min_char_count=20, tags=()):
    """`base` with its pieces and merges unchanged (a word made of characters base knew is encoded
    as before), then the characters of word_counts it lacks (seen at least min_char_count times), then merges
    learned over word_counts after base's own, until new_pieces pieces were added, then `tags`.
    How a vocabulary grows to take a new language (Chinese's characters and words) while a model
    trained on the old one keeps every row it learned."""
    char_counts = collections.Counter()
    for word, count in word_counts.items():
        for ch in word:
            char_counts[ch] += count
    known = set(base.vocab)
    chars = sorted((c for c, n in char_counts.items() if n >= min_char_count and c != MARKER and c not in known),
                   key=lambda c: (-char_counts[c], c))[:new_pieces]
    grown = BPE(base.vocab + chars, base.merges)
    words = [grown.encode_word(w) for w in word_counts]
    vocab, merges = _learn_merges(grown, words, list(word_counts.values()), len(base.vocab) + new_pieces)
    missing = [t for t in tags if t not in set(vocab)]
    return BPE(vocab + missing, list(base.merges) + merges[len(base.merges):])


def _learn_merges(bpe, words, counts, vocab_size):
    """Classic BPE over word types (symbol lists `words`, their `counts`), starting from bpe's
    vocabulary and merges: (vocabulary, merges) once vocab_size pieces are reached or no pair
    occurs twice."""
    # Word types as mutable symbol lists, with pair counts and an index pair -> word types.
    pair_counts = collections.Counter()
    where = collections.defaultdict(set)
    for index, symbols in enumerate(words):
        for pair in zip(symbols, symbols[1:]):
            pair_counts[pair] += counts[index]
            where[pair].add(index)

    # A max-heap of (count, pair) with stale entries skipped when popped: a pair whose count
    # changes is pushed again. Ties pop the smallest (left, right), as the spec says.
    heap = [(-n, p) for p, n in pair_counts.items() if mergeable(p)]
    heapq.heapify(heap)
    vocab, merges, known = list(bpe.vocab), list(bpe.merges), set(bpe.vocab)
    while len(vocab) < vocab_size and heap:
        negative_count, pair = heapq.heappop(heap)
        if pair_counts.get(pair, 0) != -negative_count:
            continue
        if -negative_count < 2:
            break
        merged = pair[0] + pair[1]
        merges.append(pair)
        if merged not in known:
            known.add(merged)
            vocab.append(merged)
        changed = set()
        for index in list(where[pair]):
            old = words[index]
            new, i = [], 0
            while i < len(old):  # left to right, non-overlapping: same as greedy encoding
                if i + 1 < len(old) and (old[i], old[i + 1]) == pair:
                    new.append(merged)
                    i += 2
                else:
                    new.append(old[i])
                    i += 1
            for p in zip(old, old[1:]):
                pair_counts[p] -= counts[index]
                where[p].discard(index)
                changed.add(p)
            for p in zip(new, new[1:]):
                pair_counts[p] += counts[index]
                where[p].add(index)
                changed.add(p)
            words[index] = new
        for p in changed:
            if pair_counts[p] > 0 and mergeable(p):
                heapq.heappush(heap, (-pair_counts[p], p))
            elif pair_counts[p] <= 0:
                del pair_counts[p]
                del where[p]
    return vocab, merges


def mergeable(pair):
    """Byte tokens stay single: a byte sequence is a fallback, not something to learn."""
    return pair[0] not in BYTES_SET and pair[1] not in BYTES_SET


BYTES_SET = set(BYTES)


def count_words(paths):
    """Word counts of files of space-separated tokens (as written by tools/data/build.sh)."""
    counts = collections.Counter()
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for line in f:
                counts.update(line.split())
    return counts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    learn_cmd = sub.add_parser("learn")
    learn_cmd.add_argument("files", nargs="+")
    learn_cmd.add_argument("--vocab-size", type=int, default=8192)
    learn_cmd.add_argument("--min-char-count", type=int, default=20)
    learn_cmd.add_argument("--out", required=True)
    extend_cmd = sub.add_parser("extend", help="grow a vocabulary for a new language (bpe.extend)")
    extend_cmd.add_argument("base")
    extend_cmd.add_argument("files", nargs="+")
    extend_cmd.add_argument("--pieces", type=int, required=True, help="pieces to add (characters, then merges)")
    extend_cmd.add_argument("--min-char-count", type=int, default=20)
    extend_cmd.add_argument("--tags", default="", help="pieces appended last, comma-separated (<2zh>)")
    extend_cmd.add_argument("--out", required=True)
    encode_cmd = sub.add_parser("encode")
    encode_cmd.add_argument("model")
    args = parser.parse_args()
    if args.command == "learn":
        bpe = learn(count_words(args.files), args.vocab_size, args.min_char_count)
        Path(args.out).write_text(bpe.to_json() + "\n", encoding="utf-8")
        print(f"{len(bpe.vocab)} pieces ({len(bpe.chars)} characters, {len(bpe.merges)} merges)"
              f" -> {args.out}")
    elif args.command == "extend":
        base = BPE.from_json(Path(args.base).read_text(encoding="utf-8"))
        bpe = extend(base, count_words(args.files), args.pieces, args.min_char_count,
                     [t for t in args.tags.split(",") if t])
        Path(args.out).write_text(bpe.to_json() + "\n", encoding="utf-8")
        print(f"{len(base.vocab)} + {len(bpe.vocab) - len(base.vocab)} pieces "
              f"({len(bpe.chars) - len(base.chars)} characters, {len(bpe.merges) - len(base.merges)} merges) -> {args.out}")
    else:
        bpe = BPE.from_json(Path(args.model).read_text(encoding="utf-8"))
        for line in sys.stdin:
            print(" ".join(p for w in tokenize(line) for p in bpe.encode_word(w)))


if __name__ == "__main__":
    main()
