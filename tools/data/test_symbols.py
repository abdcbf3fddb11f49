"""Tests of symbols.py (symbol-copying pairs) and tools/eval/symbols.py (the share copied).

    /usr/bin/python3 -m pytest tools/data/test_symbols.py
"""
import random
import tempfile
import unicodedata
import unittest
from pathlib import Path

from tools.data import symbols
from tools.eval import symbols as measure
from tools.train import bpe as B

ROOT = Path(__file__).resolve().parents[2]


def tiny_bpe():
    """A vocabulary with letters only: every symbol is spelled in bytes."""
    return B.learn({"the": 5, "cat": 5, "sleeps": 3, "el": 5, "gato": 5, "duerme": 3, "→": 40}, 300)


class Symbols(unittest.TestCase):
    def test_held_out_code_points_never_reach_the_training_pool_and_read_the_same_in_nfc(self):
        bpe = tiny_bpe()
        train, held = symbols.code_points(bpe, False), symbols.code_points(bpe, True)
        self.assertGreater(len(train), 1000)
        self.assertGreater(len(held), 150)
        self.assertFalse(set(train) & set(held))
        for cp in train + held:
            self.assertEqual(unicodedata.normalize("NFC", chr(cp)), chr(cp))
        self.assertNotIn(ord("→"), train + held)  # a piece of the vocabulary: not copied in bytes

    def test_symbols_are_linked_to_each_other_and_the_other_links_move_along(self):
        rng = random.Random(3)
        en, xx, links = ["the", "cat", "sleeps", "."], ["el", "gato", "duerme", "."], [(0, 0), (1, 1), (2, 2), (3, 3)]
        for _ in range(200):
            e, x, l = symbols.add_symbol(rng, en, xx, links, "📁")
            self.assertEqual(e.count("📁"), 1)
            self.assertEqual(x.count("📁"), 1)
            self.assertIn((e.index("📁"), x.index("📁")), l)
            for i, j in l:  # every other link still joins the words it joined
                if e[i] != "📁":
                    self.assertEqual(en.index(e[i]), xx.index(x[j]))

    def test_a_split_becomes_pairs_with_the_same_symbols_on_both_sides(self):
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            (folder / "train.en").write_text("the cat sleeps .\nthe cat .\n" * 5, encoding="utf-8")
            (folder / "train.es").write_text("el gato duerme .\nel gato .\n" * 5, encoding="utf-8")
            (folder / "train.align").write_text("0-0 1-1 2-2 3-3\n0-0 1-1 2-2\n" * 5, encoding="utf-8")
            made = symbols.make("es", folder, tiny_bpe(), "train", 6, False, 1)
            self.assertEqual(len(made), 6)
            for en, es, align, origin in made:
                self.assertEqual(measure.symbols(en), measure.symbols(es))
                self.assertTrue(measure.symbols(en))
                en_words, es_words = en.split(), es.split()
                for link in align.split():
                    i, j = map(int, link.split("-"))
                    self.assertLess(i, len(en_words))
                    self.assertLess(j, len(es_words))
                self.assertTrue(origin.startswith("train:"))

    def test_a_split_without_links_is_aligned_only_as_far_as_the_pairs_drawn_and_gives_the_same_pairs(self):
        with tempfile.TemporaryDirectory() as folder:
            folder = Path(folder)
            en = [f"the cat{i} sleeps ." for i in range(50)]
            es = [f"el gato{i} duerme ." for i in range(50)]
            (folder / "train.en").write_text("".join(line + "\n" for line in en), encoding="utf-8")
            (folder / "train.es").write_text("".join(line + "\n" for line in es), encoding="utf-8")
            asked = []

            def links_of(lang, en_lines, xx_lines):
                self.assertEqual(lang, "es")
                asked.append(len(en_lines))
                return ["" if "cat7 " in line else "0-0 1-1 2-2 3-3" for line in en_lines]  # one pair unaligned

            made = symbols.make("es", folder, tiny_bpe(), "train", 12, False, 1, chunk=5, links_of=links_of)
            self.assertEqual(len(made), 12)
            self.assertLess(sum(asked), 50)  # not the whole split
            self.assertTrue(all(n == 5 for n in asked))
            self.assertNotIn("train:8", [origin for *_, origin in made])  # the pair without links is left out
            links = "".join(("" if i == 7 else "0-0 1-1 2-2 3-3") + "\n" for i in range(50))
            (folder / "train.align").write_text(links, encoding="utf-8")
            self.assertEqual(symbols.make("es", folder, tiny_bpe(), "train", 12, False, 1), made)


class Measure(unittest.TestCase):
    def test_a_symbol_is_a_token_of_symbol_characters_with_selectors_and_joiners(self):
        for token in ("📁", "❤️", "🇪🇸", "👩‍💻", "→", "👍🏽"):
            self.assertTrue(measure.is_symbol(token), token)
        for token in ("a", ".", "Open", "📁x", "\u200d"):
            self.assertFalse(measure.is_symbol(token), token)

    def test_copied_counts_each_symbol_as_often_as_the_source_has_it(self):
        sources = ["📁 Open 📁 .", "I ❤️ 🍕 .", "no symbols"]
        hypotheses = ["📁 Abrir .", "Yo ❤️ 🍕 .", "ninguno"]
        self.assertEqual(measure.copied(sources, hypotheses), (3, 4, 1, 2))


if __name__ == "__main__":
    unittest.main()
