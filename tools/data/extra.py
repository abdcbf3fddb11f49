"""The statistical aligners' extra training data of one language: every Debian gettext catalog of
the language and its bilingual word lists, beside the pair's train split.

Usage: python3 extra.py XX WORK_DIR OUT_DIR [--xl-wa DIR]

Reads WORK_DIR/catalogs-all.tsv (catalogs.py over every bookworm package with catalogs for XX) and
WORK_DIR/lexicon.tsv (lexicons.py), both `origin<TAB>english<TAB>other`, and OUT_DIR's train,
valid and test splits (pairs.py's). Catalog messages are split into sentences and every pair goes
through pairs.py's filters (the same tokens; with --xl-wa DIR, the gold set DIR/XX/dev.tsv out);
a pair whose English or other side is a line of the splits is dropped as well (already in train,
or held out). Writes OUT_DIR/extra.{en,XX,origin} (train.*'s format), OUT_DIR/extra-stats.json
(every count) and OUT_DIR/extra-sources.tsv (package, version, licence, pairs kept), and each
package's copyright file to OUT_DIR/licences/.

The Transformer trains on the splits alone; the extra data is for the HMMs, which
tools/data/train_aligners.sh trains with and without it (candidates with "x").
"""
import collections
import itertools
import json
import sys
import unicodedata
from pathlib import Path

from tools.data import debs, pairs


def read_tsv(path):
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines():
        origin, en, xx = line.split("\t")
        yield origin, en, xx


def lexicon_units(path):
    """Word-list entries as they are: an entry is not split into sentences."""
    for origin, en, xx in read_tsv(path):
        yield origin, unicodedata.normalize("NFC", " ".join(en.split())), unicodedata.normalize("NFC", " ".join(xx.split()))


def main():
    args = sys.argv[1:]
    xl_wa = None
    if "--xl-wa" in args:
        i = args.index("--xl-wa")
        xl_wa_dir = Path(args[i + 1])
        del args[i:i + 2]
        xl_wa = pairs.XlWa(xl_wa_dir / args[0] / "dev.tsv")
    lang, work, out = args[0], Path(args[1]), Path(args[2])
    stats = {"pair": f"en-{lang}"}
    catalogs = pairs.split_units(read_tsv(work / "catalogs-all.tsv"), lang, stats)
    kept = pairs.beside_splits(itertools.chain(catalogs, lexicon_units(work / "lexicon.tsv")), out, lang, xl_wa, stats)
    pairs.write_pairs(out, "extra", lang, kept)
    by_group = collections.defaultdict(collections.Counter)
    for origin, en, xx in kept:
        c = by_group[pairs.group_of(origin)]
        c["pairs"] += 1
        c["en_tokens"] += len(en.split())
        c[f"{lang}_tokens"] += len(xx.split())
    stats["written"] = {group: dict(c) for group, c in sorted(by_group.items())}

    # Sources and licences: each package with at least one pair kept.
    kept_by_package = collections.Counter(origin.split("/")[1] for origin, _, _ in kept)
    (out / "licences").mkdir(exist_ok=True)
    rows = ["source\tpackage\tversion\tpairs kept\tlicence"]
    for line in (work / "debs-extra.tsv").read_text().splitlines():
        group, deb = line.split("\t")
        name = debs.fields(deb)["Package"]
        if not kept_by_package.get(name):
            continue
        name, version, licence, copyright_file = debs.package_copyright(deb)
        rows.append(f"{group}\t{name}\t{version}\t{kept_by_package[name]}\t{licence}")
        if copyright_file:
            (out / "licences" / f"{name}.copyright").write_bytes(copyright_file)
    (out / "extra-sources.tsv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    (out / "extra-stats.json").write_text(json.dumps(stats, indent=1, ensure_ascii=False) + "\n")
    print(f"en-{lang} extra: {json.dumps(stats['written'])}")


if __name__ == "__main__":
    main()
