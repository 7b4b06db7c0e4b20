#!/usr/bin/python3
"""format_cases.py — writes tests/c/ops/format_cases.h: tensors and PyTorch 1.13's repr of each.

Run with the interpreter that has torch 1.13 (/usr/bin/python3) from the repository root:
    /usr/bin/python3 tests/python/format_cases.py
Each case records the dtype, the whole storage the tensor views (as floats, doubles or
int64s), its sizes, strides and offset, its names, the print options in force, any extra
suffix (requires_grad, grad_fn), and torch's exact repr. tests/c/ops/test_format.c rebuilds the
tensor and checks that nt_format prints the same bytes.

Negative strides, which torch cannot make, are cases with `flip`: torch prints b.flip(dims)
and the C side views b's storage with those dims' strides negated.
"""
import math
import os
import sys
import warnings

import numpy as np
import torch

warnings.filterwarnings("ignore")

C_DTYPE = {
    torch.bool: "NT_BOOL", torch.uint8: "NT_UINT8", torch.int8: "NT_INT8",
    torch.int16: "NT_INT16", torch.int32: "NT_INT32", torch.int64: "NT_INT64",
    torch.float16: "NT_FLOAT16", torch.bfloat16: "NT_BFLOAT16",
    torch.float32: "NT_FLOAT32", torch.float64: "NT_FLOAT64",
}
# How the storage is written into the header: float for the dtypes float32 holds exactly.
STORAGE_KIND = {
    torch.float16: "f32", torch.bfloat16: "f32", torch.float32: "f32", torch.float64: "f64",
}
DEFAULT_OPTS = dict(precision=4, threshold=1000, edgeitems=3, linewidth=80, sci_mode=None)

torch.manual_seed(1234)
g = torch.Generator().manual_seed(1234)


def randn(*shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * scale).to(dtype)


def rounded(*shape, scale=1.0):
    """randn rounded to 3 decimals: short literals for the big summarised cases."""
    return (torch.randn(*shape, generator=g, dtype=torch.float64) * 1000).round().div(1000).mul(
        scale).float()


def randint(lo, hi, *shape, dtype=torch.int64):
    return torch.randint(lo, hi, shape, generator=g, dtype=torch.int64).to(dtype)


CASES = []


def case(label, t, opts=None, grad=None, flip=None):
    CASES.append(dict(label=label, t=t, opts=opts or {}, grad=grad, flip=flip))


def f32(values):
    return torch.tensor(values, dtype=torch.float32)


inf, nan = math.inf, math.nan

# --- 0-d
case("scalar fixed", f32(3.5))
case("scalar integral", f32(3.0))
case("scalar negative zero", f32(-0.0))
case("scalar nan", f32(nan))
case("scalar -inf", f32(-inf))
case("scalar tiny sci", f32(1.2345e-5))
case("scalar huge int sci", f32(123456789.0))
case("scalar int64", torch.tensor(-42))
case("scalar int32", torch.tensor(7, dtype=torch.int32))
case("scalar bool", torch.tensor(True))
case("scalar float64", torch.tensor(2.0 / 3.0, dtype=torch.float64))
case("scalar bfloat16", torch.tensor(1.5, dtype=torch.bfloat16))

# --- 1-d floats
case("1d randn", randn(5))
case("1d arange float", torch.arange(6.0))
case("1d integral negatives", f32([-3.0, 10.0, 250.0, -1.0]))
case("1d sci from ratio", f32([1e10, 1.0]))
case("1d int mode huge", f32([1e9, 2.0, -3.0]))
case("1d sci tiny", f32([1.2345e-5, 3.0]))
case("1d sci mixed", f32([-1.2346e-05, 123.5, 0.0, 7.25]))
case("1d nonfinite", f32([nan, inf, -inf, 1.5]))
case("1d nonfinite integral", f32([nan, inf, -inf, 2.0, -7.0]))
case("1d nan and zero", f32([nan, 0.0]))
case("1d all zero", torch.zeros(4))
case("1d negative zeros", f32([-0.0, 0.0, 1.5]))
case("1d only inf", f32([inf, -inf]))
case("1d ratio just over 1000", f32([0.5, 500.5]))
case("1d small fixed", f32([0.0001, 0.5]))
case("1d rounding ties", torch.tensor([0.00005, 0.00015, 1.23455, 2.5], dtype=torch.float64))
case("1d float64 randn", randn(7, dtype=torch.float64, scale=100))
case("1d wraps randn", randn(30))
case("1d wraps arange float", torch.arange(100.0))
case("1d wraps sci", randn(25, scale=1e6) * torch.tensor([1e-6, 1.0] * 12 + [1.0]))
case("1d width from negative", f32([-1000.25, 2.0, 3.5]))

# --- integers and bools
case("1d int64 wraps", torch.arange(-50, 50))
case("1d int64 extremes", torch.tensor([-2**63, 2**63 - 1, 0]))
case("1d uint8", torch.tensor([0, 255, 17, 3], dtype=torch.uint8))
case("1d int8", torch.tensor([-128, 127, -1, 0], dtype=torch.int8))
case("2d int16", randint(-30000, 30000, 3, 4, dtype=torch.int16))
case("2d int32", randint(-100, 100, 4, 5, dtype=torch.int32))
case("1d bool", torch.tensor([True, False, True]))
case("2d bool", randint(0, 2, 3, 5).bool())
case("1d bool all true", torch.tensor([True, True]))

# --- every dtype, 2-d
for dt in [torch.float16, torch.bfloat16, torch.float32, torch.float64]:
    case(f"2d {dt}", randn(3, 4, dtype=dt))
for dt in [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]:
    lo = 0 if dt == torch.uint8 else -100
    case(f"2d {dt}", randint(lo, 100, 2, 6, dtype=dt))
case("float16 extremes", torch.tensor([65504.0, -65504.0, 6.1e-5, 1.0], dtype=torch.float16))
case("float16 subnormal", torch.tensor([6e-8, 0.5], dtype=torch.float16))
case("bfloat16 big", torch.tensor([3.0e38, 1.0, -2.5], dtype=torch.bfloat16))
case("float16 inf", torch.tensor([inf, 1.0], dtype=torch.float16))

# --- higher dims
case("2d randn", randn(3, 4))
case("2d column", randn(4, 1))
case("2d row", randn(1, 4))
case("2d wide rows wrap", randn(3, 20))
case("3d randn", randn(2, 3, 4))
case("4d randn", randn(2, 2, 2, 3))
case("4d int", randint(-5, 5, 2, 1, 3, 2))
case("5d ones", torch.ones(1, 2, 1, 2, 1))
case("3d size one dims", randn(1, 1, 3))

# --- summarisation
case("1d summarised", rounded(2000))
case("1d summarised int", torch.arange(2000))
case("2d summarised 40x40", rounded(40, 40))
case("2d summarised 3x400", rounded(3, 400))
case("3d summarised", rounded(20, 10, 10))
case("2d summarised bool", randint(0, 2, 50, 50).bool())
case("1d summarised int8", randint(-128, 128, 1001, dtype=torch.int8))
case("2d summarised sci", rounded(40, 40, scale=1e-6))
# The hidden middle rows would force sci mode and a wider column if they were looked at.
case("2d summarised width from shown only",
     torch.cat([torch.full((3, 100), 1.5), torch.full((6, 100), 123456.25),
                torch.full((3, 100), -2.5)]))
case("4d summarised", rounded(8, 2, 8, 10))

# --- empty
case("empty 1d", torch.zeros(0))
case("empty 2d", torch.zeros(0, 3))
case("empty int64", torch.zeros(0, dtype=torch.int64))
case("empty bool 2d", torch.zeros(2, 0, dtype=torch.bool))
case("empty float64 3d", torch.zeros(2, 0, 3, dtype=torch.float64))
case("empty named", torch.zeros(0, 3, names=("N", None)))
case("empty float16 named", torch.zeros(0, dtype=torch.float16, names=("L",)))

# --- names
case("named 1d", f32([1.0, 2.0]).refine_names("N"))
case("named partially", randn(2, 3).refine_names("N", None))
case("named second only", randn(2, 3).refine_names(None, "C"))
case("named 3d", randn(2, 2, 2).refine_names("N", "C", "H"))
case("named int32 dtype before names", randint(0, 9, 2, 2, dtype=torch.int32).refine_names("a", "b"))
case("named 0-d is unnamed", f32(1.0))
case("named suffix wraps", torch.arange(1.0, 27.0).refine_names("a_rather_long_dimension_name"))
case("named dtype and names both wrap",
     randint(0, 9, 20, dtype=torch.int16).refine_names(
         "a_rather_long_dimension_name_that_goes_on_and_on_and_on_and_on"))
case("named summarised", rounded(40, 40).refine_names("rows", "cols"))
case("named long row", randn(9).refine_names("features"))

# --- non-contiguous
base = randn(4, 5)
case("transposed", base.t())
case("stepped slice", torch.arange(20.0)[::3])
case("narrowed offset", base[1:3, 2:])
case("expanded stride zero", f32([1.5, -2.0]).expand(3, 2))
case("expanded int", torch.tensor([[7], [8]]).expand(2, 4))
case("permuted 3d", randn(2, 3, 4).permute(2, 0, 1))
case("transposed summarised", rounded(50, 30).t())
case("flipped 1d", torch.arange(6.0), flip=[0])
case("flipped 2d both", randn(3, 4), flip=[0, 1])
case("flipped int rows", randint(-9, 9, 3, 3, dtype=torch.int32), flip=[0])

# --- print options
case("precision 2", randn(5), opts=dict(precision=2))
case("precision 0", f32([1.5, 2.25, -3.75]), opts=dict(precision=0))
case("precision 8 float64", randn(3, dtype=torch.float64), opts=dict(precision=8))
case("sci forced on", f32([1.5, 2.25]), opts=dict(sci_mode=True))
case("sci forced on int mode", f32([1.0, 20.0]), opts=dict(sci_mode=True))
case("sci forced on zeros", torch.zeros(3), opts=dict(sci_mode=True))
case("sci forced off", f32([1e10, 1.0, 0.5]), opts=dict(sci_mode=False))
case("sci forced off tiny", f32([1e-6, 1.0]), opts=dict(sci_mode=False))
case("threshold 5", torch.arange(10), opts=dict(threshold=5))
case("threshold 5 edgeitems 2", randn(4, 6), opts=dict(threshold=5, edgeitems=2))
case("edgeitems 1 3d", randn(4, 4, 4), opts=dict(threshold=10, edgeitems=1))
case("edgeitems 0 1d", torch.arange(10.0), opts=dict(threshold=5, edgeitems=0))
case("threshold inf", rounded(1200), opts=dict(threshold=inf))
case("linewidth 40", randn(12), opts=dict(linewidth=40))
case("linewidth 200", randn(4, 30), opts=dict(linewidth=200))
case("linewidth tiny", torch.arange(5), opts=dict(linewidth=3))
case("linewidth 40 names wrap", randn(3).refine_names("channel"), opts=dict(linewidth=40))
case("threshold 0 scalar", f32(2.5), opts=dict(threshold=0))

# --- caller's suffixes
case("requires_grad", randn(3), grad="requires_grad")
case("grad_fn with names", randn(2, 2).refine_names("N", "C"), grad="grad_fn")
case("requires_grad wraps", randn(7, dtype=torch.float64), grad="requires_grad")


def torch_repr(c):
    """torch's repr of the case, and the suffix the C side must pass for its autograd part."""
    t = c["t"]
    if c["flip"]:
        t = t.flip(c["flip"])
    suffix = None
    if c["grad"] == "requires_grad":
        t = t.clone().requires_grad_()
        suffix = "requires_grad=True"
    elif c["grad"] == "grad_fn":
        names = t.names
        x = t.rename(None).clone().requires_grad_()
        t = (x * 1).refine_names(*names)
        suffix = "grad_fn=<%s>" % type(t.grad_fn).__name__
    torch.set_printoptions(profile="default", sci_mode=None)
    torch.set_printoptions(**dict(DEFAULT_OPTS, **c["opts"]))
    try:
        return repr(t), suffix
    finally:
        torch.set_printoptions(profile="default", sci_mode=None)


def c_string(text, indent):
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        esc = line.replace("\\", "\\\\").replace('"', '\\"')
        out.append('"' + esc + ("\\n" if i < len(lines) - 1 else "") + '"')
    return ("\n" + " " * indent).join(out)


def c_float(v, kind):
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    if kind == "f32":
        s = str(np.float32(v))
        assert float(np.float32(s)) == v
        return s + "f"
    s = repr(float(v))
    return s


def c_int(v):
    v = int(v)
    if v == -2**63:
        return "INT64_MIN"
    return str(v)


def storage_of(c):
    """The storage's values, sizes, strides and offset the C side should view."""
    t = c["t"]
    if c["flip"]:
        t = t.contiguous()
    values = t.storage().tolist()
    sizes, strides, offset = list(t.shape), list(t.stride()), t.storage_offset()
    for d in c["flip"] or []:
        offset += (sizes[d] - 1) * strides[d]
        strides[d] = -strides[d]
    return values, sizes, strides, offset


def main():
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    path = os.path.join(root, "tests", "c", "ops", "format_cases.h")
    out = []
    w = out.append
    w("/*\n * format_cases.h — GENERATED by tests/python/format_cases.py from PyTorch "
      f"{torch.__version__.split('a')[0]}; do not edit.\n")
    w(" * Each case: a tensor (storage values, view metadata, names), the print options in "
      "force,\n * an extra suffix, and torch's repr of it.\n */\n")
    w("#ifndef NT_TEST_FORMAT_CASES_H\n#define NT_TEST_FORMAT_CASES_H\n\n")
    w("#include <math.h>\n#include <stdint.h>\n\n#include \"ntensor.h\"\n\n")
    w("#define FORMAT_CASE_MAX_DIMS 8\n\n")
    w("typedef struct format_case {\n"
      "    const char *label;\n"
      "    nt_dtype dtype;\n"
      "    int ndim;\n"
      "    int64_t sizes[FORMAT_CASE_MAX_DIMS];\n"
      "    int64_t strides[FORMAT_CASE_MAX_DIMS];\n"
      "    int64_t offset;\n"
      "    int64_t storage_len;\n"
      "    const float *f32;     /* the storage, for float16/bfloat16/float32 */\n"
      "    const double *f64;    /* the storage, for float64 */\n"
      "    const int64_t *i64;   /* the storage, for bool and integer dtypes */\n"
      "    const char *names[FORMAT_CASE_MAX_DIMS]; /* NULL: None */\n"
      "    nt_print_options opts;\n"
      "    const char *suffix;   /* an extra suffix for nt_format_with_suffixes, or NULL */\n"
      "    const char *expected;\n"
      "} format_case;\n\n")
    rows = []
    for i, c in enumerate(CASES):
        t = c["t"]
        values, sizes, strides, offset = storage_of(c)
        assert len(sizes) <= 8
        kind = STORAGE_KIND.get(t.dtype, "i64")
        ctype = {"f32": "float", "f64": "double", "i64": "int64_t"}[kind]
        items = [c_float(v, kind) if kind != "i64" else c_int(v) for v in values]
        if not items:
            items = ["0"]  # a C array may not be empty; storage_len says 0
        w(f"static const {ctype} format_case_{i}_data[] = {{\n")
        for j in range(0, len(items), 8):
            w("    " + ", ".join(items[j:j + 8]) + ",\n")
        w("};\n")
        opts = dict(DEFAULT_OPTS, **c["opts"])
        sci = {None: -1, False: 0, True: 1}[opts["sci_mode"]]
        thr = "INFINITY" if opts["threshold"] == inf else f"{float(opts['threshold'])!r}"
        names = t.names if t.has_names() else (None,) * t.dim()
        names_c = ", ".join('"%s"' % n if n else "NULL" for n in names) or "NULL"
        expected, suffix = torch_repr(c)
        suffix_c = '"%s"' % suffix if suffix else "NULL"
        row = [
            f"    {{\"{c['label']}\",",
            f"     {C_DTYPE[t.dtype]},",
            f"     {len(sizes)},",
            f"     {{{', '.join(map(str, sizes))}}},",
            f"     {{{', '.join(map(str, strides))}}},",
            f"     {offset},",
            f"     {len(values)},",
            f"     {('format_case_%d_data' % i) if kind == 'f32' else 'NULL'},",
            f"     {('format_case_%d_data' % i) if kind == 'f64' else 'NULL'},",
            f"     {('format_case_%d_data' % i) if kind == 'i64' else 'NULL'},",
            f"     {{{names_c}}},",
            f"     {{{opts['precision']}, {thr}, {opts['edgeitems']}, {opts['linewidth']}, {sci}}},",
            f"     {suffix_c},",
            f"     {c_string(expected, 5)}}},",
        ]
        rows.append("\n".join(row))
    w("\nstatic const format_case format_cases[] = {\n")
    w("\n".join(rows))
    w("\n};\n\n#define FORMAT_CASE_COUNT ((int)(sizeof format_cases / sizeof format_cases[0]))\n")
    w("\n#endif\n")
    with open(path, "w") as f:
        f.write("".join(out))
    print(f"wrote {len(CASES)} cases to {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
