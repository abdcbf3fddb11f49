"""LibreOffice help pages in English and one other language -> paragraph pairs.

Usage: python3 lohelp.py OUT_TSV STATS_JSON EN_US_DEB XX_DEB

Debian's libreoffice-help-* packages ship the help as HTML generated from the same XHP sources,
one folder per language (/usr/share/libreoffice/help/<lang>/text/...). Every paragraph and
heading keeps its source id (`<p id="par_id3146957">`, `<h2 id="hd_id3147291">`) in every
language, so the pairs are (file, id) matches; an id that occurs more than once in a file is
matched by occurrence. OUT_TSV gets `lo-help/<file><TAB>english<TAB>other` lines; STATS_JSON the
count of paragraphs dropped by each rule.

Text rules: markup is stripped; inside an inline platform switch only the default variant is
kept (the macOS one is hidden); `<br>` is a space; `$[officename]`/`%PRODUCTNAME` become
`LibreOffice`. Dropped: code paragraphs (class code, smathcode, example, ...), paragraphs whose
every letter is inside a UI-name span (menu paths such as "Tools - Options - Load/Save", key
names, literal input), and empty ones.
"""
import collections
import html.parser
import json
import re
import sys
import unicodedata

from tools.data import debs

UNIT_ID = re.compile(r"^(par|hd|lang)_id")
UNIT_TAGS = {"p", "h1", "h2", "h3", "h4", "h5", "h6"}
CODE_CLASSES = {"code", "codeintable", "smathcode", "example", "image", "imageintable",
                "youtube_consent"}
# Spans that name a UI element, a key or literal input: a paragraph with no letter outside
# them is a menu path or a label, not running text.
UI_CLASSES = {"menuitem", "emph", "literal", "keycode", "input", "widget", "acronym"}
PRODUCT = {"$[officename]": "LibreOffice", "%PRODUCTNAME": "LibreOffice",
           "%PRODUCTVERSION": "7.4"}


class Units(html.parser.HTMLParser):
    """Collects (id, text, kind) of each paragraph/heading with a source id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.units = []
        self.unit = None      # [tag, id, class, text parts, letters outside UI spans]
        self.skip = 0         # >0 inside a hidden (non-default) switch variant
        self.spans = []       # stack of span kinds inside the unit: "skip", "ui" or ""

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if self.unit is None:
            if tag in UNIT_TAGS and UNIT_ID.match(attrs.get("id") or ""):
                self.unit = [tag, attrs["id"], attrs.get("class") or "", [], 0]
                self.spans = []
            return
        if tag == "br":
            self.unit[3].append(" ")
        elif tag == "span":
            if "hidden" in attrs and not (attrs.get("id") or "").startswith("default"):
                kind = "skip"
            elif (attrs.get("class") or "") in UI_CLASSES:
                kind = "ui"
            else:
                kind = ""
            self.spans.append(kind)

    def handle_endtag(self, tag):
        if self.unit is None:
            return
        if tag == "span" and self.spans:
            self.spans.pop()
        elif tag == self.unit[0]:
            tag_, unit_id, cls, parts, free_letters = self.unit
            self.units.append((unit_id, "".join(parts), cls, free_letters))
            self.unit = None

    def handle_data(self, data):
        if self.unit is None or "skip" in self.spans:
            return
        self.unit[3].append(data)
        if "ui" not in self.spans:
            self.unit[4] += sum(ch.isalpha() for ch in data)


def clean(text):
    for name, value in PRODUCT.items():
        text = text.replace(name, value)
    return unicodedata.normalize("NFC", " ".join(text.split()))


def page_units(data):
    """{(id, occurrence): (text, class, letters outside UI spans)} of one help page."""
    parser = Units()
    parser.feed(data.decode("utf-8"))
    parser.close()
    seen = collections.Counter()
    out = {}
    for unit_id, text, cls, free_letters in parser.units:
        out[(unit_id, seen[unit_id])] = (clean(text), cls, free_letters)
        seen[unit_id] += 1
    return out


def pages(deb):
    """{path below help/<lang>/: bytes} of the HTML pages of one help package."""
    found = debs.files(deb, lambda name: "/share/libreoffice/help/" in name
                       and name.endswith(".html") and "/text/" in name)
    return {re.sub(r"^.*/share/libreoffice/help/[^/]+/", "", name): data
            for name, data in found.items()}


def main():
    out_tsv, stats_json, en_deb, xx_deb = sys.argv[1:]
    en_pages, xx_pages = pages(en_deb), pages(xx_deb)
    counts = collections.Counter(pages_en=len(en_pages), pages_xx=len(xx_pages))
    with open(out_tsv, "w", encoding="utf-8") as out:
        for path in sorted(en_pages):
            if path not in xx_pages:
                counts["pages without a translation"] += 1
                continue
            en_units, xx_units = page_units(en_pages[path]), page_units(xx_pages[path])
            for key, (en, cls, free_letters) in en_units.items():
                counts["paragraphs"] += 1
                if key not in xx_units:
                    counts["dropped: id missing in translation"] += 1
                    continue
                xx, xx_cls, xx_free = xx_units[key]
                if cls in CODE_CLASSES or xx_cls in CODE_CLASSES:
                    counts["dropped: code/example/image paragraph"] += 1
                elif not en or not xx:
                    counts["dropped: empty"] += 1
                elif free_letters == 0 or xx_free == 0:
                    counts["dropped: only UI names (menu path, key, literal input)"] += 1
                elif "\t" in en + xx:
                    counts["dropped: tab character"] += 1
                else:
                    counts["pairs"] += 1
                    out.write(f"lo-help/{path}\t{en}\t{xx}\n")
    with open(stats_json, "w") as f:
        json.dump(dict(counts), f, indent=1)
    print(f"lo-help: {dict(counts)}", file=sys.stderr)


if __name__ == "__main__":
    main()
