#!/usr/bin/env python3
"""Trains the tiny reversal model of examples/reversal (Debian python3-torch).

Task: a sequence of SEQ_LEN digits, a separator, then the same digits
reversed. A decoder reads the digits and the separator and must produce the
reversal one token at a time. Which digit comes next depends only on where
it stood, so the task needs word order: attention alone is permutation
equivariant, and without the position table the model cannot tell the
digits' places apart.

Model: token embedding + sinusoidal positions -> N_LAYERS causal
nn.MultiheadAttention layers with residuals -> a linear readout. No layer
norm or MLP: every op is one edgeattn runs (ea_decoder) or a vector add.

Writes the state_dict as npz (for tools/convert_weights.py) and prints the
held-out accuracy with and without the position table.
"""

import argparse

import numpy as np
import torch
from torch import nn

from reversal_task import DIGITS, SEP, SEQ_LEN, TOTAL, VOCAB, sinusoidal


class Reversal(nn.Module):
    def __init__(self, d_model, heads, layers):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, d_model)
        self.layers = nn.ModuleList(
            nn.MultiheadAttention(d_model, heads, batch_first=True) for _ in range(layers))
        self.readout = nn.Linear(d_model, VOCAB)
        self.register_buffer("positions", torch.tensor(sinusoidal(TOTAL, d_model)),
                             persistent=False)

    def forward(self, tokens, use_positions=True):
        n = tokens.shape[1]
        h = self.embedding(tokens)
        if use_positions:
            h = h + self.positions[:n]
        mask = torch.triu(torch.ones(n, n, dtype=torch.bool), diagonal=1)
        for attention in self.layers:
            out, _ = attention(h, h, h, attn_mask=mask, need_weights=False)
            h = h + out
        return self.readout(h)


def batch(size, generator):
    digits = torch.randint(0, DIGITS, (size, SEQ_LEN), generator=generator)
    sep = torch.full((size, 1), SEP)
    return torch.cat([digits, sep, digits.flip(1)], dim=1)


def accuracy(model, sequences, use_positions):
    """Greedy decoding of the reversal, token by token: whole-sequence match."""
    with torch.no_grad():
        prefix = sequences[:, : SEQ_LEN + 1]
        for _ in range(SEQ_LEN):
            logits = model(prefix, use_positions)[:, -1]
            prefix = torch.cat([prefix, logits.argmax(-1, keepdim=True)], dim=1)
        return (prefix[:, SEQ_LEN + 1 :] == sequences[:, SEQ_LEN + 1 :]).all(1).float().mean().item()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", default="reversal_state.npz")
    parser.add_argument("--d-model", type=int, default=64)
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    generator = torch.Generator().manual_seed(args.seed)
    model = Reversal(args.d_model, args.heads, args.layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, args.steps)
    for step in range(args.steps):
        seq = batch(256, generator)
        logits = model(seq[:, :-1])
        # Loss on the reversed digits only: positions SEQ_LEN .. TOTAL - 2 predict them.
        target = seq[:, SEQ_LEN + 1 :]
        loss = nn.functional.cross_entropy(
            logits[:, SEQ_LEN:].reshape(-1, VOCAB), target.reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        schedule.step()
        if step % 500 == 0 or step == args.steps - 1:
            print(f"step {step}: loss {loss.item():.4f}")
    held_out = batch(2000, torch.Generator().manual_seed(12345))
    print(f"held-out accuracy: {accuracy(model, held_out, True):.4f} with positions, "
          f"{accuracy(model, held_out, False):.4f} without")
    state = {k: v.detach().numpy().astype(np.float32) for k, v in model.state_dict().items()}
    np.savez(args.out, **state)
    print("tensors:", {k: v.shape for k, v in state.items()})


if __name__ == "__main__":
    main()
