#!/usr/bin/env python3
"""Quantizes the reversal model to TFLite's int8 scheme (numpy only).

Input: the float state_dict that tools/train_reversal_model.py saves (npz).
Output: an npz of the integer model for tools/convert_weights.py, which
examples/reversal/reversal_quant_model.cc runs on two ea_mha_quant_decoders
(edgeattn/decoder.h) and ea_add_quant_run_s8, in TFLite's integers only.

Post-training static quantization as TFLite's converter does it:
- weights int8, symmetric, one scale per output channel (max |w| / 127);
  the readout one scale for the whole matrix, so that the argmax of its int32
  accumulators is the argmax of the logits;
- biases int32 at input scale * weight scale;
- activations int8, asymmetric, one (scale, zero point) per tensor from the
  min and max a float run over a calibration set reaches (the range widened
  to hold 0, as TFLite's calibrator does);
- the embedding and the sinusoidal position table quantized per tensor over
  their own ranges (TFLite's QUANTIZE: round half away from zero).

The float run is the model's forward pass, teacher-forced over whole
sequences: embedding + positions, then per layer q, k, v, the raw scores
q_h k_h^T of the visible keys (the softmax scales them by 1/sqrt(d_k)),
the heads' outputs, out_proj and the residual sum.

Tensor names of the output (each activation as NAME.scale float32 [1] and
NAME.zero_point int32 [1]):
  embedding.weight (int8), embedding.*; positions (int8 [17, d]), positions.*;
  h0.* (embedding + positions);
  layers.L.in_proj_weight (int8), .in_proj_bias (int32), .in_proj_weight_scales,
  layers.L.out_proj.weight (int8), .out_proj.bias (int32), .out_proj.weight_scales,
  layers.L.{q,k,v,scores,context,output,residual}.*;
  readout.weight (int8), readout.weight_scale, readout.bias (int32).
"""

import argparse
import math

import numpy as np

from reversal_task import DIGITS, SEP, SEQ_LEN, TOTAL, sinusoidal


def round_half_away(x):
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


class Ranges:
    """Running min and max of each named activation."""

    def __init__(self):
        self.low, self.high = {}, {}

    def see(self, name, values):
        self.low[name] = min(self.low.get(name, 0.0), float(values.min()))
        self.high[name] = max(self.high.get(name, 0.0), float(values.max()))

    def quantization(self, name):
        low, high = self.low[name], self.high[name]
        scale = (high - low) / 255.0
        zero_point = int(np.clip(round_half_away(-128 - low / scale), -128, 127))
        return np.float32(scale), zero_point


def layer_count(state):
    return len({k.split(".")[1] for k in state if k.startswith("layers.")})


def forward(state, tokens, ranges):
    """The float model on one batch [b, n] of tokens, recording ranges."""
    d = state["embedding.weight"].shape[1]
    n = tokens.shape[1]
    emb = state["embedding.weight"][tokens]
    h = emb + sinusoidal(TOTAL, d)[:n]
    ranges.see("h0", h)
    mask = np.triu(np.ones((n, n), dtype=bool), 1)
    for layer in range(layer_count(state)):
        prefix = f"layers.{layer}."
        w, b = state[prefix + "in_proj_weight"], state[prefix + "in_proj_bias"]
        heads = state["heads"]
        d_k = d // heads
        q, k, v = (h @ w[i * d:(i + 1) * d].T + b[i * d:(i + 1) * d] for i in range(3))
        for name, t in (("q", q), ("k", k), ("v", v)):
            ranges.see(prefix + name, t)
        context = np.zeros_like(q)
        for head in range(heads):
            cols = slice(head * d_k, (head + 1) * d_k)
            scores = q[:, :, cols] @ k[:, :, cols].transpose(0, 2, 1)
            ranges.see(prefix + "scores", scores[:, ~mask])
            logits = np.where(mask, -np.inf, scores / math.sqrt(d_k))
            p = np.exp(logits - logits.max(-1, keepdims=True))
            p /= p.sum(-1, keepdims=True)
            context[:, :, cols] = p @ v[:, :, cols]
        ranges.see(prefix + "context", context)
        out = context @ state[prefix + "out_proj.weight"].T + state[prefix + "out_proj.bias"]
        ranges.see(prefix + "output", out)
        h = h + out
        ranges.see(prefix + "residual", h)
    return h @ state["readout.weight"].T + state["readout.bias"]


def per_channel(w):
    scales = np.abs(w).max(axis=1) / 127.0
    scales = np.where(scales > 0, scales, 1.0).astype(np.float32)
    return np.clip(round_half_away(w / scales[:, None]), -127, 127).astype(np.int8), scales


def bias_q(bias, scales):
    return round_half_away(bias.astype(np.float64) / scales.astype(np.float64)).astype(np.int32)


def quantize_tensor(values, scale, zero_point):
    q = round_half_away(values.astype(np.float64) / np.float64(scale)) + zero_point
    return np.clip(q, -128, 127).astype(np.int8)


def add_quant(out, name, scale, zero_point):
    out[name + ".scale"] = np.array([scale], dtype=np.float32)
    out[name + ".zero_point"] = np.array([zero_point], dtype=np.int32)


def quantize(state, calibration):
    ranges = Ranges()
    logits = forward(state, calibration[:, :-1], ranges)
    float_accuracy = (logits[:, SEQ_LEN:].argmax(-1) == calibration[:, SEQ_LEN + 1:]).mean()
    out = {}
    emb = state["embedding.weight"]
    emb_range = Ranges()
    emb_range.see("e", emb)
    scale, zp = emb_range.quantization("e")
    out["embedding.weight"] = quantize_tensor(emb, scale, zp)
    add_quant(out, "embedding", scale, zp)
    table = sinusoidal(TOTAL, emb.shape[1])
    table_range = Ranges()
    table_range.see("p", table)
    scale, zp = table_range.quantization("p")
    out["positions"] = quantize_tensor(table, scale, zp)
    add_quant(out, "positions", scale, zp)
    add_quant(out, "h0", *ranges.quantization("h0"))
    d = emb.shape[1]
    input_name = "h0"
    for layer in range(layer_count(state)):
        prefix = f"layers.{layer}."
        for name in ("q", "k", "v", "scores", "context", "output", "residual"):
            add_quant(out, prefix + name, *ranges.quantization(prefix + name))
        input_scale = out[input_name + ".scale"][0]
        w, scales = per_channel(state[prefix + "in_proj_weight"])
        out[prefix + "in_proj_weight"] = w
        out[prefix + "in_proj_weight_scales"] = scales
        out[prefix + "in_proj_bias"] = bias_q(state[prefix + "in_proj_bias"], input_scale * scales)
        w, scales = per_channel(state[prefix + "out_proj.weight"])
        out[prefix + "out_proj.weight"] = w
        out[prefix + "out_proj.weight_scales"] = scales
        context_scale = out[prefix + "context.scale"][0]
        out[prefix + "out_proj.bias"] = bias_q(state[prefix + "out_proj.bias"],
                                               context_scale * scales)
        input_name = prefix + "residual"
    readout = state["readout.weight"]
    scale = np.float32(np.abs(readout).max() / 127.0)
    out["readout.weight"] = np.clip(round_half_away(readout / scale), -127, 127).astype(np.int8)
    out["readout.weight_scale"] = np.array([scale], dtype=np.float32)
    h_scale = out[input_name + ".scale"][0]
    out["readout.bias"] = bias_q(state["readout.bias"], np.float32(h_scale * scale))
    assert d == out["positions"].shape[1]
    return out, float_accuracy


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("state", help="the float state_dict (npz)")
    parser.add_argument("--out", default="reversal_quant_state.npz")
    parser.add_argument("--heads", type=int, default=4)
    parser.add_argument("--calibration", type=int, default=1000, help="sequences")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with np.load(args.state) as npz:
        state = {name: npz[name] for name in npz.files}
    state["heads"] = args.heads
    rng = np.random.default_rng(args.seed)
    digits = rng.integers(0, DIGITS, (args.calibration, SEQ_LEN))
    sequences = np.concatenate(
        [digits, np.full((args.calibration, 1), SEP), digits[:, ::-1]], axis=1)
    out, float_accuracy = quantize(state, sequences)
    np.savez(args.out, **out)
    print(f"calibrated on {args.calibration} sequences "
          f"(float teacher-forced token accuracy {float_accuracy:.4f}); wrote {args.out}")
    for name in sorted(k for k in out if k.endswith(".scale")):
        base = name[: -len(".scale")]
        print(f"  {base}: scale {out[name][0]:.6g}, zero point {out[base + '.zero_point'][0]}")


if __name__ == "__main__":
    main()
