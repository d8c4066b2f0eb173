#!/usr/bin/env python3
"""Converts a PyTorch state_dict saved as safetensors or npz into what
edgeattn reads without copying:

  --blob FILE     the edgeattn weight blob (docs/WEIGHT_FILES.md), for
                  ea_weight_file_open on a hosted system;
  --header FILE   a C/C++ header of constant arrays (flash-resident on
                  firmware), one per tensor, with its shape as macros.

--pack NAME (repeatable, or --pack-linear for every 2-D float tensor whose
name ends in "weight") stores W [n_out, n_in] already packed for the
projection kernel: panels of 64 output rows, each [n_in][64], zero padded,
exactly as ea_linear_pack_weights packs it, so plans take it with
EA_WEIGHTS_PACKED and pack nothing at init.

Needs Python 3 and numpy only. Values are written exactly: floats as
C99 hexadecimal literals, integers as decimals.

  python3 tools/convert_weights.py model.safetensors --blob model.eaw \\
      --header model_weights.h --symbol-prefix model_ --pack-linear
"""

import argparse
import json
import re
import struct
import sys

import numpy as np

BLOB_MAGIC = b"EAWEIGHT"
BLOB_VERSION = 1
HEADER_BYTES = 64
ENTRY_BYTES = 192
NAME_BYTES = 96
MAX_RANK = 8
ALIGNMENT = 64
PANEL_ROWS = 64

# ea_tensor_dtype codes and the numpy dtypes they hold.
DTYPE_CODES = {
    np.dtype("<f4"): 1,
    np.dtype("<f2"): 2,
    np.dtype("<f8"): 4,
    np.dtype("i1"): 5,
    np.dtype("u1"): 6,
    np.dtype("<i2"): 7,
    np.dtype("<i4"): 8,
    np.dtype("<i8"): 9,
    np.dtype("?"): 10,
}
SAFETENSORS_DTYPES = {
    "F32": "<f4",
    "F16": "<f2",
    "F64": "<f8",
    "I8": "i1",
    "U8": "u1",
    "I16": "<i2",
    "I32": "<i4",
    "I64": "<i8",
    "BOOL": "?",
}
LAYOUT_ROW_MAJOR = 0
LAYOUT_PACKED_LINEAR = 1


def read_safetensors(path):
    """Tensors of a safetensors file, in file order (BF16 becomes float32)."""
    with open(path, "rb") as f:
        data = f.read()
    (header_bytes,) = struct.unpack_from("<Q", data, 0)
    header = json.loads(data[8 : 8 + header_bytes].decode("utf-8"))
    base = 8 + header_bytes
    tensors = {}
    entries = sorted(
        ((k, v) for k, v in header.items() if k != "__metadata__"),
        key=lambda kv: kv[1]["data_offsets"][0],
    )
    for name, info in entries:
        begin, end = info["data_offsets"]
        raw = data[base + begin : base + end]
        shape = tuple(info["shape"])
        if info["dtype"] == "BF16":
            bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
            array = bits.view("<f4").reshape(shape)
        else:
            array = np.frombuffer(raw, dtype=SAFETENSORS_DTYPES[info["dtype"]]).reshape(shape)
        tensors[name] = array
    return tensors


def read_tensors(path):
    if path.endswith(".npz"):
        with np.load(path) as npz:
            return {name: npz[name] for name in npz.files}
    return read_safetensors(path)


def pack_linear(w):
    """W [n_out, n_in] as ea_linear_pack_weights packs it."""
    n_out, n_in = w.shape
    panels = (n_out + PANEL_ROWS - 1) // PANEL_ROWS
    padded = np.zeros((panels * PANEL_ROWS, n_in), dtype="<f4")
    padded[:n_out] = w
    # Panel p, row i, column j = W[p * 64 + j, i].
    return np.ascontiguousarray(padded.reshape(panels, PANEL_ROWS, n_in).transpose(0, 2, 1))


class Tensor:
    def __init__(self, name, array, packed):
        if array.dtype.newbyteorder("<") not in DTYPE_CODES and array.dtype not in DTYPE_CODES:
            raise SystemExit(f"{name}: dtype {array.dtype} has no edgeattn code")
        if array.ndim > MAX_RANK:
            raise SystemExit(f"{name}: rank {array.ndim} above {MAX_RANK}")
        self.name = name
        self.shape = array.shape
        self.packed = packed
        if packed:
            if array.ndim != 2 or array.dtype.kind != "f":
                raise SystemExit(f"{name}: only 2-D float weights can be packed")
            self.data = pack_linear(array.astype("<f4"))
        else:
            self.data = np.ascontiguousarray(array.astype(array.dtype.newbyteorder("<")))
        self.code = DTYPE_CODES[self.data.dtype]


def write_blob(path, tensors):
    table_end = HEADER_BYTES + ENTRY_BYTES * len(tensors)
    offsets, cursor = [], table_end
    for t in tensors:
        cursor = (cursor + ALIGNMENT - 1) // ALIGNMENT * ALIGNMENT
        offsets.append(cursor)
        cursor += t.data.nbytes
    out = bytearray(cursor)
    struct.pack_into("<8sIIQQ", out, 0, BLOB_MAGIC, BLOB_VERSION, len(tensors), cursor, table_end)
    for i, (t, offset) in enumerate(zip(tensors, offsets)):
        name = t.name.encode("utf-8")
        if not name or len(name) >= NAME_BYTES:
            raise SystemExit(f"{t.name}: a blob name has 1..{NAME_BYTES - 1} bytes")
        entry = HEADER_BYTES + ENTRY_BYTES * i
        dims = list(t.shape) + [0] * (MAX_RANK - len(t.shape))
        struct.pack_into(
            f"<{NAME_BYTES}sIIIIQQ{MAX_RANK}q",
            out,
            entry,
            name,
            t.code,
            LAYOUT_PACKED_LINEAR if t.packed else LAYOUT_ROW_MAJOR,
            len(t.shape),
            0,
            offset,
            t.data.nbytes,
            *dims,
        )
        out[offset : offset + t.data.nbytes] = t.data.tobytes()
    with open(path, "wb") as f:
        f.write(out)


def c_symbol(prefix, name):
    return prefix + re.sub(r"[^0-9A-Za-z_]", "_", name)


def short_hex(value):
    """float.hex() without the mantissa's trailing zeros: 0x1.8p+1."""
    text = value.hex()
    if "." not in text:
        return text
    mantissa, exponent = text.split("p")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return mantissa + "p" + exponent


def c_values(t):
    flat = t.data.reshape(-1)
    if t.data.dtype.kind == "f":
        suffix = "f" if t.data.dtype.itemsize == 4 else ""
        if t.data.dtype.itemsize == 2:
            raise SystemExit(f"{t.name}: f16 tensors go to the blob, not the header")
        return [short_hex(float(v)) + suffix for v in flat]
    return [str(int(v)) for v in flat]


C_TYPES = {"f4": "float", "f8": "double", "i1": "int8_t", "u1": "uint8_t", "i2": "int16_t",
           "i4": "int32_t", "i8": "int64_t", "b1": "uint8_t"}


def write_header(path, tensors, prefix, source):
    guard = re.sub(r"[^0-9A-Za-z]", "_", path.split("/")[-1]).upper() + "_"
    lines = [
        f"/* Generated by tools/convert_weights.py from {source}: do not edit. */",
        f"#ifndef {guard}",
        f"#define {guard}",
        "",
        "#include <stdint.h>",
        "",
    ]
    for t in tensors:
        symbol = c_symbol(prefix, t.name)
        ctype = C_TYPES[t.data.dtype.kind + str(t.data.dtype.itemsize)]
        values = c_values(t)
        layout = "packed for the projection kernel" if t.packed else "row-major"
        shape = ", ".join(str(d) for d in t.shape)
        lines.append(f"/* {t.name} [{shape}], {layout} */")
        for axis, d in enumerate(t.shape):
            lines.append(f"#define {symbol.upper()}_DIM{axis} {d}")
        lines.append(f"static const {ctype} {symbol}[{max(len(values), 1)}] __attribute__((aligned(64))) = {{")
        for i in range(0, len(values), 8):
            lines.append("    " + ", ".join(values[i : i + 8]) + ",")
        if not values:
            lines.append("    0,")
        lines.append("};")
        lines.append("")
    lines.append(f"#endif /* {guard} */")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("input", help="state_dict as .safetensors or .npz")
    parser.add_argument("--blob", help="write the edgeattn weight blob here")
    parser.add_argument("--header", help="write a C header of constant arrays here")
    parser.add_argument("--symbol-prefix", default="", help="prefix of the header's array names")
    parser.add_argument("--pack", action="append", default=[], help="tensor to store packed")
    parser.add_argument("--pack-linear", action="store_true",
                        help="pack every 2-D float tensor whose name ends in 'weight'")
    parser.add_argument("--only", action="append", default=[], help="keep only these tensors")
    args = parser.parse_args(argv)
    if not args.blob and not args.header:
        parser.error("give --blob, --header or both")
    arrays = read_tensors(args.input)
    for name in args.pack + args.only:
        if name not in arrays:
            raise SystemExit(f"{name}: not in {args.input}")
    tensors = []
    # By name: the same state_dict gives the same blob from either format.
    for name, array in sorted(arrays.items()):
        if args.only and name not in args.only:
            continue
        packed = name in args.pack or (
            args.pack_linear and name.endswith("weight") and array.ndim == 2 and array.dtype.kind == "f"
        )
        tensors.append(Tensor(name, array, packed))
    if args.blob:
        write_blob(args.blob, tensors)
    if args.header:
        write_header(args.header, tensors, args.symbol_prefix, args.input.split("/")[-1])


if __name__ == "__main__":
    main(sys.argv[1:])
