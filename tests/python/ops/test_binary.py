"""The pointwise binary family against PyTorch 1.13: every op for every dtype (values: bit
for bit for the correctly rounded ops, within a few ulps for pow, atan2 and a non-trivial
alpha, whose bits depend on PyTorch's CPU kernel; result dtypes, the errors of unsupported
dtypes), contiguous and non-contiguous operands,
broadcasting, Python scalars on either side, zero-dim tensors, type promotion, in-place and
out= forms with their name and cast rules, where / clamp / isclose / allclose, and the
Python operators."""
import itertools
import math
import operator

import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, TO_NT_DTYPE, assert_close_dtype, assert_same, assert_same_error
from helpers import from_torch as _from_torch


def from_torch(t):
    """helpers.from_torch, also for tensors without elements (whose tolist loses the shape)."""
    if t.numel() == 0:
        names = t.names if any(n is not None for n in t.names) else None
        return nt.empty(*t.shape, dtype=TO_NT_DTYPE[t.dtype], names=names)
    return _from_torch(t)

TORCH_DTYPES = [t for _, t in DTYPE_PAIRS]
FLOATS = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
INTS = (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64)


def rand(shape, dtype, seed, low=None, high=None, nonzero=False):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype in FLOATS:
        t = torch.randn(shape, generator=g, dtype=torch.float64) * 3
        if nonzero:
            t = torch.where(t.abs() < 0.1, torch.full_like(t, 0.5), t)
        return t.to(dtype)
    lo = 0 if dtype == torch.uint8 else -6 if low is None else low
    hi = 7 if high is None else high
    t = torch.randint(lo, hi, shape, generator=g, dtype=torch.int64)
    if nonzero:
        t = torch.where(t == 0, torch.ones_like(t), t)
    return t.to(dtype)


# Ops whose floating results are not one correctly rounded operation, and whose bits
# PyTorch's kernel choice decides: pow and atan2 (SLEEF's functions on AVX2/AVX-512, glibc's
# otherwise, each within 1 or 2 ulps; pow's small integer exponents take PyTorch's own
# products), and add/sub with an alpha that is not a power of two (a + alpha * b: one fused
# multiply-add in PyTorch's AVX2/AVX-512 kernels, two roundings in its scalar ones; see
# test_alpha). A float16 or bfloat16 result, computed in float32 and rounded once, may round
# to a neighbour.
CLOSE_OPS = {"pow", "atan2"}


def check(x, t, close=False):
    """x (ntensor) agrees with t (torch result): names, shape, dtype, and values bit for bit
    (integers, bools, and the floats of one correctly rounded operation: +, -, *, /, floor
    division, remainder, maximum, comparisons, clamp, where), or with close=True within a few
    ulps (assert_close_dtype), or with close a dict of assert_close_dtype's arguments."""
    if isinstance(close, dict):
        assert_close_dtype(x, t, **close)
    elif close:
        assert_close_dtype(x, t, ulps=1 if t.dtype in (torch.float16, torch.bfloat16) else 4)
    else:
        assert_same(x, t)


def run_both(nt_fn, torch_fn, close=False):
    """Runs torch; if it raises, ntensor must raise the same; otherwise compare (check)."""
    try:
        expected = torch_fn()
    except Exception:  # noqa: BLE001 - the oracle decides
        assert_same_error(nt_fn, torch_fn)
        return None
    got = nt_fn()
    if isinstance(expected, torch.Tensor):
        check(got, expected, close)
    else:
        assert got == expected
    return got


# ---------------------------------------------------------------- every op x every dtype

OPS = {
    "add": (torch.add, nt.add),
    "sub": (torch.sub, nt.sub),
    "mul": (torch.mul, nt.mul),
    "div": (torch.div, nt.div),
    "div_trunc": (lambda a, b: torch.div(a, b, rounding_mode="trunc"),
                  lambda a, b: nt.div(a, b, rounding_mode="trunc")),
    "div_floor": (lambda a, b: torch.div(a, b, rounding_mode="floor"),
                  lambda a, b: nt.div(a, b, rounding_mode="floor")),
    "floor_divide": (torch.floor_divide, nt.floor_divide),
    "remainder": (torch.remainder, nt.remainder),
    "pow": (torch.pow, nt.pow),
    "atan2": (torch.atan2, nt.atan2),
    "maximum": (torch.maximum, nt.maximum),
    "minimum": (torch.minimum, nt.minimum),
    "eq": (torch.eq, nt.eq), "ne": (torch.ne, nt.ne), "lt": (torch.lt, nt.lt),
    "le": (torch.le, nt.le), "gt": (torch.gt, nt.gt), "ge": (torch.ge, nt.ge),
    "bitwise_and": (torch.bitwise_and, nt.bitwise_and),
    "bitwise_or": (torch.bitwise_or, nt.bitwise_or),
    "bitwise_xor": (torch.bitwise_xor, nt.bitwise_xor),
    "logical_and": (torch.logical_and, nt.logical_and),
    "logical_or": (torch.logical_or, nt.logical_or),
    "logical_xor": (torch.logical_xor, nt.logical_xor),
}
DIVISIONS = {"div_trunc", "div_floor", "floor_divide", "remainder"}


def operands(name, dtype, seed, shape_a=(3, 4), shape_b=(3, 4)):
    a = rand(shape_a, dtype, seed)
    if name == "pow" and dtype in INTS:
        b = rand(shape_b, dtype, seed + 1, low=0, high=4)
    else:
        b = rand(shape_b, dtype, seed + 1, nonzero=name in DIVISIONS)
    return a, b


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("name", list(OPS))
def test_op_every_dtype_contiguous(name, dtype):
    tf, nf = OPS[name]
    a, b = operands(name, dtype, 1)
    run_both(lambda: nf(from_torch(a), from_torch(b)), lambda: tf(a, b), name in CLOSE_OPS)


LAYOUTS = {
    # (torch view, same view in ntensor) applied to a base of shape (4, 6)
    "transposed": (lambda t: t.t()[:, :4], lambda x: x.t()[:, :4]),
    "sliced": (lambda t: t[1:, ::2], lambda x: x[1:, ::2]),
    "expanded": (lambda t: t[:1, :3].expand(3, 3), lambda x: x[:1, :3].expand(3, 3)),
    "negative_free_rows": (lambda t: t[::2, 1:4], lambda x: x[::2, 1:4]),
}


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "div_floor", "remainder", "pow",
                                  "maximum", "lt", "eq", "bitwise_xor", "logical_or"])
def test_op_noncontiguous(name, layout, dtype):
    tf, nf = OPS[name]
    tv, nv = LAYOUTS[layout]
    a, b = operands(name, dtype, 2, (4, 6), (4, 6))
    ta, tb = tv(a), tv(b)
    tb2 = tb.t() if ta.shape == tb.t().shape else tb  # mix layouts where the shapes allow
    na, nb = nv(from_torch(a)), nv(from_torch(b))
    nb2 = nb.t() if ta.shape == tb.t().shape else nb
    run_both(lambda: nf(na, nb2), lambda: tf(ta, tb2), name in CLOSE_OPS)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("name", ["add", "mul", "sub", "div", "pow", "eq", "gt", "maximum",
                                  "remainder", "bitwise_and", "logical_and", "atan2"])
def test_broadcasting_shapes(name, dtype):
    tf, nf = OPS[name]
    for sa, sb in [((3, 1), (4,)), ((2, 1, 4), (3, 1)), ((), (3,)), ((5,), ()), ((1,), (2, 3)),
                   ((0, 3), (1, 3))]:
        a, b = operands(name, dtype, 3, sa, sb)
        run_both(lambda: nf(from_torch(a), from_torch(b)), lambda: tf(a, b), name in CLOSE_OPS)


def test_broadcast_error_text():
    assert_same_error(lambda: nt.ones(2, 3) + nt.ones(4), lambda: torch.ones(2, 3) + torch.ones(4))


# ---------------------------------------------------------------- scalars and promotion

SCALARS = [2, -3, 2.5, True, False, 0.1, 300, -1]


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "div_floor", "remainder", "pow",
                                  "eq", "lt", "ge", "bitwise_or"])
def test_tensor_op_scalar(name, dtype):
    tf, nf = OPS[name]
    a = rand((2, 3), dtype, 4)
    for s in SCALARS:
        if name == "pow" and dtype in INTS and s == 300:
            continue  # a huge power: both wrap, but torch's pow(int, 300) loop is its own
        run_both(lambda: nf(from_torch(a), s), lambda: tf(a, s), name in CLOSE_OPS)


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_scalar_op_tensor_operators(dtype):
    """Every operator with a Python number on either side. s / x is PyTorch's
    reciprocal(x) * s, two roundings, where ntensor divides once: within 2 ulps (exact for
    these s but 2.5; test_scalar_divided_by_tensor_rounds_like_torch)."""
    a = rand((2, 3), dtype, 5, nonzero=True)
    x = from_torch(a)
    for s in [2, 2.5, True, -1]:
        for op in (operator.add, operator.sub, operator.mul, operator.truediv,
                   operator.floordiv, operator.mod, operator.pow, operator.and_, operator.or_,
                   operator.xor):
            if op is operator.pow and dtype in INTS:
                continue  # torch.pow(scalar, int tensor) with the scalar's own loop
            close = dict(ulps=2) if op is operator.truediv and s == 2.5 else op is operator.pow
            run_both(lambda: op(s, x), lambda: op(s, a), close)
            run_both(lambda: op(x, s), lambda: op(a, s), op is operator.pow)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int32])
def test_scalar_divided_by_tensor_rounds_once(dtype):
    """A number divided by a tensor is one correctly rounded division, the same bits as
    torch.div of the number (as a tensor) by it. PyTorch's own Tensor.__rtruediv__ is
    reciprocal(self) * other, two roundings (2.5 / 3.0 in float32 is 0.83333337 there,
    0.8333333 here): a documented difference (docs/decisions_ops_binary.md)."""
    a = rand((2, 3), dtype, 5, nonzero=True)
    check(2.5 / from_torch(a), torch.div(torch.full_like(a, 2.5, dtype=torch.float64), a)
          .to(a.dtype if a.dtype.is_floating_point else torch.float32))


@pytest.mark.parametrize("da,db", list(itertools.product(TORCH_DTYPES, TORCH_DTYPES)),
                         ids=lambda d: str(d))
def test_promotion_tensor_tensor(da, db):
    a, b = rand((2, 3), da, 6), rand((2, 3), db, 7)
    for name in ["add", "mul", "div", "eq", "maximum"]:
        tf, nf = OPS[name]
        run_both(lambda: nf(from_torch(a), from_torch(b)), lambda: tf(a, b))


@pytest.mark.parametrize("da,db", list(itertools.product(TORCH_DTYPES, TORCH_DTYPES)),
                         ids=lambda d: str(d))
def test_promotion_zero_dim(da, db):
    a, b = rand((2, 3), da, 8), rand((), db, 9)
    for name in ["add", "mul", "lt"]:
        tf, nf = OPS[name]
        run_both(lambda: nf(from_torch(a), from_torch(b)), lambda: tf(a, b))
        run_both(lambda: nf(from_torch(b), from_torch(a)), lambda: tf(b, a))


def test_result_type_examples():
    assert (nt.ones(2, dtype=nt.int32) + 2.5).dtype == nt.float32
    assert (nt.ones(2, dtype=nt.uint8) + nt.tensor(5)).dtype == nt.uint8
    assert (nt.ones(2, dtype=nt.int32) / nt.ones(2, dtype=nt.int32)).dtype == nt.float32
    assert (nt.ones(2, dtype=nt.int32) < 2.5).dtype == nt.bool
    assert (nt.ones(2, dtype=nt.int32) + nt.tensor(1.5, dtype=nt.float64)).dtype == nt.float64
    assert (nt.ones(2, dtype=nt.bool) + 1).dtype == nt.int64


def test_scalar_values_wrap_into_the_dtype():
    for tf, s in [(torch.uint8, 300), (torch.int8, 1000), (torch.int32, 2 ** 40),
                  (torch.float16, 1e6), (torch.float16, 2.1)]:
        a = rand((3,), tf, 10)
        run_both(lambda: from_torch(a) + s, lambda: a + s)
        run_both(lambda: from_torch(a) == s, lambda: a == s)
    assert_same_error(lambda: nt.ones(2, dtype=nt.int32) + 2 ** 70,
                      lambda: torch.ones(2, dtype=torch.int32) + 2 ** 70)


# ---------------------------------------------------------------- op-specific rules

def test_alpha():
    """a + alpha * b and a - alpha * b: exact where alpha * b is (alpha a power of two),
    otherwise within two roundings of |a| + |alpha b| (fused or not by PyTorch's kernel;
    float16 and bfloat16 round alpha * b to their own dtype in PyTorch, not in ntensor)."""
    for dtype in TORCH_DTYPES:
        a, b = rand((2, 3), dtype, 11), rand((2, 3), dtype, 12)
        for alpha in [2, -1, 0.5, True, 3]:
            # two roundings (of alpha * b, of the sum) or one (fused): relative to |a| + |alpha b|
            close = dict(n_terms=2, scale=a.double().abs() + abs(alpha) * b.double().abs())
            run_both(lambda: nt.add(from_torch(a), from_torch(b), alpha=alpha),
                     lambda: torch.add(a, b, alpha=alpha), alpha == 3 and close)
            run_both(lambda: nt.sub(from_torch(a), from_torch(b), alpha=alpha),
                     lambda: torch.sub(a, b, alpha=alpha), alpha == 3 and close)
            run_both(lambda: from_torch(a).add(2, alpha=alpha), lambda: a.add(2, alpha=alpha))


def test_sub_bool_errors():
    t, f = torch.tensor([True, False]), torch.tensor([1, 2])
    for x, y in [(t, t), (t, True), (t, 1), (f, True), (True, t), (1, t)]:
        nx = from_torch(x) if isinstance(x, torch.Tensor) else x
        ny = from_torch(y) if isinstance(y, torch.Tensor) else y
        assert_same_error(lambda: nx - ny, lambda: x - y)


def test_integer_division_by_zero():
    a = torch.tensor([5, -5, 7])
    z = torch.tensor([1, 0, 2])
    for fn in [lambda p, q: p // q, lambda p, q: p % q,
               lambda p, q: p.div(q, rounding_mode="trunc"),
               lambda p, q: p.div(q, rounding_mode="floor")]:
        assert_same_error(lambda: fn(from_torch(a), from_torch(z)), lambda: fn(a, z))
        assert_same_error(lambda: fn(from_torch(a), 0), lambda: fn(a, 0))
    run_both(lambda: from_torch(a) / 0, lambda: a / 0)
    run_both(lambda: from_torch(a.double()) % 0, lambda: a.double() % 0)


def test_integer_division_extremes():
    # min // -1 overflows: PyTorch 1.13 dies of SIGFPE (x86's idiv traps); ntensor gives the
    # wrapped value (min) and 0 for the remainder. torch only sees the other elements here.
    for dtype in INTS[1:]:
        info = torch.iinfo(dtype)
        a = torch.tensor([info.min, info.max, -7, 7], dtype=dtype)
        b = torch.tensor([-1, -1, 2, -2], dtype=dtype)
        for fn, first in [(lambda p, q: p // q, info.min), (lambda p, q: p % q, 0),
                          (lambda p, q: p.div(q, rounding_mode="trunc"), info.min)]:
            got = fn(from_torch(a), from_torch(b))
            want = fn(a[1:], b[1:])
            assert got.tolist()[1:] == want.tolist()
            assert got.tolist()[0] == first


def test_pow_rules():
    i = torch.tensor([2, 3, 0, 1, -1])
    assert_same_error(lambda: from_torch(i) ** -1, lambda: i ** -1)
    assert_same_error(lambda: nt.pow(from_torch(i), -2), lambda: torch.pow(i, -2))
    run_both(lambda: from_torch(i) ** from_torch(torch.tensor([-1, -2, 2, -3, -3])),
             lambda: i ** torch.tensor([-1, -2, 2, -3, -3]))
    run_both(lambda: nt.pow(2, from_torch(i.abs())), lambda: torch.pow(2, i.abs()))
    run_both(lambda: nt.pow(2.5, from_torch(i)), lambda: torch.pow(2.5, i), close=True)
    run_both(lambda: from_torch(i) ** 0.5, lambda: i ** 0.5, close=True)
    f = torch.tensor([0.5, 2.0, 3.0, 0.0, -1.5])
    for e in [2, 3, 0.5, -0.5, -1, -2, 1.7, 0]:
        run_both(lambda: from_torch(f) ** e, lambda: f ** e, close=True)
        run_both(lambda: from_torch(f.double()) ** e, lambda: f.double() ** e, close=True)


def test_float_division_special_values():
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([7.5, -7.5, 0.0, -0.0, inf, -inf, nan, 5.0, -5.0, 1e-30])
    b = torch.tensor([2.0, 2.0, -3.0, 3.0, 2.0, 3.0, 1.0, 0.0, -0.0, -1e30])
    for fn in [lambda p, q: p // q, lambda p, q: p % q, lambda p, q: p / q,
               lambda p, q: p.div(q, rounding_mode="trunc"), torch.maximum, torch.minimum]:
        nfn = {torch.maximum: nt.maximum, torch.minimum: nt.minimum}.get(fn, fn)
        for dt in [torch.float32, torch.float64]:
            got = nfn(from_torch(a.to(dt)), from_torch(b.to(dt)))
            want = fn(a.to(dt), b.to(dt))
            g, w = np.array(got.tolist()), np.array(want.tolist())
            assert np.array_equal(g, w, equal_nan=True), (g, w)
            real = ~np.isnan(w)  # a NaN's sign is not part of the contract
            assert np.array_equal(np.signbit(g[real]), np.signbit(w[real])), (g, w)


def test_rounding_mode_error():
    x = torch.ones(2)
    assert_same_error(lambda: nt.div(nt.ones(2), nt.ones(2), rounding_mode="xx"),
                      lambda: torch.div(x, x, rounding_mode="xx"))


def test_tensor_only_ops_refuse_numbers():
    x = torch.ones(2)
    for name in ["atan2", "maximum", "minimum", "logical_and"]:
        assert_same_error(lambda: getattr(nt, name)(nt.ones(2), 2),
                          lambda: getattr(torch, name)(x, 2))
        assert_same_error(lambda: getattr(nt.ones(2), name)(2), lambda: getattr(x, name)(2))
    assert_same_error(lambda: nt.add(nt.ones(2), "a"), lambda: torch.add(x, "a"))
    assert_same_error(lambda: nt.ones(2).add("a"), lambda: x.add("a"))
    assert_same_error(lambda: nt.ones(2).add(nt.ones(2), alpha=None),
                      lambda: x.add(x, alpha=None))
    with pytest.raises(TypeError, match="unsupported operand"):
        nt.ones(2) + "a"
    with pytest.raises(TypeError):
        pow(nt.ones(2), 2, 3)


# ---------------------------------------------------------------- in place and out=

@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_inplace_every_op(dtype):
    for name in ["add", "sub", "mul", "div", "floor_divide", "remainder", "pow", "atan2", "eq",
                 "lt", "bitwise_and", "logical_or"]:
        a, b = operands(name, dtype, 13)
        ta = a.clone()
        x = from_torch(a)
        tf = getattr(ta, name + "_")
        nf = getattr(x, name + "_")
        try:
            r = tf(b)
        except Exception:  # noqa: BLE001
            assert_same_error(lambda: nf(from_torch(b)), lambda: getattr(a.clone(), name + "_")(b))
            continue
        got = nf(from_torch(b))
        assert got is x
        check(x, ta, name in CLOSE_OPS)
        assert r is ta


def test_inplace_cast_errors_and_mixed_dtypes():
    i, f = torch.tensor([1, 2]), torch.tensor([1.5, 2.5])
    assert_same_error(lambda: from_torch(i).add_(1.5), lambda: i.clone().add_(1.5))
    assert_same_error(lambda: from_torch(i).div_(2), lambda: i.clone().div_(2))
    assert_same_error(lambda: from_torch(i).add_(from_torch(f)), lambda: i.clone().add_(f))
    for fn in [lambda p, q: p.add_(q), lambda p, q: p.mul_(q), lambda p, q: p.lt_(q),
               lambda p, q: p.logical_and_(q)]:
        for a, b in [(f.clone(), i), (f.clone(), f.double()), (i.clone(), i.int())]:
            x = from_torch(a)
            fn(x, from_torch(b))
            check(x, fn(a.clone(), b))
    assert_same_error(lambda: nt.ones(2, 3).add_(nt.ones(4, 2, 3)),
                      lambda: torch.ones(2, 3).add_(torch.ones(4, 2, 3)))


def test_operators_inplace_keep_the_object():
    x = nt.ones(2, 3)
    y = x
    x += 1
    x *= nt.full((3,), 2.0)
    x -= 0.5
    x /= 2
    assert x is y
    assert x.tolist() == [[1.75] * 3] * 2
    z = nt.tensor([5, 6])
    w = z
    z //= 2
    z %= 2
    z **= 2
    z &= 1
    z |= 2
    z ^= 1
    assert z is w
    t = torch.tensor([5, 6])
    t //= 2
    t %= 2
    t **= 2
    t &= 1
    t |= 2
    t ^= 1
    assert z.tolist() == t.tolist()


def test_inplace_self_aliasing():
    a = torch.arange(12.0).reshape(3, 4)
    x = from_torch(a)
    x.add_(x)
    check(x, a.clone().add_(a.clone()))
    x = from_torch(a)
    x.mul_(x.t().t())
    check(x, a * a)


def test_out():
    a, b = torch.randn(2, 3), torch.randn(2, 3)
    for dt in [torch.float32, torch.float64, torch.int64]:
        o = torch.empty(2, 3, dtype=dt)
        no = nt.empty(2, 3, dtype=TO_NT_DTYPE[dt])
        try:
            torch.add(a, b, out=o)
        except Exception:  # noqa: BLE001
            assert_same_error(lambda: nt.add(from_torch(a), from_torch(b), out=no),
                              lambda: torch.add(a, b, out=torch.empty(2, 3, dtype=dt)))
            continue
        r = nt.add(from_torch(a), from_torch(b), out=no)
        assert r is no
        check(no, o)
    o = torch.empty(2, 3)
    torch.eq(a, b, out=o)
    no = nt.empty(2, 3)
    nt.eq(from_torch(a), from_torch(b), out=no)
    check(no, o)
    i = torch.tensor([1, 2])
    o = torch.empty(2)
    torch.add(i, i, out=o)
    no = nt.empty(2)
    nt.add(from_torch(i), from_torch(i), out=no)
    check(no, o)


# ---------------------------------------------------------------- names

def named(shape, names, dtype=torch.float32, seed=0):
    return rand(shape, dtype, seed).refine_names(*names)


def test_names_unify_and_errors():
    cases = [((2, 3), ("N", "C"), (3,), ("C",)), ((2, 3), ("N", None), (3,), ("C",)),
             ((2, 3), ("N", "C"), (2, 3), (None, None)), ((2, 3), ("N", "C"), (3,), ("N",)),
             ((2, 3), ("N", None), (3,), ("N",)), ((3,), ("N",), (2, 3), ("N", None))]
    for sa, na, sb, nb in cases:
        a, b = named(sa, na), named(sb, nb, seed=1)
        for op in [operator.add, operator.mul, operator.eq, operator.truediv]:
            run_both(lambda: op(from_torch(a), from_torch(b)), lambda: op(a, b))


def test_names_inplace_and_out_rules():
    x = torch.zeros(2, 3)
    y = named((2, 3), ("N", "C"))
    nx = nt.zeros(2, 3)
    nx += from_torch(y)
    assert nx.names == ("N", "C")
    nx2 = from_torch(named((2, 3), ("N", "C")))
    nx2 += from_torch(named((2, 3), ("N", None), seed=2))
    assert nx2.names == ("N", "C")
    a = named((2, 3), ("N", None))
    b = named((2, 3), (None, "C"))
    assert_same_error(lambda: from_torch(a).add_(from_torch(b)), lambda: a.clone().add_(b))
    o = torch.empty(2, 3, names=("N", "D"))
    assert_same_error(lambda: nt.add(from_torch(y), from_torch(y), out=nt.empty(2, 3, names=("N", "D"))),
                      lambda: torch.add(y, y, out=o))
    # a named out is checked even when no input is named
    assert_same_error(lambda: nt.add(nt.ones(2, 3), nt.ones(2, 3), out=nt.empty(2, 3, names=("N", "C"))),
                      lambda: torch.add(x, x, out=torch.empty(2, 3, names=("N", "C"))))
    no = nt.empty(2, 3)
    nt.mul(from_torch(y), 2, out=no)
    assert no.names == ("N", "C")


def test_names_kept_by_scalar_ops():
    y = named((2, 3), ("N", "C"))
    for op in [operator.add, operator.sub, operator.mul, operator.truediv, operator.pow,
               operator.lt]:
        run_both(lambda: op(from_torch(y), 2), lambda: op(y, 2), op is operator.pow)
        run_both(lambda: op(2, from_torch(y)), lambda: op(2, y), op is operator.pow)


# ---------------------------------------------------------------- where

def test_where_values_dtypes_and_scalars():
    c = torch.tensor([[True, False, True], [False, False, True]])
    for da, db in [(torch.int32, torch.float32), (torch.float16, torch.float64),
                   (torch.bool, torch.uint8), (torch.int64, torch.int64),
                   (torch.bfloat16, torch.bfloat16)]:
        a, b = rand((2, 3), da, 14), rand((3,), db, 15)
        run_both(lambda: nt.where(from_torch(c), from_torch(a), from_torch(b)),
                 lambda: torch.where(c, a, b))
        run_both(lambda: from_torch(a).where(from_torch(c), from_torch(b)), lambda: a.where(c, b))
    for s1, s2 in [(1, 2.5), (1, 2), (True, False)]:
        run_both(lambda: nt.where(from_torch(c), s1, s2), lambda: torch.where(c, s1, s2))
    a = rand((2, 3), torch.int32, 16)
    run_both(lambda: nt.where(from_torch(c), from_torch(a), 2), lambda: torch.where(c, a, 2))
    run_both(lambda: nt.where(from_torch(c), from_torch(a), 2.5), lambda: torch.where(c, a, 2.5))
    run_both(lambda: nt.where(from_torch(c.t()), from_torch(a.t()), 0),
             lambda: torch.where(c.t(), a.t(), 0))
    u = c.to(torch.uint8)
    run_both(lambda: nt.where(from_torch(u), 1, 2), lambda: torch.where(u, 1, 2))
    lng = c.long()
    assert_same_error(lambda: nt.where(from_torch(lng), 1, 2), lambda: torch.where(lng, 1, 2))


def test_where_names_supported():
    c = nt.tensor([True, False, True]).refine_names("C")
    a = nt.ones(2, 3, names=("N", None))
    r = nt.where(c, a, 0.0)
    assert r.names == ("N", "C")
    assert r.tolist() == [[1.0, 0.0, 1.0]] * 2
    with pytest.raises(RuntimeError, match="do not match"):
        nt.where(c, nt.ones(2, 3, names=("N", "D")), 0.0)


# ---------------------------------------------------------------- clamp

@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_clamp_scalar_bounds_every_dtype(dtype):
    a = rand((3, 4), dtype, 17)
    for lo, hi in [(0, None), (None, 2), (-1, 2), (0.5, None), (2, -1), (False, True)]:
        run_both(lambda: nt.clamp(from_torch(a), lo, hi), lambda: torch.clamp(a, lo, hi))
        run_both(lambda: from_torch(a).t().clamp(min=lo, max=hi), lambda: a.t().clamp(min=lo, max=hi))
        run_both(lambda: from_torch(a).clamp_(lo, hi), lambda: a.clone().clamp_(lo, hi))


@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_clamp_tensor_bounds_every_dtype(dtype):
    a = rand((3, 4), dtype, 18)
    lo, hi = rand((4,), dtype, 19), rand((3, 1), dtype, 20)
    run_both(lambda: nt.clamp(from_torch(a), from_torch(lo)), lambda: torch.clamp(a, lo))
    run_both(lambda: nt.clamp(from_torch(a), max=from_torch(hi)), lambda: torch.clamp(a, max=hi))
    run_both(lambda: nt.clamp(from_torch(a), from_torch(lo), from_torch(hi)),
             lambda: torch.clamp(a, lo, hi))


def test_clamp_nan_and_errors():
    nan = float("nan")
    f = torch.tensor([1.0, 2.0, nan])
    for lo, hi in [(nan, None), (None, nan), (nan, 5), (0, nan)]:
        run_both(lambda: nt.clamp(from_torch(f), lo, hi), lambda: torch.clamp(f, lo, hi))
    b = torch.tensor([nan, 0.0, 0.0])
    run_both(lambda: nt.clamp(from_torch(f), from_torch(b)), lambda: torch.clamp(f, b))
    run_both(lambda: nt.clamp(from_torch(f), from_torch(b), from_torch(b + 5)),
             lambda: torch.clamp(f, b, b + 5))
    i = torch.tensor([1, 2, 3])
    for call in [lambda m, t: m.clamp(t), lambda m, t: m.clamp(t, None, None),
                 lambda m, t: t.clamp_(0.5), lambda m, t: t.int().clamp_(0.5, 1),
                 lambda m, t: t.bool().clamp_(0, 1),
                 lambda m, t: m.clamp(t.to(m.uint8 if m is nt else torch.uint8), -1, 300),
                 lambda m, t: m.clamp(t.half(), 1.5), lambda m, t: m.clamp(t.half(), 1.5, 2),
                 lambda m, t: m.clamp(t.half(), max=1.5),
                 lambda m, t: m.clamp(t.bool(), False, False),
                 lambda m, t: m.clamp(t, 0, 1, out=m.empty(3, dtype=m.int32)),
                 lambda m, t: m.clamp(t, m.tensor([2, 2, 2]), 2)]:
        assert_same_error(lambda: call(nt, from_torch(i)), lambda: call(torch, i.clone()))
    run_both(lambda: nt.clip(from_torch(f), 1.5), lambda: torch.clip(f, 1.5))
    run_both(lambda: nt.clamp(from_torch(i), 1.5, nt.tensor(2)), lambda: torch.clamp(i, 1.5, torch.tensor(2)))


def test_clamp_names():
    x = named((2, 3), ("N", "C"))
    run_both(lambda: nt.clamp(from_torch(x), 0.5), lambda: torch.clamp(x, 0.5))
    lo = named((3,), ("C",), seed=3)
    run_both(lambda: nt.clamp(from_torch(x), from_torch(lo)), lambda: torch.clamp(x, lo))
    bad = named((3,), ("D",), seed=3)
    assert_same_error(lambda: nt.clamp(from_torch(x), from_torch(bad)), lambda: torch.clamp(x, bad))
    assert_same_error(lambda: nt.clamp(from_torch(x), 0.5, out=nt.empty(2, 3, names=("N", "D"))),
                      lambda: torch.clamp(x, 0.5, out=torch.empty(2, 3, names=("N", "D"))))


# ---------------------------------------------------------------- isclose, allclose

@pytest.mark.parametrize("dtype", TORCH_DTYPES, ids=str)
def test_isclose_every_dtype(dtype):
    a = rand((4, 5), dtype, 21)
    b = a.clone()
    if dtype in FLOATS:
        b = (a.double() * (1 + torch.randn(4, 5, generator=torch.Generator().manual_seed(1)) * 1e-5)).to(dtype)
    else:
        b = rand((4, 5), dtype, 22)
    for kw in [{}, {"rtol": 0.5, "atol": 0}, {"rtol": 0, "atol": 1}, {"rtol": 0, "atol": 0},
               {"equal_nan": True}]:
        run_both(lambda: nt.isclose(from_torch(a), from_torch(b), **kw),
                 lambda: torch.isclose(a, b, **kw))
        run_both(lambda: nt.allclose(from_torch(a), from_torch(b), **kw),
                 lambda: torch.allclose(a, b, **kw))


def test_isclose_special_values_and_errors():
    nan, inf = float("nan"), float("inf")
    a = torch.tensor([1.0, nan, inf, -inf, 1.0, 0.0])
    b = torch.tensor([1.0 + 1e-7, nan, inf, inf, 1.1, 1e-9])
    for en in [False, True]:
        run_both(lambda: nt.isclose(from_torch(a), from_torch(b), equal_nan=en),
                 lambda: torch.isclose(a, b, equal_nan=en))
    i = torch.tensor([1, 2, 3])
    assert_same_error(lambda: nt.isclose(from_torch(i), from_torch(a[:3])),
                      lambda: torch.isclose(i, a[:3]))
    assert_same_error(lambda: nt.isclose(from_torch(a), from_torch(a), rtol=-1),
                      lambda: torch.isclose(a, a, rtol=-1))
    assert_same_error(lambda: nt.isclose(from_torch(a), from_torch(a), atol=-1),
                      lambda: torch.isclose(a, a, atol=-1))
    u = torch.tensor([1, 250], dtype=torch.uint8)
    v = torch.tensor([3, 3], dtype=torch.uint8)
    run_both(lambda: nt.isclose(from_torch(u), from_torch(v), rtol=0, atol=2),
             lambda: torch.isclose(u, v, rtol=0, atol=2))


def test_isclose_allclose_names_supported():
    x = nt.ones(2, 3, names=("N", "C"))
    r = nt.isclose(x, nt.ones(3, names=("C",)))
    assert r.names == ("N", "C") and r.dtype == nt.bool
    assert nt.allclose(x, x) is True
    assert x.allclose(x + 1) is False


# ---------------------------------------------------------------- comparison operators, hash

def test_richcompare_and_hash():
    a, b = torch.tensor([1, 2, 3]), torch.tensor([3, 2, 1])
    x, y = from_torch(a), from_torch(b)
    for op in [operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge]:
        run_both(lambda: op(x, y), lambda: op(a, b))
        run_both(lambda: op(x, 2), lambda: op(a, 2))
        run_both(lambda: op(2, x), lambda: op(2, a))
    assert (x == None) is False  # noqa: E711 - PyTorch gives False too
    assert (x != "a") is True
    d = {x: 1, y: 2}
    assert d[x] == 1 and d[y] == 2
    assert hash(x) == hash(x) and hash(x) != hash(y)
    assert x in {x}
