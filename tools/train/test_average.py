"""tools/train/average.py: the mean of model files, int8 read dequantized, mismatches refused."""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from tools.train import average, safetensors

ROOT = Path(__file__).resolve().parents[2]


def model(seed, training, architecture="a"):
    rng = np.random.default_rng(seed)
    tensors = {"w": rng.normal(size=(4, 6)).astype(np.float32), "b": rng.normal(size=6).astype(np.float16)}
    return tensors, {"format": "f", "architecture": architecture, "tokenizer": "t",
                     "training": json.dumps(training)}


def test_the_mean_of_a_float_and_an_int8_file_keeps_the_newest_metadata_and_both_records():
    old, old_meta = model(1, {"minutes": 80})
    new, new_meta = model(2, {"minutes": 90, "initialized_from": {"minutes": 80}})
    values, scales = safetensors.quantize_rows(old["w"])
    quantized = {"w": values, "w.scale": scales, "b": old["b"]}
    mean, metadata = average.average([("old", (quantized, dict(old_meta, quantization="int8"))), ("new", (new, new_meta))])
    assert sorted(mean) == ["b", "w"] and all(v.dtype == np.float32 for v in mean.values())
    dequantized_w = values.astype(np.float32) * scales[:, None]
    assert np.allclose(mean["w"], (dequantized_w + new["w"]) / 2)
    assert np.allclose(mean["b"], (old["b"].astype(np.float32) + new["b"].astype(np.float32)) / 2)
    assert not np.allclose(mean["w"], new["w"])  # both files count
    record = json.loads(metadata["training"])
    assert record["minutes"] == 90 and record["averaged_with"] == [{"minutes": 80}]
    assert "quantization" not in metadata and metadata["architecture"] == "a"


def test_files_that_differ_in_shape_architecture_or_values_are_refused_by_name():
    a = model(1, {})
    for other, words in [
        (({"w": np.zeros((4, 5), np.float32), "b": a[0]["b"]}, a[1]), "has shape [4, 5]"),
        (({"w": a[0]["w"]}, a[1]), "tensors missing ['b']"),
        ((a[0], dict(a[1], architecture="z")), "architecture differs"),
    ]:
        try:
            average.average([("odd.safetensors", other), ("new.safetensors", a)])
            raise AssertionError(f"accepted a file that {words}")
        except ValueError as error:
            assert "odd.safetensors" in str(error) and words in str(error), error
    broken = ({"w": np.full((4, 6), np.nan, np.float32), "b": a[0]["b"]}, a[1])
    for files, words in [([("new", a)], "at least two"), ([("nan", broken), ("new", a)], "tensor w")]:
        try:
            average.average(files)
            raise AssertionError(f"accepted {files[0][0]}")
        except ValueError as error:
            assert words in str(error), error


def test_the_command_writes_the_mean_and_names_a_missing_or_corrupt_file():
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for seed in (1, 2):
            tensors, metadata = model(seed, {"minutes": seed})
            paths.append(Path(directory) / f"m{seed}.safetensors")
            safetensors.write(paths[-1], tensors, metadata)
        out = Path(directory) / "mean.safetensors"
        run = lambda *args: subprocess.run([sys.executable, "-m", "tools.train.average", *map(str, args)],  # noqa: E731
                                           cwd=ROOT, capture_output=True, text=True)
        done = run(*paths, "--out", out)
        assert done.returncode == 0, done.stderr
        tensors, metadata = safetensors.read(out)
        assert tensors["w"].dtype == np.float32 and json.loads(metadata["training"])["minutes"] == 2
        missing = run(Path(directory) / "none.safetensors", paths[0], "--out", out)
        assert missing.returncode != 0 and "none.safetensors" in missing.stderr
        (Path(directory) / "junk.safetensors").write_bytes(b"\x05\x00")
        junk = run(paths[0], Path(directory) / "junk.safetensors", "--out", out)
        assert junk.returncode != 0 and "junk.safetensors is not a readable safetensors file" in junk.stderr
