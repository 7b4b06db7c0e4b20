"""Matrix products (mm, mv, dot, bmm, matmul, addmm, addmv, in-place, out=, @) against
PyTorch 1.13: values for every dtype PyTorch supports, on contiguous, transposed, sliced and
expanded operands (each ntensor operand has exactly the torch operand's strides), names
(the "contracts away dims" rule), out= and in-place rules, and every error text."""
import warnings

import hypothesis.strategies as st
import numpy as np
import pytest
import torch
from hypothesis import given, settings

import ntensor as nt
from helpers import TO_NT_DTYPE, assert_same, assert_same_error, from_torch

warnings.filterwarnings("ignore")

INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
FLOAT_DTYPES = [torch.bfloat16, torch.float32, torch.float64]
SUPPORTED = INT_DTYPES + FLOAT_DTYPES
UNSUPPORTED = [torch.bool, torch.float16]
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def N(t):
    """An ntensor with t's values, dtype, names, sizes, strides and storage offset."""
    names = t.names
    t = t.rename(None)
    storage = t.storage()
    base = torch.empty(0, dtype=t.dtype)
    base.set_(storage, 0, (len(storage),), (1,))
    x = from_torch(base.clone()).as_strided(tuple(t.shape), t.stride(), t.storage_offset())
    return x.refine_names(*names) if any(n is not None for n in names) else x


def rand(shape, dtype, gen):
    if dtype in INT_DTYPES:
        lo, hi = (0, 256) if dtype == torch.uint8 else (-100, 100)
        return torch.randint(lo, hi, shape, generator=gen).to(dtype)
    return torch.randn(shape, generator=gen).to(dtype)


def matrix(rows, cols, dtype, layout, gen):
    """A rows x cols torch tensor of the given layout."""
    if layout == "contiguous":
        return rand((rows, cols), dtype, gen)
    if layout == "transposed":
        return rand((cols, rows), dtype, gen).t()
    if layout == "sliced":
        return rand((rows * 2, cols * 3), dtype, gen)[::2, 1::3]
    return rand((1, cols), dtype, gen).expand(rows, cols)


def vector(n, dtype, layout, gen):
    if layout in ("contiguous", "transposed"):
        return rand((n,), dtype, gen)
    if layout == "sliced":
        return rand((n * 3,), dtype, gen)[1::3]
    return rand((1,), dtype, gen).expand(n)


# Unit roundoff of the dtype the products accumulate in (bfloat16 accumulates in float32).
ACC_U = {torch.bfloat16: 2.0 ** -24, torch.float32: 2.0 ** -24, torch.float64: 2.0 ** -53}
# The relative error of one rounding to the result's dtype (bfloat16's 8 significant bits;
# float32/float64 results round as part of their sums).
OUT_U = {torch.bfloat16: 2.0 ** -8, torch.float32: 0.0, torch.float64: 0.0}


def check(x, fn, *args, **kw):
    """Checks ntensor's result `x` against the torch function `fn` on the same arguments.

    Names, shape and dtype must be PyTorch's, integer values PyTorch's exactly (they wrap,
    whatever the order). Floating values are not compared with PyTorch's bits, which depend
    on its kernel choice (oneDNN on AVX-512 machines, OpenBLAS's tiles per CPU): they must lie
    within the rounding error of the float32/float64 sums of k products of the float64
    reference (Higham's gamma bound, (k + 3) u sum |a_i b_i|, with k the contraction length
    and |alpha|, |beta| applied to the magnitudes) plus, for bfloat16, half an ulp of the
    result: the result is the float32 sum rounded once."""
    t = fn(*args, **kw)
    assert x.names == t.names, (x.names, t.names)
    assert tuple(x.shape) == tuple(t.shape), (x.shape, t.shape)
    assert x.dtype == TO_NT_DTYPE[t.dtype], (x.dtype, t.dtype)
    if not t.dtype.is_floating_point:
        assert_same(x, t)
        return

    def widen(v, take_abs):
        if isinstance(v, torch.Tensor):
            v = v.double()
            return v.abs() if take_abs else v
        return abs(v) if take_abs and not isinstance(v, str) else v

    ref = fn(*[widen(a, False) for a in args], **{k: widen(v, False) for k, v in kw.items()})
    mag = fn(*[widen(a, True) for a in args], **{k: widen(v, True) for k, v in kw.items()})
    k = max([a.shape[-1] for a in list(args) + list(kw.values())
             if isinstance(a, torch.Tensor) and a.dim() > 0] + [1])
    ref = ref.rename(None).numpy()
    bound = (k + 3) * ACC_U[t.dtype] * mag.rename(None).numpy() + OUT_U[t.dtype] * np.abs(ref)
    got = x.rename(None).double().contiguous().numpy()
    both_nan = np.isnan(got) & np.isnan(ref)
    ok = both_nan | (np.abs(got - ref) <= bound)
    assert ok.all(), (got[~ok], ref[~ok], bound[~ok])


# ---------------------------------------------------------------- values

@pytest.mark.parametrize("dtype", SUPPORTED)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lb", LAYOUTS)
def test_mm_values(dtype, la, lb):
    gen = torch.Generator().manual_seed(1)
    for m, k, n in [(5, 7, 3), (1, 9, 4), (6, 1, 2), (4, 5, 1), (33, 70, 41)]:
        a, b = matrix(m, k, dtype, la, gen), matrix(k, n, dtype, lb, gen)
        check(nt.mm(N(a), N(b)), torch.mm, a, b)
        check(N(a).mm(N(b)), torch.mm, a, b)
        check(N(a) @ N(b), torch.matmul, a, b)


def bf16_pair(shape_a, shape_b, seed):
    """Two random bfloat16 ntensors (contiguous) and their values as float64 arrays."""
    gen = torch.Generator().manual_seed(seed)
    a = torch.randn(shape_a, generator=gen).bfloat16()
    b = torch.randn(shape_b, generator=gen).bfloat16()
    return N(a), N(b), a.double().numpy(), b.double().numpy()


def values(x):
    return np.array(x.double().tolist())


def test_bfloat16_products_round_once():
    """A bfloat16 product is the float32 product of the (exactly) widened operands, rounded
    once to bfloat16: bit for bit what ntensor's own float32 product gives, for mm, addmm,
    mv, addmv, bmm, matmul and dot."""
    x, y, _, _ = bf16_pair((33, 70), (70, 41), 11)
    c = N(torch.randn(33, 41).bfloat16())
    v, w = N(torch.randn(70).bfloat16()), N(torch.randn(33).bfloat16())
    f = lambda t: t.float()  # noqa: E731
    cases = [
        (nt.mm(x, y), nt.mm(f(x), f(y))),
        (nt.addmm(c, x, y, beta=0.5, alpha=-1.5), nt.addmm(f(c), f(x), f(y), beta=0.5, alpha=-1.5)),
        (nt.mv(x, v), nt.mv(f(x), f(v))),
        (nt.addmv(w, x, v, beta=2, alpha=0.25), nt.addmv(f(w), f(x), f(v), beta=2, alpha=0.25)),
        (nt.bmm(x[None].expand(3, 33, 70).contiguous(), y[None].expand(3, 70, 41).contiguous()),
         nt.bmm(f(x)[None].expand(3, 33, 70).contiguous(),
                f(y)[None].expand(3, 70, 41).contiguous())),
        (nt.matmul(x, y), nt.matmul(f(x), f(y))),
    ]
    for got, wide in cases:
        assert got.dtype == nt.bfloat16
        assert got.tolist() == wide.bfloat16().tolist()
    # dot sums in float32 in order: compare with that sum, rounded once
    dv = values(v)
    acc = np.float32(0)
    for p in (dv * dv).astype(np.float32):
        acc = np.float32(acc + p)
    assert nt.dot(v, v).item() == torch.tensor(float(acc)).bfloat16().item()


@pytest.mark.parametrize("layout", ["contiguous", "transposed"])
def test_bfloat16_products_are_correctly_rounded(layout):
    """Against the exact (float64) product: every element within half an ulp of bfloat16
    plus the float32 accumulation error, and, away from rounding ties, exactly the
    correctly rounded value (PyTorch 1.13's step-by-step rounding gets 19% of them right on
    machines without AVX-512, with errors up to 0.5 on this product)."""
    x, y, a, b = bf16_pair((33, 70), (70, 41), 12)
    if layout == "transposed":
        x, y = x.t().contiguous().t(), y.t().contiguous().t()
    exact = a @ b
    got = values(x @ y)
    acc = 73 * 2.0 ** -24 * (np.abs(a) @ np.abs(b))
    assert np.all(np.abs(got - exact) <= 2.0 ** -8 * np.abs(exact) + acc)
    nearest = torch.from_numpy(exact).bfloat16().double().numpy()
    # a value within `acc` of a midpoint between two bfloat16 numbers may round either way
    ulp = np.ldexp(1.0, np.frexp(exact)[1] - 8)
    tie = np.abs(np.abs(exact - nearest) - ulp / 2) <= acc
    assert np.all((got == nearest) | tie)
    assert (got == nearest).mean() > 0.99


@pytest.mark.parametrize("dtype", SUPPORTED)
@pytest.mark.parametrize("la", LAYOUTS)
@pytest.mark.parametrize("lv", ["contiguous", "sliced", "expanded"])
def test_mv_and_addmv_values(dtype, la, lv):
    gen = torch.Generator().manual_seed(3)
    for m, k in [(5, 7), (1, 9), (6, 1), (40, 300)]:
        a, v = matrix(m, k, dtype, la, gen), vector(k, dtype, lv, gen)
        check(nt.mv(N(a), N(v)), torch.mv, a, v)
        check(N(a) @ N(v), torch.matmul, a, v)
        bias = rand((m,), dtype, gen)
        check(nt.addmv(N(bias), N(a), N(v)), torch.addmv, bias, a, v)
        beta, alpha = (2, 3) if dtype in INT_DTYPES else (0.5, -1.25)
        check(nt.addmv(N(bias), N(a), N(v), beta=beta, alpha=alpha),
              torch.addmv, bias, a, v, beta=beta, alpha=alpha)
        one = rand((1,), dtype, gen)
        check(nt.addmv(N(one), N(a), N(v), beta=beta), torch.addmv, one, a, v, beta=beta)


@pytest.mark.parametrize("dtype", SUPPORTED)
@pytest.mark.parametrize("layout", ["contiguous", "sliced", "expanded"])
def test_dot_values(dtype, layout):
    gen = torch.Generator().manual_seed(4)
    for n in [0, 1, 5, 1000]:
        a, b = vector(n, dtype, layout, gen), vector(n, dtype, "contiguous", gen)
        check(nt.dot(N(a), N(b)), torch.dot, a, b)
        check(N(a).dot(N(b)), torch.dot, a, b)
        check(N(a) @ N(b), torch.matmul, a, b)


@pytest.mark.parametrize("dtype", SUPPORTED)
@pytest.mark.parametrize("layout", LAYOUTS)
def test_bmm_values(dtype, layout):
    gen = torch.Generator().manual_seed(5)
    for bs, m, k, n in [(3, 4, 5, 6), (2, 20, 30, 10), (4, 1, 7, 1), (2, 3, 0, 4), (0, 2, 3, 4)]:
        a = rand((bs, m, k), dtype, gen)
        b = rand((bs, k, n), dtype, gen)
        if layout == "transposed":
            a = rand((bs, k, m), dtype, gen).transpose(1, 2)
        elif layout == "sliced":
            b = rand((bs, k, 2 * n), dtype, gen)[:, :, ::2]
        elif layout == "expanded":
            b = rand((1, k, n), dtype, gen).expand(bs, k, n)
        check(nt.bmm(N(a), N(b)), torch.bmm, a, b)
        check(N(a).bmm(N(b)), torch.bmm, a, b)


MATMUL_SHAPES = [
    ((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
    ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)),
    ((5, 2, 3), (5, 3, 4)), ((1, 2, 3), (5, 3, 4)), ((6, 1, 2, 3), (5, 3, 4)),
    ((2, 5, 2, 3), (3,)), ((3,), (2, 5, 3, 4)), ((4, 1, 2, 3), (1, 6, 3, 2)),
    ((0, 2, 3), (3, 4)), ((2, 0), (0, 3)), ((7, 2, 3), (3, 0)), ((64, 16, 32), (32, 24)),
]


@pytest.mark.parametrize("dtype", SUPPORTED)
@pytest.mark.parametrize("sa,sb", MATMUL_SHAPES)
def test_matmul_values(dtype, sa, sb):
    gen = torch.Generator().manual_seed(6)
    a, b = rand(sa, dtype, gen), rand(sb, dtype, gen)
    check(nt.matmul(N(a), N(b)), torch.matmul, a, b)
    check(N(a).matmul(N(b)), torch.matmul, a, b)
    check(N(a) @ N(b), torch.matmul, a, b)


@pytest.mark.parametrize("dtype", [torch.float32, torch.int64, torch.bfloat16])
def test_matmul_non_contiguous(dtype):
    gen = torch.Generator().manual_seed(7)
    cases = [
        (rand((7, 3, 2), dtype, gen).permute(0, 2, 1), rand((3, 5), dtype, gen)),  # bmm path
        (rand((3, 7, 2), dtype, gen).permute(1, 2, 0), rand((3, 5), dtype, gen)),  # fold, copy
        (rand((2, 3), dtype, gen), rand((7, 5, 3), dtype, gen).transpose(1, 2)),
        (rand((4, 6, 3), dtype, gen)[::2], rand((1, 3, 5), dtype, gen).expand(2, 3, 5)),
        (rand((5, 1, 2, 3), dtype, gen).expand(5, 4, 2, 3), rand((4, 3, 2), dtype, gen)),
        (rand((3,), dtype, gen), rand((4, 5, 3), dtype, gen).transpose(1, 2)),
    ]
    for a, b in cases:
        check(nt.matmul(N(a), N(b)), torch.matmul, a, b)


@pytest.mark.parametrize("dtype", SUPPORTED)
@pytest.mark.parametrize("la", LAYOUTS)
def test_addmm_values(dtype, la):
    gen = torch.Generator().manual_seed(8)
    for m, k, n in [(5, 7, 3), (4, 5, 1), (30, 40, 50)]:
        a, b = matrix(m, k, dtype, la, gen), matrix(k, n, dtype, "contiguous", gen)
        for bias in [rand((m, n), dtype, gen), rand((n,), dtype, gen), rand((), dtype, gen)]:
            check(nt.addmm(N(bias), N(a), N(b)), torch.addmm, bias, a, b)
            for beta, alpha in [(0, 1), (1, 0), (2, 3), (0.5, 1.5), (True, -2)]:
                if dtype in INT_DTYPES and isinstance(alpha, int) and alpha < 0 and \
                        dtype == torch.uint8:
                    continue
                check(nt.addmm(N(bias), N(a), N(b), beta=beta, alpha=alpha),
                      torch.addmm, bias, a, b, beta=beta, alpha=alpha)
                check(N(bias).addmm(N(a), N(b), beta=beta, alpha=alpha),
                      torch.addmm, bias, a, b, beta=beta, alpha=alpha)


def test_beta_zero_ignores_nan_and_empty_contraction():
    a, b = torch.randn(2, 3), torch.randn(3, 4)
    nan = torch.full((2, 4), float("nan"))
    check(nt.addmm(N(nan), N(a), N(b), beta=0), torch.addmm, nan, a, b, beta=0)
    nanv = torch.full((2,), float("nan"))
    check(nt.addmv(N(nanv), N(a), N(b[:, 0]), beta=0), torch.addmv, nanv, a, b[:, 0], beta=0)
    bias = torch.full((2, 3), 4.0)
    check(nt.addmm(N(bias), N(torch.ones(2, 0)), N(torch.ones(0, 3)), beta=0.5),
          torch.addmm, bias, torch.ones(2, 0), torch.ones(0, 3), beta=0.5)
    check(nt.mm(N(torch.ones(2, 0)), N(torch.ones(0, 3))), torch.mm, torch.ones(2, 0),
          torch.ones(0, 3))
    check(nt.mv(N(torch.ones(2, 0)), N(torch.ones(0))), torch.mv, torch.ones(2, 0),
          torch.ones(0))
    li = torch.arange(6).reshape(2, 3)
    check(nt.addmm(N(li[:, :2]), N(li), N(li.t()), alpha=0.5), torch.addmm, li[:, :2], li,
          li.t(), alpha=0.5)


def test_integer_wraparound():
    for dtype in [torch.int8, torch.uint8, torch.int16, torch.int32]:
        info = torch.iinfo(dtype)
        a = torch.full((3, 50), info.max, dtype=dtype)
        b = torch.full((50, 2), info.max - 1, dtype=dtype)
        check(nt.mm(N(a), N(b)), torch.mm, a, b)
        check(nt.dot(N(a[0]), N(b[:, 0])), torch.dot, a[0], b[:, 0])
        check(nt.mv(N(a), N(b[:, 0])), torch.mv, a, b[:, 0])


# ---------------------------------------------------------------- in-place and out=

@pytest.mark.parametrize("dtype", [torch.float32, torch.int32, torch.bfloat16])
def test_inplace(dtype):
    gen = torch.Generator().manual_seed(9)
    a, b = rand((4, 5), dtype, gen), rand((5, 3), dtype, gen)
    c = rand((4, 3), dtype, gen)
    x = N(c)
    r = x.addmm_(N(a), N(b), beta=2, alpha=3)
    assert r is x
    check(x, torch.addmm, c, a, b, beta=2, alpha=3)
    # a transposed (non-contiguous) self is computed in a temporary and copied back
    ct = rand((3, 4), dtype, gen).t()
    y = N(ct)
    y.addmm_(N(a), N(b))
    check(y, torch.addmm, ct, a, b)
    # self aliasing an operand
    sq = rand((4, 4), dtype, gen)
    z = N(sq)
    z.addmm_(z, z)
    check(z, torch.addmm, sq, sq, sq)
    v = rand((4,), dtype, gen)
    w = N(v)
    assert w.addmv_(N(a), N(b[:, 0])) is w
    check(w, torch.addmv, v, a, b[:, 0])


def test_out_forms():
    gen = torch.Generator().manual_seed(10)
    a, b = torch.randn(4, 5, generator=gen), torch.randn(5, 3, generator=gen)
    # (ntensor's call with out=o, torch's function, its arguments and keywords, out's shape)
    cases = [
        (lambda o: nt.mm(N(a), N(b), out=o), torch.mm, (a, b), {}, (4, 3)),
        (lambda o: nt.mv(N(a), N(b[:, 0]), out=o), torch.mv, (a, b[:, 0]), {}, (4,)),
        (lambda o: nt.dot(N(a[0]), N(b[:, 0]), out=o), torch.dot, (a[0], b[:, 0]), {}, ()),
        (lambda o: nt.bmm(N(a[None]), N(b[None]), out=o), torch.bmm, (a[None], b[None]), {},
         (1, 4, 3)),
        (lambda o: nt.matmul(N(a), N(b), out=o), torch.matmul, (a, b), {}, (4, 3)),
        (lambda o: nt.matmul(N(a[0]), N(b), out=o), torch.matmul, (a[0], b), {}, (3,)),
        (lambda o: nt.matmul(N(a.expand(2, 4, 5)), N(b), out=o), torch.matmul,
         (a.expand(2, 4, 5), b), {}, (2, 4, 3)),
        (lambda o: nt.matmul(N(a.expand(2, 4, 5)), N(b.expand(2, 5, 3)), out=o), torch.matmul,
         (a.expand(2, 4, 5), b.expand(2, 5, 3)), {}, (2, 4, 3)),
        (lambda o: nt.matmul(N(b.t()), N(a.t().expand(2, 5, 4)), out=o), torch.matmul,
         (b.t(), a.t().expand(2, 5, 4)), {}, (2, 3, 4)),
        (lambda o: nt.addmm(N(torch.ones(3)), N(a), N(b), beta=2, out=o), torch.addmm,
         (torch.ones(3), a, b), {"beta": 2}, (4, 3)),
        (lambda o: nt.addmv(N(torch.ones(4)), N(a), N(b[:, 1]), alpha=2, out=o), torch.addmv,
         (torch.ones(4), a, b[:, 1]), {"alpha": 2}, (4,)),
    ]
    for nt_fn, torch_fn, args, kw, shape in cases:
        for transposed in (False, True):
            if transposed and len(shape) < 2:
                continue
            o = torch.zeros(shape)
            if transposed:
                o = torch.zeros(shape[::-1]).transpose(-1, -2) if len(shape) == 2 else \
                    torch.zeros(shape).transpose(-1, -2).contiguous().transpose(-1, -2)
            x = N(o)
            r = nt_fn(x)
            assert r is x
            assert x.stride() == o.stride()
            check(x, torch_fn, *args, **kw)


def test_out_errors():
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    for dt in [torch.float64, torch.int64, torch.bool, torch.float16, torch.bfloat16]:
        o = torch.zeros(2, 4, dtype=dt)
        assert_same_error(lambda: nt.mm(N(a), N(b), out=N(o)), lambda: torch.mm(a, b, out=o))
        assert_same_error(lambda: nt.matmul(N(a), N(b), out=N(o)),
                          lambda: torch.matmul(a, b, out=o))
        assert_same_error(lambda: nt.addmm(N(o[:, 0:1].float()), N(a), N(b), out=N(o)),
                          lambda: torch.addmm(o[:, 0:1].float(), a, b, out=o))
    od = torch.zeros((), dtype=torch.float64)
    assert_same_error(lambda: nt.dot(N(a[0]), N(a[1]), out=N(od)),
                      lambda: torch.dot(a[0], a[1], out=od))
    ov = torch.zeros(2, dtype=torch.float64)
    assert_same_error(lambda: nt.mv(N(a), N(b[:, 0]), out=N(ov)),
                      lambda: torch.mv(a, b[:, 0], out=ov))
    ob = torch.zeros(1, 2, 4, dtype=torch.float64)
    assert_same_error(lambda: nt.bmm(N(a[None]), N(b[None]), out=N(ob)),
                      lambda: torch.bmm(a[None], b[None], out=ob))


# (call, out shape): every path of every product, with outs of the result's shape, of
# another, and empty
OUT_RESIZE_CASES = [
    (e, s) for e, shapes in [
        ("m.dot(v3, v3, out=o)", [(), (1,), (2,), (0,)]),
        ("m.mv(a2, v3, out=o)", [(2,), (3,), (0,), (2, 2)]),
        ("m.mm(a2, b2, out=o)", [(2, 4), (3,), (0,), (4, 2)]),
        ("m.bmm(a3, b3, out=o)", [(5, 2, 4), (3,), (0,)]),
        ("m.addmm(w4, a2, b2, out=o)", [(2, 4), (3,), (0,)]),
        ("m.addmv(w2, a2, v3, out=o)", [(2,), (3,), (0,)]),
        ("m.matmul(v3, b2, out=o)", [(4,), (1, 4), (3,), (0,), (2, 2)]),
        ("m.matmul(a3, b2, out=o)", [(5, 2, 4), (10, 4), (3,), (0,)]),
        ("m.matmul(a3, v3, out=o)", [(5, 2), (10,), (0,)]),
        ("m.matmul(a3, a3.transpose(1, 2), out=o)", [(5, 2, 2), (3,), (0,)]),
        ("m.matmul(b2.t(), b3, out=o)", [(5, 4, 4), (3,), (0,)]),
        ("m.matmul(v3, b3, out=o)", [(5, 4), (3,), (0,)]),
    ] for s in shapes]


def _out_call(m, expr, shape, dtype):
    a2, b2, v3, w2, w4 = m.ones(2, 3), m.ones(3, 4), m.ones(3), m.ones(2), m.ones(4)
    a3, b3 = m.ones(5, 2, 3), m.ones(5, 3, 4)
    o = m.zeros(shape, dtype=dtype)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = eval(expr)
    texts = [str(w.message).split(" (Triggered")[0] for w in caught if "resized" in str(w.message)]
    assert r is o
    return tuple(o.shape), o.stride(), o.sum().item(), texts


@pytest.mark.parametrize("expr,shape", OUT_RESIZE_CASES, ids=str)
def test_out_resize_matches_pytorch(expr, shape):
    """An out= of another shape is resized as PyTorch resizes it, with its warning."""
    assert _out_call(nt, expr, shape, nt.float32) == _out_call(torch, expr, shape, torch.float32)


def test_out_dtype_checked_where_pytorch_checks_it():
    """A wrong dtype and a wrong shape: the structured kernels check the dtype first, dot and
    matmul's folded path resize first (the out keeps its new shape)."""
    for expr in ["m.dot(v3, v3, out=o)", "m.mm(a2, b2, out=o)", "m.matmul(a3, b2, out=o)",
                 "m.matmul(v3, b2, out=o)", "m.mv(a2, v3, out=o)", "m.bmm(a3, b3, out=o)"]:
        outs = {}
        for m in (torch, nt):
            a2, b2, v3 = m.ones(2, 3), m.ones(3, 4), m.ones(3)
            a3, b3 = m.ones(5, 2, 3), m.ones(5, 3, 4)
            o = outs[m] = m.zeros(3, dtype=m.float64)
            with pytest.raises(RuntimeError) as e:
                eval(expr)
            outs[m] = (str(e.value), tuple(o.shape))
        assert outs[nt] == outs[torch], expr


def test_inplace_errors():
    a, b = torch.ones(2, 3), torch.ones(3, 4)
    assert_same_error(lambda: N(torch.ones(4)).addmm_(N(a), N(b)),
                      lambda: torch.ones(4).addmm_(a, b))
    assert_same_error(lambda: N(torch.ones(2, 5)).addmm_(N(a), N(b)),
                      lambda: torch.ones(2, 5).addmm_(a, b))
    assert_same_error(lambda: N(torch.ones(2, 4).double()).addmm_(N(a), N(b)),
                      lambda: torch.ones(2, 4).double().addmm_(a, b))
    assert_same_error(lambda: N(torch.ones(1)).addmv_(N(a), N(b[:, 0])),
                      lambda: torch.ones(1).addmv_(a, b[:, 0]))
    assert_same_error(lambda: N(torch.ones(2).double()).addmv_(N(a), N(b[:, 0])),
                      lambda: torch.ones(2).double().addmv_(a, b[:, 0]))


# ---------------------------------------------------------------- errors

F, D = torch.float32, torch.float64


def ones(*s, dtype=F):
    return torch.ones(*s, dtype=dtype)


ERROR_CASES = [
    ("mm", (ones(3), ones(3, 3))), ("mm", (ones(3, 3), ones(3))), ("mm", (ones(2, 3, 3), ones(3, 3))),
    ("mm", (torch.tensor(1.0), ones(3, 3))), ("mm", (ones(2, 3), ones(4, 5))),
    ("mm", (ones(2, 3), ones(3, 4, dtype=D))), ("mm", (ones(2, 3, dtype=D), ones(3, 4))),
    ("mm", (ones(2, 3, dtype=torch.int32), ones(3, 4))),
    ("mm", (ones(2, 3, dtype=torch.bool), ones(3, 4))),
    ("mm", (ones(2, 3), ones(3, 4, dtype=torch.bool))),
    ("mm", (ones(2, 3, dtype=torch.float16), ones(3, 4, dtype=torch.float16))),
    ("mm", (ones(2, 3, dtype=torch.bfloat16), ones(3, 4, dtype=torch.float16))),
    ("mv", (ones(2, 3), ones(3, 1))), ("mv", (ones(3), ones(3))), ("mv", (ones(2, 3), ones(4))),
    ("mv", (ones(2, 3), ones(3, dtype=D))), ("mv", (ones(2, 3, dtype=D), ones(3))),
    ("mv", (ones(2, 3, dtype=torch.float16), ones(3, dtype=torch.float16))),
    ("mv", (torch.tensor(1.0), ones(3))), ("addmv", (torch.tensor(1.0), ones(2, 3), ones(4))),
    ("addmv", (ones(1), ones(2, 3), ones(4))),
    ("dot", (ones(2, 3), ones(2, 3))), ("dot", (ones(3), ones(2, 3))),
    ("dot", (torch.tensor(1.0), ones(3))), ("dot", (ones(3), ones(4))),
    ("dot", (ones(3), ones(3, dtype=D))), ("dot", (ones(3, dtype=torch.int64), ones(3, dtype=torch.int32))),
    ("dot", (ones(3, dtype=torch.bool), ones(3, dtype=torch.bool))), ("dot", (ones(0), ones(0, dtype=D))),
    ("bmm", (ones(2, 3), ones(2, 3, 4))), ("bmm", (ones(2, 2, 3), ones(3, 4))),
    ("bmm", (ones(2, 2, 3), ones(3, 3, 4))), ("bmm", (ones(2, 2, 3), ones(2, 4, 4))),
    ("bmm", (ones(2, 2, 3), ones(2, 3, 4, dtype=D))), ("bmm", (ones(2, 2, 3, dtype=D), ones(2, 3, 4))),
    ("bmm", (ones(2, 30, 30), ones(2, 30, 30, dtype=D))),
    ("bmm", (ones(2, 30, 30, dtype=torch.int32), ones(2, 30, 30))),
    ("bmm", (ones(2, 2, 3, dtype=torch.bool), ones(2, 3, 4, dtype=torch.bool))),
    ("bmm", (ones(2, 30, 30, dtype=torch.bool), ones(2, 30, 30, dtype=torch.bool))),
    ("matmul", (torch.tensor(1.0), ones(3))), ("matmul", (ones(3), torch.tensor(1.0))),
    ("matmul", (ones(3), ones(4))), ("matmul", (ones(2, 3), ones(4))), ("matmul", (ones(3), ones(4, 5))),
    ("matmul", (ones(2, 3), ones(4, 5))), ("matmul", (ones(7, 2, 3), ones(4, 5))),
    ("matmul", (ones(7, 2, 3), ones(4))), ("matmul", (ones(3), ones(7, 4, 5))),
    ("matmul", (ones(2, 3), ones(7, 4, 5))), ("matmul", (ones(7, 2, 3), ones(7, 4, 5))),
    ("matmul", (ones(7, 2, 3), ones(6, 3, 5))), ("matmul", (ones(2, 7, 2, 3), ones(6, 3, 5))),
    ("matmul", (ones(7, 3, 2).permute(0, 2, 1), ones(4, 5))), ("matmul", (ones(2, 7, 2, 3), ones(4, 5))),
    ("matmul", (ones(3), ones(3, dtype=D))), ("matmul", (ones(2, 3), ones(3, dtype=D))),
    ("matmul", (ones(2, 3), ones(3, 2, dtype=D))), ("matmul", (ones(2, 2, 3), ones(3, 2, dtype=D))),
    ("matmul", (ones(2, 2, 3), ones(2, 3, 2, dtype=D))), ("matmul", (ones(3), ones(2, 3, 2, dtype=D))),
    ("matmul", (ones(2, 3), ones(2, 3, 2, dtype=D))),
    ("matmul", (ones(3, dtype=torch.bool), ones(3, dtype=torch.bool))),
    ("matmul", (ones(2, 2, 3, dtype=torch.float16), ones(2, 3, 2, dtype=torch.float16))),
    ("addmm", (ones(2, 4), ones(3), ones(3, 4))), ("addmm", (ones(2, 4), ones(2, 3), ones(3))),
    ("addmm", (ones(2, 4), ones(2, 3), ones(4, 4))), ("addmm", (ones(5), ones(2, 3), ones(3, 4))),
    ("addmm", (ones(1, 2, 4), ones(2, 3), ones(3, 4))),
    ("addmm", (ones(2, 4, dtype=D), ones(2, 3), ones(3, 4))),
    ("addmm", (ones(2, 4), ones(2, 3, dtype=D), ones(3, 4))),
    ("addmm", (ones(2, 4), ones(2, 3), ones(3, 4, dtype=D))),
    ("addmm", (ones(2, 4, dtype=torch.bool), ones(2, 3, dtype=torch.bool), ones(3, 4, dtype=torch.bool))),
    ("addmv", (ones(2), ones(2, 3), ones(3, 1))), ("addmv", (ones(2), ones(3), ones(3))),
    ("addmv", (ones(2, 2), ones(2, 3), ones(3))), ("addmv", (ones(2), ones(2, 3), ones(4))),
    ("addmv", (ones(3), ones(2, 3), ones(3))), ("addmv", (ones(2), ones(2, 3, dtype=D), ones(3))),
    ("addmv", (ones(2), ones(2, 3), ones(3, dtype=D))),
    ("addmv", (ones(2, dtype=torch.float16), ones(2, 3, dtype=torch.float16), ones(3, dtype=torch.float16))),
]


@pytest.mark.parametrize("op,args", ERROR_CASES)
def test_errors(op, args):
    assert_same_error(lambda: getattr(nt, op)(*[N(a) for a in args]),
                      lambda: getattr(torch, op)(*args))


def test_mixed_dtype_results_match_torch():
    """Cases PyTorch accepts with mixed dtypes: the empty shortcuts and addmv's bias."""
    for args, op in [((ones(0, 3), ones(3, dtype=D)), "mv"), ((ones(2, 0), ones(0, dtype=D)), "mv"),
                     ((ones(0, 3), ones(3, 4, dtype=D)), "mm"),
                     ((ones(2, 0), ones(0, 4, dtype=D)), "mm"),
                     ((ones(0, 2, 3), ones(0, 3, 4, dtype=D)), "bmm"),
                     ((ones(2, dtype=D), ones(2, 3), ones(3)), "addmv")]:
        check(getattr(nt, op)(*[N(a) for a in args]), getattr(torch, op), *args)


def test_scalar_conversion_errors():
    a = ones(2, 2)
    assert_same_error(lambda: nt.addmm(N(a), N(a), N(a), alpha=1e300),
                      lambda: torch.addmm(a, a, a, alpha=1e300))
    i = ones(2, 2, dtype=torch.int8)
    assert_same_error(lambda: nt.addmm(N(i), N(i), N(i), beta=300),
                      lambda: torch.addmm(i, i, i, beta=300))


# ---------------------------------------------------------------- names

def named(shape, names, dtype=F):
    return torch.randn(shape).to(dtype).refine_names(*names)


def test_spec_examples():
    x = N(named((3, 3), ("N", "D")))
    y = N(named((3, 3), ("in", "out")))
    assert x.mm(y).names == ("N", "out")
    assert N(named((3, 3), ("N", "D"))).mv(N(named((3,), ("something",)))).names == ("N",)
    a = N(named((3, 3, 3, 3), ("A", "B", "C", "D")))
    b = N(named((3, 3, 3), ("B", "E", "F")))
    assert nt.matmul(a, b).names == ("A", "B", "C", "F")


NAME_CASES = [
    ("mm", [((2, 3), ("A", "B")), ((3, 4), ("C", "D"))]),
    ("mm", [((2, 3), ("A", "B")), ((3, 4), ("C", "A"))]),
    ("mm", [((2, 3), (None, "B")), ((3, 4), ("C", None))]),
    ("mv", [((2, 3), ("N", "D")), ((3,), ("N",))]),
    ("dot", [((3,), ("X",)), ((3,), ("Y",))]),
    ("bmm", [((2, 2, 3), ("B", "N", "C")), ((2, 3, 4), ("B", "C", "M"))]),
    ("bmm", [((2, 2, 3), ("B", "N", "C")), ((2, 3, 4), ("X", "C", "M"))]),
    ("bmm", [((2, 2, 3), ("B", "N", "C")), ((2, 3, 4), (None, "B", "M"))]),
    ("matmul", [((2, 3), ("A", "B")), ((4, 3, 5), ("X", "C", "D"))]),
    ("matmul", [((3,), ("X",)), ((2, 3, 4), ("A", "Y", "Z"))]),
    ("matmul", [((2, 3, 4), ("A", "Y", "Z")), ((4,), ("X",))]),
    ("matmul", [((5, 2, 3), ("A", "B", "C")), ((1, 3, 4), ("X", "C", "E"))]),
    ("matmul", [((5, 2, 3), ("N", "D", "M")), ((5, 3, 4), (None, "N", "D"))]),
    ("matmul", [((2, 3), ("C", "D")), ((6, 3, 4), ("C", "E", "F"))]),
    ("matmul", [((6, 2, 3), ("A", "B", "C")), ((3, 4), (None, None))]),
    ("matmul", [((), ()), ((3,), ("A",))]),
    ("addmm", [((4,), ("D",)), ((2, 3), ("A", "B")), ((3, 4), ("C", "D"))]),
    ("addmm", [((), ()), ((2, 3), ("A", "B")), ((3, 4), ("C", "D"))]),
    ("addmm", [((2, 4), ("X", None)), ((2, 3), ("A", "B")), ((3, 4), ("C", "D"))]),
    ("addmm", [((4,), ("X",)), ((2, 3), ("N", "D")), ((3, 4), ("in", "out"))]),
    ("addmm", [((2, 4), ("A", None)), ((2, 3), (None, None)), ((3, 4), (None, None))]),
    ("addmv", [((2,), ("Z",)), ((2, 3), ("A", "B")), ((3,), ("C",))]),
    ("addmv", [((1,), ("A",)), ((2, 3), ("A", "B")), ((3,), ("C",))]),
    ("addmv", [((2,), (None,)), ((2, 3), ("A", "B")), ((3,), ("C",))]),
]


@pytest.mark.parametrize("op,specs", NAME_CASES)
def test_names(op, specs):
    ts = [torch.randn(s).refine_names(*n) if n else torch.randn(s) for s, n in specs]
    try:
        want = getattr(torch, op)(*ts)
    except RuntimeError:
        assert_same_error(lambda: getattr(nt, op)(*[N(t) for t in ts]),
                          lambda: getattr(torch, op)(*ts))
        return
    got = getattr(nt, op)(*[N(t) for t in ts])
    check(got, getattr(torch, op), *ts)


def test_out_and_inplace_names():
    a, b = named((2, 3), ("A", "B")), named((3, 4), ("C", "D"))
    u, v = torch.randn(2, 3), torch.randn(3, 4)
    # unnamed inputs: mm/matmul/addmm do not check a named out (PyTorch), bmm does
    for fn in ["mm", "matmul"]:
        o = torch.zeros(2, 4).refine_names("X", "Y")
        x = N(o)
        getattr(nt, fn)(N(u), N(v), out=x)
        getattr(torch, fn)(u, v, out=o)
        assert x.names == o.names
        check(x.rename(None), getattr(torch, fn), u, v)
    ob = torch.zeros(1, 2, 4).refine_names("A", "B", None)
    assert_same_error(lambda: nt.bmm(N(u[None]), N(v[None]), out=N(ob)),
                      lambda: torch.bmm(u[None], v[None], out=ob))
    # named inputs: an unnamed out takes the names, a named one must match
    for fn in ["mm", "matmul"]:
        o = torch.zeros(2, 4)
        x = N(o)
        getattr(nt, fn)(N(a), N(b), out=x)
        getattr(torch, fn)(a, b, out=o)
        assert x.names == o.names
        check(x, getattr(torch, fn), a, b)
        bad = torch.zeros(2, 4).refine_names("A", "B")
        assert_same_error(lambda: getattr(nt, fn)(N(a), N(b), out=N(bad)),
                          lambda: getattr(torch, fn)(a, b, out=bad))
    o = torch.zeros(2, 4).refine_names("A", None)
    x = N(o)
    nt.mm(N(a.rename(None).refine_names("A", None)), N(v), out=x)
    assert x.names == ("A", None)
    # in-place: self takes the computed names; a named self must match them
    c = torch.randn(2, 4)
    x = N(c)
    x.addmm_(N(a), N(b))
    assert x.names == c.clone().addmm_(a, b).names == ("A", "D")
    c2 = torch.randn(2, 4).refine_names("A", None)
    x2 = N(c2)
    x2.addmm_(N(u), N(v))
    assert x2.names == ("A", None)
    c3 = torch.randn(2, 4).refine_names("X", None)
    assert_same_error(lambda: N(c3).addmm_(N(a), N(b)), lambda: c3.clone().addmm_(a, b))
    w = torch.randn(2)
    y = N(w)
    y.addmv_(N(a), N(torch.randn(3)))
    assert y.names == ("A",)
    # dot: no names; a named 0-d out is impossible, an unnamed one stays unnamed
    assert nt.dot(N(named((3,), ("X",))), N(named((3,), ("Y",)))).names == ()


# ---------------------------------------------------------------- Python arguments

def test_python_arguments():
    x = torch.ones(2, 2)
    X = N(x)
    calls = [
        (lambda m: m.mm(X if m is nt else x), None),
        (lambda m: m.mm(X if m is nt else x, 3), None),
        (lambda m: m.mm(X if m is nt else x, other=X if m is nt else x), None),
        (lambda m: m.mm(X if m is nt else x, X if m is nt else x, X if m is nt else x), None),
        (lambda m: m.dot((X if m is nt else x)[0], other=(X if m is nt else x)[0]), None),
        (lambda m: m.matmul(X if m is nt else x, 2), None),
        (lambda m: m.addmm(X if m is nt else x, X if m is nt else x), None),
        (lambda m: m.addmm(*(3 * [X if m is nt else x]), 2), None),
        (lambda m: m.addmm(*(3 * [X if m is nt else x]), beta="a"), None),
        (lambda m: m.addmm(*(3 * [X if m is nt else x]), beta=None), None),
    ]
    for call, _ in calls:
        assert_same_error(lambda: call(nt), lambda: call(torch))
    assert_same_error(lambda: X.mm(), lambda: x.mm())
    assert_same_error(lambda: X.mm(3), lambda: x.mm(3))
    assert_same_error(lambda: X.addmm(X), lambda: x.addmm(x))
    assert_same_error(lambda: X @ 2, lambda: x @ 2)
    assert_same_error(lambda: 2 @ X, lambda: 2 @ x)
    check(nt.mm(input=X, mat2=X), torch.mm, input=x, mat2=x)
    check(X.mm(mat2=X), torch.mm, x, mat2=x)
    check(nt.dot(X[0], tensor=X[1]), torch.dot, x[0], tensor=x[1])
    check(nt.mv(X, vec=X[0]), torch.mv, x, vec=x[0])
    check(nt.bmm(X[None], mat2=X[None]), torch.bmm, x[None], mat2=x[None])
    check(nt.addmm(X, mat1=X, mat2=X, beta=2, alpha=3), torch.addmm, x, mat1=x, mat2=x, beta=2,
          alpha=3)
    check(nt.addmm(X, X, X, beta=nt.tensor(2.0)), torch.addmm, x, x, x, beta=torch.tensor(2.0))
    check(nt.addmv(X[0], mat=X, vec=X[0]), torch.addmv, x[0], mat=x, vec=x[0])
    y = N(x)
    z = y
    z @= X
    assert z is not y
    check(z, torch.matmul, x, x)


# ---------------------------------------------------------------- randomised

NAMES = ["A", "B", "C", "D", "E", "F"]


@st.composite
def matmul_case(draw):
    ra, rb = draw(st.integers(1, 5)), draw(st.integers(1, 5))
    batch = draw(st.lists(st.integers(1, 3), min_size=3, max_size=3))
    n, k, p = draw(st.integers(1, 3)), draw(st.integers(0, 3)), draw(st.integers(1, 3))
    sa = [1 if draw(st.booleans()) else s for s in batch[:max(ra - 2, 0)]] + ([n, k] if ra > 1 else [k])
    sb = [1 if draw(st.booleans()) else s for s in batch[:max(rb - 2, 0)]] + ([k, p] if rb > 1 else [k])
    sa = sa[-ra:] if ra > 1 else [k]
    sb = sb[-rb:] if rb > 1 else [k]
    pool = NAMES[:]
    na = [draw(st.sampled_from(pool + [None, None])) for _ in sa]
    nb = [draw(st.sampled_from(pool + [None, None])) for _ in sb]
    return sa, na, sb, nb


def dedupe(names):
    seen, out = set(), []
    for n in names:
        out.append(None if n in seen else n)
        if n is not None:
            seen.add(n)
    return out


@settings(max_examples=150, deadline=None)
@given(matmul_case(), st.sampled_from([torch.float32, torch.int64]))
def test_matmul_random_names_and_broadcast(case, dtype):
    sa, na, sb, nb = case
    a = torch.randint(-5, 5, sa).to(dtype).refine_names(*dedupe(na))
    b = torch.randint(-5, 5, sb).to(dtype).refine_names(*dedupe(nb))
    try:
        want = torch.matmul(a, b)
    except RuntimeError:
        assert_same_error(lambda: nt.matmul(N(a), N(b)), lambda: torch.matmul(a, b))
        return
    got = nt.matmul(N(a), N(b))
    check(got, torch.matmul, a, b)


def test_deprecated_overloads_and_scalar_arguments():
    """PyTorch's deprecated addmm/addmv overloads (beta, and alpha, first) and Number
    arguments given as tensors, as PyTorch's parser takes them."""
    calls = ["m.addmm(2, c, a, b)", "m.addmm(2, c, 3, a, b)", "c.addmm(2, a, b)",
             "c.addmm(2, 3, a, b)", "c.clone().addmm_(2, 3, a, b)", "m.addmv(2, w, a, v)",
             "m.addmv(2, w, 0.5, a, v)", "w.addmv(2, a, v)", "w.clone().addmv_(2, 3, a, v)",
             "m.addmv_(2, w.clone(), a, v)", "m.addmm(c, a, b, beta=m.tensor(2.0), alpha=3)",
             "m.addmm(c, a, b, beta=m.tensor([2.0]))", "m.addmm(2, c, a, b, out=c.clone())",
             "m.addmm(c, a, b, 2)", "c.addmm(a, b, 2, 3)"]
    for call in calls:
        res = {}
        for m in (torch, nt):
            a, b = m.ones(2, 3), m.ones(3, 4)
            c, v, w = m.ones(2, 4) * 0.5, m.ones(3), m.ones(2)
            try:
                r = eval(call)
                res[m] = ("ok", tuple(r.shape), r.sum().item())
            except Exception as e:  # noqa: BLE001 - compared with PyTorch's
                res[m] = (type(e).__name__, str(e))
        assert res[nt] == res[torch], (call, res)
