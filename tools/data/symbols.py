"""Symbol-copying pairs: sentence pairs with the same emoji or symbol written on both sides.

Usage: python3 -m tools.data.symbols [--data DIR] [--bpe FILE] [--split train] [--count N]
                                     [--held-out] [--name symbols] [--languages bg,da,...]

A symbol that the vocabulary has no piece for is spelled in byte pieces; a translation model
must learn to write those bytes back unchanged ("📁 Open the file ." -> "📁 Abrir el archivo .").
Software strings carry a few such symbols; prose and Chinese text carry almost none, and a model
trained on them on forgets to copy ("📁" came out as "ultiapro"). This writes, for every
language, DIR/en-XX/NAME.{en,XX,align,origin}: COUNT pairs of SPLIT (their word links from
SPLIT.align) with one to three symbols put in at linked places on both sides, the links moved
along and the symbols linked to each other:

- replace: a one-to-one linked word pair becomes the symbol ("I love pizza" -> "I love 🍕");
- before: the symbol before a one-to-one linked word pair;
- prefix: the symbol first on both sides (as menu items and messages have them);
- suffix: the symbol last, before a final punctuation mark both sides share.

Symbols are drawn from emoji and the symbol blocks the vocabulary (--bpe) spells in bytes, with
variation selectors, skin tones, ZWJ sequences and flags. A seventh of the code points (cp % 7
== 3) is held out: --held-out writes from those only (and from the valid split by default), the
pairs on which tools/eval/symbols.py measures whether a model copies symbols it never saw.
"""
import argparse
import random
import subprocess
import sys
import unicodedata
from pathlib import Path

from tools.train import bpe as B

ROOT = Path(__file__).resolve().parents[2]

LANGUAGES = "bg,da,de,es,et,fr,hu,it,nl,pt,ru,sl,zh"
BLOCKS = [(0x2190, 0x23FF), (0x25A0, 0x27BF), (0x2900, 0x2BFF), (0x1F300, 0x1F6FF), (0x1F900, 0x1FAFF)]
PUNCTUATION = {".", "!", "?", ":", ";", "。", "！", "？", "：", "…"}


def held_out(cp):
    return cp % 7 == 3


def code_points(bpe, held):
    """The symbol code points of BLOCKS that bpe spells in bytes, those held out or the others."""
    out = []
    for start, end in BLOCKS:
        for cp in range(start, end + 1):
            ch = chr(cp)
            if unicodedata.category(ch) not in ("So", "Sm") or ch in bpe.chars:
                continue
            if unicodedata.normalize("NFC", ch) != ch:  # the model reads NFC: it could not copy these
                continue
            if held_out(cp) == held:
                out.append(cp)
    return out


def symbol(rng, points, emoji):
    """One symbol: a code point, sometimes with U+FE0F, a skin tone, a ZWJ partner, or a flag."""
    roll = rng.random()
    if roll < 0.06:  # a flag: two regional indicators
        return chr(0x1F1E6 + rng.randrange(26)) + chr(0x1F1E6 + rng.randrange(26))
    base = rng.choice(points)
    text = chr(base)
    if roll < 0.2:
        text += "\ufe0f"
    elif roll < 0.26 and base >= 0x1F300:
        text += chr(0x1F3FB + rng.randrange(5))  # a skin tone modifier
    elif roll < 0.32 and base >= 0x1F300:
        text += "\u200d" + chr(rng.choice(emoji))
    return text


def one_to_one(links, en_words, xx_words):
    """(i, j) links where each word has that one link and the English word is a word of letters
    (three or more: a symbol stands for a thing, not for "to")."""
    en_count, xx_count = {}, {}
    for i, j in links:
        en_count[i] = en_count.get(i, 0) + 1
        xx_count[j] = xx_count.get(j, 0) + 1
    return [(i, j) for i, j in links if en_count[i] == 1 and xx_count[j] == 1
            and i < len(en_words) and j < len(xx_words) and len(en_words[i]) >= 3 and en_words[i].isalpha()]


def insert(words, at, item):
    return words[:at] + [item] + words[at:]


def shifted(links, en_at, xx_at):
    return [(i + (i >= en_at), j + (j >= xx_at)) for i, j in links]


def add_symbol(rng, en, xx, links, text):
    """en, xx, links with `text` put in once on both sides (None when no place fits)."""
    pairs = one_to_one(links, en, xx)
    kinds = ["prefix"]
    if pairs:
        kinds += ["replace", "replace", "before"]
    if en and xx and en[-1] in PUNCTUATION and xx[-1] in PUNCTUATION:
        kinds.append("suffix")
    kind = rng.choice(kinds)
    if kind == "replace":
        i, j = rng.choice(pairs)
        en, xx = list(en), list(xx)
        en[i], xx[j] = text, text
        return en, xx, links
    if kind == "before":
        i, j = rng.choice(pairs)
    elif kind == "prefix":
        i, j = 0, 0
    else:
        i, j = len(en) - 1, len(xx) - 1
    return insert(en, i, text), insert(xx, j, text), shifted(links, i, j) + [(i, j)]


def read_links(line):
    return [tuple(map(int, link.split("-"))) for link in line.split()]


def hmm_links(lang, en_lines, xx_lines):
    """Each pair's links by the shipped HMM aligner (`attn align --method hmm`)."""
    attn, hmm = ROOT / "build/bin/attn", ROOT / f"models/hmm-en-{lang}.safetensors"
    if not attn.exists() or not hmm.exists():
        raise SystemExit(f"the split has no links and {attn} or {hmm} is missing to align it")
    lines = "".join(f"{e} ||| {x}\n" for e, x in zip(en_lines, xx_lines))
    done = subprocess.run([str(attn), "align", "--method", "hmm", "--hmm", str(hmm)], input=lines,
                          capture_output=True, text=True, check=True)
    out = done.stdout.splitlines()
    assert len(out) == len(en_lines), f"attn align wrote {len(out)} lines for {len(en_lines)} pairs"
    return out


def make(lang, folder, bpe, split, count, held, seed, max_words=30, chunk=2000, links_of=hmm_links):
    """[(en line, xx line, align line, origin)] of COUNT pairs of folder's split. A split without
    SPLIT.align (valid and test; train before supervise.sh) is aligned by the pair's HMM, only
    the lines drawn: CHUNK at a time, in the drawn order, until COUNT pairs are made (the same pairs
    as with the whole split aligned, since an HMM aligns each pair on its own)."""
    en_lines = (folder / f"{split}.en").read_text(encoding="utf-8").splitlines()
    xx_lines = (folder / f"{split}.{lang}").read_text(encoding="utf-8").splitlines()
    align_path = folder / f"{split}.align"
    align_lines = align_path.read_text(encoding="utf-8").splitlines() if align_path.exists() else None
    points = code_points(bpe, held)
    emoji = [cp for cp in points if cp >= 0x1F300]
    rng = random.Random(f"{seed}:{lang}:{split}:{held}")
    order = list(range(len(en_lines)))
    rng.shuffle(order)
    drawn = [index for index in order if en_lines[index].split() and xx_lines[index].split()
             and len(en_lines[index].split()) <= max_words and len(xx_lines[index].split()) <= max_words * 2]
    out = []
    for start in range(0, len(drawn), chunk):
        if len(out) >= count:
            break
        indices = drawn[start:start + chunk]
        if align_lines is None:
            found = links_of(lang, [en_lines[i] for i in indices], [xx_lines[i] for i in indices])
        else:
            found = [align_lines[i] for i in indices]
        for index, align_line in zip(indices, found):
            if len(out) >= count:
                break
            links = read_links(align_line)
            if not links:
                continue
            en, xx = en_lines[index].split(), xx_lines[index].split()
            for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
                en, xx, links = add_symbol(rng, en, xx, links, symbol(rng, points, emoji))
            links = sorted(set(links))
            out.append((" ".join(en), " ".join(xx), " ".join(f"{i}-{j}" for i, j in links), f"{split}:{index + 1}"))
    return out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default="data")
    parser.add_argument("--bpe", default="data/bpe-zh.json")
    parser.add_argument("--languages", default=LANGUAGES)
    parser.add_argument("--split")
    parser.add_argument("--count", type=int)
    parser.add_argument("--held-out", action="store_true", help="held-out symbols (default: the valid split, 100)")
    parser.add_argument("--name")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    split = args.split or ("valid" if args.held_out else "train")
    count = args.count or (100 if args.held_out else 3000)
    name = args.name or ("symbols-held-out" if args.held_out else "symbols")
    if name in ("train", "valid", "test", "prose") or "/" in name:
        raise SystemExit(f"--name {name}: the name of a split or corpus already beside the splits")
    bpe = B.BPE.from_json(Path(args.bpe).read_text(encoding="utf-8"))
    for lang in args.languages.split(","):
        folder = Path(args.data) / f"en-{lang}"
        made = make(lang, folder, bpe, split, count, args.held_out, args.seed)
        for suffix, column in (("en", 0), (lang, 1), ("align", 2), ("origin", 3)):
            (folder / f"{name}.{suffix}").write_text("".join(row[column] + "\n" for row in made), encoding="utf-8")
        print(f"{folder}/{name}.*: {len(made)} pairs of {split}", file=sys.stderr)


if __name__ == "__main__":
    main()
