"""The pointwise unary ops (abs ... logical_not, relu, round(decimals=), positive/negative)
and the operators -x, +x, abs(x), ~x against PyTorch 1.13: values (exact for the exact
ops, within a few ulps for the transcendentals, whose bits PyTorch takes from SLEEF or glibc
by CPU), result dtypes, names, strides, the
in-place, module-function and out= forms, and every error's type and text, for every
dtype, on contiguous, transposed, sliced and expanded inputs. Randomised cases
(hypothesis) cover ranks 0-5, partial names and layouts."""
import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from helpers import DTYPE_PAIRS, assert_close_dtype, assert_same, assert_same_error, from_torch

OPS = ("abs acos asin atan ceil floor round trunc frac cos cosh sin sinh tan tanh exp expm1 log "
       "log2 log10 log1p sqrt rsqrt reciprocal neg negative sign sigmoid erf erfc erfinv digamma "
       "bitwise_not logical_not relu").split()
# Ops whose results are exact in every implementation (IEEE operations, integer ops).
EXACT = set("abs ceil floor round trunc frac sqrt reciprocal neg negative sign bitwise_not "
            "logical_not relu".split())
# The others are not correctly rounded, and PyTorch's bits depend on the CPU: SLEEF's vector
# functions (within 1 ulp) with AVX2 or AVX-512, glibc's (within 1 to 3 ulps for these, up to
# 5 for erfc) otherwise, and its own algorithms compiled with or without FMA contraction.
# float32/float64 results of two libraries may then be a few ulps apart; bfloat16/float16
# ones (computed in float32 and rounded once) may round to neighbours, one ulp apart.
ULPS = {"erfc": 6}
DEFAULT_ULPS = 4
# PyTorch's own algorithms for erfinv (a rational approximation and Newton steps) and digamma
# (recurrence, reflection, asymptotic series) are accurate relative to their input, not their
# result: near erfinv's poles at +-1 and digamma's roots and poles their error grows with the
# condition number. Their bound adds two roundings of the input x, times |x f'(x)|.
DERIVATIVE = {
    "erfinv": lambda x: math.sqrt(math.pi) / 2 * torch.exp(torch.erfinv(x) ** 2),
    "digamma": lambda x: torch.polygamma(1, x),
}
TORCH_DTYPES = [t for _, t in DTYPE_PAIRS]
SPECIAL = [-3.5, -2.5, -1.0, -0.75, -0.5, -0.0, 0.0, 0.25, 0.5, 0.9, 1.0, 1.5, 2.5, 3.0, 10.0,
           100.0, math.inf, -math.inf, math.nan, 1e-8, -1e-30, 88.5, -100.0, 0.999]


def sample(dtype, shape=(8, 8), seed=0):
    """A torch tensor of `dtype` and `shape` with the special values first, then random ones
    spanning the dtype's range."""
    g = torch.Generator().manual_seed(seed)
    n = int(np.prod(shape))
    if dtype == torch.bool:
        v = torch.randint(0, 2, (n,), generator=g).bool()
    elif dtype.is_floating_point:
        v = torch.cat([torch.tensor(SPECIAL, dtype=torch.float64),
                       torch.randn(n, generator=g, dtype=torch.float64) * 4])[:n].to(dtype)
    else:
        info = torch.iinfo(dtype)
        v = torch.randint(-1000 if info.min < 0 else 0, 1000, (n,), generator=g, dtype=torch.int64)
        v[:4] = torch.tensor([info.min, info.max, 0, 1 if info.min == 0 else -1])[:n]
        v = v.to(dtype)
    return v.reshape(shape)


def check(op, got, expected, inp, compute=None):
    """ntensor's `got` agrees with torch's `expected` = op(inp): exactly for the exact ops and
    integer or bool results, otherwise within the ulps above (assert_close_dtype). `compute`:
    the floating dtype the op computed in, where `expected` was cast to another one (out=)."""
    if op in EXACT or not expected.dtype.is_floating_point:
        assert_same(got, expected)
        return
    dtype = compute or expected.dtype
    kw = dict(ulps=1 if dtype in (torch.float16, torch.bfloat16) else ULPS.get(op, DEFAULT_ULPS))
    x = inp.rename(None).double()
    if op in DERIVATIVE:
        kw.update(n_terms=2, scale=(x * DERIVATIVE[op](x)).abs())
    # the float64 result rounded to the dtype also passes (where PyTorch's own value depends
    # on its kernel beyond rounding: float32 cosh(89) overflows in SLEEF's AVX2 coshf only)
    ref = getattr(x, op)().to(dtype).to(expected.dtype)
    assert_close_dtype(got, expected, dtype=compute, ref=ref, **kw)


def torch_call(fn):
    """(result, None) or (None, exception) of a torch call."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the oracle decides
        return None, e


def compare(op, nt_fn, torch_fn, inp):
    """Both calls (op on the torch tensor `inp` and its copy) give the same tensor (names,
    shape, dtype, values) or the same error."""
    expected, err = torch_call(torch_fn)
    if err is not None:
        assert_same_error(nt_fn, torch_fn)
        return None
    got = nt_fn()
    check(op, got, expected, inp)
    return got, expected


def tmod(op):
    return "relu" if op == "relu" else op


# ---------------------------------------------------------------- every op x every dtype

@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_method_values_dtypes_and_errors(op, dtype):
    t = sample(dtype)
    x = from_torch(t)
    compare(op, lambda: getattr(x, op)(), lambda: getattr(t, op)(), t)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("op", OPS)
def test_module_function_and_inplace(op, dtype):
    t = sample(dtype, seed=1)
    x = from_torch(t)
    compare(op, lambda: getattr(nt, op)(x), lambda: getattr(torch, op)(t), t)
    # in place: the same values (or the same error), self returned, names kept
    t2, x2 = t.clone().refine_names("N", None), x.clone().refine_names("N", None)
    expected, err = torch_call(lambda: getattr(t2, op + "_")())
    if err is not None:
        assert_same_error(lambda: getattr(x2, op + "_")(), lambda: getattr(t.clone(), op + "_")())
        return
    got = getattr(x2, op + "_")()
    assert got is x2
    check(op, x2, t2, t)
    if op not in ("relu",):
        if not hasattr(torch, op + "_"):
            assert not hasattr(nt, op + "_")
            return
        t3, x3 = t.clone(), x.clone()
        getattr(torch, op + "_")(t3)
        assert getattr(nt, op + "_")(x3) is x3
        check(op, x3, t3, t)


OUT_DTYPES = [torch.float32, torch.float64, torch.bfloat16, torch.int32, torch.int64, torch.bool]


@pytest.mark.parametrize("out_dtype", OUT_DTYPES, ids=str)
@pytest.mark.parametrize("in_dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16,
                                      torch.int32, torch.uint8, torch.bool], ids=str)
@pytest.mark.parametrize("op", [o for o in OPS if o != "relu"])
def test_out_dtype_rules(op, in_dtype, out_dtype):
    t = sample(in_dtype, (3, 4), seed=2)
    x = from_torch(t)
    tout, xout = torch.empty(3, 4, dtype=out_dtype), nt.empty(3, 4, dtype=from_torch(
        torch.empty(0, dtype=out_dtype)).dtype)
    expected, err = torch_call(lambda: getattr(torch, op)(t, out=tout))
    if err is not None:
        assert_same_error(lambda: getattr(nt, op)(x, out=xout),
                          lambda: getattr(torch, op)(t, out=torch.empty(3, 4, dtype=out_dtype)))
        return
    got = getattr(nt, op)(x, out=xout)
    assert got is xout
    # computed in the input's float dtype (float32 for integers and bools), then cast to out's
    # dtype: the ulps of the coarser of the two (an integer or bool out compares exactly)
    compute = in_dtype if in_dtype.is_floating_point else torch.float32
    coarse = [torch.bfloat16, torch.float16, torch.float32, torch.float64]
    compute = min(compute, out_dtype, key=lambda d: coarse.index(d) if d in coarse else 9)
    check(op, xout, tout, t, compute=compute if out_dtype.is_floating_point else None)


# ---------------------------------------------------------------- layouts

LAYOUTS = {
    "transposed": lambda t: t.t(),
    "sliced": lambda t: t.as_strided((4, 3), (16, 3), 9),  # t[1::2, 1::3]
    "expanded": lambda t: t.narrow(0, 0, 1).expand(5, 8),
    "permuted3d": lambda t: t.reshape(2, 4, 8).permute(2, 0, 1),
    "scalar": lambda t: t.select(0, 2).select(0, 3),
}


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int16,
                                   torch.int64, torch.bool], ids=str)
@pytest.mark.parametrize("op", OPS)
def test_non_contiguous_inputs(op, dtype, layout):
    base = sample(dtype, seed=3)
    t = LAYOUTS[layout](base)
    x = LAYOUTS[layout](from_torch(base))
    r = compare(op, lambda: getattr(x, op)(), lambda: getattr(t, op)(), t)
    if r is not None:
        got, expected = r
        # the result keeps a dense input's layout (PyTorch's empty_like)
        assert got.stride() == expected.stride(), (got.stride(), expected.stride())


@pytest.mark.parametrize("op", ["cosh", "sinh"])
def test_cosh_sinh_near_float32_overflow(op):
    """cosh(89) = 2.2448e38 is a float32 number: the result must be within a few ulps of the
    float64 value rounded to float32 (PyTorch's own result depends on the CPU here: SLEEF's
    AVX2 coshf overflows early, its AVX-512 one and glibc's do not; ntensor recomputes the
    lanes SLEEF would overflow in float64)."""
    v = torch.tensor([88.5, 88.8, 89.0, -89.0, 89.4, 89.5])
    got = getattr(from_torch(v), op)()
    want = getattr(v.double(), op)().float()
    assert_close_dtype(got, want, ulps=DEFAULT_ULPS)


@pytest.mark.parametrize("op", ["exp", "neg", "abs", "sigmoid"])
def test_inplace_on_expanded_and_overlapping_out(op):
    t = torch.ones(1, 4).expand(3, 4)
    x = nt.ones(1, 4).expand(3, 4)
    assert_same_error(lambda: getattr(x, op + "_")(), lambda: getattr(t, op + "_")())
    tb, xb = torch.arange(6.0), nt.arange(6.0)
    assert_same_error(lambda: getattr(nt, op)(xb.narrow(0, 0, 4), out=xb.narrow(0, 2, 4)),
                      lambda: getattr(torch, op)(tb.narrow(0, 0, 4), out=tb.narrow(0, 2, 4)))
    # out= the input itself is allowed
    getattr(torch, op)(tb, out=tb)
    getattr(nt, op)(xb, out=xb)
    check(op, xb, tb, torch.arange(6.0))


@pytest.mark.parametrize("op", ["exp", "tanh", "sigmoid", "log", "sin", "erf", "abs", "neg"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
def test_large_inputs_parallel_path(op, dtype):
    """Big enough for threads and the GIL-free path; contiguous and strided."""
    g = torch.Generator().manual_seed(5)
    t = (torch.randn(300, 1001, generator=g, dtype=torch.float64) * 3).to(dtype)
    if op == "log":
        t = t.abs()
    x = nt.from_numpy(t.float().numpy()).to(nt.bfloat16) if dtype == torch.bfloat16 else \
        nt.from_numpy(t.numpy())
    sliced = ((300, 334), (1001, 3), 0)  # [:, ::3]
    for tt, xx in ((t, x), (t.t(), x.t()), (t.as_strided(*sliced), x.as_strided(*sliced))):
        check(op, getattr(xx, op)(), getattr(tt, op)(), tt)


# ---------------------------------------------------------------- names

@pytest.mark.parametrize("op", [o for o in OPS if o not in ("bitwise_not",)])
def test_names_are_kept_and_out_rules(op):
    t = sample(torch.float32, (4, 5), seed=4).refine_names("N", "C")
    x = from_torch(t)
    assert getattr(x, op)().names == ("N", "C")
    assert getattr(nt, op)(x).names == ("N", "C")
    if op == "relu":
        return
    odt = torch.bool if op == "logical_not" else torch.float32
    ndt = nt.bool if op == "logical_not" else nt.float32
    # an unnamed out takes the names
    out = nt.empty(4, 5, dtype=ndt)
    getattr(nt, op)(x, out=out)
    assert out.names == ("N", "C")
    # a named out must match exactly; an unnamed input checks a named out too
    for names in [("N", "D"), ("N", None), (None, "C")]:
        assert_same_error(
            lambda: getattr(nt, op)(x, out=nt.empty(4, 5, dtype=ndt).refine_names(*names)),
            lambda: getattr(torch, op)(t, out=torch.empty(4, 5, dtype=odt).refine_names(*names)))
    u = t.rename(None)
    assert_same_error(
        lambda: getattr(nt, op)(from_torch(u), out=nt.empty(4, 5, dtype=ndt).refine_names("N", "C")),
        lambda: getattr(torch, op)(u, out=torch.empty(4, 5, dtype=odt).refine_names("N", "C")))
    # an exactly named out is fine
    out = nt.empty(4, 5, dtype=ndt).refine_names("N", "C")
    assert getattr(nt, op)(x, out=out) is out


# ---------------------------------------------------------------- operators

@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("expr", ["-x", "+x", "abs(x)", "~x", "x.positive()",
                                  "torch.positive(x)", "torch.negative(x)"])
def test_python_operators(expr, dtype):
    t = sample(dtype, (3, 4), seed=6).refine_names("A", None)
    x = from_torch(t)
    expected, err = torch_call(lambda: eval(expr, {"x": t, "torch": torch}))
    if err is not None:
        assert_same_error(lambda: eval(expr, {"x": x, "torch": nt}),
                          lambda: eval(expr, {"x": t, "torch": torch}))
        return
    got = eval(expr, {"x": x, "torch": nt})
    assert_same(got, expected)
    if "positive" in expr or expr == "+x":
        assert got is x


# ---------------------------------------------------------------- round, relu

@pytest.mark.parametrize("decimals", [-3, -1, 0, 1, 2, 5])
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_round_decimals(dtype, decimals):
    t = sample(dtype, (4, 6), seed=7)
    if dtype.is_floating_point:
        t = t * 123.456
    x = from_torch(t)
    compare("round", lambda: x.round(decimals=decimals), lambda: t.round(decimals=decimals), t)
    compare("round", lambda: nt.round(x, decimals=decimals),
            lambda: torch.round(t, decimals=decimals), t)
    t2, x2 = t.clone(), x.clone()
    expected, err = torch_call(lambda: t2.round_(decimals=decimals))
    if err is None:
        assert x2.round_(decimals=decimals) is x2
        assert_same(x2, t2)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_relu_functional_signature(dtype):
    t = sample(dtype, (3, 5), seed=8).refine_names("N", "C")
    x = from_torch(t)
    compare("relu", lambda: nt.nn.functional.relu(x, inplace=False),
            lambda: torch.nn.functional.relu(t, inplace=False), t)
    t2, x2 = t.clone(), x.clone()
    expected, err = torch_call(lambda: torch.nn.functional.relu(t2, True))
    if err is not None:
        assert_same_error(lambda: nt.nn.functional.relu(x2, True),
                          lambda: torch.nn.functional.relu(t.clone(), True))
        return
    assert nt.nn.functional.relu(x2, True) is x2
    assert_same(x2, t2)


# ---------------------------------------------------------------- argument errors

@pytest.mark.parametrize("call", [
    "torch.exp(5)", "torch.exp()", "torch.exp(x, 1)", "torch.exp(x, foo=1)",
    "torch.sigmoid(x, out=5)", "torch.round(x, decimals=1.5)", "torch.exp(input=x, out=None)",
    "torch.round(x, decimals=None)", "torch.round(x, 2)", "x.round(decimals=1.5)",
    "x.round_(decimals=1.5)", "torch.round(x, decimals=2, out=5)", "torch.round_(x, decimals=1.5)",
    "torch.relu(5)", "torch.positive(x, 1)",
])
def test_argument_errors(call):
    t, x = torch.ones(2), nt.ones(2)
    expected, err = torch_call(lambda: eval(call, {"x": t, "torch": torch}))
    if err is None:  # exp(1) or a rounding of ones
        assert_close_dtype(eval(call, {"x": x, "torch": nt}), expected, ulps=DEFAULT_ULPS)
    else:
        assert_same_error(lambda: eval(call, {"x": x, "torch": nt}),
                          lambda: eval(call, {"x": t, "torch": torch}))


# ---------------------------------------------------------------- randomised

NAME_POOL = ["N", "C", "H", "W", "D"]


@st.composite
def tensors(draw):
    rank = draw(st.integers(0, 5))
    shape = tuple(draw(st.lists(st.integers(1, 4), min_size=rank, max_size=rank)))
    names = [draw(st.sampled_from(NAME_POOL + [None])) for _ in range(rank)]
    seen = set()
    names = [n if n is None or n not in seen and not seen.add(n) else None for n in names]
    dtype = draw(st.sampled_from([torch.float32, torch.float64, torch.bfloat16, torch.int32,
                                  torch.int8, torch.bool]))
    perm = draw(st.permutations(range(rank)))
    return shape, names, dtype, perm, draw(st.integers(0, 10 ** 6))


@settings(max_examples=300, deadline=None)
@given(tensors(), st.sampled_from(OPS))
def test_hypothesis_random_ranks_names_layouts(spec, op):
    shape, names, dtype, perm, seed = spec
    n = int(np.prod(shape)) if shape else 1
    t = sample(dtype, (n,), seed=seed).reshape(shape)
    x = from_torch(t)
    if len(shape) > 1:  # a permuted (non-contiguous) layout
        t, x = t.permute(*perm), x.permute(*perm)
    if any(names):
        t, x = t.refine_names(*names), x.refine_names(*names)
    compare(op, lambda: getattr(x, op)(), lambda: getattr(t, op)(), t)


def test_round_decimals_on_named_tensors_keeps_names():
    """PyTorch 1.13 refuses named tensors in round(decimals=) ("aten::round.decimals is not
    yet supported with named tensors"); we support it with round's rule, keeping names (see
    docs/decisions_ops_unary.md). Values match torch on the unnamed tensor."""
    t = sample(torch.float32, (3, 4), seed=9) * 77.7
    x = from_torch(t).refine_names("N", "C")
    for d in (-1, 0, 2):
        got = x.round(decimals=d)
        assert got.names == ("N", "C")
        assert_same(got.rename(None), t.round(decimals=d))
        assert nt.round(x, decimals=d).names == ("N", "C")
    y = x.clone()
    assert y.round_(decimals=1) is y and y.names == ("N", "C")
    assert_same(y.rename(None), t.round(decimals=1))
