"""The pointwise ops added from the op table (rows of ops.def with their kernels, no
hand-written Python): isnan, isinf, isfinite, lgamma, polygamma, clamp_min, clamp_max,
threshold (and nn.functional.threshold), addcmul, addcdiv, equal — against PyTorch 1.13:
values (exact where every implementation is exact, within a dtype-derived bound for the
special functions and the float arithmetic), result dtypes, names (PyTorch's where it has
them; the spec's unify/keep rules where it refuses named tensors), the function, method,
in-place and out= forms, and every error's type and text, for every dtype."""
import math
import warnings

import pytest
import torch

import ntensor as nt
import ntensor.nn.functional as F
from helpers import DTYPE_PAIRS, assert_close_dtype, assert_same, assert_same_error, from_torch

TORCH_DTYPES = [t for _, t in DTYPE_PAIRS]
SPECIAL = [-3.5, -2.5, -1.0, -0.5, -0.0, 0.0, 0.25, 0.5, 1.0, 1.5, 2.5, 3.0, 10.0, 30.0,
           math.nan, math.inf, -math.inf]


def values(dtype):
    """A torch tensor of interesting values of `dtype` (the floats with NaN and infinities)."""
    if dtype == torch.bool:
        return torch.tensor([True, False, True])
    if not dtype.is_floating_point:
        return torch.tensor([-3, -1, 0, 1, 2, 7] if dtype != torch.uint8 else [0, 1, 2, 7, 200],
                            dtype=dtype)
    return torch.tensor(SPECIAL, dtype=dtype)


def both(fn, t_args, check=assert_same, **kw):
    """Runs fn(torch, *t_args) and fn(nt, *converted args); compares results or errors."""
    n_args = [from_torch(a) if isinstance(a, torch.Tensor) else a for a in t_args]
    try:
        want = fn(torch, *t_args)
    except Exception:  # noqa: BLE001 - the oracle decides
        assert_same_error(lambda: fn(nt, *n_args), lambda: fn(torch, *t_args))
        return None
    got = fn(nt, *n_args)
    if isinstance(want, torch.Tensor):
        check(got, want, **kw)
    else:
        assert got == want, (got, want)
    return got


# ---------------------------------------------------------------- isnan, isinf, isfinite


@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_predicates(op, dtype):
    t = values(dtype)
    both(lambda m, x: getattr(m, op)(x), (t,))
    both(lambda m, x: getattr(x, op)(), (t,))
    # strided and named: names kept
    t2 = torch.stack([t, t]).t().refine_names("A", "B")
    both(lambda m, x: getattr(m, op)(x), (t2,))


@pytest.mark.parametrize("op", ["isnan", "isinf", "isfinite"])
def test_predicates_have_no_out_or_inplace_form(op):
    x = nt.ones(2)
    assert not hasattr(x, op + "_")
    assert_same_error(lambda: getattr(nt, op)(x, out=nt.ones(2, dtype=nt.bool)),
                      lambda: getattr(torch, op)(torch.ones(2), out=torch.ones(2, dtype=torch.bool)))


# ---------------------------------------------------------------- lgamma, polygamma


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_lgamma(dtype):
    t = values(dtype)
    # glibc's lgamma and PyTorch's (glibc's or SLEEF's): a few ulps, more near its roots 1, 2
    both(lambda m, x: m.lgamma(x), (t,), check=assert_close_dtype, ulps=4,
         scale=torch.ones(()), n_terms=4)
    if dtype.is_floating_point and dtype != torch.float16:
        both(lambda m, x: x.clone().lgamma_(), (t,), check=assert_close_dtype, ulps=4,
             scale=torch.ones(()), n_terms=4)
        both(lambda m, x: m.lgamma(x, out=m.empty(0, dtype=x.dtype)), (t,),
             check=assert_close_dtype, ulps=4, scale=torch.ones(()), n_terms=4)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5])
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_polygamma(n, dtype):
    t = values(dtype)
    if dtype.is_floating_point:
        t = t[torch.isfinite(t) & (t.float() > 0)]  # the poles: both libraries' inf or huge
    # a series and its recurrences: relative to the result, some tens of roundings (bfloat16
    # computes its terms in float32 and rounds at the end, PyTorch in bfloat16 throughout)
    terms = 64 if dtype == torch.bfloat16 else 16
    both(lambda m, x: m.polygamma(n, x), (t,), check=assert_close_dtype, n_terms=terms)
    both(lambda m, x: x.polygamma(n), (t,), check=assert_close_dtype, n_terms=terms)
    if dtype.is_floating_point and dtype != torch.float16:
        both(lambda m, x: x.clone().polygamma_(n), (t,), check=assert_close_dtype,
             n_terms=terms)


def test_polygamma_names_out_errors():
    t = torch.tensor([[0.5, 1.5], [2.5, 3.5]]).refine_names("N", "C")
    both(lambda m, x: m.polygamma(2, x), (t,), check=assert_close_dtype, n_terms=16)
    both(lambda m, x: m.polygamma(1, x, out=m.zeros(4)), (t.rename(None),),
         check=assert_close_dtype, n_terms=16)
    for n, dtype in [(-1, torch.float32), (0, torch.float16), (1, torch.float16),
                     (2, torch.float16)]:
        both(lambda m, x: m.polygamma(n, x), (torch.ones(2, dtype=dtype),))
    both(lambda m, x: x.polygamma_(1), (torch.ones(2, dtype=torch.int64),))
    assert_same_error(lambda: nt.polygamma(nt.ones(2), 1), lambda: torch.polygamma(torch.ones(2), 1))


# ---------------------------------------------------------------- clamp_min, clamp_max


@pytest.mark.parametrize("op", ["clamp_min", "clamp_max"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("bound", [0, 1.5, True, "tensor", "tensor64", "zero_dim"])
def test_clamp_one_bound(op, dtype, bound):
    t = values(dtype)
    if bound == "tensor":
        b = values(dtype).flip(0)
    elif bound == "tensor64":
        b = torch.linspace(-2, 2, t.numel(), dtype=torch.float64)
    elif bound == "zero_dim":
        b = torch.tensor(1, dtype=torch.int64)
    else:
        b = bound
    both(lambda m, x, y: getattr(m, op)(x, y), (t, b))
    both(lambda m, x, y: getattr(x, op)(y), (t, b))
    both(lambda m, x, y: getattr(x.clone(), op + "_")(y), (t, b))
    both(lambda m, x, y: getattr(m, op + "_")(x.clone(), y), (t, b))


def test_clamp_one_bound_names_and_out():
    a = torch.tensor([[1.0, -2.0], [3.0, 0.5]]).refine_names("N", "C")
    both(lambda m, x: m.clamp_min(x, 0.0), (a,))
    both(lambda m, x, y: m.clamp_max(x, y), (a, torch.zeros(2).refine_names("C")))
    both(lambda m, x, y: m.clamp_max(x, y), (a, torch.zeros(2).refine_names("D")))
    both(lambda m, x: m.clamp_min(x, 0.0, out=m.empty(4)), (a.rename(None),))
    both(lambda m, x: m.clamp_min(x, 0.5, out=m.empty(2, 2, dtype=m.int64)), (a.rename(None),))


# ---------------------------------------------------------------- threshold


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("th,value", [(0, 5), (0.5, -2.5), (1000, 1), (1, 1000), (-0.5, True)])
def test_threshold(dtype, th, value):
    t = values(dtype)
    both(lambda m, x: m.threshold(x, th, value), (t,))
    both(lambda m, x: m.threshold_(x.clone(), th, value), (t,))
    both(lambda m, x: F.threshold(x, th, value) if m is nt else
         torch.nn.functional.threshold(x, th, value), (t,))
    both(lambda m, x: m.threshold(x, th, value, out=m.empty(0, dtype=x.dtype)), (t,))


def test_threshold_names_forms_errors():
    a = torch.tensor([[1.0, -2.0], [3.0, 0.5]]).refine_names("N", "C")
    both(lambda m, x: m.threshold(x, 0.7, 9), (a,))
    x = nt.tensor([[1.0, -2.0], [3.0, 0.5]])
    assert F.threshold(x, 0.7, 9, inplace=True) is x
    assert x.tolist() == [[1.0, 9.0], [3.0, 9.0]]
    assert not hasattr(x, "threshold")
    both(lambda m, x: m.threshold(x, 0.0, 1.0, out=m.empty(2, 2, dtype=m.int64)), (a.rename(None),))
    both(lambda m, x: m.threshold(x, 0.0, 1.0, out=m.empty(2, 2, dtype=m.float64)), (a.rename(None),))
    assert_same_error(lambda: nt.threshold(nt.ones(2), 1), lambda: torch.threshold(torch.ones(2), 1))


# ---------------------------------------------------------------- addcmul, addcdiv


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("value", [1, 2, 0.5, True])
def test_addc(op, dtype, value):
    s = values(dtype)
    t1 = s.flip(0)
    t2 = torch.ones_like(s) if dtype == torch.bool else s.roll(1)
    if not dtype.is_floating_point and op == "addcdiv":
        t2 = torch.ones_like(s)
    # a product (or quotient) and a sum: three roundings (bfloat16 rounds at each step in
    # both libraries; the float16 and integer results are PyTorch's errors or exact)
    kw = dict(check=assert_close_dtype, n_terms=3, scale=None)
    both(lambda m, a, b, c: getattr(m, op)(a, b, c, value=value), (s, t1, t2), **kw)
    both(lambda m, a, b, c: getattr(a, op)(b, c, value=value), (s, t1, t2), **kw)
    both(lambda m, a, b, c: getattr(a.clone(), op + "_")(b, c, value=value), (s, t1, t2), **kw)
    both(lambda m, a, b, c: getattr(m, op)(a, b, c, value=value, out=m.empty(0, dtype=a.dtype)),
         (s, t1, t2), **kw)


@pytest.mark.parametrize("op", ["addcmul", "addcdiv"])
def test_addc_promotion_broadcast_names(op):
    i = torch.tensor([1, 2, 3], dtype=torch.int32)
    f = torch.tensor([[0.5], [2.0]])
    both(lambda m, a, b, c: getattr(m, op)(a, b, c), (i, f, i), check=assert_close_dtype,
         n_terms=3)
    both(lambda m, a, b, c: getattr(m, op)(a, b, c), (i, i.double(), i), check=assert_close_dtype,
         n_terms=3)
    both(lambda m, a, b, c: getattr(m, op)(a, b, c), (torch.ones(2), torch.ones(3), torch.ones(2)))
    a = torch.ones(2, 3).refine_names("A", "B")
    both(lambda m, x, y, z: getattr(m, op)(x, y, z, value=2), (a, torch.ones(3).refine_names("B"),
                                                               torch.ones(3)))
    both(lambda m, x, y, z: getattr(m, op)(x, y, z), (a, torch.ones(3).refine_names("C"),
                                                      torch.ones(3)))
    # in place: self's dtype must hold the result
    both(lambda m, x, y, z: getattr(x, op + "_")(y, z), (i.clone(), f.flatten()[:1], i))
    both(lambda m, x, y, z: getattr(m, op)(x, y, z, out=m.empty(3, dtype=m.int64)),
         (torch.ones(3), torch.ones(3), torch.ones(3)))
    # the deprecated signature: value first
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        both(lambda m, x, y, z: getattr(m, op)(x, 3, y, z), (torch.ones(3), torch.ones(3) * 2,
                                                             torch.ones(3) * 4))


def test_addcdiv_integer_division_refused():
    i = torch.ones(2, dtype=torch.int64)
    both(lambda m, a, b, c: m.addcdiv(a, b, c), (i, i, i))
    both(lambda m, a, b, c: m.addcdiv(a, b, c), (i.float(), i.bool(), i))
    both(lambda m, a, b, c: m.addcdiv(a, b, c), (i, i.float(), i))


def test_addc_value_overflow():
    i = torch.ones(2, dtype=torch.int8)
    both(lambda m, a: m.addcmul(a, a, a, value=1000), (i,))
    both(lambda m, a: m.addcmul(a, a, a, value=2 ** 40), (i.long(),))


# ---------------------------------------------------------------- equal


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_equal(dtype):
    t = values(dtype)
    both(lambda m, a, b: m.equal(a, b), (t, t.clone()))  # NaN is not equal to itself
    finite = t[torch.isfinite(t)] if dtype.is_floating_point else t
    both(lambda m, a, b: m.equal(a, b), (finite, finite.clone()))
    both(lambda m, a, b: a.equal(b), (finite, finite.flip(0)))
    both(lambda m, a, b: m.equal(a, b), (finite, finite.double()))
    both(lambda m, a, b: m.equal(a, b), (finite, finite[None]))


def test_equal_names_and_layouts():
    a = torch.arange(6.0).reshape(2, 3)
    both(lambda m, x, y: m.equal(x, y), (a.t(), a.t().contiguous()))
    both(lambda m, x, y: m.equal(x, y), (a.refine_names("N", "C"), a.refine_names("N", "C")))
    both(lambda m, x, y: m.equal(x, y), (a.refine_names("N", "C"), a))
    both(lambda m, x, y: m.equal(x, y), (a.refine_names("N", None), a.refine_names("N", "C")))
    both(lambda m, x, y: m.equal(x, y), (torch.tensor([1.5]), torch.tensor([1])))
    both(lambda m, x, y: m.equal(x, y), (torch.tensor([True]), torch.tensor([1])))
    both(lambda m, x, y: m.equal(x, y), (torch.ones(0), torch.ones(0, dtype=torch.int64)))
    assert_same_error(lambda: nt.equal(nt.ones(2), 1), lambda: torch.equal(torch.ones(2), 1))


# ---------------------------------------------------------------- fmod, shifts (<<, >>)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("other", [3, -2, 0.7, "tensor", "zero"])
def test_fmod(dtype, other):
    t = values(dtype)
    if other == "tensor":
        o = torch.where(t == 0, torch.ones_like(t), t).flip(0)
    elif other == "zero":
        o = 0
    else:
        o = other
    both(lambda m, x, y: m.fmod(x, y), (t, o))
    both(lambda m, x, y: x.fmod(y), (t, o))
    both(lambda m, x, y: x.clone().fmod_(y), (t, o))
    both(lambda m, x, y: m.fmod(x, y, out=m.empty(0, dtype=x.dtype)), (t, o))


SHIFTS = [0, 1, 7, 9, -1, 31, 33, 63, 64, 65]


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("k", SHIFTS)
def test_shifts(dtype, k):
    t = values(dtype)
    both(lambda m, x: x << k, (t,))
    both(lambda m, x: x >> k, (t,))
    both(lambda m, x: m.bitwise_left_shift(x, k), (t,))
    both(lambda m, x: x.bitwise_right_shift(k), (t,))

    def inplace(m, x):
        x = x.clone()
        x <<= k
        x >>= 1
        return x
    both(inplace, (t,))


def test_shift_tensors_reflected_names():
    a = torch.tensor([[1, -8, 3], [64, -128, 127]], dtype=torch.int32)
    s = torch.tensor([1, 40, -1])
    both(lambda m, x, y: x << y, (a, s))
    both(lambda m, x, y: m.bitwise_right_shift(x, y), (a, s))
    both(lambda m, x: 2 << x, (s,))
    both(lambda m, x: m.bitwise_left_shift(3, x), (s,))
    # PyTorch 1.13 refuses named tensors here; names unify from the right, as for `+`
    got = from_torch(a).refine_names("N", "C") << from_torch(s).refine_names("C")
    assert got.names == ("N", "C")
    assert_same(got.rename(None), a << s)
    assert_same_error(lambda: from_torch(a).refine_names("N", "C") >> from_torch(s).refine_names("N"),
                      lambda: a.refine_names("N", "C") + s.refine_names("N"))
    both(lambda m, x: x.bitwise_left_shift_(torch.tensor(1.5) if m is torch else nt.tensor(1.5)),
         (a.rename(None),))


# ---------------------------------------------------------------- lerp


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("weight", [0.3, 0.7, -1.5, 2, "tensor"])
def test_lerp(dtype, weight):
    s = values(dtype)
    e = s.flip(0)
    w = torch.linspace(-1, 2, s.numel()).to(dtype) if weight == "tensor" else weight
    # one fused multiply-add in float (PyTorch's kernels are compiled with FMA contraction):
    # two roundings at most apart from PyTorch's where libm's fma and its differ
    kw = dict(check=assert_close_dtype, n_terms=2, scale=torch.ones(()) * 64)
    both(lambda m, a, b, c: m.lerp(a, b, c), (s, e, w), **kw)
    both(lambda m, a, b, c: a.lerp(b, c), (s, e, w), **kw)
    both(lambda m, a, b, c: a.clone().lerp_(b, c), (s, e, w), **kw)
    both(lambda m, a, b, c: m.lerp(a, b, c, out=m.empty(0, dtype=a.dtype)), (s, e, w), **kw)


def test_lerp_checks_broadcast_names():
    a = torch.tensor([1.0, 2.0, 3.0])
    both(lambda m, x, y: m.lerp(x, y, 0.5), (a, a.double()))
    both(lambda m, x, y: m.lerp(x, x, y), (a, torch.tensor(0.3, dtype=torch.float64)))
    both(lambda m, x, y: m.lerp(x, y, 0.25), (a, torch.ones(2, 3)))
    both(lambda m, x, y: x.clone().lerp_(y, 0.25), (a, torch.ones(2, 3)))
    both(lambda m, x, y: m.lerp(x, y, y), (a, torch.ones(2, 2, 3)))
    both(lambda m, x: m.lerp(x, x * 3, 0.5, out=m.ones(3, dtype=m.float64)), (a,))
    # PyTorch 1.13 refuses named tensors here; names unify over the tensors
    got = nt.lerp(nt.ones(2, 3, names=("N", "C")), nt.ones(3, names=("C",)) * 3, 0.5)
    assert got.names == ("N", "C") and got.rename(None).tolist() == [[2.0] * 3] * 2
    assert_same_error(
        lambda: nt.lerp(nt.ones(2, 3, names=("N", "C")), nt.ones(3, names=("N",)), 0.5),
        lambda: torch.ones(2, 3, names=("N", "C")) + torch.ones(3, names=("N",)))


# ---------------------------------------------------------------- PyTorch's aliases


@pytest.mark.parametrize("alias,call", [
    ("subtract", lambda m, a, b: m.subtract(a, b, alpha=2)),
    ("subtract_scalar", lambda m, a, b: m.subtract(a, 2, 3)),
    ("multiply", lambda m, a, b: a.multiply(b)),
    ("divide", lambda m, a, b: m.divide(a, b, rounding_mode="floor")),
    ("divide_", lambda m, a, b: a.clone().divide_(b, rounding_mode="trunc")),
    ("true_divide", lambda m, a, b: m.true_divide(a, 2)),
    ("not_equal", lambda m, a, b: m.not_equal(a, b)),
    ("greater", lambda m, a, b: a.greater(b)),
    ("greater_equal", lambda m, a, b: m.greater_equal(a, 0.5)),
    ("less", lambda m, a, b: m.less(a, b)),
    ("less_equal_", lambda m, a, b: a.clone().less_equal_(b)),
    ("clip", lambda m, a, b: m.clip(a, -1, 1)),
    ("clip_", lambda m, a, b: a.clone().clip_(max=b)),
])
def test_aliases(alias, call):
    a = torch.tensor([[-2.5, 0.5, 3.0], [1.0, -1.0, 7.0]])
    b = torch.tensor([2.0, -0.5, 3.0])
    both(call, (a, b))


@pytest.mark.parametrize("name", ["neg", "negative", "div", "divide", "true_divide", "sub",
                                  "subtract", "less"])
def test_alias_errors_name_their_entry(name):
    """Each name is an entry of its own: errors say the name called."""
    assert_same_error(lambda: getattr(nt, name)(nt.ones(2), "x", "y", "z"),
                      lambda: getattr(torch, name)(torch.ones(2), "x", "y", "z"))


def test_deprecated_overload_warns_once_per_process():
    """PyTorch's TORCH_WARN_ONCE for a deprecated signature: the first use in a process."""
    import subprocess
    import sys
    code = ("import warnings, {m} as lib\n"
            "x = lib.ones(2)\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n"
            "    lib.add(x, 2, x); x.sub(2, x); lib.addcmul(x, 2, x, x)\n"
            "print(repr([str(m.message).split(' (Triggered')[0] for m in w]))\n")
    out = [subprocess.run([sys.executable, "-c", code.format(m=m)], capture_output=True,
                          text=True, check=True).stdout for m in ("torch", "ntensor")]
    assert out[1] == out[0], out


def test_operators_take_numpy_scalars():
    np = pytest.importorskip("numpy")
    t = torch.tensor([1.0, -2.0, 3.0])
    for k in (np.int64(3), np.float32(0.5), np.bool_(True), np.int8(2)):
        both(lambda m, x: x * k, (t,))
        both(lambda m, x: x < k, (t,))
        both(lambda m, x: x.clone().__iadd__(k), (t,))
