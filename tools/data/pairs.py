"""Join the extracted English-XX pairs of one language, split, tokenize, filter, hold out, count.

Usage: python3 pairs.py XX WORK_DIR OUT_DIR [--xl-wa DIR] [--no-xl-wa-train]

Reads WORK_DIR/{lo-help,lo-ui,gettext,gnome-help}.tsv (`origin<TAB>english<TAB>other`, written
by lohelp.py, catalogs.py and gnomehelp.py; a missing file is a source that does not exist for
XX), their *-stats.json, WORK_DIR/catalog-sources-*.tsv and WORK_DIR/debs.tsv (`group<TAB>deb`)
for the licences. With --xl-wa DIR, every sentence of DIR/XX/dev.tsv (the evaluation gold set)
is kept out of the data, and DIR/XX/train.tsv (silver alignments) is added to train as origin
`xl-wa-train` unless --no-xl-wa-train.

Writes OUT_DIR/{train,valid,test}.{en,XX,origin} (one tokenized sentence a line, tokens separated
by single spaces, NFC, case kept), OUT_DIR/stats.json (every count, quoted by docs/DATA_CARD.md),
OUT_DIR/sources.tsv (package, version, licence, pairs) and OUT_DIR/licences/<package>.copyright.
"""
import collections
import json
import random
import re
import sys
import unicodedata
from pathlib import Path

from tools.data import debs, sentences

from tools.data.words import tokenize  # the rule the C++ side reimplements

SEED = 42
TEST_PAIRS = 1000
VALID_PAIRS = 1000
MAX_TOKENS = 80
MAX_RATIO = 2.5
RATIO_FROM = 4        # the ratio limit applies once the longer side has this many tokens
MAX_COPIED = 0.7      # "mostly identical": share of the other side's words found in the English
COPIED_FROM = 3       # ... applied when the other side has at least this many words
XL_WA_CONTAINED = 5   # an XL-WA sentence of this many tokens or more is also looked for inside lines
SOURCES = ("lo-help", "lo-ui", "gettext", "gnome-help")
HELD_OUT_SOURCES = SOURCES  # xl-wa-train stays in train

# Run-time placeholders: printf and binutils (%s, %2$d, %B: a % right before a letter), Qt (%1),
# Python (%(name)s), .NET ({0}, {}), $(VAR) and $VAR, LibreOffice ($[officename] left over, %FOO).
PLACEHOLDER = re.compile(
    r"%[-+#0]*\d*\$?(\.\d+)?[A-Za-z]|%\d+(?!\w)|%\([\w-]+\)\w"
    r"|\{\d*\}|\$\(?[A-Za-z_]\w*\)?|\$\[\w+\]|\{\{|\}\}")
BROKEN = re.compile(r"[\ufffd\x00-\x08\x0b-\x1f\x7f]")  # U+FFFD is in the source text already
LETTER = re.compile(r"[^\W\d_]")
WORD = re.compile(r"[^\W_]")  # a token with a letter or digit is a word; the rest is punctuation
# Characters whose survival stats.json reports (Cyrillic and the Latin diacritics of each language).
CHARACTERS = {
    "bg": "абвгдежзийклмнопрстуфхцчшщъьюяЁ", "ru": "абвгдежзийклмнопрстуфхцчшщъыьэюяё",
    "da": "æøåÆØÅé", "de": "äöüßÄÖÜ", "es": "áéíóúüñÁÉÍÓÚÑ¿¡", "et": "äöüõšžÄÖÜÕŠŽ", "fr": "àâçéèêëîïôùûüœÀÇÉÈÊÔ",
    "hu": "áéíóöőúüűÁÉÍÓÖŐÚÜŰ", "it": "àèéìíòóùÀÈÉÌÒÙ", "nl": "éëïöüèáÉËÏ",
    "pt": "áâãàçéêíóôõúÁÂÃÀÇÉÊÍÓÔÕÚ", "sl": "čšžćđČŠŽĆĐ",
}


def group_of(origin):
    return origin.split("/", 1)[0]


def non_ascii_letters(text):
    return sum(1 for ch in text if ord(ch) > 127 and ch.isalpha())


def line_key(line, lang=None):
    """The form in which two lines count as the same: lowercased; Chinese without its spaces, so
    that another segmentation of a sentence is still that sentence."""
    return line.replace(" ", "") if lang == "zh" else line.lower()


class XlWa:
    """Sentences of the XL-WA gold set, as lowercased token strings (both languages)."""

    def __init__(self, path, lang=None):
        self.sentences = set()
        for line in Path(path).read_text(encoding="utf-8").splitlines():
            en, xx, _ = line.split("\t")
            for side in (en, xx):
                self.sentences.add(line_key(" ".join(tokenize(unicodedata.normalize("NFC", side)))))
            if lang == "zh":  # the gold set's own segmentation need not be jieba's
                self.sentences.add(line_key(xx, "zh"))
        self.lang = lang
        self.long = [f" {s} " for s in self.sentences if len(s.split()) >= XL_WA_CONTAINED]
        self.sixgrams = set()
        for s in self.sentences:
            tokens = s.split()
            self.sixgrams.update(tuple(tokens[i:i + 6]) for i in range(len(tokens) - 5))

    def equal(self, *lines):
        return any(line_key(line) in self.sentences for line in lines) or \
            (self.lang == "zh" and any(line_key(line, "zh") in self.sentences for line in lines))

    def contained(self, *lines):
        padded = [f" {line_key(line)} " for line in lines]
        return any(s in p for s in self.long for p in padded)

    def sixgram_hits(self, line):
        tokens = line_key(line).split()
        return sum(tuple(tokens[i:i + 6]) in self.sixgrams for i in range(len(tokens) - 5))


def read_units(work, lang, xl_wa_dir, use_train):
    """(origin, english, other) paragraphs/messages of every source, in a fixed order."""
    for source in SOURCES:
        path = work / f"{source}.tsv"
        if path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                origin, en, xx = line.split("\t")
                yield origin, en, xx
    if xl_wa_dir and use_train:
        for line in (xl_wa_dir / lang / "train.tsv").read_text(encoding="utf-8").splitlines():
            en, xx, _ = line.split("\t")
            yield "xl-wa-train", en, xx


def split_units(units, lang, stats):
    """Sentence pairs; a paragraph is split where both sides give the same number of sentences."""
    counts = collections.Counter()
    letters = collections.Counter()
    for origin, en, xx in units:
        group = group_of(origin)
        en, xx = (unicodedata.normalize("NFC", " ".join(t.split())) for t in (en, xx))
        counts[f"{group}: units"] += 1
        letters["en_units"] += non_ascii_letters(en)
        letters["xx_units"] += non_ascii_letters(xx)
        parts = [(en, xx)] if group == "xl-wa-train" else sentences.split_pair(en, xx, lang)
        # Splitting never changes text: the sentences put together give the paragraph back.
        assert "".join(e for e, _ in parts).replace(" ", "") == en.replace(" ", ""), en
        assert "".join(x for _, x in parts).replace(" ", "") == xx.replace(" ", ""), xx
        if len(parts) > 1:
            counts[f"{group}: units split"] += 1
        counts[f"{group}: sentence pairs"] += len(parts)
        for e, x in parts:
            letters["en_sentences"] += non_ascii_letters(e)
            letters["xx_sentences"] += non_ascii_letters(x)
            yield origin, e, x
    assert letters["en_units"] == letters["en_sentences"]
    assert letters["xx_units"] == letters["xx_sentences"]
    stats["splitting"] = dict(counts)
    stats["non_ascii_letters"] = dict(letters)


def copied_share(en_tokens, xx_tokens):
    """Share of the other side's words (tokens with a letter) that also occur in the English."""
    en_words = {t.lower() for t in en_tokens if LETTER.search(t)}
    xx_words = [t.lower() for t in xx_tokens if LETTER.search(t)]
    if not xx_words:
        return 0.0, 0
    return sum(w in en_words for w in xx_words) / len(xx_words), len(xx_words)


def filtered(pairs, xl_wa, stats, lang=None):
    """Tokenized pairs that pass every filter, counting each drop (per source) in order (the other
    side tokenized as `lang`: Chinese is segmented, tools/data/words.py)."""
    counts = collections.defaultdict(collections.Counter)
    letters = collections.Counter()
    seen = set()
    for origin, en, xx in pairs:
        c = counts[group_of(origin)]
        c["input"] += 1
        en_tokens, xx_tokens = tokenize(en), tokenize(xx, lang)
        en_line, xx_line = " ".join(en_tokens), " ".join(xx_tokens)
        # Tokenizing only removes whitespace: every character survives.
        assert en_line.replace(" ", "") == "".join(en.split()), en
        assert xx_line.replace(" ", "") == "".join(xx.split()), xx
        shorter, longer = sorted((len(en_tokens), len(xx_tokens)))
        share, xx_words = copied_share(en_tokens, xx_tokens)
        if BROKEN.search(en) or BROKEN.search(xx):
            c["dropped: replacement (U+FFFD) or control character"] += 1
        elif shorter < 1 or longer > MAX_TOKENS:
            c[f"dropped: length outside 1..{MAX_TOKENS} tokens"] += 1
        elif not LETTER.search(en) or not LETTER.search(xx):
            c["dropped: a side without letters"] += 1
        elif PLACEHOLDER.search(en) or PLACEHOLDER.search(xx):
            c["dropped: placeholder (%s, %1, {0}, $(VAR), ...)"] += 1
        elif longer >= RATIO_FROM and longer > MAX_RATIO * shorter:
            c[f"dropped: length ratio > {MAX_RATIO}"] += 1
        elif en_line.lower() == xx_line.lower():
            c["dropped: identical on both sides (untranslated)"] += 1
        elif xx_words >= COPIED_FROM and share > MAX_COPIED:
            c[f"dropped: mostly identical (> {MAX_COPIED:.0%} of the words copied)"] += 1
        elif (en_line, xx_line) in seen:
            c["dropped: duplicate pair"] += 1
        elif xl_wa and xl_wa.equal(en_line, xx_line):
            c["dropped: sentence of the XL-WA gold set"] += 1
        elif xl_wa and xl_wa.contained(en_line, xx_line):
            c["dropped: contains a sentence of the XL-WA gold set"] += 1
        else:
            seen.add((en_line, xx_line))
            c["kept"] += 1
            letters["en"] += non_ascii_letters(en_line)
            letters["xx"] += non_ascii_letters(xx_line)
            yield origin, en_line, xx_line
    stats["filters"] = {group: dict(c) for group, c in counts.items()}
    stats["non_ascii_letters"].update({"en_kept": letters["en"], "xx_kept": letters["xx"]})


def split_lines(out, suffixes):
    """The line_key of every line of OUT's train, valid and test files of each suffix (a language)."""
    known = set()
    for split in ("train", "valid", "test"):
        for suffix in suffixes:
            path = out / f"{split}.{suffix}"
            if path.exists():
                known.update(line_key(line, suffix) for line in path.read_text(encoding="utf-8").splitlines())
    return known


def beside_splits(units, out, lang, xl_wa, stats):
    """The (origin, english, other) sentence pairs of a corpus beside the splits (extra.py, prose.py)
    that pass filtered() and have no side that is a line of OUT's train, valid or test; the drops
    counted in stats. filtered() asserts that tokenizing only removes whitespace, which the splits'
    sources always met; a few catalog messages do not (a combining mark alone between spaces, as in
    "( ͡° ͜ʖ ͡°)"): dropped here first and counted."""
    known = split_lines(out, ("en", lang))
    tokenizer_drops, dropped, kept = collections.Counter(), collections.Counter(), []

    def tokenizable():
        for origin, en, xx in units:
            if all(" ".join(tokenize(side, code)).replace(" ", "") == "".join(side.split())
                   for side, code in ((en, "en"), (xx, lang))):
                yield origin, en, xx
            else:
                tokenizer_drops[group_of(origin)] += 1

    for origin, en, xx in filtered(tokenizable(), xl_wa, stats, lang):
        if line_key(en) in known or line_key(xx, lang) in known:
            dropped[group_of(origin)] += 1
        else:
            kept.append((origin, en, xx))
    stats["dropped: the tokenizer would change a character"] = dict(tokenizer_drops)
    stats["dropped: a side is a line of train, valid or test"] = dict(dropped)
    return kept


def held_out_split(pairs):
    """test/valid/train. Pairs sharing an English or an other-language sentence form one group
    (union-find), so no held-out sentence has a copy or another translation in train. Groups are
    shuffled (seeded) and drawn per source, in proportion to each source's size (xl-wa-train
    stays in train)."""
    parent = list(range(len(pairs)))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first = {}
    for i, (_, en, xx) in enumerate(pairs):
        for key in (("en", en), ("xx", xx)):
            if key in first:
                a, b = find(i), find(first[key])
                if a != b:
                    parent[max(a, b)] = min(a, b)
            else:
                first[key] = i
    components = collections.defaultdict(list)
    for i in range(len(pairs)):
        components[find(i)].append(i)
    by_source = collections.defaultdict(list)
    for root in sorted(components):
        by_source[group_of(pairs[root][0])].append(components[root])
    sizes = {s: sum(map(len, by_source[s])) for s in HELD_OUT_SOURCES if s in by_source}
    total = sum(sizes.values())
    parts = {"test": [], "valid": [], "train": []}
    rng = random.Random(SEED)
    for source in sorted(by_source):
        groups = by_source[source]
        rng.shuffle(groups)
        quota = {name: round(want * sizes[source] / total) if source in sizes else 0
                 for name, want in (("test", TEST_PAIRS), ("valid", VALID_PAIRS))}
        taken = collections.Counter()
        for members in groups:
            for name in ("test", "valid", "train"):
                if name == "train" or taken[name] < quota[name]:
                    parts[name] += [pairs[i] for i in members]
                    taken[name] += len(members)
                    break
    for name in parts:
        parts[name].sort(key=lambda p: (p[0], p[1], p[2]))
        random.Random(SEED).shuffle(parts[name])
    return parts


def write_sources(work, out, lang, kept_by_package):
    """sources.tsv and licences/: each Debian package used, with its licence and copyright file."""
    (out / "licences").mkdir(exist_ok=True)
    messages = {}
    for path in sorted(work.glob("catalog-sources-*.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            package, _, _, count, _ = line.split("\t")
            messages[package] = int(count)
    rows = ["source\tpackage\tversion\tcatalog messages\tpairs kept\tlicence"]
    for line in (work / "debs.tsv").read_text().splitlines():
        group, deb = line.split("\t")
        # GNOME applications: the help's own licence where the copyright file names it.
        name, version, licence, copyright_file = debs.package_copyright(deb, r"help/" if group == "gnome-help" else None)
        if group == "gettext" and not messages.get(name):
            continue  # no catalog for this language
        kept = kept_by_package.get((group, group if group == "lo-help" else name), 0)
        if group == "gnome-help" and not kept:
            continue  # no help pages in this language
        rows.append(f"{group}\t{name}\t{version}\t{messages.get(name, '')}\t{kept}\t{licence}")
        if copyright_file:
            (out / "licences" / f"{name}.copyright").write_bytes(copyright_file)
    (out / "sources.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")


def write_pairs(out, name, lang, pairs):
    """OUT/NAME.{en,LANG,origin}: the (origin, english, other) pairs, a line each."""
    with open(out / f"{name}.en", "w", encoding="utf-8") as en_file, \
         open(out / f"{name}.{lang}", "w", encoding="utf-8") as xx_file, \
         open(out / f"{name}.origin", "w", encoding="utf-8") as origin_file:
        for origin, en, xx in pairs:
            en_file.write(en + "\n")
            xx_file.write(xx + "\n")
            origin_file.write(origin + "\n")


def package_of(origin):
    """(source, Debian package) of an origin (gettext/<package>/<catalog>,
    gnome-help/<package>/<page>); (source, source) for lo-help (a package pair) and xl-wa-train."""
    group, _, rest = origin.partition("/")
    if group in ("gettext", "lo-ui", "gnome-help"):
        return group, rest.split("/", 1)[0]
    return group, group


def main():
    args = sys.argv[1:]
    use_train = "--no-xl-wa-train" not in args
    args = [a for a in args if a != "--no-xl-wa-train"]
    xl_wa_dir = None
    if "--xl-wa" in args:
        i = args.index("--xl-wa")
        xl_wa_dir = Path(args[i + 1])
        del args[i:i + 2]
    lang, work, out = args[0], Path(args[1]), Path(args[2])
    out.mkdir(parents=True, exist_ok=True)
    stats = {"pair": f"en-{lang}", "extraction": {}}
    for path in sorted(work.glob("*-stats.json")):
        stats["extraction"][path.name[:-len("-stats.json")]] = json.loads(path.read_text())
    xl_wa = None
    if xl_wa_dir:
        xl_wa = XlWa(xl_wa_dir / lang / "dev.tsv", lang)
        stats["xl_wa_gold_sentences"] = len(xl_wa.sentences)
    else:
        print("warning: no XL-WA folder given, evaluation-set overlap not removed", file=sys.stderr)
    units = read_units(work, lang, xl_wa_dir, use_train)
    kept = list(filtered(split_units(units, lang, stats), xl_wa, stats, lang))
    parts = held_out_split(kept)

    kept_by_package = collections.Counter(package_of(origin) for origin, _, _ in kept)
    stats["splits"] = {}
    written = collections.Counter()
    for name, pairs in parts.items():
        write_pairs(out, name, lang, pairs)
        by_source = collections.defaultdict(collections.Counter)
        for origin, en, xx in pairs:
            c = by_source[group_of(origin)]
            c["pairs"] += 1
            c["en_tokens"] += len(en.split())
            c[f"{lang}_tokens"] += len(xx.split())
            c["en_words"] += sum(1 for t in en.split() if WORD.search(t))
            c[f"{lang}_words"] += sum(1 for t in xx.split() if WORD.search(t))
        total = collections.Counter()
        for c in by_source.values():
            total.update(c)
        stats["splits"][name] = {"total": dict(total),
                                 **{s: dict(c) for s, c in sorted(by_source.items())}}
        if xl_wa:
            stats["splits"][name]["xl_wa_6gram_hits"] = sum(
                xl_wa.sixgram_hits(en) + xl_wa.sixgram_hits(xx) for _, en, xx in pairs)
        # Read back what was written: same lines, NFC, no replacement characters.
        for side, suffix in (("en", "en"), ("xx", lang)):
            text = (out / f"{name}.{suffix}").read_text(encoding="utf-8")
            assert text.count("\n") == len(pairs)
            assert unicodedata.is_normalized("NFC", text) and "\ufffd" not in text
            written[side] += non_ascii_letters(text)
    letters = stats["non_ascii_letters"]
    letters.update({"en_written": written["en"], "xx_written": written["xx"]})
    assert letters["en_written"] == letters["en_kept"] and letters["xx_written"] == letters["xx_kept"]
    all_xx = "".join(xx for _, _, xx in kept)
    stats["characters_written"] = {ch: all_xx.count(ch) for ch in CHARACTERS.get(lang, "")}
    write_sources(work, out, lang, kept_by_package)
    (out / "stats.json").write_text(json.dumps(stats, indent=1, ensure_ascii=False) + "\n")
    summary = {name: s["total"] for name, s in stats["splits"].items()}
    print(f"en-{lang}: {json.dumps(summary)}")


if __name__ == "__main__":
    main()
