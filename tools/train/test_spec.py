"""The training spec (spec.py): the models' tensors are exactly the ones it states, write_model
refuses anything else, and train.py sets encoder and decoder depths apart and resumes checkpoints
written before they were.

  /usr/bin/python3 -m pytest tools/train/test_spec.py      (needs python3-torch; a few seconds)
"""
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from tools.train import safetensors, spec, train
from tools.train.model import Seq2Seq
from tools.train.transformer import Transformer

SIZES = {"encoder_layers": 2, "decoder_layers": 1, "heads": 2, "model_dim": 8, "ff_dim": 12}


def shapes_of(tensors):
    return {name: tuple(value.shape) for name, value in tensors.items()}


def test_the_models_have_exactly_the_tensors_the_spec_states():
    transformer = Transformer(30, dropout=0.0, **SIZES)
    assert shapes_of(transformer.tensors()) == spec.transformer_shapes(transformer.config)
    for attention in spec.ATTENTIONS:
        rnn = Seq2Seq(30, 8, 6, 10, 7, attention, dropout=0.0)
        sizes = {"embedding_dim": 8, "encoder_hidden": 6, "decoder_hidden": 10, "attention_dim": 7, "vocab_size": 30}
        assert shapes_of(rnn.tensors()) == spec.rnn_shapes(sizes, attention), attention


def test_write_model_refuses_a_missing_an_unexpected_or_a_misshapen_tensor():
    transformer = Transformer(30, dropout=0.0, **SIZES)
    tensors = transformer.tensors()
    write = dict(format=spec.TRANSFORMER, architecture=transformer.config, tokenizer="{}",
                 languages=spec.direction_metadata("en-es"), training={})
    with tempfile.TemporaryDirectory() as directory:
        path = Path(directory) / "t.safetensors"
        for bad, named in ((dict(tensors, extra=np.zeros(2)), "extra"),
                           ({k: v for k, v in tensors.items() if k != "decoder.norm.bias"}, "decoder.norm.bias"),
                           (dict(tensors, embedding=np.zeros((30, 9))), "embedding")):
            try:
                spec.write_model(path, bad, **write)
            except ValueError as error:
                assert named in str(error), error
            else:
                raise AssertionError(f"{named}: written")
        assert not path.exists()
        size = spec.write_model(path, tensors, **write)
        assert size == path.stat().st_size
        written, metadata = safetensors.read(path)
    assert json.loads(metadata["architecture"])["encoder_layers"] == 2
    assert json.loads(metadata["architecture"])["decoder_layers"] == 1
    assert all(value.dtype == np.float16 for value in written.values())
    assert metadata["format"] == spec.TRANSFORMER and metadata["source_language"] == "en"
    with tempfile.TemporaryDirectory() as directory:  # int8: every matrix I8 + scale, the vectors F16
        path = Path(directory) / "q.safetensors"
        spec.write_model(path, tensors, **write, dtype="int8")
        quantized, _ = safetensors.read(path)
    matrices = [name for name, value in tensors.items() if np.ndim(value) == 2]
    assert matrices and all(quantized[name].dtype == np.int8 for name in matrices)
    assert all(quantized[name + ".scale"].dtype == np.float32 for name in matrices)
    assert all(quantized[name].dtype == np.float16 for name in tensors if name not in matrices)
    back = safetensors.dequantized(quantized)
    assert sorted(back) == sorted(tensors)
    for name in matrices:
        step = np.abs(np.asarray(tensors[name], np.float32)).max(axis=1, keepdims=True) / 127
        assert (np.abs(back[name] - np.asarray(tensors[name], np.float32)) <= step / 2 + 1e-6).all(), name


def parsed(command):
    sys.argv = ["train.py", "--out", "x.safetensors", "--minutes", "1"] + command.split()
    return train.parse_args()


def test_encoder_and_decoder_depths_are_set_apart_and_old_checkpoints_resume():
    args = parsed("--arch transformer --direction en-es --encoder-layers 4 --decoder-layers 2")
    assert (args.encoder_layers, args.decoder_layers) == (4, 2)
    args = parsed("--arch transformer --direction en-es --layers 5 --decoder-layers 1")
    assert (args.encoder_layers, args.decoder_layers) == (5, 1)
    args = parsed("--arch transformer --direction en-es")
    assert (args.encoder_layers, args.decoder_layers) == (3, 3)  # the spec's
    assert args.dropout == spec.DROPOUT["transformer"] and args.lr == spec.LEARNING_RATE["transformer"]
    old = {"layers": 3, "heads": 4, "model_dim": 256, "ff_dim": 1024, "alignment_layer": 1, "alignment_head": 0}
    args.alignment_layer = 1
    train.check_resumable("old.pt", old, args, train.TRANSFORMER_KEYS)  # a checkpoint of one --layers
    args.decoder_layers = 2
    try:
        train.check_resumable("old.pt", old, args, train.TRANSFORMER_KEYS)
    except SystemExit as stop:
        assert "decoder_layers=3" in str(stop), stop
    else:
        raise AssertionError("a different depth resumed")


def test_the_rnn_defaults_come_from_the_spec():
    args = parsed("--direction en-es --attention additive")
    assert {key: getattr(args, key) for key in spec.RNN_SIZES} == spec.RNN_SIZES
    assert args.lr == spec.LEARNING_RATE["rnn"] and args.label_smoothing == 0.0
