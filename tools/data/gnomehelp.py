"""GNOME help (Mallard pages) in English and one other language -> pairs.

Usage: python3 gnomehelp.py LANG OUT_TSV STATS_JSON DEB...

gnome-user-docs (the desktop help) and GNOME applications ship every translated page next to the
English one (/usr/share/help/C/<guide>/<page>.page and /usr/share/help/<lang>/<guide>/<page>.page).
OUT_TSV gets `gnome-help/<package>/<guide>/<page><TAB>english<TAB>other` lines. The
translations are made by itstool, which replaces the text of each translatable block and keeps
the element structure; so the pages pair block by block: the sequence of blocks (title, desc,
subtitle, p, each with its element path) must be the same in both files, and a page whose
sequences differ is skipped and counted. Translator credits, which itstool adds to <info>, are
ignored with the rest of <info> (the page's <desc> excepted).

Block text: markup stripped, `<keyseq>` keys joined by "+" as Mallard displays them. Dropped: an
empty block, and a block with a link whose text Mallard fills in at display time
(`<link xref="..."/>`), which would leave a hole in the sentence.
"""
import collections
import json
import re
import sys
import unicodedata
import xml.etree.ElementTree as ET

from tools.data import debs

BLOCKS = {"title", "subtitle", "desc", "p", "cite"}
SKIP = {"code", "screen", "media", "comment", "synopsis"}  # blocks whose text is not prose


def local(tag):
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def inline_text(element, flags):
    parts = [element.text or ""]
    for child in element:
        name = local(child.tag)
        if name == "keyseq":
            parts.append("+".join(inline_text(key, flags) for key in child))
        elif name == "link" and not "".join(child.itertext()).strip():
            flags.add("generated link text")
        elif name in ("media", "comment"):
            pass
        else:
            parts.append(inline_text(child, flags))
        parts.append(child.tail or "")
    return "".join(parts)


def blocks(root):
    """[(path, text or None)] of the page's text blocks in document order."""
    out = []

    def walk(element, path):
        name = local(element.tag)
        if name in SKIP:
            return
        if name == "info":
            for child in element:
                if local(child.tag) == "desc":
                    walk(child, path + "/info")
            return
        here = f"{path}/{name}"
        if name in BLOCKS:
            flags = set()
            text = unicodedata.normalize("NFC", " ".join(inline_text(element, flags).split()))
            out.append((here, None if flags else text))
            return
        for child in element:
            walk(child, here)

    walk(root, "")
    return out


def main():
    lang, out_tsv, stats_json, *deb_paths = sys.argv[1:]
    counts = collections.Counter()
    with open(out_tsv, "w", encoding="utf-8") as out:
        for deb in deb_paths:
            package = debs.fields(deb)["Package"]
            pages = debs.files(deb, lambda name: name.endswith(".page")
                               and re.search(rf"/share/help/(C|{re.escape(lang)})/", name))
            by_lang = collections.defaultdict(dict)
            for name, data in pages.items():
                found = re.search(r"/share/help/([^/]+)/(.+)$", name)
                by_lang[found.group(1)][found.group(2)] = data
            counts["pages_en"] += len(by_lang["C"])
            counts["pages_xx"] += len(by_lang[lang])
            if by_lang[lang]:
                counts["packages with the language"] += 1
            for path in sorted(by_lang["C"]):
                if path not in by_lang[lang]:
                    counts["pages without a translation"] += 1
                    continue
                en_blocks = blocks(ET.fromstring(by_lang["C"][path]))
                xx_blocks = blocks(ET.fromstring(by_lang[lang][path]))
                if [p for p, _ in en_blocks] != [p for p, _ in xx_blocks]:
                    counts["pages skipped: block structure differs"] += 1
                    counts["blocks in skipped pages"] += len(en_blocks)
                    continue
                counts["pages paired"] += 1
                for (_, en), (_, xx) in zip(en_blocks, xx_blocks):
                    counts["blocks"] += 1
                    if en is None or xx is None:
                        counts["dropped: link text filled in at display time"] += 1
                    elif not en or not xx:
                        counts["dropped: empty"] += 1
                    elif "\t" in en + xx:
                        counts["dropped: tab character"] += 1
                    else:
                        counts["pairs"] += 1
                        out.write(f"gnome-help/{package}/{path}\t{en}\t{xx}\n")
    with open(stats_json, "w") as f:
        json.dump(dict(counts), f, indent=1)
    print(f"gnome-help: {dict(counts)}", file=sys.stderr)


if __name__ == "__main__":
    main()
