"""Tests of the aligners' extra data: lexicons.py (FreeDict and CLDR read from .debs) and extra.py
(filters, the gold set and the splits kept out). Builds tiny .debs with dpkg-deb.

    /usr/bin/python3 -m pytest tools/data/test_extra.py
"""
import gzip
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tools.data import catalogs, lexicons

ROOT = Path(__file__).resolve().parents[2]  # python3 -m runs a module of the package from here


def dictd(entries):
    """(.index bytes, .dict bytes) of a dictd dictionary with these entry texts, headword first."""
    data, index = b"", []
    for text in entries:
        body = text.encode("utf-8")
        encode = lambda n: "".join(lexicons.BASE64[(n >> shift) & 63] for shift in (18, 12, 6, 0)).lstrip("A") or "A"
        index.append(f"{text.splitlines()[0].split(' /')[0]}\t{encode(len(data))}\t{encode(len(body))}")
        data += body
    return ("\n".join(index) + "\n").encode("utf-8"), data


def mo_file(entries):
    """A little-endian GNU .mo file holding these (msgid, msgstr) byte strings, in this order."""
    import struct
    count, header = len(entries), 28
    ids_at, strs_at = header, header + 8 * len(entries)
    data_at = strs_at + 8 * len(entries)
    tables, blob = [b"", b""], b""
    for column in (0, 1):
        for entry in entries:
            tables[column] += struct.pack("<2I", len(entry[column]), data_at + len(blob))
            blob += entry[column] + b"\0"
    return struct.pack("<7I", 0x950412DE, 0, count, ids_at, strs_at, 0, 0) + tables[0] + tables[1] + blob


def make_deb(folder, package, files):
    """A .deb named PACKAGE holding FILES ({path: bytes}) and a copyright file; its path."""
    root = Path(folder) / package
    (root / "DEBIAN").mkdir(parents=True)
    (root / "DEBIAN" / "control").write_text(
        f"Package: {package}\nVersion: 1.0-1\nArchitecture: all\nMaintainer: test <t@example.org>\n"
        "Description: test package\n")
    files = {**files, f"usr/share/doc/{package}/copyright":
             b"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
             b"Files: *\nCopyright: test\nLicense: GPL-2+\n"}
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    deb = Path(folder) / f"{package}_1.0-1_all.deb"
    subprocess.run(["dpkg-deb", "--build", "--root-owner-group", str(root), str(deb)], check=True,
                   stdout=subprocess.DEVNULL)
    return str(deb)


class Lexicons(unittest.TestCase):
    def test_a_message_that_is_not_its_catalogs_charset_is_skipped_and_counted(self):
        import collections
        header = (b"", b"Content-Type: text/plain; charset=UTF-8\nPlural-Forms: nplurals=2; plural=(n != 1);\n")
        data = mo_file([header, (b"Open", "Отвори".encode()), (b"Save", b"\xd0\xa1\xe2x"),
                        (b"file\0files", "файл\0файла".encode())])
        dropped = collections.Counter()
        self.assertEqual(list(catalogs.messages(data, dropped)), [("Open", "Отвори"), ("file", "файл")])
        self.assertEqual(dropped, {"not UTF-8 text": 1})
        unknown = mo_file([(b"", b"charset=NO-SUCH-CHARSET\n"), (b"Open", b"x")])
        self.assertEqual(list(catalogs.messages(unknown, dropped)), [])
        self.assertEqual(dropped["not NO-SUCH-CHARSET text"], 1)

    def test_dictd_numbers_are_base64(self):
        self.assertEqual(lexicons.dictd_number("A"), 0)
        self.assertEqual(lexicons.dictd_number("BA"), 64)
        self.assertEqual(lexicons.dictd_number("/"), 63)

    def test_freedict_entries_drop_pronunciation_notes_and_glosses(self):
        index, data = dictd(["a box of matches /ɐ bˈɒks/\n1. egy skatulya gyufa\n2. egy doboz (kis) gyufa\n",
                             "grive /gʀiv/ <n, fem>\nthrush; song thrush\nNote: a bird\n"])
        entries = list(lexicons.freedict_entries(index, data))
        self.assertEqual(entries, [("a box of matches", ["egy skatulya gyufa", "egy doboz gyufa"]),
                                   ("grive", ["thrush", "song thrush"])])

    def test_cldr_names_pair_by_path_and_skip_unconfirmed(self):
        en = lexicons.cldr_names(b"<ldml><localeDisplayNames><languages><language type='de'>German</language>"
                                 b"<language type='fr'>French</language></languages></localeDisplayNames>"
                                 b"<numbers><symbols><decimal>.</decimal></symbols></numbers></ldml>")
        et = lexicons.cldr_names(b"<ldml><localeDisplayNames><languages><language type='de'>saksa</language>"
                                 b"<language type='fr' draft='unconfirmed'>prantsuse</language></languages>"
                                 b"</localeDisplayNames><numbers><symbols><decimal>,</decimal></symbols></numbers></ldml>")
        self.assertEqual(list(lexicons.cldr_entries(en, et)), [("German", "saksa")])

    def test_main_reads_debs_and_applies_the_rules(self):
        with tempfile.TemporaryDirectory() as folder:
            index, data = dictd(["to break down /b/\nlebont\n", "stone\nkô\n", "stone again\nkő\n",
                                 "a very long english phrase here\negy\n"])
            freedict = make_deb(folder, "dict-freedict-eng-hun", {
                "usr/share/dictd/freedict-eng-hun.index": index,
                "usr/share/dictd/freedict-eng-hun.dict.dz": gzip.compress(data)})
            index, data = dictd(["kő\nstone\n"])
            reverse = make_deb(folder, "dict-freedict-hun-eng", {
                "usr/share/dictd/freedict-hun-eng.index": index,
                "usr/share/dictd/freedict-hun-eng.dict.dz": gzip.compress(data)})
            cldr = make_deb(folder, "unicode-cldr-core", {
                "usr/share/unicode/cldr/common/main/en.xml":
                    b"<ldml><localeDisplayNames><territories><territory type='HU'>Hungary</territory>"
                    b"</territories></localeDisplayNames></ldml>",
                "usr/share/unicode/cldr/common/main/hu.xml":
                    b"<ldml><localeDisplayNames><territories><territory type='HU'>Magyarorsz\xc3\xa1g</territory>"
                    b"</territories></localeDisplayNames></ldml>"})
            out, stats = Path(folder) / "lexicon.tsv", Path(folder) / "stats.json"
            subprocess.run([sys.executable, "-m", "tools.data.lexicons", "hu", str(out), str(stats),
                            freedict, reverse, cldr], cwd=ROOT, check=True)
            rows = out.read_text(encoding="utf-8").splitlines()
            self.assertEqual(rows, ["lexicon/dict-freedict-eng-hun\tbreak down\tlebont",
                                    "lexicon/dict-freedict-eng-hun\tstone\tkő",  # ô read as ő
                                    "lexicon/dict-freedict-eng-hun\tstone again\tkő",
                                    "lexicon/unicode-cldr-core\tHungary\tMagyarország"])
            counts = json.loads(stats.read_text())
            self.assertEqual(counts["dict-freedict-eng-hun"]["dropped: more than 4 words"], 1)
            self.assertEqual(counts["dict-freedict-hun-eng"]["dropped: duplicate"], 1)

    def test_main_refuses_an_unknown_package(self):
        with tempfile.TemporaryDirectory() as folder:
            deb = make_deb(folder, "something-else", {"usr/share/x": b"x"})
            run = subprocess.run([sys.executable, "-m", "tools.data.lexicons", "hu", str(Path(folder) / "o"),
                                  str(Path(folder) / "s"), deb], cwd=ROOT, capture_output=True, text=True)
            self.assertNotEqual(run.returncode, 0)
            self.assertIn("neither a FreeDict dictionary nor unicode-cldr-core", run.stderr)


class Extra(unittest.TestCase):
    def test_filters_gold_and_split_lines_are_kept_out(self):
        with tempfile.TemporaryDirectory() as folder:
            work, out, gold = Path(folder) / "work", Path(folder) / "out", Path(folder) / "gold"
            for d in (work, out, gold / "xx"):
                d.mkdir(parents=True)
            deb = make_deb(folder, "somepackage", {"usr/share/locale/xx/LC_MESSAGES/a.mo": b""})
            lexicon_deb = make_deb(folder, "unicode-cldr-core", {"usr/share/x": b""})
            (work / "debs-extra.tsv").write_text(f"catalogs-all\t{deb}\nlexicon\t{lexicon_deb}\n")
            (work / "catalogs-all.tsv").write_text(
                "catalogs-all/somepackage/a\tOpen the file. Close it.\tAvaa tiedosto. Sulje se.\n"
                "catalogs-all/somepackage/a\tSave\tTallenna\n"                    # in train already
                "catalogs-all/somepackage/a\tThe gold sentence .\tKulta lause .\n"  # the gold set
                "catalogs-all/somepackage/a\tHello %s\tHei %s\n", encoding="utf-8")  # dropped by the %s filter
            (work / "lexicon.tsv").write_text("lexicon/unicode-cldr-core\tFinland\tSuomi\n", encoding="utf-8")
            (gold / "xx" / "dev.tsv").write_text("The gold sentence .\tKulta lause .\t0-0\n", encoding="utf-8")
            for split, (en, xx) in {"train": ("Save", "Tallenna"), "valid": ("Quit", "Lopeta"),
                                    "test": ("Print", "Tulosta")}.items():
                (out / f"{split}.en").write_text(en + "\n")
                (out / f"{split}.xx").write_text(xx + "\n")
            subprocess.run([sys.executable, "-m", "tools.data.extra", "xx", str(work), str(out), "--xl-wa", str(gold)], cwd=ROOT,
                           check=True, stdout=subprocess.DEVNULL)
            self.assertEqual((out / "extra.en").read_text().splitlines(), ["Open the file .", "Close it .", "Finland"])
            self.assertEqual((out / "extra.xx").read_text().splitlines(), ["Avaa tiedosto .", "Sulje se .", "Suomi"])
            self.assertEqual((out / "extra.origin").read_text().splitlines(),
                             ["catalogs-all/somepackage/a"] * 2 + ["lexicon/unicode-cldr-core"])
            stats = json.loads((out / "extra-stats.json").read_text())
            self.assertEqual(stats["dropped: a side is a line of train, valid or test"], {"catalogs-all": 1})
            self.assertEqual(stats["filters"]["catalogs-all"]["dropped: sentence of the XL-WA gold set"], 1)
            sources = (out / "extra-sources.tsv").read_text().splitlines()
            self.assertEqual(sources[1:], ["catalogs-all\tsomepackage\t1.0-1\t2\tGPL-2+",
                                           "lexicon\tunicode-cldr-core\t1.0-1\t1\tGPL-2+"])
            self.assertTrue((out / "licences" / "somepackage.copyright").exists())
