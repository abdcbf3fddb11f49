"""The attnscope RNN encoder-decoder with attention (Bahdanau et al. 2015), in PyTorch.

docs/MODEL_FORMAT.md gives the equations; translate.py computes the same thing in numpy from the
exported file. Names of parameters here are the tensor names of the exported file.

Shapes: E embedding size, H encoder hidden size per direction, D decoder hidden size,
A attention size (additive only), V vocabulary size, S source and T target lengths.
"""
import torch
from torch import nn

from tools.train.spec import ATTENTIONS, DROPOUT, RNN_SIZES


class Seq2Seq(nn.Module):
    def __init__(self, vocab_size, embedding_dim=RNN_SIZES["embedding_dim"],
                 encoder_hidden=RNN_SIZES["encoder_hidden"], decoder_hidden=RNN_SIZES["decoder_hidden"],
                 attention_dim=RNN_SIZES["attention_dim"], attention="additive", dropout=DROPOUT["rnn"]):
        super().__init__()
        assert attention in ATTENTIONS, attention
        self.attention = attention
        key_dim = 2 * encoder_hidden
        # One table for source input, target input and output (three-way tying, Press & Wolf
        # 2017): the vocabulary is joint, and tying keeps the file under 8 MiB.
        self.embedding = nn.Embedding(vocab_size, embedding_dim)
        self.encoder = nn.GRU(embedding_dim, encoder_hidden, batch_first=True, bidirectional=True)
        self.init = nn.Linear(encoder_hidden, decoder_hidden)          # s0 from backward h1
        if attention == "additive":
            self.query = nn.Linear(decoder_hidden, attention_dim, bias=False)   # W_q
            self.key = nn.Linear(key_dim, attention_dim, bias=False)            # W_k
            self.score = nn.Linear(attention_dim, 1, bias=False)                # v
        else:
            self.key = nn.Linear(key_dim, decoder_hidden, bias=False)           # W_g
        self.decoder = nn.GRUCell(embedding_dim + key_dim, decoder_hidden)
        self.output = nn.Linear(decoder_hidden + key_dim + embedding_dim, embedding_dim)
        self.output_bias = nn.Parameter(torch.zeros(vocab_size))
        self.dropout = nn.Dropout(dropout)
        nn.init.normal_(self.embedding.weight, std=embedding_dim ** -0.5)

    def encode(self, source, source_mask):
        """source: [B][S] ids, source_mask: [B][S] bool -> keys [B][S][2H], s0 [B][D]."""
        lengths = source_mask.sum(1).cpu()
        packed = nn.utils.rnn.pack_padded_sequence(
            self.dropout(self.embedding(source)), lengths, batch_first=True, enforce_sorted=False)
        states, _ = self.encoder(packed)
        keys, _ = nn.utils.rnn.pad_packed_sequence(states, batch_first=True,
                                                   total_length=source.shape[1])
        backward_first = keys[:, 0, self.encoder.hidden_size:]  # backward state at position 1
        return keys, torch.tanh(self.init(backward_first))

    def forward(self, source, source_mask, target_in):
        """Teacher-forced logits [B][T][V] and attention weights [B][T][S]."""
        keys, state = self.encode(source, source_mask)
        projected = self.key(keys)  # once per sentence: [B][S][A] additive, [B][S][D] general
        embedded = self.dropout(self.embedding(target_in))      # [B][T][E]
        blocked = ~source_mask
        states, contexts, weights = [], [], []
        for t in range(target_in.shape[1]):
            # Attention reads the previous decoder state s_{t-1}, as in Bahdanau et al.
            if self.attention == "additive":
                scores = self.score(torch.tanh(self.query(state).unsqueeze(1) + projected))
                scores = scores.squeeze(2)
            else:
                scores = torch.bmm(projected, state.unsqueeze(2)).squeeze(2)
            alpha = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=1)
            context = torch.bmm(alpha.unsqueeze(1), keys).squeeze(1)
            state = self.decoder(torch.cat([embedded[:, t], context], dim=1), state)
            states.append(state)
            contexts.append(context)
            weights.append(alpha)
        hidden = torch.cat([torch.stack(states, 1), torch.stack(contexts, 1), embedded], dim=2)
        out = torch.tanh(self.output(self.dropout(hidden)))     # [B][T][E]
        logits = out @ self.embedding.weight.t() + self.output_bias
        return logits, torch.stack(weights, 1)

    def tensors(self):
        """Parameters under their exported names (docs/MODEL_FORMAT.md), as float32 arrays."""
        p = {name: value.detach().float().cpu().numpy() for name, value in self.named_parameters()}
        out = {
            "embedding": p["embedding.weight"],
            "output.weight": p["output.weight"], "output.bias": p["output.bias"],
            "output.vocab_bias": p["output_bias"],
            "init.weight": p["init.weight"], "init.bias": p["init.bias"],
            "attention.key": p["key.weight"],
            "decoder.weight_ih": p["decoder.weight_ih"], "decoder.weight_hh": p["decoder.weight_hh"],
            "decoder.bias_ih": p["decoder.bias_ih"], "decoder.bias_hh": p["decoder.bias_hh"],
        }
        for direction, suffix in (("forward", ""), ("backward", "_reverse")):
            for kind in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                out[f"encoder.{direction}.{kind}"] = p[f"encoder.{kind}_l0{suffix}"]
        if self.attention == "additive":
            out["attention.query"] = p["query.weight"]
            out["attention.score"] = p["score.weight"][0]
        return out
