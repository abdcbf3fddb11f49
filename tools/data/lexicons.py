"""Bilingual word lists from Debian packages -> English/XX entries, for the aligners' extra data.

Usage: python3 lexicons.py XX OUT_TSV STATS_JSON DEB...

Reads, from the .deb files given (never from what is installed):
- FreeDict dictionaries (dict-freedict-eng-LLL, dict-freedict-LLL-eng: dictd's .index and
  .dict.dz): every headword with each of its translations (senses split at ',' and ';', notes,
  pronunciations, grammar and bracketed glosses left out), English first whichever the direction;
- Unicode CLDR's display names (unicode-cldr-core: common/main/en.xml and XX.xml): the names of
  languages, territories, scripts and currencies, months and weekdays, cities and units, matched
  by their path in the two files (unconfirmed and provisional names left out).
OUT_TSV gets `lexicon/<package><TAB>english<TAB>other`, an entry a line, each (English, other)
pair once; STATS_JSON the entries read and kept per package. Entries longer than MAX_WORDS words
on either side are left out (they are phrases and examples, not words), and so are English verbs'
infinitive marks ("to break down" -> "break down").
"""
import collections
import gzip
import json
import re
import sys
import xml.etree.ElementTree as ElementTree

from tools.data import debs

MAX_WORDS = 4
BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
# Hungarian's ő and ű written as ô and û (a Latin-1 stand-in for Latin-2) in FreeDict's eng-hun;
# Hungarian has no ô, û or õ, so the mapping is safe there and applied nowhere else.
HUNGARIAN_FIX = str.maketrans("ôûõÔÛÕ", "őűőŐŰŐ")
# CLDR paths whose leaves are names worth aligning.
CLDR_WANTED = ("/languages/", "/territories/", "/scripts/", "/currencies/", "monthWidth[type=wide]",
               "dayWidth[type=wide]", "/exemplarCity", "unitLength[type=long]")


def dictd_number(text):
    value = 0
    for ch in text:
        value = value * 64 + BASE64.index(ch)
    return value


def freedict_entries(index, data):
    """(headword, [translation, ...]) of one dictd dictionary."""
    for line in index.decode("utf-8").splitlines():
        parts = line.split("\t")
        if len(parts) < 3 or parts[0].startswith("00database"):
            continue
        start, length = dictd_number(parts[1]), dictd_number(parts[2])
        lines = [l.strip() for l in data[start:start + length].decode("utf-8", "replace").split("\n")]
        lines = [l for l in lines if l]
        if not lines:
            continue
        head = re.sub(r"/[^/]*/|<[^>]*>", "", lines[0]).strip()
        senses = []
        for sense in lines[1:]:
            sense = re.sub(r"^\d+\.\s*", "", sense)
            if sense.startswith(("Note:", "Synonym", "Antonym", "see:", "<")) or "=" in sense:
                continue
            sense = re.sub(r"\([^)]*\)|\[[^\]]*\]|<[^>]*>|/[^/]*/", "", sense)
            senses += [" ".join(s.split()) for s in re.split(r"[;,]\s*", sense) if s.strip()]
        yield head, senses


def cldr_names(xml_bytes):
    """{path: name} of one CLDR locale file's leaves."""
    names = {}

    def walk(node, trail):
        key = trail + "/" + node.tag + "".join(
            f"[{a}={node.get(a)}]" for a in ("type", "count", "alt") if node.get(a))
        text = (node.text or "").strip()
        if text and len(node) == 0 and node.get("draft") not in ("unconfirmed", "provisional"):
            names[key] = text
        for child in node:
            walk(child, key)

    walk(ElementTree.fromstring(xml_bytes), "")
    return names


def cldr_entries(en_names, xx_names):
    for key, other in xx_names.items():
        english = en_names.get(key)
        if english is None or not any(w in key for w in CLDR_WANTED) or "[count=" in key:
            continue
        if ("unitLength" in key or "/currencies/" in key) and "displayName" not in key:
            continue
        if "{" in english or "{" in other:
            continue
        yield english, other


def main():
    lang, out_tsv, stats_json, *deb_paths = sys.argv[1:]
    seen = set()
    stats = collections.defaultdict(collections.Counter)
    rows = []

    def add(package, english, other):
        c = stats[package]
        c["entries"] += 1
        if lang == "hu":
            other = other.translate(HUNGARIAN_FIX)
        if english.startswith("to ") and len(english.split()) > 1:
            english = english[3:]
        english, other = english.strip(" !?.\t"), other.strip(" !?.\t")
        if not english or not other or "\t" in english + other:
            c["dropped: empty"] += 1
        elif len(english.split()) > MAX_WORDS or len(other.split()) > MAX_WORDS:
            c[f"dropped: more than {MAX_WORDS} words"] += 1
        elif (english.lower(), other.lower()) in seen:
            c["dropped: duplicate"] += 1
        else:
            seen.add((english.lower(), other.lower()))
            c["kept"] += 1
            rows.append(f"lexicon/{package}\t{english}\t{other}")

    for deb in deb_paths:
        package = debs.fields(deb)["Package"]
        if package.startswith("dict-freedict-"):
            found = debs.files(deb, lambda m: m.endswith((".index", ".dict.dz")))
            indexes = sorted(n for n in found if n.endswith(".index"))
            for index in indexes:
                data = gzip.decompress(found[index[:-len(".index")] + ".dict.dz"])
                english_first = "/freedict-eng-" in index
                for head, senses in freedict_entries(found[index], data):
                    for sense in senses:
                        add(package, *((head, sense) if english_first else (sense, head)))
        elif package == "unicode-cldr-core":
            found = debs.files(deb, lambda m: m.endswith(("/common/main/en.xml", f"/common/main/{lang}.xml")))
            by_name = {name.rsplit("/", 1)[1]: data for name, data in found.items()}
            if f"{lang}.xml" not in by_name:
                raise SystemExit(f"lexicons.py: {deb} has no CLDR locale file for {lang}")
            for english, other in cldr_entries(cldr_names(by_name["en.xml"]), cldr_names(by_name[f"{lang}.xml"])):
                add(package, english, other)
        else:
            raise SystemExit(f"lexicons.py: {deb} is neither a FreeDict dictionary nor unicode-cldr-core")
    with open(out_tsv, "w", encoding="utf-8") as out:
        out.write("".join(row + "\n" for row in rows))
    with open(stats_json, "w", encoding="utf-8") as out:
        json.dump({package: dict(c) for package, c in stats.items()}, out, indent=1, ensure_ascii=False)
        out.write("\n")


if __name__ == "__main__":
    main()
