"""Prose beside the splits: the Debian Administrator's Handbook, the Debian Reference and, for Spanish, the Bible.

Usage: python3 prose.py XX OUT_DIR HANDBOOK_DEB [--catalogs TSV] [--reference EN_DEB XX_DEB]
                        [--bible EN_DEB XX_DEB] [--xl-wa DIR]

The splits and the aligners' extra data are software text (messages, help pages); a model trained
on them alone turns "I love you ." into nonsense. This adds running prose:

- the Debian Administrator's Handbook (package debian-handbook, 26 languages of one DocBook
  source): each page's text blocks (paragraphs, titles, list items, table cells) in document
  order; where a page has as many blocks in English as in XX, block n pairs with block n (one
  source, so the order is the same); blocks left in English are dropped by pairs.filtered;
- the Debian Reference (debian-reference-en beside debian-reference-XX, one DocBook source
  translated with po4a): its chapters paired the same way, block by block;
- stories, dialogue and encyclopedia entries: the gettext messages of prose-packages.txt's packages
  (Battle for Wesnoth's campaigns, Freeciv's civilopedia), as catalogs.py wrote them to TSV;
- the Bible, where Debian packages one in XX beside the World English Bible (sword-text-web):
  verses paired by book, chapter and verse (read with diatheke over the unpacked modules).

Paragraphs are split into sentences where both sides give the same number (pairs.split_units), go
through pairs.py's filters (with --xl-wa DIR the gold set DIR/XX/dev.tsv out), and a pair whose
English or XX side is a line of train, valid or test is dropped. Writes OUT_DIR/prose.{en,XX,origin}
(train.*'s format) and OUT_DIR/prose-stats.json.
"""
import collections
import html.parser
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.data import debs, pairs

# debian-handbook's folder of each language the product has (pt: Brazilian, the only Portuguese).
HANDBOOK_FOLDERS = {"da": "da-DK", "de": "de-DE", "es": "es-ES", "fr": "fr-FR", "it": "it-IT",
                    "nl": "nl-NL", "pt": "pt-BR", "ru": "ru-RU", "zh": "zh-CN"}
BLOCKS = ("p", "h1", "h2", "h3", "h4", "h5", "li", "dt", "td", "th", "title")
SECTION_NUMBER = re.compile(r"^[0-9A-Z]+(\.[0-9]+)*\.\s+")


class Blocks(html.parser.HTMLParser):
    """The text of each outermost block element, whitespace collapsed, in document order."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks, self.parts, self.tag, self.depth = [], None, None, 0

    def handle_starttag(self, tag, attrs):
        # DocBook's HTML writes a paragraph as <div class="para">
        if self.parts is None and (tag in BLOCKS or (tag == "div" and ("class", "para") in attrs)):
            self.parts, self.tag, self.depth = [], tag, 0
        elif self.parts is not None and tag == self.tag:
            self.depth += 1

    def handle_endtag(self, tag):
        if self.parts is not None and tag == self.tag:
            if self.depth == 0:
                self.blocks.append(" ".join("".join(self.parts).split()))
                self.parts = None
            else:
                self.depth -= 1

    def handle_data(self, data):
        if self.parts is not None:
            self.parts.append(data)


def page_blocks(text):
    parser = Blocks()
    parser.feed(text)
    # "6.2.7. Tracking ..." and "6.2.7. Seguimiento ...": the numbers are not text to translate
    return [SECTION_NUMBER.sub("", block) for block in parser.blocks]


def paired_pages(pages, counts, origin):
    """Units of (page, English HTML or None, XX HTML) pairs, block by block where a page has as many
    blocks in both languages (one source translated, so block n is block n's translation)."""
    for page, english, other in pages:
        if english is None:
            counts["pages without an English twin"] += 1
            continue
        en_blocks = page_blocks(english.decode("utf-8"))
        xx_blocks = page_blocks(other.decode("utf-8"))
        if len(en_blocks) != len(xx_blocks):
            counts["pages with different block counts (skipped)"] += 1
            continue
        counts["pages paired"] += 1
        for en, xx in zip(en_blocks, xx_blocks):
            if en and xx:
                counts["blocks"] += 1
                yield f"{origin}/{page}", en, xx


def handbook_units(deb, lang, stats):
    folder = HANDBOOK_FOLDERS[lang]
    prefix = "./usr/share/doc/debian-handbook/html/"
    pages = debs.files(deb, lambda name: name.startswith(prefix) and name.endswith(".html")
                       and name.split("/")[6] in ("en-US", folder))
    counts = collections.Counter()
    translated = [(name.rsplit("/", 1)[1][:-len(".html")], pages.get(name.replace(f"/{folder}/", "/en-US/")),
                   pages[name]) for name in sorted(pages) if f"/{folder}/" in name]
    yield from paired_pages(translated, counts, "handbook")
    stats["handbook"] = dict(counts)


# The Debian Reference's translations (debian-reference-XX) among the product's languages, by the
# suffix of their pages (ch01.zh-cn.html); pt is European Portuguese, as the XL-WA set is.
REFERENCE_SUFFIXES = {"de": "de", "es": "es", "fr": "fr", "it": "it", "pt": "pt", "zh": "zh-cn"}
REFERENCE_PACKAGES = {lang: "debian-reference-" + suffix for lang, suffix in REFERENCE_SUFFIXES.items()}


def reference_units(en_deb, xx_deb, lang, stats):
    """The Debian Reference's pages (usr/share/debian-reference/NAME.LANG.html) block by block,
    where a page has as many blocks in English as in XX."""
    suffix = REFERENCE_SUFFIXES[lang]
    prefix = "./usr/share/debian-reference/"
    english = debs.files(en_deb, lambda name: name.startswith(prefix) and name.endswith(".en.html"))
    other = debs.files(xx_deb, lambda name: name.startswith(prefix) and name.endswith(f".{suffix}.html"))
    counts = collections.Counter()
    translated = []
    for name in sorted(other):
        page = name[len(prefix):-len(f".{suffix}.html")]
        translated.append((page, english.get(f"{prefix}{page}.en.html"), other[name]))
    yield from paired_pages(translated, counts, "reference")
    stats["reference"] = dict(counts)


# The SWORD module of each language's Bible in Debian (sword-text-*), and English's.
BIBLE_MODULES = {"en": "engWEB2015eb", "es": "spaRV1909eb"}
BOOKS = ("Genesis Exodus Leviticus Numbers Deuteronomy Joshua Judges Ruth I_Samuel II_Samuel I_Kings "
         "II_Kings I_Chronicles II_Chronicles Ezra Nehemiah Esther Job Psalms Proverbs Ecclesiastes "
         "Song_of_Solomon Isaiah Jeremiah Lamentations Ezekiel Daniel Hosea Joel Amos Obadiah Jonah Micah "
         "Nahum Habakkuk Zephaniah Haggai Zechariah Malachi Matthew Mark Luke John Acts Romans "
         "I_Corinthians II_Corinthians Galatians Ephesians Philippians Colossians I_Thessalonians "
         "II_Thessalonians I_Timothy II_Timothy Titus Philemon Hebrews James I_Peter II_Peter I_John "
         "II_John III_John Jude Revelation_of_John").split()
VERSE = re.compile(r"^(.+? \d+:\d+): (.*)$")


def verse_text(osis):
    """A verse's OSIS markup as plain text: words that touched only through markup get a space."""
    osis = re.sub(r"</w>\s*<w\b", "</w> <w", osis)
    osis = re.sub(r"(\w)<w\b", r"\1 <w", osis)
    osis = re.sub(r"<note\b.*?</note>", "", osis)
    text = re.sub(r"<[^>]+>", "", osis)
    return " ".join(text.replace("¶", " ").split())


def bible_verses(sword_path, module):
    verses = {}
    env = dict(os.environ, SWORD_PATH=sword_path)
    for book in BOOKS:
        out = subprocess.run(["diatheke", "-b", module, "-f", "OSIS", "-k", book.replace("_", " ")],
                             check=True, capture_output=True, text=True, env=env).stdout
        for line in out.splitlines():
            found = VERSE.match(line)
            if found:
                verses[found.group(1)] = verse_text(found.group(2))
    return verses


def bible_units(en_deb, xx_deb, lang, stats):
    with tempfile.TemporaryDirectory() as root:
        for deb in (en_deb, xx_deb):
            subprocess.run(["dpkg-deb", "-x", str(deb), root], check=True)
        sword = os.path.join(root, "usr/share/sword")
        english = bible_verses(sword, BIBLE_MODULES["en"])
        other = bible_verses(sword, BIBLE_MODULES[lang])
    shared = [key for key in english if key in other and english[key] and other[key]]
    stats["bible"] = {"en verses": len(english), f"{lang} verses": len(other), "paired": len(shared)}
    for key in shared:
        yield "bible/" + key.rsplit(" ", 1)[0].replace(" ", "_"), english[key], other[key]


def main():
    args = sys.argv[1:]
    xl_wa, bible, catalogs, reference = None, None, None, None
    if "--catalogs" in args:
        i = args.index("--catalogs")
        catalogs = Path(args[i + 1])
        del args[i:i + 2]
    if "--xl-wa" in args:
        i = args.index("--xl-wa")
        xl_wa = pairs.XlWa(Path(args[i + 1]) / args[0] / "dev.tsv", args[0])
        del args[i:i + 2]
    if "--reference" in args:
        i = args.index("--reference")
        reference = args[i + 1], args[i + 2]
        del args[i:i + 3]
    if "--bible" in args:
        i = args.index("--bible")
        bible = args[i + 1], args[i + 2]
        del args[i:i + 3]
    lang, out, handbook_deb = args[0], Path(args[1]), args[2]
    stats = {"pair": f"en-{lang}"}
    units = []
    if lang in HANDBOOK_FOLDERS:
        units += list(handbook_units(handbook_deb, lang, stats))
    if catalogs and catalogs.exists():
        for line in catalogs.read_text(encoding="utf-8").splitlines():
            origin, en, xx = line.split("\t")
            units.append((origin, en, xx))
    if reference and lang in REFERENCE_SUFFIXES:
        units += list(reference_units(*reference, lang, stats))
    if bible and lang in BIBLE_MODULES:
        units += list(bible_units(*bible, lang, stats))
    kept = pairs.beside_splits(pairs.split_units(units, lang, stats), out, lang, xl_wa, stats)
    pairs.write_pairs(out, "prose", lang, kept)
    written = collections.Counter(origin.split("/")[0] for origin, _, _ in kept)
    stats["written"] = dict(written)
    (out / "prose-stats.json").write_text(json.dumps(stats, indent=1, ensure_ascii=False) + "\n")
    print(f"en-{lang} prose: {json.dumps(stats['written'])}")


if __name__ == "__main__":
    main()
