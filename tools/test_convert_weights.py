#!/usr/bin/env python3
"""Round trip of tools/convert_weights.py (make test runs it).

A state_dict of an nn.MultiheadAttention (d_model 40, 4 heads: in_proj has
120 rows, two packing panels, the second padded) and tensors of the other
dtypes is written as safetensors (by the writer below, from the format's
specification) and as npz. Both convert to the same blob, byte for byte; a
reader written here from docs/WEIGHT_FILES.md gets every tensor back, packed
ones unpacked; the header's literals parse back to the same values.

--emit DIR also writes the C++ suite's inputs (tests/weights/weight_file_test.cc):
sample_files.cc (the safetensors file and the blob as aligned byte arrays)
and sample_weights.h (the header). Without --emit the committed copies in
tests/data/weights must equal what this run makes.
"""

import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(HERE)
CONVERTER = os.path.join(HERE, "convert_weights.py")
DATA = os.path.join(REPO, "tests", "data", "weights")


def sample_value(tensor_index, count, kind):
    """The values tests/weights/weight_file_test.cc recomputes: exact in every dtype."""
    i = np.arange(count, dtype=np.int64)
    if kind == "f":
        return ((i * 37 + tensor_index * 11) % 257 - 128) / 64.0
    return (i * 37 + tensor_index * 11) % 251 - 125


def sample_state():
    d_model, heads = 40, 4
    specs = [
        ("attn.in_proj_weight", (3 * d_model, d_model), "<f4"),
        ("attn.in_proj_bias", (3 * d_model,), "<f4"),
        ("attn.out_proj.weight", (d_model, d_model), "<f4"),
        ("attn.out_proj.bias", (d_model,), "<f4"),
        ("embedding.weight", (11, d_model), "<f4"),
        ("quant.scale_i8", (3, 5), "i1"),
        ("quant.bias_i32", (7,), "<i4"),
        ("half", (4, 2), "<f2"),
        ("step", (), "<i8"),
    ]
    state = {}
    for index, (name, shape, dtype) in enumerate(specs):
        count = int(np.prod(shape)) if shape else 1
        kind = np.dtype(dtype).kind
        state[name] = sample_value(index, count, kind).astype(dtype).reshape(shape)
    return state, d_model, heads


SAFETENSORS_NAMES = {"<f4": "F32", "<f2": "F16", "i1": "I8", "<i4": "I32", "<i8": "I64"}


def write_safetensors(path, state):
    """As the safetensors library does: tensors by element size, largest
    first, then by name, so every tensor starts aligned to its element."""
    header, offset, chunks = {}, 0, []
    order = sorted(state.items(), key=lambda kv: (-kv[1].dtype.itemsize, kv[0]))
    for name, array in order:
        raw = array.tobytes()
        key = array.dtype.str if array.dtype.itemsize > 1 else array.dtype.str[1:]
        header[name] = {"dtype": SAFETENSORS_NAMES[key], "shape": list(array.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        offset += len(raw)
        chunks.append(raw)
    header["__metadata__"] = {"format": "pt"}
    text = json.dumps(header, separators=(",", ":")).encode("utf-8")
    text += b" " * ((8 - len(text) % 8) % 8)  # the data starts 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))


def read_blob(path):
    """Tensors of a blob, from docs/WEIGHT_FILES.md: {name: (layout, array)}."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, count, file_bytes, data_offset = struct.unpack_from("<8sIIQQ", data, 0)
    assert magic == b"EAWEIGHT" and version == 1 and file_bytes == len(data)
    assert data_offset == 64 + 192 * count
    dtypes = {1: "<f4", 2: "<f2", 4: "<f8", 5: "i1", 6: "u1", 7: "<i2", 8: "<i4", 9: "<i8", 10: "?"}
    out = {}
    for i in range(count):
        fields = struct.unpack_from("<96sIIIIQQ8q", data, 64 + 192 * i)
        name = fields[0].rstrip(b"\0").decode("utf-8")
        dtype, layout, rank, _, offset, nbytes = fields[1:7]
        dims = tuple(fields[7 : 7 + rank])
        assert offset % 64 == 0
        raw = np.frombuffer(data[offset : offset + nbytes], dtype=dtypes[dtype])
        if layout == 1:  # panels [p][n_in][64] -> W [n_out, n_in]
            n_out, n_in = dims
            panels = raw.reshape(-1, n_in, 64).transpose(0, 2, 1).reshape(-1, n_in)
            assert not panels[n_out:].any(), f"{name}: padding must be zero"
            out[name] = (layout, panels[:n_out])
        else:
            out[name] = (layout, raw.reshape(dims))
    return out


def header_values(path):
    """{symbol: [values]} of a generated header, literals parsed back."""
    text = open(path).read()
    arrays = {}
    for symbol, body in re.findall(r"static const \w+ (\w+)\[\d+\][^=]*= \{(.*?)\};", text, re.S):
        values = [v.strip() for v in body.split(",") if v.strip()]
        arrays[symbol] = [float.fromhex(v[:-1]) if v.startswith(("0x", "-0x")) else int(v)
                          for v in values]
    return arrays


def convert(*args):
    subprocess.run([sys.executable, CONVERTER, *args], check=True)


def c_bytes(symbol, data):
    lines = [f"alignas(64) extern const unsigned char {symbol}[{len(data)}] = {{"]
    for i in range(0, len(data), 16):
        lines.append("    " + ", ".join(str(b) for b in data[i : i + 16]) + ",")
    lines.append("};")
    lines.append(f"extern const size_t {symbol}_size = {len(data)};")
    return lines


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--emit", help="write the C++ suite's inputs into this folder")
    args = parser.parse_args()
    try:
        checks = run(args)
    except AssertionError as failure:
        print(f"convert_weights round trip: {failure}")
        print("0 passed, 1 failed")
        sys.exit(1)
    print(f"{checks} passed, 0 failed")


def run(args):
    state, _, _ = sample_state()
    with tempfile.TemporaryDirectory() as tmp:
        st, npz = os.path.join(tmp, "sample.safetensors"), os.path.join(tmp, "sample.npz")
        write_safetensors(st, state)
        np.savez(npz, **state)
        blob_st, blob_npz = os.path.join(tmp, "a.eaw"), os.path.join(tmp, "b.eaw")
        header = os.path.join(tmp, "sample_weights.h")
        convert(st, "--blob", blob_st, "--pack-linear", "--header", header,
                "--symbol-prefix", "sample_", "--only", "attn.in_proj_weight",
                "--only", "attn.in_proj_bias", "--only", "attn.out_proj.weight",
                "--only", "attn.out_proj.bias")
        convert(st, "--blob", blob_st, "--pack-linear")
        convert(npz, "--blob", blob_npz, "--pack-linear")
        checks = 0
        blob_bytes = open(blob_st, "rb").read()
        assert blob_bytes == open(blob_npz, "rb").read(), "safetensors and npz give one blob"
        checks += 1
        for name, (layout, array) in read_blob(blob_st).items():
            want = state[name]
            assert array.dtype.str.lstrip("<|") == want.dtype.str.lstrip("<|"), name
            assert array.shape == want.shape and np.array_equal(array, want), name
            expect_packed = name.endswith("weight") and want.ndim == 2
            assert layout == (1 if expect_packed else 0), name
            checks += 1
        # The header holds the same four tensors, packed as in the blob.
        blob = read_blob(blob_st)
        for symbol, values in header_values(header).items():
            name = {"sample_attn_in_proj_weight": "attn.in_proj_weight",
                    "sample_attn_in_proj_bias": "attn.in_proj_bias",
                    "sample_attn_out_proj_weight": "attn.out_proj.weight",
                    "sample_attn_out_proj_bias": "attn.out_proj.bias"}[symbol]
            layout, array = blob[name]
            if layout == 1:
                n_out, n_in = array.shape
                panels = (n_out + 63) // 64
                padded = np.zeros((panels * 64, n_in), np.float32)
                padded[:n_out] = array
                array = padded.reshape(panels, 64, n_in).transpose(0, 2, 1)
            assert np.array_equal(np.array(values, np.float32), array.reshape(-1)), symbol
            checks += 1
        st_bytes = open(st, "rb").read()
        header_text = open(header).read()
        generated = ["// Generated by tools/test_convert_weights.py --emit: do not edit.",
                     "// The sample state_dict as safetensors (written from the format's",
                     "// specification) and as the blob tools/convert_weights.py makes of it.",
                     "#include \"data/weights/sample_files.h\"", ""]
        generated += c_bytes("kSampleSafetensors", st_bytes) + [""]
        generated += c_bytes("kSampleBlob", blob_bytes)
        sources = {"sample_files.cc": "\n".join(generated) + "\n", "sample_weights.h": header_text}
        if args.emit:
            os.makedirs(args.emit, exist_ok=True)
            for file, text in sources.items():
                with open(os.path.join(args.emit, file), "w") as f:
                    f.write(text)
        else:
            for file, text in sources.items():
                committed = open(os.path.join(DATA, file)).read()
                assert committed == text, f"tests/data/weights/{file} is stale: run --emit"
                checks += 1
    return checks


if __name__ == "__main__":
    main()
