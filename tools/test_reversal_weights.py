#!/usr/bin/env python3
"""The reversal model's weights are reproducible and well quantized (make test runs it).

examples/reversal/reversal_state.npz is the float state_dict that
tools/train_reversal_model.py saved. From it:
- tools/convert_weights.py remakes reversal_weights.h (the float model's
  header) byte for byte, with the command of examples/reversal/README.md;
- tools/quantize_reversal_model.py then tools/convert_weights.py remake
  reversal_quant_weights.h (the int8 model's) byte for byte;
- the quantized tensors are what TFLite's scheme says (the position table
  against tools/reversal_task.py's sinusoid): every weight within
  half a step of its float value, each row's (or, for the readout, the
  matrix's) largest magnitude at 127, biases within half a step at
  input scale * weight scale, zero points inside int8 and ranges holding 0.
"""

import os
import subprocess
import sys
import tempfile

import numpy as np

from reversal_task import TOTAL, sinusoidal

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
MODEL = os.path.join(REPO, "examples", "reversal")
STATE = os.path.join(MODEL, "reversal_state.npz")
PACKED = ["layers.0.in_proj_weight", "layers.0.out_proj.weight",
          "layers.1.in_proj_weight", "layers.1.out_proj.weight"]


def tool(name, *args, cwd):
    subprocess.run([sys.executable, os.path.join(HERE, name), *args], check=True, cwd=cwd,
                   stdout=subprocess.DEVNULL)


def same_file(made, committed):
    with open(made) as a, open(committed) as b:
        return a.read() == b.read()


def check_weights(w, q, scales, name):
    """Per-row symmetric int8: within half a step, the row's largest at 127."""
    assert q.dtype == np.int8 and np.abs(q.astype(np.int32)).max() <= 127, name
    error = np.abs(w - q.astype(np.float64) * scales[:, None])
    assert np.all(error <= scales[:, None] * (0.5 + 1e-6)), name
    assert np.all(np.abs(q.astype(np.int32)).max(axis=1) == 127), name


def check_bias(b, q, scales, name):
    assert q.dtype == np.int32, name
    assert np.all(np.abs(b - q.astype(np.float64) * scales) <= scales * (0.5 + 1e-6)), name


def run():
    checks = 0
    state = dict(np.load(STATE))
    with tempfile.TemporaryDirectory() as tmp:
        packs = [arg for name in PACKED for arg in ("--pack", name)]
        float_header = os.path.join(tmp, "reversal_weights.h")
        tool("convert_weights.py", STATE, "--header", float_header, "--symbol-prefix", "rev_",
             *packs, cwd=tmp)
        # The generator names its input file: make both headers from the same name.
        assert same_file(float_header, os.path.join(MODEL, "reversal_weights.h")), \
            "reversal_weights.h is not what reversal_state.npz converts to"
        checks += 1
        quant_npz = os.path.join(tmp, "reversal_quant_state.npz")
        tool("quantize_reversal_model.py", STATE, "--out", quant_npz, cwd=tmp)
        quant_header = os.path.join(tmp, "reversal_quant_weights.h")
        tool("convert_weights.py", quant_npz, "--header", quant_header, "--symbol-prefix", "revq_",
             cwd=tmp)
        assert same_file(quant_header, os.path.join(MODEL, "reversal_quant_weights.h")), \
            "reversal_quant_weights.h is not what the quantizer makes of reversal_state.npz"
        checks += 1
        quant = dict(np.load(quant_npz))
    for layer in range(2):
        p = f"layers.{layer}."
        input_name = "h0" if layer == 0 else "layers.0.residual"
        for tensor, bias, scales, input_scale in (
                ("in_proj_weight", "in_proj_bias", "in_proj_weight_scales", input_name),
                ("out_proj.weight", "out_proj.bias", "out_proj.weight_scales",
                 p + "context")):
            s = quant[p + scales].astype(np.float64)
            check_weights(state[p + tensor].astype(np.float64), quant[p + tensor], s, p + tensor)
            check_bias(state[p + bias].astype(np.float64), quant[p + bias],
                       s * float(quant[input_scale + ".scale"][0]), p + bias)
            checks += 2
    readout_scale = float(quant["readout.weight_scale"][0])
    check_weights(state["readout.weight"].reshape(1, -1).astype(np.float64),
                  quant["readout.weight"].reshape(1, -1), np.array([readout_scale]), "readout")
    checks += 1
    for name in [k[: -len(".scale")] for k in quant if k.endswith(".scale")]:
        scale, zero_point = float(quant[name + ".scale"][0]), int(quant[name + ".zero_point"][0])
        assert scale > 0 and -128 <= zero_point <= 127, name
        low, high = scale * (-128 - zero_point), scale * (127 - zero_point)
        assert low <= 0 <= high, name  # the range holds 0
        checks += 1
    embedding = state["embedding.weight"]
    for name, table, values in (("embedding", "embedding.weight", embedding),
                                ("positions", "positions", sinusoidal(TOTAL, embedding.shape[1]))):
        q = quant[table].astype(np.float64)
        scale = float(quant[name + ".scale"][0])
        zero_point = int(quant[name + ".zero_point"][0])
        assert q.shape == values.shape and q.min() >= -128 and q.max() <= 127, name
        assert np.all(np.abs(values - scale * (q - zero_point)) <= scale * (0.5 + 1e-6)), name
        checks += 1
    return checks


def main():
    try:
        checks = run()
    except AssertionError as failure:
        print(f"reversal weights: {failure}")
        print("0 passed, 1 failed")
        sys.exit(1)
    print(f"{checks} passed, 0 failed")


if __name__ == "__main__":
    main()
