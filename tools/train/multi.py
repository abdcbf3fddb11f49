"""One Transformer for English <-> many languages: data, batches, the alignment loss and AER.

A multilingual model shares one joint BPE vocabulary over every language, with one tag piece
per language appended after the learned pieces ("<2fr>": "translate into French"). The tag is
the decoder's first input instead of <s>, so one file translates every direction: the decoder
is told which language to write, and the encoder reads whatever language it is given
(docs/MODEL_FORMAT.md, "Multilingual models"). Each training pair of data/en-XX/ is used in both
directions.

Used by train.py (--languages); the functions here are what differ from a one-direction model.
"""
import collections
import json
import random
import unicodedata
from pathlib import Path

import numpy as np
import torch

from tools.data.words import tokenize
from tools.train import batching, bpe as B

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data"
# Gold alignment sets, measured on and never trained on: XL-WA's dev sets and, for French and
# German (which XL-WA lacks), Europarl's (with possible links, written "ip j"); for Chinese, NIST's
# newswire (segmented, possible links too).
EUROPARL = ("de", "fr")
GOLD_DIRECTORIES = {"zh": "nist-zh-gold"}


def tag(lang):
    return f"<2{lang}>"


def gold_path(lang):
    if lang in GOLD_DIRECTORIES:
        return SHARED / GOLD_DIRECTORIES[lang] / "dev.tsv"
    return SHARED / ("europarl-gold" if lang in EUROPARL else "xl-wa") / lang / "dev.tsv"


# -- vocabulary ---------------------------------------------------------------------------------
def learn_vocabulary(data, languages, vocab_size, sentences_per_language, out):
    """A joint BPE over English and every language, each side capped at the same number of
    sentences (so that Spanish's larger corpus does not crowd out Estonian's pieces), then one tag
    piece per language (and English) after the learned pieces."""
    counts = collections.Counter()
    english = []
    for lang in languages:
        for side in (lang, "en"):
            path = Path(data) / f"en-{lang}" / f"train.{side}"
            lines = path.read_text(encoding="utf-8").splitlines()
            rng = random.Random(f"{lang}-{side}")
            rng.shuffle(lines)
            lines = lines[:sentences_per_language if side != "en"
                          else max(1, sentences_per_language // len(languages))]
            if side == "en":
                english += lines
            else:
                for line in lines:
                    counts.update(line.split())
    for line in english:
        counts.update(line.split())
    tags = [tag(lang) for lang in ["en", *languages]]
    learned = B.learn(counts, vocab_size - len(tags))
    vocab = learned.vocab + tags
    Path(out).write_text(B.BPE(vocab, learned.merges).to_json() + "\n", encoding="utf-8")


# -- data ---------------------------------------------------------------------------------------
class Corpus:
    """Every pair once (English side, other side, its language), encoded to pieces; an example
    is (pair index, to_english)."""

    def __init__(self, bpe):
        self.bpe = bpe
        self.cache = {}
        self.pairs = []  # (en ids, en word of piece, xx ids, xx word of piece, lang)
        self.links = []  # per pair: int32 array [n][2] of (en word, xx word), or None

    def encode(self, line):
        ids, word_of_piece = [], []
        for index, word in enumerate(line.split()):
            pieces = self.cache.get(word)
            if pieces is None:
                pieces = self.cache[word] = [self.bpe.ids[p] for p in self.bpe.encode_word(word)]
            ids += pieces
            word_of_piece += [index] * len(pieces)
        return ids, word_of_piece

    def encoded(self, en_path, xx_path, lang, align_path=None, limit=None):
        """The pairs and links of one file pair, encoded (what add appends)."""
        en = Path(en_path).read_text(encoding="utf-8").splitlines()
        xx = Path(xx_path).read_text(encoding="utf-8").splitlines()
        assert len(en) == len(xx), (en_path, xx_path)
        aligned = None
        if align_path and Path(align_path).exists():
            aligned = Path(align_path).read_text(encoding="utf-8").splitlines()
            assert len(aligned) == len(en), f"{align_path}: {len(aligned)} lines for {len(en)} pairs"
        pairs, links = [], []
        for i, (e, x) in enumerate(zip(en, xx)):
            if limit is not None and i >= limit:
                break
            pairs.append((*self.encode(e), *self.encode(x), lang))
            if aligned is None:
                links.append(None)
            else:
                found = [tuple(map(int, link.split("-"))) for link in aligned[i].split()]
                links.append(np.array(found, dtype=np.int32).reshape(-1, 2))
        return pairs, links

    def add(self, en_path, xx_path, lang, align_path=None, limit=None):
        return self.append(self.encoded(en_path, xx_path, lang, align_path, limit))

    def append(self, encoded):
        pairs, links = encoded
        first = len(self.pairs)
        self.pairs += pairs
        self.links += links
        return range(first, len(self.pairs))

    def add_many(self, jobs, processes):
        """add(*job) for every job, encoded in `processes` worker processes (1: here); returns the
        ranges in the jobs' order."""
        if processes <= 1 or len(jobs) <= 1:
            return [self.add(*job) for job in jobs]
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor
        # not multiprocessing.Pool: its terminate() can hang (CPython issues 78178 and 96995)
        with ProcessPoolExecutor(min(processes, len(jobs)), mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(self.encoded, *job) for job in jobs]
            encoded = [future.result() for future in futures]
        return [self.append(done) for done in encoded]  # none appended when a job failed

    def example(self, index, to_english):
        """(source ids, source words, target ids, target words, target tag id)"""
        en_ids, en_words, xx_ids, xx_words, lang = self.pairs[index]
        if to_english:
            return xx_ids, xx_words, en_ids, en_words, self.bpe.ids[tag("en")]
        return en_ids, en_words, xx_ids, xx_words, self.bpe.ids[tag(lang)]


def batches(corpus, examples, batch_tokens, rng, max_pieces):
    """Batches of (pair, to_english) of similar target length, about batch_tokens pieces of the
    longer side each, in random order."""
    def lengths(e):
        i, to_en = e
        en, _, xx, _, _ = corpus.pairs[i]
        return (len(en), len(xx)) if to_en else (len(xx), len(en))  # (target, source)

    keyed = [(lengths(e), rng.random(), e) for e in examples]
    keyed = [k for k in keyed if max(k[0]) + 1 <= max_pieces]
    keyed.sort(key=lambda k: (k[0][0], k[0][1], k[1]))
    return batching.pack(((e, max(target, source) + 1) for (target, source), _, e in keyed), batch_tokens, rng)


def tensors_for(corpus, batch, supervise=True, shift=0):
    """Padded source (with </s>), its mask, target input (tag y), output (y </s>) and the
    alignment target [B][T][S] (a target piece of word j attends uniformly to the pieces of every
    source word linked to j; Garg et al. 2019 at the subword level), or None. Target piece t's
    row is t, where it is predicted, or t + 1 with shift, where it is the decoder's input."""
    source, target_in, target_out, gold = arrays_for(corpus, batch, supervise, shift)
    source = torch.from_numpy(source)
    return (source, source != B.PAD, torch.from_numpy(target_in), torch.from_numpy(target_out),
            None if gold is None else torch.from_numpy(gold))


def arrays_for(corpus, batch, supervise=True, shift=0):
    """tensors_for's source, target input, target output and alignment target as numpy arrays,
    made without torch (so a process forked from a trainer can make them: libgomp hangs a
    forked child that runs a torch operation after the parent ran threads)."""
    rows = [corpus.example(i, to_en) for i, to_en in batch]
    size = len(rows)
    source_len = max(len(r[0]) for r in rows) + 1
    target_len = max(len(r[2]) for r in rows) + 1
    source = np.full((size, source_len), B.PAD, dtype=np.int64)
    target_in = np.full((size, target_len), B.PAD, dtype=np.int64)
    target_out = np.full((size, target_len), B.PAD, dtype=np.int64)
    gold = np.zeros((size, target_len, source_len), dtype=np.float32) if supervise else None
    for row, ((src, src_words, tgt, tgt_words, start), (i, to_en)) in enumerate(zip(rows, batch)):
        source[row, :len(src) + 1] = src + [B.EOS]
        target_in[row, :len(tgt) + 1] = [start] + tgt
        target_out[row, :len(tgt) + 1] = tgt + [B.EOS]
        links = corpus.links[i]
        if supervise and links is not None and len(links):
            en_word, xx_word = links[:, 0], links[:, 1]
            src_link, tgt_link = (xx_word, en_word) if to_en else (en_word, xx_word)
            words = np.zeros((max(tgt_words) + 1, max(src_words) + 1), dtype=np.float32)
            keep = (src_link < words.shape[1]) & (tgt_link < words.shape[0])
            words[tgt_link[keep], src_link[keep]] = 1.0
            gold[row, shift:len(tgt) + shift, :len(src)] = words[np.ix_(tgt_words, src_words)]
    return source, target_in, target_out, gold


# -- alignment error rate of the supervised head on the gold sets -----------------------------
def read_gold(lang, limit=None):
    """[(en tokens, xx tokens, sure links, possible links)] of a gold set (links (en, xx))."""
    out = []
    for line in gold_path(lang).read_text(encoding="utf-8").splitlines()[:limit]:
        en, xx, links = line.split("\t")
        sure, possible = set(), set()
        for link in links.split():
            if "p" in link:
                i, j = link.split("p")
                possible.add((int(i), int(j)))
            else:
                i, j = link.split("-")
                sure.add((int(i), int(j)))
        out.append((en.split(), xx.split(), sure, possible | sure))
    return out


def split_tokens(tokens):
    """Our words of pre-tokenized text, and per word the index of the gold token it came from."""
    words, origin = [], []
    for index, token in enumerate(tokens):
        pieces = tokenize(unicodedata.normalize("NFC", token))
        words += pieces
        origin += [index] * len(pieces)
    return words, origin


def word_attention(weights, src_words, tgt_words, n_src, n_tgt):
    """Piece-level [T+1][S+1] (with </s>) -> word-level [n_tgt][n_src + 1] (last column: </s>,
    i.e. no link): rows averaged over a word's pieces, columns summed."""
    src_index = np.array(src_words + [n_src])
    tgt_index = np.array(tgt_words)
    cols = np.zeros((weights.shape[0], n_src + 1))
    np.add.at(cols.T, src_index, weights[:, :len(src_index)].T)
    out = np.zeros((n_tgt, n_src + 1))
    np.add.at(out, tgt_index, cols[:len(tgt_index)])
    counts = np.bincount(tgt_index, minlength=n_tgt).clip(min=1)
    return out / counts[:, None]


@torch.no_grad()
def head_attention(model, corpus, sources, targets, start, layer=None, head=None):
    """Word-level attention of one head (default the supervised one) for each (source words,
    target words) pair, by forced decoding in batches; target piece t read at row t + the model's
    alignment_shift."""
    layer = model.alignment_layer if layer is None else layer
    head = model.alignment_head if head is None else head
    shift = model.config.get("alignment_shift", 0)
    encoded = [(corpus.encode(" ".join(s)), corpus.encode(" ".join(t))) for s, t in zip(sources, targets)]
    out = [None] * len(encoded)
    order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][1][0]))
    for begin in range(0, len(order), 32):
        chunk = order[begin:begin + 32]
        size = len(chunk)
        s_len = max(len(encoded[i][0][0]) for i in chunk) + 1
        t_len = max(len(encoded[i][1][0]) for i in chunk) + 1
        source = torch.full((size, s_len), B.PAD, dtype=torch.long)
        target_in = torch.full((size, t_len), B.PAD, dtype=torch.long)
        for row, i in enumerate(chunk):
            (src, _), (tgt, _) = encoded[i]
            source[row, :len(src) + 1] = torch.tensor(src + [B.EOS])
            target_in[row, :len(tgt) + 1] = torch.tensor([start] + tgt)
        mask = source != B.PAD
        device = next(model.parameters()).device
        source, mask, target_in = source.to(device), mask.to(device), target_in.to(device)
        memory, _ = model.encode(source, mask)
        _, _, cross = model.decode(memory, mask, target_in)
        maps = cross[layer][:, head].float().cpu().numpy()
        for row, i in enumerate(chunk):
            (src, src_words), (tgt, tgt_words) = encoded[i]
            piece_map = maps[row, shift:len(tgt) + 1, :len(src) + 1]
            out[i] = word_attention(piece_map, src_words, tgt_words, len(sources[i]), len(targets[i]))
    return out


def aer(predicted, sure, possible):
    found = len(predicted)
    hits_sure = len(predicted & sure)
    hits_possible = len(predicted & possible)
    return found, hits_sure, hits_possible, len(sure)


def score(counts):
    found, hits_sure, hits_possible, sure = (sum(c[k] for c in counts) for k in range(4))
    return 1 - (hits_sure + hits_possible) / max(found + sure, 1)


def links_to_tokens(links, en_origin, xx_origin):
    return {(en_origin[e], xx_origin[x]) for e, x in links}


def evaluate_alignment(model, corpus, languages, thresholds=(0.1, 0.15, 0.2, 0.25, 0.3, 0.4)):
    """AER of the supervised head per language: each direction alone (each target word to its
    most-attended source word, none where that is </s>) and both directions' word attention
    averaged, linked where the mean is at least a threshold (every threshold reported; the one
    to use is chosen on these dev sets). Returns {lang: {name: AER}}."""
    was_training = model.training
    model.eval()
    results = {}
    for lang in languages:
        gold = read_gold(lang)
        en_words, en_origin, xx_words, xx_origin = [], [], [], []
        for en, xx, _, _ in gold:
            w, o = split_tokens(en)
            en_words.append(w)
            en_origin.append(o)
            w, o = split_tokens(xx)
            xx_words.append(w)
            xx_origin.append(o)
        to_xx = head_attention(model, corpus, en_words, xx_words, corpus.bpe.ids[tag(lang)])
        to_en = head_attention(model, corpus, xx_words, en_words, corpus.bpe.ids[tag("en")])
        counts = collections.defaultdict(list)
        for k, (_, _, sure, possible) in enumerate(gold):
            a = to_xx[k]  # [xx][en + 1]
            b = to_en[k]  # [en][xx + 1]
            argmax_xx = {(int(a[j].argmax()), j) for j in range(a.shape[0]) if a[j].argmax() < a.shape[1] - 1}
            argmax_en = {(i, int(b[i].argmax())) for i in range(b.shape[0]) if b[i].argmax() < b.shape[1] - 1}
            to_tokens = lambda links: links_to_tokens(links, en_origin[k], xx_origin[k])  # noqa: E731
            counts["en-xx argmax"].append(aer(to_tokens(argmax_xx), sure, possible))
            counts["xx-en argmax"].append(aer(to_tokens(argmax_en), sure, possible))
            counts["intersect"].append(aer(to_tokens(argmax_xx & argmax_en), sure, possible))
            counts["union"].append(aer(to_tokens(argmax_xx | argmax_en), sure, possible))
            mean = (a[:, :-1].T + b[:, :-1]) / 2  # [en][xx]
            for t in thresholds:
                links = {(int(i), int(j)) for i, j in zip(*np.nonzero(mean >= t))}
                counts[f"mean>={t}"].append(aer(to_tokens(links), sure, possible))
        results[lang] = {name: round(score(c), 4) for name, c in counts.items()}
    if was_training:
        model.train()
    return results


def summary(results):
    """One line: per language the best extraction's AER."""
    parts = []
    for lang, r in results.items():
        best = min(r, key=r.get)
        parts.append(f"{lang} {r[best]:.3f} ({best})")
    return ", ".join(parts)


def dump(results):
    return json.dumps(results, sort_keys=True)
