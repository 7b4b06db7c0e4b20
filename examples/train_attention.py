"""Trains a small named-tensor transformer block with Adam to reverse sequences of tokens.

The block is the tutorial's MultiHeadAttention (examples/attention.py) with token and position
embeddings, a residual connection, LayerNorm, a ReLU feed-forward layer and a linear read-out;
every activation carries names (N, T, D). It prints its progress and stops when the loss is
near zero (or after MAX_STEPS), in well under a minute on two cores.

    PYTHONPATH=build/python python3 examples/train_attention.py
"""
import os
import sys
import time

import ntensor as torch
import ntensor.nn as nn
import ntensor.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attention import MultiHeadAttention  # noqa: E402

VOCAB, T, D, HEADS, BATCH = 10, 8, 32, 4, 64
MAX_STEPS, TARGET = 1500, 0.01


class ReverseBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, D)
        self.positions = nn.Embedding(T, D)
        self.attn = MultiHeadAttention(HEADS, D)
        self.norm1 = nn.LayerNorm(D)
        self.ff = nn.Sequential(nn.Linear(D, 4 * D), nn.ReLU(), nn.Linear(4 * D, D))
        self.norm2 = nn.LayerNorm(D)
        self.out = nn.Linear(D, VOCAB)

    def forward(self, tokens):
        x = (self.tokens(tokens) + self.positions(torch.arange(T))).refine_names("N", "T", "D")
        mask = torch.ones(tokens.shape, names=("N", "T"))
        x = self.norm1(x + self.attn(x, mask=mask))
        x = self.norm2(x + self.ff(x).refine_names("N", "T", "D"))
        return self.out(x).refine_names("N", "T", "V")


def batch():
    tokens = (torch.rand(BATCH, T) * VOCAB).long()
    return tokens, tokens[:, torch.arange(T - 1, -1, -1)]


def main():
    torch.manual_seed(0)
    model = ReverseBlock()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    start = time.time()
    for step in range(1, MAX_STEPS + 1):
        tokens, target = batch()
        logits = model(tokens)
        loss = F.cross_entropy(logits.flatten(["N", "T"], "B").rename(None), target.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 100 == 0 or loss.item() < TARGET:
            with torch.no_grad():
                acc = (logits.argmax("V").rename(None) == target).float().mean().item()
            print(f"step {step:4d}  loss {loss.item():.4f}  token accuracy {acc:.3f}  "
                  f"{time.time() - start:.1f} s", flush=True)
        if loss.item() < TARGET:
            break
    print("names of the logits:", logits.names)
    return loss.item()


if __name__ == "__main__":
    final = main()
    sys.exit(0 if final < 0.05 else 1)
