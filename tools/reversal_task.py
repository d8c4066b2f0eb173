"""The reversal task and the model's position table, shared by
tools/train_reversal_model.py (torch) and tools/quantize_reversal_model.py
(numpy only): SEQ_LEN digits, a separator, the digits reversed."""

import math

import numpy as np

SEQ_LEN = 8
DIGITS = 10
SEP = 10
VOCAB = 11
TOTAL = 2 * SEQ_LEN + 1  # digits, separator, reversed digits


def sinusoidal(n, d):
    """PE(pos, 2i) = sin(pos / 10000^(2i/d)), PE(pos, 2i+1) = cos(same), float32 [n, d]."""
    pe = np.zeros((n, d))
    for pos in range(n):
        for i in range(0, d, 2):
            angle = pos / 10000 ** (i / d)
            pe[pos, i] = math.sin(angle)
            pe[pos, i + 1] = math.cos(angle)
    return pe.astype(np.float32)
