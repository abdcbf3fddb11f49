"""The attnscope model files, stated once for the training tools (docs/MODEL_FORMAT.md is the
reference; src/attn/models/ reads the same files): each architecture's format name, default sizes
and training defaults, every tensor's name and shape, and write_model(), which checks a model's
tensors against those shapes and writes the file with its metadata. train.py, train_multi.py and
every fixture maker (make_fixture.py, make_transformer_fixture.py, make_bench_transformer.py)
write through it.
"""
import json
from pathlib import Path

import numpy as np

if __package__:
    from tools.train import safetensors
else:  # tools/train/ on sys.path: the whole-model benchmark imports this module so (DEVELOPERS.md)
    import safetensors

RNN = "attnscope-rnn-v1"
TRANSFORMER = "attnscope-transformer-v1"
ATTENTIONS = ("additive", "general")  # the RNN's score functions

# The sizes a model is built with unless told otherwise (train.py's flags default to these).
RNN_SIZES = {"embedding_dim": 256, "encoder_hidden": 192, "decoder_hidden": 256,
             # 128, not 256: the additive score's [batch][source][A] tensors are memory-bound and
             # dominated the step time on 2 cores (A=256 was ~2x slower per step than A=128).
             "attention_dim": 128}
TRANSFORMER_SIZES = {"encoder_layers": 3, "decoder_layers": 3, "heads": 4, "model_dim": 256, "ff_dim": 1024}

# Training defaults that differ by architecture.
DROPOUT = {"rnn": 0.2, "transformer": 0.1}
LABEL_SMOOTHING = {"rnn": 0.0, "transformer": 0.1}
# 3e-3 for the RNN rather than the usual 1e-3: an 80-minute run gets only a few thousand updates, and
# step for step 3e-3 learned faster (valid loss 6.59 after 66 steps vs 6.75 after 98 steps at 1e-3
# on the full data); gradient clipping keeps it stable. A Transformer without warm-up diverges at
# 3e-3; the multilingual one warms up (train_multi.py) and takes 8e-4.
LEARNING_RATE = {"rnn": 3e-3, "transformer": 5e-4, "multilingual": 8e-4}

MAX_FILE_BYTES = {RNN: 8 * 1024 * 1024, TRANSFORMER: 16 * 1024 * 1024}


def rnn_shapes(architecture, attention):
    """{tensor name: shape} of an RNN file; architecture has RNN_SIZES's keys and vocab_size."""
    E, H, D, A, V = (architecture[k] for k in ("embedding_dim", "encoder_hidden", "decoder_hidden", "attention_dim",
                                                "vocab_size"))
    if attention not in ATTENTIONS:
        raise ValueError(f"attention {attention!r} is not one of {ATTENTIONS}")
    shapes = {"embedding": (V, E), "init.weight": (D, H), "init.bias": (D,),
              "attention.key": (A if attention == "additive" else D, 2 * H),
              "decoder.weight_ih": (3 * D, E + 2 * H), "decoder.weight_hh": (3 * D, D),
              "decoder.bias_ih": (3 * D,), "decoder.bias_hh": (3 * D,),
              "output.weight": (E, D + 2 * H + E), "output.bias": (E,), "output.vocab_bias": (V,)}
    for direction in ("forward", "backward"):
        shapes.update({f"encoder.{direction}.weight_ih": (3 * H, E), f"encoder.{direction}.weight_hh": (3 * H, H),
                       f"encoder.{direction}.bias_ih": (3 * H,), f"encoder.{direction}.bias_hh": (3 * H,)})
    if attention == "additive":
        shapes.update({"attention.query": (A, D), "attention.score": (A,)})
    return shapes


def transformer_shapes(architecture):
    """{tensor name: shape} of a Transformer file; architecture has TRANSFORMER_SIZES's keys and vocab_size."""
    d, F, V = architecture["model_dim"], architecture["ff_dim"], architecture["vocab_size"]

    def linear(prefix, into, out):
        return {f"{prefix}.weight": (out, into), f"{prefix}.bias": (out,)}

    def norm(prefix):
        return {f"{prefix}.weight": (d,), f"{prefix}.bias": (d,)}

    def attention(prefix):
        return {k: v for part in ("query", "key", "value", "output") for k, v in linear(f"{prefix}.{part}", d, d).items()}

    def feed_forward(prefix):
        return {**linear(f"{prefix}.input", d, F), **linear(f"{prefix}.output", F, d)}

    shapes = {"embedding": (V, d), "output.bias": (V,), **norm("encoder.norm"), **norm("decoder.norm")}
    for layer in range(architecture["encoder_layers"]):
        prefix = f"encoder.layers.{layer}"
        shapes.update({**norm(f"{prefix}.self_norm"), **norm(f"{prefix}.feed_forward_norm"),
                       **attention(f"{prefix}.self_attention"), **feed_forward(f"{prefix}.feed_forward")})
    for layer in range(architecture["decoder_layers"]):
        prefix = f"decoder.layers.{layer}"
        shapes.update({**norm(f"{prefix}.self_norm"), **norm(f"{prefix}.cross_norm"),
                       **norm(f"{prefix}.feed_forward_norm"), **attention(f"{prefix}.self_attention"),
                       **attention(f"{prefix}.cross_attention"), **feed_forward(f"{prefix}.feed_forward")})
    return shapes


def direction_metadata(direction):
    """A model of one direction ("en-es"): its direction and both languages."""
    source, target = direction.split("-")
    return {"direction": direction, "source_language": source, "target_language": target}


def multilingual_metadata(languages, tags):
    """A multilingual Transformer (docs/MODEL_FORMAT.md §7.1): `languages`, English first, and each
    language's tag piece id (`tags`: {language: id}), from which the decoder starts."""
    return {"direction": "multilingual", "languages": json.dumps(list(languages)),
            "language_tags": json.dumps(dict(tags), sort_keys=True)}


def write_model(path, tensors, *, format, architecture, tokenizer, languages, training, attention=None,
                dtype="f16"):
    """Writes a model file. tensors: {name: array} of exactly the names and shapes the format gives
    (ValueError naming the first difference); architecture: the file's architecture (sizes and
    vocab_size); tokenizer: the BPE's JSON; languages: direction_metadata() or
    multilingual_metadata(); training: a dict recorded as the "training" metadata; attention: the
    RNN's score; dtype "f16" or "f32", "int8" (every matrix I8 with a per-row F32 scale, the rest
    F16: half the file, docs/MODEL_FORMAT.md §3), or None to keep each array's own (F16 or F32).
    Returns the file's size in bytes."""
    if format == RNN:
        shapes = rnn_shapes(architecture, attention)
    elif format == TRANSFORMER:
        shapes = transformer_shapes(architecture)
    else:
        raise ValueError(f"unknown format {format!r} (expected {RNN} or {TRANSFORMER})")
    safetensors.check_tensors(format, shapes, tensors)
    if dtype == "int8":
        arrays = {}
        for name, value in tensors.items():
            if np.ndim(value) == 2:
                arrays[name], arrays[name + ".scale"] = safetensors.quantize_rows(value)
            else:
                arrays[name] = np.asarray(value).astype(np.float16)
    else:
        cast = {"f16": np.float16, "f32": np.float32, None: None}[dtype]
        arrays = {name: (np.asarray(value) if cast is None else np.asarray(value).astype(cast))
                  for name, value in tensors.items()}
    metadata = {"format": format, "architecture": json.dumps(dict(architecture), sort_keys=True),
                **({"attention": attention} if format == RNN else {}), **languages, "tokenizer": tokenizer,
                "training": json.dumps(training, sort_keys=True)}
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    safetensors.write(path, arrays, metadata)
    return path.stat().st_size
