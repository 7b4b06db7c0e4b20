#!/usr/bin/env python3
"""make_seeds.py — writes the seed corpus of the libFuzzer harnesses (tests/fuzz/corpus/).

Each seed is a short program in the byte code its harness reads (see the harness's run_op),
spelled here with small encoders that mirror the harness's readers (fz_int, fz_scalar, ...),
so that fuzzing starts from calls that succeed and reach deep code: views of views, every op
family, named tensors. The files are committed; run this again only after changing the byte
code of a harness. Usage: python3 tests/fuzz/make_seeds.py
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# fuzz_input.h: fz_edges, in order
EDGES = [-1, 2**63 - 1, -2**63, 2**63 - 2, 2**62, 2**62 + 1, -2**62, 2**32, 2**31 - 1, 2**31,
         2**40, 2**20, (2**63 - 1) // 2, 3037000500, 4096, -2]
DTYPES = {"bool": 0, "uint8": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "float16": 6,
          "bfloat16": 7, "float32": 8, "float64": 9}


def fz_int(v):
    """The bytes fz_int reads as v."""
    if 0 <= v < 8:
        return bytes([v])
    if -24 <= v <= 23:
        return bytes([0xB0 + v + 24])
    if v in EDGES:
        return bytes([0xE0 + EDGES.index(v)])
    return bytes([0xF0]) + struct.pack("<q", v)


def ints(*vs):
    return b"".join(fz_int(v) for v in vs)


def scalar_int(v):
    return bytes([1]) + fz_int(v)  # kind 1: an integer


def scalar_float(i):
    return bytes([2 | (i << 2)])  # kind 2: floats[i] of fz_scalar


# ------------------------------------------------------------------ fuzz_views

VIEW_NAMES = {None: 0, "N": 6, "C": 1, "H": 2, "W": 3, "features": 10, "batch": 5}


def v_names(names):
    """fuzz_names: a 'given' byte, then one byte per dim."""
    if names is None:
        return bytes([0])
    return bytes([1]) + bytes(VIEW_NAMES[n] for n in names)


def v_op(op, src, dst, args=b""):
    return bytes([op, src, dst]) + args


def v_create(dst, kind, dtype, sizes, names=None):
    """op_create (selector byte 1): kind 0 empty, 1 zeros, 2 from_buffer."""
    nd = len(sizes)
    names_bytes = v_names(names) if names else bytes([0]) + bytes(nd)
    return v_op(0, 0, dst, bytes([1, kind, DTYPES[dtype], nd]) + ints(*sizes) + names_bytes)


def v_external(dst, dtype, sizes, strides, nbytes):
    """op_external (selector byte 0): strides None for contiguous; nbytes a multiple of 8."""
    nd = len(sizes)
    return v_op(0, 0, dst, bytes([0, DTYPES[dtype], nd]) + ints(*sizes)
                + ints(*(strides or [0] * nd)) + bytes([strides is None, 0, nbytes // 8]))


def views_seeds():
    named = v_create(0, 2, "float32", [2, 3, 4], ["N", "C", "H"])
    return {
        # transpose, narrow, select, view and reshape of a named buffer
        "chain": named + v_op(20, 0, 1, ints(0, 2)) + v_op(6, 1, 2, ints(1, 1, 2))
        + v_op(7, 2, 3, ints(0, 1)) + v_op(2, 0, 4, bytes([2]) + ints(6, 4))
        + v_op(3, 1, 5, bytes([1]) + ints(-1)),
        # the known finding: an empty view with a stride of 2^62, then copied
        "empty_huge_stride": v_create(0, 1, "float32", [4])
        + v_op(1, 0, 1, bytes([2]) + ints(0, 4) + ints(1, 2**62) + ints(0))
        + v_op(23, 1, 2) + v_op(7, 1, 3, ints(1, 3)),
        # an empty view at an offset near INT64_MAX
        "empty_far_offset": v_create(0, 2, "int16", [4])
        + v_op(1, 0, 1, bytes([1]) + ints(0) + ints(1) + ints(2**63 - 2)) + v_op(24, 1, 2),
        # expand, unsqueeze, squeeze, permute of a bool buffer
        "expand_bool": v_create(0, 2, "bool", [1, 3])
        + v_op(5, 0, 1, bytes([1, 0x90, 5, 0, 0x40])) + v_op(10, 1, 2, ints(0))
        + v_op(8, 2, 3) + v_op(4, 1, 4, bytes([0, 1, 0])),
        # names: flatten (C, H) into 'features', unflatten it back, align_to('H', 'N', ...)
        "names": named
        + v_op(13, 0, 1, bytes([2]) + v_names(["C", "H"]) + v_names(["features"]))
        + v_op(14, 1, 2, ints(1) + bytes([2]) + ints(3, 4) + v_names(["C", "H"]))
        + v_op(19, 0, 3, bytes([3, 2 + 2]) + v_names(["H", "N", None])),
        # split, split_with_sizes, chunk, unbind
        "split": named + v_op(22, 0, 1, bytes([0]) + ints(2, 2) + bytes([1]))
        + v_op(22, 0, 4, bytes([1]) + ints(2, 0) + bytes([0, 2]) + ints(1, 3) + bytes([0]))
        + v_op(22, 0, 2, bytes([2]) + ints(1, 2) + bytes([0]))
        + v_op(22, 0, 3, bytes([3]) + ints(0, 0) + bytes([1])),
        # absurd sizes: 2^62 elements must be refused, not allocated
        "absurd": v_create(0, 0, "uint8", [2**31, 2**31]) + v_create(1, 1, "float64", [2**62]),
        # external memory: a strided view of a 64-byte buffer, one that reaches past it
        "external": v_external(0, "int16", [3, 4], [8, 1], 64)
        + v_external(1, "int32", [2, 3], [15, 1], 64) + v_op(20, 0, 2, ints(0, 1)),
    }


# ------------------------------------------------------------------ fuzz_ops

def o_create(dtype, sizes, data, dst):
    return bytes([0, DTYPES[dtype], len(sizes)]) + bytes(sizes) + data + bytes([dst])


def f32(*vs):
    return struct.pack("<%df" % len(vs), *vs)


def ops_seeds():
    a = o_create("float32", [2, 3], f32(1, -2, 3.5, float("nan"), 0, 7), 0)
    b = o_create("float32", [3], f32(0.5, 2, -1), 1)
    mask = o_create("bool", [2, 3], bytes([0, 1, 2, 0, 255, 1]), 2)  # bytes other than 0/1
    ints64 = o_create("int64", [2], struct.pack("<2q", 1, 0), 3)
    base = a + b + mask + ints64
    # op_binary: op, operand a (slot), operand b (slot), alpha, use_alpha, out, inplace, dst
    binary = bytes([5, 0, 1, 0, 1, 1]) + scalar_int(2) + bytes([0, 1, 1, 4])
    # op_reduce: slot, dtype arg, which, dims (count 1: dim 1), keepdim, correction, dst
    reduce = bytes([10, 0, 0, 0, 1]) + ints(1) + bytes([1, 2, 5])
    # op_reduce_dim: slot, dim, k, keepdim, flag, which (max_dim), dsts
    reduce_dim = bytes([11, 0]) + ints(1, 1) + bytes([0, 1, 0, 4, 5])
    # op_scan: slot, dim, dtype arg, which (softmax), dst
    scan = bytes([12, 0]) + ints(1) + bytes([0, 2, 4])
    # op_matmul: a, b, c, which (mv), beta, alpha, dst
    matmul = bytes([14, 0, 1, 0, 3]) + scalar_int(1) + scalar_int(1) + bytes([5])
    # op_index: t, value, count 2, [tensor idx: slot 3], [slice 0:END:1], scalar, single, get
    index = bytes([15, 0, 1, 2, 5, 3, 1]) + ints(0) + bytes([1, 0, 0]) + scalar_int(3) \
        + bytes([0, 0, 4])
    # op_mask: t, mask, value, scalar, masked_fill
    mask_op = bytes([9, 0, 2, 1]) + scalar_float(2) + bytes([0, 5])
    # op_where: cond, out?, a (slot 0), b (scalar)
    where = bytes([7, 2, 1, 1, 0, 0]) + scalar_int(0) + bytes([4])
    # op_view as_strided, wild: sizes (0, 4), strides (2^62, 4096), offset 2^20 (fz_edges
    # indices 4, 14, 11), then a sum over its empty dim and a cumsum
    wild = bytes([2, 0, 0, 2, 0xC0, 3, 4, 4, 14, 0, 11, 4])
    wild_sum = bytes([10, 4, 0, 0, 1]) + ints(0) + bytes([0, 0, 5]) \
        + bytes([12, 4]) + ints(1) + bytes([0, 0, 5])
    # op_format with custom options: threshold 1, INT64_MAX edgeitems, INT64_MIN linewidth
    fmt = bytes([17, 0, 0, 0, 4, 0, 1, 0xF0]) + fz_int(2**63 - 1) + bytes([0xF0]) \
        + fz_int(-2**63) + bytes([1])
    return {
        "binary_reduce": base + binary + reduce + reduce_dim + scan,
        "products_index": base + matmul + index + mask_op + where,
        "wild_views": base + wild + wild_sum + fmt,
    }


# ------------------------------------------------------------------ fuzz_names

def n_intern(text):
    data = text.encode("latin-1")
    assert len(data) < 24
    return bytes([0, 0, len(data)]) + data


def names_seeds():
    # list after interning: [None, bogus, N, C, H, W]
    interned = n_intern("N") + n_intern("C") + n_intern("H") + n_intern("W")
    zeros = bytes([1, 0, 3, 2, 3, 2, 2, 3, 4, 1, 0])  # zeros [2, 3, 2] named (N, C, H)
    return {
        "valid_and_invalid": interned + n_intern("_x") + n_intern("9a") + n_intern("a\x00b")
        + n_intern("\xc3\x28") + n_intern("feature_1"),
        "rename_align": interned + zeros
        + bytes([2, 0, 0, 5, 4, 0, 0, 0, 0, 1, 1])  # rename_n to (W, H, None)
        + bytes([3, 0, 3, 4, 4, 2, 0, 0, 1, 2])     # align_to('H', 'N', ...)
        + bytes([6, 2]),                            # format
        "flatten_resolve": interned + zeros
        + bytes([4, 0, 2, 3, 4, 5, 1, 2])          # flatten_names (C, H) -> W
        + bytes([5, 0, 2, 2, 3, 1, 3]),            # dims_from_names (N, C), sum
    }


def safetensors(tensors, metadata=None):
    """A safetensors file: tensors maps key -> (dtype code, shape, data bytes)."""
    import json
    header, blobs, offset = {}, [], 0
    for key, (code, shape, blob) in tensors.items():
        header[key] = {"dtype": code, "shape": shape, "data_offsets": [offset, offset + len(blob)]}
        blobs.append(blob)
        offset += len(blob)
    if metadata is not None:
        header["__metadata__"] = metadata
    text = json.dumps(header).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + b"".join(blobs)


def load_seeds():
    # fuzz_load reads the whole input as a file: valid files of each kind to mutate from
    return {
        "named_dict": safetensors(
            {"w": ("F32", [2, 2], f32(1, 2, 3, 4)), "b": ("I64", [2], struct.pack("<2q", 5, -6))},
            {"ntensor.names.w": '["N", null]', "format": "pt"}),
        "one_tensor": safetensors({"tensor": ("BF16", [3], bytes(6))},
                                  {"ntensor.object": "tensor", "ntensor.names.tensor": '["C"]'}),
        "bool_scalar_empty": safetensors({"m": ("BOOL", [3], bytes([0, 2, 1])),
                                          "s": ("F64", [], struct.pack("<d", 0.5)),
                                          "e": ("U8", [0, 4], b"")}),
    }


def write(harness, seeds):
    folder = os.path.join(HERE, "corpus", harness)
    os.makedirs(folder, exist_ok=True)
    for name, data in seeds.items():
        with open(os.path.join(folder, name), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    write("fuzz_views", views_seeds())
    write("fuzz_ops", ops_seeds())
    write("fuzz_names", names_seeds())
    write("fuzz_load", load_seeds())
