"""Tests of tools/train/supervise.sh, the head's link supervision: by default each pair's HMM
links (`attn align --method hmm`), with --method hybrid the pair's default of `attn align --pair`
where the pair is shipped, the HMM's elsewhere; a method it does not know is refused. Runs the
script in a scratch tree (its root is where the script lies) holding a few training pairs, the
shipped models/ and build/bin/attn. Needs build/bin/attn.

    /usr/bin/python3 -m pytest tools/train/test_supervise.py
"""
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ATTN = ROOT / "build/bin/attn"


def lines(path, count):
    return path.read_text(encoding="utf-8").splitlines()[:count]


class Supervise(unittest.TestCase):
    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.root = Path(self.folder.name)
        (self.root / "tools/train").mkdir(parents=True)
        (self.root / "build/bin").mkdir(parents=True)
        script = (ROOT / "tools/train/supervise.sh").read_text(encoding="utf-8")
        (self.root / "tools/train/supervise.sh").write_text(script, encoding="utf-8")
        (self.root / "build/bin/attn").symlink_to(ATTN)
        (self.root / "models").symlink_to(ROOT / "models")
        # twelve en-es pairs, and a pair no model is shipped for (its HMM is trained here)
        english = ["The cat sleeps .", "The red house is small .", "Save the file .", "Open the window .",
                   "The old man walks to the market every morning .", "I read a book .", "Close the door .",
                   "The dog eats .", "Print the page .", "The file is saved .", "A new window opens .",
                   "The book is red ."]
        spanish = ["El gato duerme .", "La casa roja es pequeña .", "Guarde el archivo .", "Abra la ventana .",
                   "El anciano camina al mercado cada mañana .", "Leo un libro .", "Cierre la puerta .",
                   "El perro come .", "Imprima la página .", "El archivo está guardado .",
                   "Se abre una ventana nueva .", "El libro es rojo ."]
        self.english, self.spanish = english, spanish
        for xx, target in (("es", spanish), ("zz", spanish)):
            (self.root / f"data/en-{xx}").mkdir(parents=True)
            (self.root / f"data/en-{xx}/train.en").write_text("\n".join(english) + "\n", encoding="utf-8")
            (self.root / f"data/en-{xx}/train.{xx}").write_text("\n".join(target) + "\n", encoding="utf-8")

    def tearDown(self):
        self.folder.cleanup()

    def run_script(self, *args):
        return subprocess.run(["bash", str(self.root / "tools/train/supervise.sh"), *args], capture_output=True,
                              text=True)

    def attn_align(self, *args):
        text = "".join(f"{e} ||| {s}\n" for e, s in zip(self.english, self.spanish))
        run = subprocess.run([str(ATTN), "align", *args], input=text, capture_output=True, text=True, check=True,
                             env={"ATTN_MODELS": str(ROOT / "models")})
        return run.stdout.splitlines()

    def test_hmm_links_by_default(self):
        run = self.run_script("es")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("hmm-en-es.safetensors", run.stdout)
        expected = self.attn_align("--method", "hmm", "--hmm", str(ROOT / "models/hmm-en-es.safetensors"))
        self.assertEqual(lines(self.root / "data/en-es/train.align", 99), expected)
        self.assertEqual((self.root / "data/en-es/supervision").read_text(), "hmm\n")

    def test_hybrid_links_where_the_pair_is_shipped(self):
        run = self.run_script("--method", "hybrid", "es", "zz")
        self.assertEqual(run.returncode, 0, run.stderr)
        self.assertIn("attn align --pair en-es (its hybrid)", run.stdout)
        hybrid = self.attn_align("--pair", "en-es")
        self.assertEqual(lines(self.root / "data/en-es/train.align", 99), hybrid)
        self.assertNotEqual(hybrid, self.attn_align("--method", "hmm", "--hmm",
                                                    str(ROOT / "models/hmm-en-es.safetensors")))
        # en-zz is no shipped pair: the HMM trained here aligns it
        self.assertIn("en-zz: 12 pairs aligned with hmm-5-5.safetensors", run.stdout)
        self.assertEqual(len(lines(self.root / "data/en-zz/train.align", 99)), 12)
        # what the trainer records: the method each pair's links came from
        self.assertEqual((self.root / "data/en-es/supervision").read_text(), "hybrid\n")
        self.assertEqual((self.root / "data/en-zz/supervision").read_text(), "hmm\n")

    def test_an_unknown_method_is_refused(self):
        run = self.run_script("--method", "gold", "es")
        self.assertEqual(run.returncode, 2)
        self.assertIn("--method is hmm or hybrid, not 'gold'", run.stderr)
        self.assertFalse((self.root / "data/en-es/train.align").exists())


if __name__ == "__main__":
    unittest.main()
