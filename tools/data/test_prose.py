"""Tests of prose.py (the handbook, stories and Bible beside the splits). Builds tiny .debs with dpkg-deb.

    /usr/bin/python3 -m pytest tools/data/test_prose.py
"""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tools.data import prose
from tools.data.test_extra import make_deb

ROOT = Path(__file__).resolve().parents[2]  # python3 -m runs a module of the package from here
PAGES = "usr/share/doc/debian-handbook/html"


def page(*blocks):
    body = "".join(blocks)
    return f"<html><head><title>T</title></head><body>{body}</body></html>".encode("utf-8")


class Handbook(unittest.TestCase):
    def test_docbook_paragraphs_titles_and_items_are_blocks_in_order_without_section_numbers(self):
        text = page('<h2 class="title">6.2.7. Tracking Packages</h2>', '<div class="para">One <code>two</code>.'
                    '<div class="note">inner</div></div>', "<ul><li><p>An item.</p></li></ul>")
        self.assertEqual(prose.page_blocks(text.decode()), ["T", "Tracking Packages", "One two.inner", "An item."])

    def test_pages_pair_block_by_block_and_a_page_with_other_counts_is_skipped(self):
        with tempfile.TemporaryDirectory() as folder:
            deb = make_deb(folder, "debian-handbook", {
                f"{PAGES}/en-US/a.html": page('<div class="para">The cat sleeps.</div>', "<p>Save the file.</p>"),
                f"{PAGES}/es-ES/a.html": page('<div class="para">El gato duerme.</div>', "<p>Guarda el archivo.</p>"),
                f"{PAGES}/en-US/b.html": page("<p>One.</p>", "<p>Two.</p>"),
                f"{PAGES}/es-ES/b.html": page("<p>Uno y dos.</p>"),
                f"{PAGES}/fr-FR/a.html": page("<p>Le chat dort.</p>", "<p>x</p>"),
            })
            stats = {}
            units = list(prose.handbook_units(deb, "es", stats))
        self.assertEqual(units, [("handbook/a", "T", "T"), ("handbook/a", "The cat sleeps.", "El gato duerme."),
                                 ("handbook/a", "Save the file.", "Guarda el archivo.")])
        self.assertEqual(stats["handbook"], {"pages paired": 1, "pages with different block counts (skipped)": 1,
                                             "blocks": 3})


class Reference(unittest.TestCase):
    def test_chapters_pair_with_their_english_twins_block_by_block(self):
        ref = "usr/share/debian-reference"
        with tempfile.TemporaryDirectory() as folder:
            en = make_deb(folder, "debian-reference-en", {
                f"{ref}/ch01.en.html": page("<h2>1.1. Login</h2>", '<div class="para">Type your password.</div>'),
                f"{ref}/ch02.en.html": page("<p>One.</p>", "<p>Two.</p>"),
                f"{ref}/debian-reference.en.txt.gz": b"not a page",
            })
            zh = make_deb(folder, "debian-reference-zh-cn", {
                f"{ref}/ch01.zh-cn.html": page("<h2>1.1. 登录</h2>", '<div class="para">输入你的密码。</div>'),
                f"{ref}/ch02.zh-cn.html": page("<p>一和二。</p>"),
                f"{ref}/apa.zh-cn.html": page("<p>附录</p>"),
            })
            stats = {}
            units = list(prose.reference_units(en, zh, "zh", stats))
        self.assertEqual(units, [("reference/ch01", "T", "T"), ("reference/ch01", "Login", "登录"),
                                 ("reference/ch01", "Type your password.", "输入你的密码。")])
        self.assertEqual(stats["reference"], {"pages without an English twin": 1, "pages paired": 1,
                                              "pages with different block counts (skipped)": 1, "blocks": 3})

    def test_every_language_with_a_translation_names_its_package(self):
        self.assertEqual(prose.REFERENCE_PACKAGES["zh"], "debian-reference-zh-cn")
        self.assertEqual(sorted(prose.REFERENCE_PACKAGES), ["de", "es", "fr", "it", "pt", "zh"])


class Written(unittest.TestCase):
    def run_prose(self, folder, lang, extra_args=()):
        out = Path(folder) / "out"
        out.mkdir()
        for split in ("train", "valid", "test"):
            (out / f"{split}.en").write_text("Save the file .\n")
            (out / f"{split}.{lang}").write_text("Guarda el archivo .\n")
        subprocess.run([sys.executable, "-m", "tools.data.prose", lang, str(out), *extra_args], cwd=ROOT,
                       check=True, stdout=subprocess.DEVNULL)
        return out

    def test_the_gold_set_and_the_splits_lines_are_kept_out_and_stories_are_read(self):
        with tempfile.TemporaryDirectory() as folder:
            deb = make_deb(folder, "debian-handbook", {
                f"{PAGES}/en-US/a.html": page("<p>The cat sleeps in the garden.</p>", "<p>Save the file.</p>",
                                              "<p>He was the father of five children.</p>"),
                f"{PAGES}/es-ES/a.html": page("<p>El gato duerme en el jardín.</p>", "<p>Guarda el archivo.</p>",
                                              "<p>Fue padre de cinco hijos.</p>"),
            })
            gold = Path(folder) / "gold" / "es"
            gold.mkdir(parents=True)
            (gold / "dev.tsv").write_text("He was the father of five children .\tFue padre de cinco hijos .\t0-0\n")
            stories = Path(folder) / "stories.tsv"
            stories.write_text("stories/wesnoth-1.16-httt/wesnoth-httt\tWhere is the king?\t¿Dónde está el rey?\n")
            out = self.run_prose(folder, "es", [deb, "--catalogs", str(stories), "--xl-wa", str(gold.parent)])
            en = (out / "prose.en").read_text().splitlines()
            es = (out / "prose.es").read_text().splitlines()
            origins = (out / "prose.origin").read_text().splitlines()
            stats = json.loads((out / "prose-stats.json").read_text())
        self.assertEqual(list(zip(en, es)), [("The cat sleeps in the garden .", "El gato duerme en el jardín ."),
                                             ("Where is the king ?", "¿ Dónde está el rey ?")])
        self.assertEqual(origins, ["handbook/a", "stories/wesnoth-1.16-httt/wesnoth-httt"])
        self.assertEqual(stats["filters"]["handbook"]["dropped: sentence of the XL-WA gold set"], 1)
        self.assertEqual(stats["dropped: a side is a line of train, valid or test"], {"handbook": 1})
        self.assertEqual(stats["written"], {"handbook": 1, "stories": 1})


class Bible(unittest.TestCase):
    def test_words_that_touch_only_through_markup_are_spaced_and_notes_dropped(self):
        osis = ('<w>In</w> <w>the</w> <w>beginning</w>, <w>God</w><w>created</w> only born<w>Son</w>'
                '<note type="x">a note</note>.<milestone type="line"/>')
        self.assertEqual(prose.verse_text(osis), "In the beginning, God created only born Son.")
