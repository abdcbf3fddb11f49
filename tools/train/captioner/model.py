"""The captioner in PyTorch: a CNN encoder to a 12 x 12 grid of annotation vectors and an LSTM
decoder with Xu et al.'s additive attention (soft, or hard by sampling one cell). The math is
docs/MODEL_FORMAT.md's captioner section; reference.py computes the same in numpy from the file."""
import torch
from torch import nn
import torch.nn.functional as F

SIZES = {"image_size": 96, # 16/32/64/128 rather than 32/64/128/128: a training step's encoder took 0.4 s
         # instead of 1.25 s on this 2-core machine, and a caption needs 36 M multiply-adds, not 113 M
         "channels": [16, 32, 64, 128], "hidden_size": 256, "embedding_dim": 128,
         "attention_dim": 128, "max_words": 16}
# How the decoder's first state sees the grid: "mean" (Xu et al.: the mean annotation) or "mean+max"
# (the mean beside the element-wise maximum over cells, so that every kind present reaches the start
# however few cells it covers). A sizes dict without "start" is "mean".
STARTS = ("mean", "mean+max")


def pooled(annotations, start):
    """[B][D] (mean) or [B][2D] (mean+max) of annotations [B][cells][D]."""
    if start == "mean+max":
        return torch.cat([annotations.mean(1), annotations.amax(1)], 1)
    return annotations.mean(1)
PIXEL_MEAN, PIXEL_STD = (0.5, 0.5, 0.5), (0.25, 0.25, 0.25)


def grid_side(sizes):
    return sizes["image_size"] // 2 ** (len(sizes["channels"]) - 1)


class Encoder(nn.Module):
    """Blocks of 3 x 3 convolution (stride 1, padding 1), BatchNorm and ReLU, 2 x 2 max pooling after
    every block but the last, then a learned position term added to each cell's annotation."""

    def __init__(self, sizes):
        super().__init__()
        channels = [3] + list(sizes["channels"])
        self.convs = nn.ModuleList(nn.Conv2d(a, b, 3, padding=1) for a, b in zip(channels, channels[1:]))
        self.norms = nn.ModuleList(nn.BatchNorm2d(b) for b in channels[1:])
        side = grid_side(sizes)
        self.position = nn.Parameter(torch.randn(side * side, channels[-1]) * 0.02)

    def forward(self, pixels):
        """pixels: [B][H][W][3] normalized floats -> annotations [B][cells][D], cells row-major."""
        x = pixels.permute(0, 3, 1, 2)
        for i, (conv, norm) in enumerate(zip(self.convs, self.norms)):
            x = F.relu(norm(conv(x)))
            if i < len(self.convs) - 1:
                x = F.max_pool2d(x, 2)
        return x.flatten(2).transpose(1, 2) + self.position


class Decoder(nn.Module):
    def __init__(self, sizes, vocab_size, annotation_dim):
        super().__init__()
        n, E, A, D = sizes["hidden_size"], sizes["embedding_dim"], sizes["attention_dim"], annotation_dim
        self.start_pool = sizes.get("start", "mean")
        if self.start_pool not in STARTS:
            raise ValueError(f"start {self.start_pool!r}: expected one of {STARTS}")
        pooled_dim = 2 * D if self.start_pool == "mean+max" else D
        self.embedding = nn.Embedding(vocab_size, E)
        self.init_h, self.init_c = nn.Linear(pooled_dim, n), nn.Linear(pooled_dim, n)
        self.att_annotation, self.att_hidden = nn.Linear(D, A), nn.Linear(n, A, bias=False)
        self.att_score = nn.Parameter(torch.randn(A) / A ** 0.5)
        self.gate = nn.Linear(n, 1)
        self.lstm = nn.LSTMCell(E + D, n)
        self.out_hidden, self.out_context = nn.Linear(n, E), nn.Linear(D, E, bias=False)
        self.output = nn.Linear(E, vocab_size)

    def start(self, annotations):
        summary = pooled(annotations, self.start_pool)
        return torch.tanh(self.init_h(summary)), torch.tanh(self.init_c(summary)), self.att_annotation(annotations)

    def scores(self, keys, h):
        """e_ti = v . tanh(W_a a_i + b_a + W_h h): [B][cells]."""
        return torch.tanh(keys + self.att_hidden(h)[:, None, :]) @ self.att_score

    def step(self, annotations, keys, previous, h, c, cell=None, keep=None):
        """One word: (logits, alpha, h, c). cell: None for soft attention (context = beta sum alpha a),
        else [B] chosen cells (hard: context = beta a_cell). keep: training's word dropout, [B] 0 or 1
        per previous word (0: its embedding is zeroed)."""
        alpha = torch.softmax(self.scores(keys, h), dim=1)
        beta = torch.sigmoid(self.gate(h))
        if cell is None:
            context = beta * torch.bmm(alpha[:, None, :], annotations)[:, 0]
        else:
            context = beta * annotations[torch.arange(len(cell)), cell]
        embedded = self.embedding(previous)
        if keep is not None:
            embedded = embedded * keep[:, None]
        h, c = self.lstm(torch.cat([embedded, context], 1), (h, c))
        logits = self.output(embedded + self.out_hidden(h) + self.out_context(context))
        return logits, alpha, h, c


class Captioner(nn.Module):
    def __init__(self, vocab_size, sizes=SIZES):
        super().__init__()
        self.sizes = dict(sizes)
        self.encoder = Encoder(sizes)
        self.decoder = Decoder(sizes, vocab_size, sizes["channels"][-1])
        self.hard = Decoder(sizes, vocab_size, sizes["channels"][-1])

    def teacher_forced(self, annotations, inputs, hard=False, generator=None, word_dropout=0.0):
        """inputs [B][T] (starting with <bos>) -> logits [B][T][V], alphas [B][T][cells], and for hard
        the sampled cells [B][T] and their log alpha [B][T] and the entropies of alpha [B][T].
        word_dropout: the chance that a previous word (never <bos>) is hidden from the decoder, so
        that it names what it sees rather than what usually follows."""
        decoder = self.hard if hard else self.decoder
        h, c, keys = decoder.start(annotations)
        logits, alphas, cells, log_alpha, entropy = [], [], [], [], []
        for t in range(inputs.shape[1]):
            cell = None
            if hard:
                with torch.no_grad():
                    a = torch.softmax(decoder.scores(keys, h), dim=1)
                    cell = torch.multinomial(a, 1, generator=generator)[:, 0]
            keep = None
            if word_dropout > 0 and t > 0:
                keep = (torch.rand(inputs.shape[0]) >= word_dropout).to(annotations.dtype)
            step_logits, alpha, h, c = decoder.step(annotations, keys, inputs[:, t], h, c, cell, keep)
            logits.append(step_logits)
            alphas.append(alpha)
            if hard:
                cells.append(cell)
                log = torch.log(alpha.clamp_min(1e-12))
                log_alpha.append(log.gather(1, cell[:, None])[:, 0])
                entropy.append(-(alpha * log).sum(1))
        out = (torch.stack(logits, 1), torch.stack(alphas, 1))
        if hard:
            out += (torch.stack(cells, 1), torch.stack(log_alpha, 1), torch.stack(entropy, 1))
        return out

    @torch.no_grad()
    def greedy(self, annotations, bos, eos, hard=False, generator=None):
        """Greedy words [B][T] (eos-padded), alphas [B][T][cells], chosen cells (hard) or None."""
        decoder = self.hard if hard else self.decoder
        h, c, keys = decoder.start(annotations)
        previous = torch.full((annotations.shape[0],), bos, dtype=torch.long)
        words, alphas, cells = [], [], []
        done = torch.zeros_like(previous, dtype=torch.bool)
        for _ in range(self.sizes["max_words"]):
            cell = None
            if hard:
                a = torch.softmax(decoder.scores(keys, h), dim=1)
                cell = torch.multinomial(a, 1, generator=generator)[:, 0]
                cells.append(cell)
            logits, alpha, h, c = decoder.step(annotations, keys, previous, h, c, cell)
            previous = logits.argmax(1).masked_fill(done, eos)
            words.append(previous)
            alphas.append(alpha)
            done |= previous == eos
            if done.all():
                break
        return torch.stack(words, 1), torch.stack(alphas, 1), (torch.stack(cells, 1) if hard else None)
