"""The numpy reference (translate.py) computes what the torch model computes.

  /usr/bin/python3 -m pytest tools/train/test_reference.py      (needs python3-torch; about 5 seconds)

A small randomly initialised model of each attention type is exported to a temporary
safetensors file; forced decoding in numpy must give the torch model's attention weights and
log-probabilities, with the torch weights rounded to fp16 as the file stores them.
"""
import tempfile
from pathlib import Path

import numpy as np
import torch

from tools.train import bpe as B, safetensors
from tools.train.model import Seq2Seq
from tools.train.train import export
from tools.train.translate import Model

WORDS = "the jury said it did find that many laws are outmoded el jurado dijo que".split()


class Args:  # what export() reads from the command line
    embedding_dim, encoder_hidden, decoder_hidden, attention_dim = 16, 12, 20, 10
    direction, seed, align_supervision = "en-es", 42, None


def exported(attention, directory):
    bpe = B.learn({w: 3 for w in WORDS}, 300, min_char_count=1)
    torch.manual_seed(0)
    model = Seq2Seq(len(bpe.vocab), 16, 12, 20, 10, attention, dropout=0.0).eval()
    with torch.no_grad():
        for p in model.parameters():
            # x3: sharper attention than at initialisation, so a wrong equation shows; then the
            # fp16 rounding the file applies, so that both sides use the same weights
            p.copy_((3.0 * p).half().float())
    args = Args()
    args.attention = attention
    path = Path(directory) / f"{attention}.safetensors"
    state = {"history": [], "step": 0, "epoch_progress": 0.0, "elapsed": 0.0}
    export(model, args, bpe, state, path)
    return model, bpe, path


def check(attention):
    with tempfile.TemporaryDirectory() as directory:
        model, bpe, path = exported(attention, directory)
        reference = Model(path)
        source = bpe.encode("the jury said it did find".split())
        target = bpe.encode("el jurado dijo que".split())
        _, attention_np, log_probs_np = reference.run(source, target)
        src = torch.tensor([source + [B.EOS]])
        tgt_in = torch.tensor([[B.BOS] + target])
        tgt_out = target + [B.EOS]
        with torch.no_grad():
            logits, weights = model(src, src != B.PAD, tgt_in)
        log_probs = torch.log_softmax(logits[0], dim=-1)
        log_probs_torch = [float(log_probs[t, y]) for t, y in enumerate(tgt_out)]
        assert attention_np.shape == (len(target) + 1, len(source) + 1)
        assert np.allclose(attention_np, weights[0].numpy(), atol=1e-5), \
            np.abs(attention_np - weights[0].numpy()).max()
        assert np.allclose(log_probs_np, log_probs_torch, atol=1e-4)
        assert abs(attention_np.sum(1) - 1).max() < 1e-5
        # the stored metadata names what the reader needs
        _, metadata = safetensors.read(path)
        assert metadata["format"] == "attnscope-rnn-v1" and metadata["attention"] == attention
        assert B.BPE.from_json(metadata["tokenizer"]).vocab == bpe.vocab


def test_additive_attention_matches_torch():
    check("additive")


def test_general_attention_matches_torch():
    check("general")


def test_safetensors_roundtrip_keeps_dtype_shape_and_values():
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "t.safetensors"
        tensors = {"a": np.arange(6, dtype=np.float16).reshape(2, 3),
                   "b": np.array([1.5, -2.25], dtype=np.float32)}
        safetensors.write(path, tensors, {"format": "x", "n": 3})
        read, metadata = safetensors.read(path)
        assert metadata == {"format": "x", "n": "3"}
        for name in tensors:
            assert read[name].dtype == tensors[name].dtype and (read[name] == tensors[name]).all()
        raw = path.read_bytes()
        assert (8 + int.from_bytes(raw[:8], "little")) % 8 == 0  # data starts 8-byte aligned


def test_int8_rows_are_within_half_a_step_and_dequantize_back():
    rng = np.random.default_rng(3)
    matrix = rng.normal(size=(5, 40)).astype(np.float32)
    matrix[2] = 0.0  # a row of zeros: scale 0, values 0
    matrix[3, 7] = 40.0  # an outlier sets its row's step
    values, scales = safetensors.quantize_rows(matrix)
    assert values.dtype == np.int8 and scales.dtype == np.float32 and scales.shape == (5,)
    assert np.abs(values).max() == 127 and scales[2] == 0.0 and (values[2] == 0).all()
    back = safetensors.dequantized({"w": values, "w.scale": scales, "b": np.ones(3, np.float16)})
    assert sorted(back) == ["b", "w"] and back["w"].dtype == np.float32
    assert (np.abs(back["w"] - matrix) <= scales[:, None] / 2 + 1e-7).all()
    with tempfile.TemporaryDirectory() as directory:  # and through a file
        path = Path(directory) / "q.safetensors"
        safetensors.write(path, {"w": values, "w.scale": scales}, {"format": "x"})
        read, _ = safetensors.read(path)
        assert read["w"].dtype == np.int8 and (safetensors.dequantized(read)["w"] == back["w"]).all()
    try:
        safetensors.dequantized({"w": values})
        raise AssertionError("an I8 matrix without its scale was accepted")
    except ValueError as e:
        assert "w.scale" in str(e)
