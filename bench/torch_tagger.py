"""The studio's tagger in PyTorch, for a training-throughput comparison on the same CPU.

Same architecture and sizes as src/model (BiLSTM-CRF or ID-CNN-CRF with a character CNN, word
features of GloVe 100d + casing + an absent flag), the same batch size and sentence lengths
(written by bench/train-throughput.ts), Adam with clipping by global norm. Inputs are random:
throughput does not depend on the values. Prints one JSON line per encoder.

    /usr/bin/python3 bench/torch_tagger.py bench/out/throughput-shapes.json THREADS [DEVICE]

DEVICE is cpu (the default) or cuda (bench/gpu-node.ts's kit, on a machine with a GPU).
"""
import json
import sys
import time

import torch
import torch.nn as nn


class CharCNN(nn.Module):
    def __init__(self, n_chars, dim=30, filters=30):
        super().__init__()
        self.emb = nn.Embedding(n_chars, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, filters, 3, padding=1)

    def forward(self, chars):  # [N, L]
        e = self.emb(chars).transpose(1, 2)
        c = torch.tanh(self.conv(e))
        c = c - 10.0 * (chars == 0).unsqueeze(1).float()
        return c.max(dim=2).values


class IDCNN(nn.Module):
    """Strubell et al. 2017: width-3 convolutions with dilations 1, 2, 4, 1, shared over iterations."""

    def __init__(self, d_in, filters, iterations=2, dropout=0.5):
        super().__init__()
        self.inp = nn.Conv1d(d_in, filters, 3, padding=1)
        self.layers = nn.ModuleList([nn.Conv1d(filters, filters, 3, padding=d, dilation=d) for d in (1, 2, 4, 1)])
        self.iterations = iterations
        self.drop = nn.Dropout(dropout)
        self.out_dim = filters

    def forward(self, x, mask):  # x [B, T, D]
        m = mask.unsqueeze(1)
        h = torch.relu(self.inp(x.transpose(1, 2))) * m
        for _ in range(self.iterations):
            for conv in self.layers:
                h = torch.relu(conv(h)) * m
            h = self.drop(h)
        return h.transpose(1, 2)


class BiLSTM(nn.Module):
    def __init__(self, d_in, hidden):
        super().__init__()
        self.lstm = nn.LSTM(d_in, hidden, batch_first=True, bidirectional=True)
        self.out_dim = 2 * hidden

    def forward(self, x, mask):
        lengths = mask.sum(1).long().cpu()
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.lstm(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return out


def crf_nll(em, tags, mask, trans, start, end):
    """Linear-chain CRF negative log-likelihood, forward algorithm over time, batched."""
    B, T, K = em.shape
    alpha = start + em[:, 0]
    score = start[tags[:, 0]] + em[:, 0].gather(1, tags[:, :1]).squeeze(1)
    for t in range(1, T):
        m = mask[:, t].unsqueeze(1)
        nxt = torch.logsumexp(alpha.unsqueeze(2) + trans.unsqueeze(0), dim=1) + em[:, t]
        alpha = m * nxt + (1 - m) * alpha
        step = trans[tags[:, t - 1], tags[:, t]] + em[:, t].gather(1, tags[:, t : t + 1]).squeeze(1)
        score = score + mask[:, t] * step
    last = tags.gather(1, (mask.sum(1).long() - 1).unsqueeze(1)).squeeze(1)
    score = score + end[last]
    return (torch.logsumexp(alpha + end, dim=1) - score).mean()


class Tagger(nn.Module):
    def __init__(self, encoder, hidden, word_dim, n_chars, n_tags):
        super().__init__()
        self.chars = CharCNN(n_chars)
        d_in = word_dim + 30
        self.enc = BiLSTM(d_in, hidden) if encoder == "bilstm" else IDCNN(d_in, hidden)
        self.drop = nn.Dropout(0.5)
        self.out = nn.Linear(self.enc.out_dim, n_tags)
        self.trans = nn.Parameter(torch.zeros(n_tags, n_tags))
        self.start = nn.Parameter(torch.zeros(n_tags))
        self.end = nn.Parameter(torch.zeros(n_tags))

    def loss(self, words, chars, mask, tags):
        B, T, _ = words.shape
        c = self.chars(chars.view(B * T, -1)).view(B, T, -1)
        x = self.drop(torch.cat([words, c], 2))
        h = self.drop(self.enc(x, mask))
        return crf_nll(self.out(h), tags, mask, self.trans, self.start, self.end)


def main():
    shapes = json.load(open(sys.argv[1]))
    threads = int(sys.argv[2])
    device = torch.device(sys.argv[3] if len(sys.argv) > 3 else "cpu")
    torch.set_num_threads(threads)
    torch.manual_seed(1)
    lengths = shapes["lengths"]
    order = sorted(range(len(lengths)), key=lambda k: lengths[k])
    batches = [order[i : i + 32] for i in range(0, len(order), 32)]
    data = []
    for b in batches:
        T = max(lengths[k] for k in b)
        mask = torch.tensor([[1.0 if t < lengths[k] else 0.0 for t in range(T)] for k in b])
        chars = torch.zeros(len(b), T, 16, dtype=torch.long)
        for i, k in enumerate(b):
            for t, n in enumerate(shapes["charLengths"][k]):
                chars[i, t, :n] = torch.randint(1, shapes["chars"], (n,))
        batch = (torch.randn(len(b), T, shapes["word"]), chars, mask, torch.randint(0, shapes["tags"], (len(b), T)) * mask.long())
        data.append(tuple(x.to(device) for x in batch))
    tokens = sum(lengths)
    for m in shapes["models"]:
        model = Tagger(m["encoder"], m["hidden"], shapes["word"], shapes["chars"], shapes["tags"]).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=0.002)
        model.train()
        for epoch in range(shapes["epochs"]):
            t0 = time.perf_counter()
            for words, chars, mask, tags in data:
                opt.zero_grad()
                loss = model.loss(words, chars, mask, tags)
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 5.0)
                opt.step()
            if device.type == "cuda":
                torch.cuda.synchronize()
            seconds = time.perf_counter() - t0
        backend = f"torch {torch.__version__}" + (f" on {torch.cuda.get_device_name(device)}" if device.type == "cuda" else "")
        print(json.dumps({"backend": backend, "encoder": m["encoder"], "hidden": m["hidden"], "tokensPerEpoch": tokens, "epochSeconds": round(seconds, 2), "tokensPerSecond": round(tokens / seconds)}), flush=True)


if __name__ == "__main__":
    main()
