"""Tests of compare_alignment.py's choice of gold set and its paired bootstrap.

    /usr/bin/python3 -m pytest tools/eval/test_compare_alignment.py
"""
import contextlib
import io
import unittest

from tools.eval import compare_alignment as C


class GoldSets(unittest.TestCase):
    def test_each_pair_reads_its_own_dev_set(self):
        self.assertEqual(C.gold_path("en-es").parts[-3:], ("xl-wa", "es", "dev.tsv"))
        self.assertEqual(C.gold_path("en-fr").parts[-3:], ("europarl-gold", "fr", "dev.tsv"))
        self.assertEqual(C.gold_path("en-zh").parts[-2:], ("nist-zh-gold", "dev.tsv"))

    def test_silver_links_are_xl_wa_train_split_and_absent_elsewhere(self):
        self.assertEqual(C.gold_path("en-ru", "silver").parts[-3:], ("xl-wa", "ru", "train.tsv"))
        for pair in ("en-de", "en-fr", "en-zh"):
            self.assertIsNone(C.gold_path(pair, "silver"), pair)


class Arguments(unittest.TestCase):
    def test_a_pair_without_its_english_half_is_refused_by_name(self):
        with self.assertRaises(SystemExit) as stop, contextlib.redirect_stderr(io.StringIO()) as err:
            C.main(["models", "da"])
        self.assertEqual(stop.exception.code, 2)
        self.assertIn("a pair is named en-XX, as en-da (got 'da')", err.getvalue())


class Bootstrap(unittest.TestCase):
    def test_a_better_alignment_wins_every_resample_and_a_tie_none(self):
        # per sentence: |A & S|, |A & P|, |A|, |S|
        base = [(1, 1, 2, 2), (2, 2, 3, 3), (0, 0, 1, 1)] * 10
        better = [(2, 2, 2, 2), (3, 3, 3, 3), (1, 1, 1, 1)] * 10
        self.assertEqual(C.bootstrap(base, better), 1.0)
        self.assertEqual(C.bootstrap(base, base), 0.0)
        self.assertEqual(C.bootstrap(better, base), 0.0)


if __name__ == "__main__":
    unittest.main()
