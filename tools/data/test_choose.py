"""Tests of train_aligners.sh's helpers: choose.py (the smallest candidate within a paired
bootstrap's noise of the lowest AER) and held_out.py (a corpus without the choosing set's pairs).

    /usr/bin/python3 -m pytest tools/data/test_choose.py
"""
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent


def run(*args):
    done = subprocess.run([sys.executable, *map(str, args)], capture_output=True, text=True)
    if done.returncode != 0:
        raise AssertionError(done.stderr)
    return done.stdout


class Choose(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.dir = Path(self.folder.name)
        # 200 sentences of three words, each word linked to itself
        self.gold = self.dir / "gold.tsv"
        self.gold.write_text("".join("a b c\tx y z\t0-0 1-1 2-2\n" for _ in range(200)))

    def tearDown(self):
        self.folder.cleanup()

    def output(self, name, wrong_every):
        """Links right but for one wrong link in every `wrong_every`-th sentence (0: never)."""
        lines = ["0-0 1-1 2-1" if wrong_every and k % wrong_every == 0 else "0-0 1-1 2-2" for k in range(200)]
        path = self.dir / f"{name}.txt"
        path.write_text("\n".join(lines) + "\n")
        return path

    def test_a_consistent_gain_beats_a_smaller_file(self):
        best, worse = self.output("best", 0), self.output("worse", 10)  # 20 of 600 links wrong
        chosen = run(HERE / "choose.py", self.gold, f"small:100:{worse}", f"big:200:{best}").split()
        self.assertEqual(chosen, ["0.0000", "200", "big"])

    def test_within_noise_the_smaller_file(self):
        # two sentences in 200 differ (0 and 199): the lowest cannot win 95 % of the resamples
        a, b = self.output("a", 0), self.output("b", 199)
        chosen = run(HERE / "choose.py", self.gold, f"big:200:{a}", f"small:100:{b}").split()
        self.assertEqual(chosen[1:], ["100", "small"])

    def test_possible_links_count_as_in_aer(self):
        gold = self.dir / "possible.tsv"
        gold.write_text("a b\tx y\t0-0 1p1\n")
        plain = self.dir / "plain.txt"
        plain.write_text("0-0 1-1\n")
        # A = S + the possible link: 1 - (1 + 2) / (2 + 1) = 0
        self.assertEqual(run(HERE / "choose.py", gold, f"one:1:{plain}").split(), ["0.0000", "1", "one"])

    def test_outputs_must_match_the_set(self):
        short = self.dir / "short.txt"
        short.write_text("0-0\n")
        done = subprocess.run([sys.executable, HERE / "choose.py", self.gold, f"s:1:{short}"], capture_output=True, text=True)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("has 1 lines", done.stderr)


class HeldOut(unittest.TestCase):
    def test_the_pairs_of_the_set_are_left_out(self):
        with tempfile.TemporaryDirectory() as folder:
            d = Path(folder)
            (d / "set.tsv").write_text("The  Cat .\tA macska .\t0-0\nDog\tKutya\t0-0\n")
            (d / "c.en").write_text("the cat .\nthe house\nsomething\n")
            (d / "c.hu").write_text("x\nA ház\nKUTYA\n")
            (d / "e.en").write_text("more\n")
            (d / "e.hu").write_text("több\n")
            printed = run(HERE / "held_out.py", d / "set.tsv", "hu", d / "out", d / "c", d / "e")
            self.assertIn("2 pairs kept, 2 left out", printed)  # by the English side, by the other side
            self.assertEqual((d / "out.en").read_text(), "the house\nmore\n")
            self.assertEqual((d / "out.hu").read_text(), "A ház\ntöbb\n")
