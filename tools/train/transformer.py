"""The attnscope Transformer (Vaswani et al. 2017, pre-layer-norm), in PyTorch.

docs/MODEL_FORMAT.md (attnscope-transformer-v1) gives the equations; the C++ core
(src/attn/models/transformer.cpp) computes the same thing from the exported file. Module names
here are the tensor names of the file (`embedding.weight` is exported as `embedding`).

Shapes: d model width, F feed-forward width, h heads, d_k = d / h, V vocabulary size, B batch,
S source and T target lengths. Attention is written out by hand (not nn.MultiheadAttention) so
that every head's weights come back and the parameters have the file's names.
"""
import math

import torch
from torch import nn

if __package__:
    from tools.train.spec import DROPOUT, TRANSFORMER_SIZES
else:  # tools/train/ on sys.path: the whole-model benchmark imports this module so (DEVELOPERS.md)
    from spec import DROPOUT, TRANSFORMER_SIZES

NORM_EPSILON = 1e-5


def positions(length, dim, device=None):
    """Sinusoidal positions [length][dim]: PE[p][2i] = sin(p / 10000^(2i/d)), PE[p][2i+1] = cos(.)."""
    position = torch.arange(length, dtype=torch.float32, device=device).unsqueeze(1)
    rate = torch.exp(torch.arange(0, dim, 2, dtype=torch.float32, device=device) * (-math.log(10000.0) / dim))
    table = torch.zeros(length, dim, device=device)
    table[:, 0::2] = torch.sin(position * rate)
    table[:, 1::2] = torch.cos(position * rate)[:, : dim // 2]
    return table


class Attention(nn.Module):
    """Multi-head scaled dot-product attention with its own Q/K/V/O projections."""

    def __init__(self, dim, heads, dropout):
        super().__init__()
        assert dim % heads == 0, (dim, heads)
        self.heads = heads
        self.query, self.key, self.value, self.output = (nn.Linear(dim, dim) for _ in range(4))
        self.dropout = nn.Dropout(dropout)

    def split(self, x):  # [B][n][d] -> [B][h][n][d_k]
        return x.view(x.shape[0], x.shape[1], self.heads, -1).transpose(1, 2)

    def forward(self, x, memory, blocked):
        """x [B][T][d] queries, memory [B][S][d] keys and values, blocked [B or 1][1 or T][S] bool
        (True = may not attend) -> output [B][T][d], weights [B][h][T][S]."""
        q, k, v = self.split(self.query(x)), self.split(self.key(memory)), self.split(self.value(memory))
        scores = q @ k.transpose(2, 3) / math.sqrt(q.shape[-1])
        weights = torch.softmax(scores.masked_fill(blocked.unsqueeze(1), float("-inf")), dim=-1)
        context = (self.dropout(weights) @ v).transpose(1, 2).reshape(x.shape)
        return self.output(context), weights


class FeedForward(nn.Module):
    def __init__(self, dim, ff_dim, dropout):
        super().__init__()
        self.input, self.output = nn.Linear(dim, ff_dim), nn.Linear(ff_dim, dim)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.output(self.dropout(torch.relu(self.input(x))))


class EncoderLayer(nn.Module):
    def __init__(self, dim, heads, ff_dim, dropout):
        super().__init__()
        self.self_norm, self.feed_forward_norm = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.self_attention = Attention(dim, heads, dropout)
        self.feed_forward = FeedForward(dim, ff_dim, dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, blocked):
        y = self.self_norm(x)
        attended, weights = self.self_attention(y, y, blocked)
        x = x + self.dropout(attended)
        return x + self.dropout(self.feed_forward(self.feed_forward_norm(x))), weights


class DecoderLayer(nn.Module):
    def __init__(self, dim, heads, ff_dim, dropout):
        super().__init__()
        self.self_norm, self.cross_norm, self.feed_forward_norm = (nn.LayerNorm(dim) for _ in range(3))
        self.self_attention = Attention(dim, heads, dropout)
        self.cross_attention = Attention(dim, heads, dropout)
        self.feed_forward = FeedForward(dim, ff_dim, dropout)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x, memory, causal, source_blocked):
        y = self.self_norm(x)
        attended, self_weights = self.self_attention(y, y, causal)
        x = x + self.dropout(attended)
        attended, cross_weights = self.cross_attention(self.cross_norm(x), memory, source_blocked)
        x = x + self.dropout(attended)
        return x + self.dropout(self.feed_forward(self.feed_forward_norm(x))), self_weights, cross_weights


class Transformer(nn.Module):
    def __init__(self, vocab_size, encoder_layers=TRANSFORMER_SIZES["encoder_layers"],
                 decoder_layers=TRANSFORMER_SIZES["decoder_layers"], heads=TRANSFORMER_SIZES["heads"],
                 model_dim=TRANSFORMER_SIZES["model_dim"], ff_dim=TRANSFORMER_SIZES["ff_dim"],
                 dropout=DROPOUT["transformer"], alignment_layer=None, alignment_head=0, alignment_shift=0):
        super().__init__()
        # Garg et al. 2019 supervise a head of the penultimate decoder layer.
        self.alignment_layer = max(decoder_layers - 2, 0) if alignment_layer is None else alignment_layer
        self.alignment_head = alignment_head
        # 0: target piece t is aligned by the row that predicts it (input t - 1, Garg et al.);
        # 1: by the row where it is the decoder's input (Chen et al. 2020's shifted reading).
        self.alignment_shift = alignment_shift
        assert 0 <= self.alignment_layer < decoder_layers and 0 <= alignment_head < heads
        assert alignment_shift in (0, 1), alignment_shift
        self.config = {"encoder_layers": encoder_layers, "decoder_layers": decoder_layers, "heads": heads,
                       "model_dim": model_dim, "ff_dim": ff_dim, "vocab_size": vocab_size,
                       "alignment_layer": self.alignment_layer, "alignment_head": alignment_head}
        if alignment_shift:  # absent means 0: files written before the field still read the same
            self.config["alignment_shift"] = alignment_shift
        # One table for source input, target input and output (three-way tying, Press & Wolf 2017).
        self.embedding = nn.Embedding(vocab_size, model_dim)
        nn.init.normal_(self.embedding.weight, std=model_dim ** -0.5)
        self.encoder = nn.Module()
        self.encoder.layers = nn.ModuleList(EncoderLayer(model_dim, heads, ff_dim, dropout) for _ in range(encoder_layers))
        self.encoder.norm = nn.LayerNorm(model_dim)
        self.decoder = nn.Module()
        self.decoder.layers = nn.ModuleList(DecoderLayer(model_dim, heads, ff_dim, dropout) for _ in range(decoder_layers))
        self.decoder.norm = nn.LayerNorm(model_dim)
        self.output_bias = nn.Parameter(torch.zeros(vocab_size))
        self.dropout = nn.Dropout(dropout)

    def embed(self, ids):
        dim = self.embedding.embedding_dim
        return self.dropout(self.embedding(ids) * math.sqrt(dim) + positions(ids.shape[1], dim, ids.device))

    def encode(self, source, source_mask):
        """source [B][S], source_mask [B][S] (True = a piece) -> memory [B][S][d], maps [L][B][h][S][S]."""
        blocked = ~source_mask.unsqueeze(1)
        x, maps = self.embed(source), []
        for layer in self.encoder.layers:
            x, weights = layer(x, blocked)
            maps.append(weights)
        return self.encoder.norm(x), maps

    def decode(self, memory, source_mask, target_in):
        """-> logits [B][T][V], decoder self maps [L][B][h][T][T], cross maps [L][B][h][T][S]."""
        length = target_in.shape[1]
        causal = torch.ones(length, length, dtype=torch.bool, device=target_in.device).triu(1).unsqueeze(0)
        source_blocked = ~source_mask.unsqueeze(1)
        x, self_maps, cross_maps = self.embed(target_in), [], []
        for layer in self.decoder.layers:
            x, self_weights, cross_weights = layer(x, memory, causal, source_blocked)
            self_maps.append(self_weights)
            cross_maps.append(cross_weights)
        # one GEMM with the bias fused (addmm): [B][T][V] is the largest tensor of a step
        logits = nn.functional.linear(self.decoder.norm(x), self.embedding.weight, self.output_bias)
        return logits, self_maps, cross_maps

    def forward(self, source, source_mask, target_in):
        """Teacher-forced logits [B][T][V] and the supervised head's cross-attention [B][T][S]
        (the interface of model.Seq2Seq, so train.py's loss works for both)."""
        memory, _ = self.encode(source, source_mask)
        logits, _, cross = self.decode(memory, source_mask, target_in)
        return logits, cross[self.alignment_layer][:, self.alignment_head]

    def tensors(self):
        """Parameters under their exported names (docs/MODEL_FORMAT.md), as float32 arrays."""
        renamed = {"embedding.weight": "embedding", "output_bias": "output.bias"}
        return {renamed.get(name, name): value.detach().float().cpu().numpy() for name, value in self.named_parameters()}
