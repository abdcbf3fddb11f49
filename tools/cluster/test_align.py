"""Tests of tools/cluster/align.py: `attn align` through a local Dask cluster of several worker
processes gives what one process gives, in order; a failed partition is retried and reported; a
partition that keeps failing leaves no output file. Needs build/bin/attn and python3-distributed.

    /usr/bin/python3 -m pytest tools/cluster/test_align.py
"""
import contextlib
import io
import random
import stat
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

from tools.cluster import align

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

ATTN = ROOT / "build/bin/attn"
HMM = ROOT / "tests/data/tiny-hmm.safetensors"
ALIGN_ARGS = ["--method", "hmm", "--hmm", str(HMM), "--threads", "1"]


def corpus(path, count):
    rng = random.Random(7)
    english, spanish = "the cat dog sleeps eats a house".split(), "el gato perro duerme come una casa".split()
    with open(path, "w", encoding="utf-8") as out:
        for _ in range(count):
            n = rng.randint(1, 7)
            out.write(" ".join(rng.choice(english) for _ in range(n)) + " ||| "
                      + " ".join(rng.choice(spanish) for _ in range(rng.randint(1, 7))) + "\n")


def flaky(folder, fail_when):
    """A stand-in for attn that fails (`fail_when`: a shell condition) and otherwise runs attn."""
    script = Path(folder) / "attn"
    script.write_text(f"#!/bin/bash\nset -e\ninput=$(cat)\nif {fail_when}; then echo 'worker lost' >&2; exit 3; fi\n"
                      f"printf '%s\\n' \"$input\" | exec {ATTN} \"$@\"\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


class LocalCluster(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from dask.distributed import Client, LocalCluster as Cluster
        cls.cluster = Cluster(n_workers=3, threads_per_worker=1, processes=True, dashboard_address=None)
        cls.client = Client(cls.cluster)
        cls.folder = tempfile.TemporaryDirectory()
        cls.input = Path(cls.folder.name) / "pairs.txt"
        corpus(cls.input, 1000)
        with open(cls.input, "rb") as stream:
            cls.expected = subprocess.run([str(ATTN), "align", *ALIGN_ARGS], stdin=stream, check=True,
                                          capture_output=True).stdout

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        cls.folder.cleanup()

    def args(self, output, attn=str(ATTN), retries=2):
        parsed = type("Args", (), {})()
        parsed.input, parsed.output, parsed.partition_lines, parsed.retries = str(self.input), str(output), 64, retries
        parsed.in_flight, parsed.attn, parsed.align_args = 0, attn, ALIGN_ARGS
        return parsed

    def test_the_cluster_writes_what_one_process_writes_in_order(self):
        output = Path(self.folder.name) / "links.txt"
        self.assertEqual(align.run(self.client, self.args(output)), [])
        self.assertEqual(output.read_bytes(), self.expected)
        self.assertEqual(len(self.expected.splitlines()), 1000)
        self.assertEqual(len(list(align.partitions(self.input, 64))), 16)  # 15 of 64 lines and one of 40

    def test_a_failed_partition_is_retried_and_reported(self):
        with tempfile.TemporaryDirectory() as folder:
            marker = Path(folder) / "failed-once"
            # the partition holding line 300 fails the first time only
            attn = flaky(folder, f'[ ! -e {marker} ] && grep -qxF "$(sed -n 300p {self.input})" <<< "$input" '
                                 f'&& touch {marker}')
            output = Path(folder) / "links.txt"
            said = io.StringIO()
            with contextlib.redirect_stderr(said):
                failed = align.run(self.client, self.args(output, attn),
                                   report=lambda *a, **k: print(*a, file=said))
            self.assertEqual(failed, [])
            self.assertTrue(marker.exists())
            self.assertEqual(output.read_bytes(), self.expected)
            self.assertRegex(said.getvalue(), r"partition \d+ \(lines \d+-\d+\) failed \(.*worker lost.*\); retry 1 of 2")

    def test_a_partition_that_keeps_failing_leaves_no_output_and_is_named(self):
        with tempfile.TemporaryDirectory() as folder:
            attn = flaky(folder, f'grep -qxF "$(sed -n 700p {self.input})" <<< "$input"')
            output = Path(folder) / "links.txt"
            said = io.StringIO()
            failed = align.run(self.client, self.args(output, attn, retries=1),
                               report=lambda *a, **k: print(*a, file=said))
            self.assertEqual(failed, [(700 - 1) // 64])
            self.assertFalse(output.exists())
            self.assertEqual(list(Path(folder).glob("links.txt*")), [])
            self.assertIn("after 2 tries", said.getvalue())


class CommandLine(unittest.TestCase):
    def test_the_command_runs_a_local_cluster_and_refuses_a_missing_input(self):
        with tempfile.TemporaryDirectory() as folder:
            pairs, links = Path(folder) / "pairs.txt", Path(folder) / "links.txt"
            corpus(pairs, 50)
            command = [sys.executable, str(HERE / "align.py"), "--local-workers", "2", "-i", str(pairs), "-o", str(links),
                       "--partition-lines", "7", "--", *ALIGN_ARGS]
            subprocess.run(command, check=True, capture_output=True)
            with open(pairs, "rb") as stream:
                one = subprocess.run([str(ATTN), "align", *ALIGN_ARGS], stdin=stream, check=True, capture_output=True)
            self.assertEqual(links.read_bytes(), one.stdout)
            missing = subprocess.run(command[:5] + [str(Path(folder) / "none.txt")] + command[6:], capture_output=True,
                                     text=True)
            self.assertEqual(missing.returncode, 2)
            self.assertIn("no input file", missing.stderr)
