"""Helpers shared by the Python tests: compare an ntensor result with PyTorch's.

Two ways to compare values, by what the standards define exactly:
- assert_same: bit for bit. For what is defined exactly: integers and bools, copies,
  conversions and views, and floating results of one correctly rounded operation (x + y,
  x * y, x / y, sqrt, abs, neg, floor, comparisons, min/max, conversions).
- assert_close_dtype: within a bound derived from the dtype. For floating results whose bits
  depend on an algorithm, which PyTorch picks by CPU (AVX2 or AVX-512 kernels and their
  summation orders and polynomials, oneDNN, OpenBLAS's tiles, the thread count): sums, means,
  products, scans, softmax, norms, transcendentals (exp, tanh, pow, ...), matrix products.
Both check names, shape and dtype exactly."""
import numpy as np
import torch

import ntensor as nt

DTYPE_PAIRS = [
    (nt.bool, torch.bool), (nt.uint8, torch.uint8), (nt.int8, torch.int8),
    (nt.int16, torch.int16), (nt.int32, torch.int32), (nt.int64, torch.int64),
    (nt.float16, torch.float16), (nt.bfloat16, torch.bfloat16),
    (nt.float32, torch.float32), (nt.float64, torch.float64),
]
TO_TORCH_DTYPE = {a: b for a, b in DTYPE_PAIRS}
TO_NT_DTYPE = {b: a for a, b in DTYPE_PAIRS}


def to_torch(x):
    """A torch tensor with the same values, dtype and names as the ntensor `x` (a copy)."""
    values = x.rename(None).tolist() if x.has_names() else x.tolist()
    t = torch.tensor(values, dtype=TO_TORCH_DTYPE[x.dtype])
    return t.refine_names(*x.names) if x.has_names() else t


def from_torch(t):
    """An ntensor with the same values, dtype and names as the torch tensor `t`."""
    values = t.rename(None).tolist()
    x = nt.tensor(values, dtype=TO_NT_DTYPE[t.dtype])
    return x.refine_names(*t.names) if any(n is not None for n in t.names) else x


def _values(x, t):
    """The values of ntensor `x` and torch `t` as NumPy arrays (float64 for the floats)."""
    a = np.array(x.rename(None).tolist() if x.has_names() else x.tolist())
    b = np.array(t.rename(None).float().tolist() if t.dtype == torch.bfloat16
                 else t.rename(None).tolist())
    return a, b


def _check_meta(x, t):
    assert x.names == t.names, (x.names, t.names)
    assert tuple(x.shape) == tuple(t.shape), (x.shape, t.shape)
    assert x.dtype == TO_NT_DTYPE[t.dtype], (x.dtype, t.dtype)


def assert_same(x, t, exact=True, rtol=1e-6, atol=1e-6):
    """Asserts that ntensor `x` and torch `t` agree on names, shape, dtype and values: bit for
    bit (NaNs equal NaNs), or with exact=False within NumPy's allclose(rtol, atol) (an ad hoc
    tolerance: new tests use assert_close_dtype, whose bound follows from the dtype)."""
    _check_meta(x, t)
    a, b = _values(x, t)
    if exact:
        assert np.array_equal(a, b, equal_nan=True), (a, b)
    else:
        assert np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True), (a, b)


# The floating formats: significand bits p (the unit roundoff is u = 2**-p) and the exponent
# of the smallest normal number. The numbers in [2**e, 2**(e + 1)) are 2**(e - p + 1) apart.
FLOAT_FORMATS = {nt.float16: (11, -14), nt.bfloat16: (8, -126), nt.float32: (24, -126),
                 nt.float64: (53, -1022)}


def unit_roundoff(dtype):
    """u of an ntensor or torch floating dtype: 2**-11, 2**-8, 2**-24 or 2**-53."""
    return 2.0 ** -FLOAT_FORMATS[TO_NT_DTYPE.get(dtype, dtype)][0]


def ulp(values, dtype):
    """The spacing of `dtype`'s numbers at each of `values` (an array): 2**(e - p + 1) for
    |v| in [2**e, 2**(e + 1)), the subnormal spacing below the normal range and at 0."""
    p, emin = FLOAT_FORMATS[TO_NT_DTYPE.get(dtype, dtype)]
    a = np.abs(np.asarray(values, dtype=np.float64))
    _, e = np.frexp(a)  # a = m * 2**e with m in [0.5, 1)
    e = np.where(a > 0, np.maximum(e - 1, emin), emin)
    return np.ldexp(1.0, e - p + 1)


def _as_array(v):
    if isinstance(v, torch.Tensor):
        return np.array(v.rename(None).double().tolist())
    if isinstance(v, nt.Tensor):
        return np.array((v.rename(None) if v.has_names() else v).double().tolist())
    return np.asarray(v, dtype=np.float64)


def assert_close_dtype(x, t, n_terms=0, scale=None, ulps=0, dtype=None, probabilistic=False,
                       ref=None):
    """Asserts that ntensor `x` and torch `t` agree on names, shape and dtype exactly, and on
    values within the rounding error of an algorithm, derived from the result's dtype (unit
    roundoff u, unit in the last place ulp):

        |x - t| <= ulps * ulp(t) + 2 * n_terms * u * scale + (the dtype's smallest normal)

    - ulps: for results that each library computes within a few ulps of the exact value
      (transcendentals: SLEEF's or glibc's exp, tanh, ... are within 1 ulp; a result
      computed in float32 and rounded to bfloat16/float16 may round either way: 1 ulp).
    - n_terms and scale: for results of n_terms roundings, such as a sum of n_terms terms in
      any order, which is within n_terms * u * sum(|terms|) of the exact sum (Higham's
      gamma bound); the factor 2 counts both libraries' errors. `scale` holds sum(|terms|)
      for each element (an array, or a tensor computed in float64, of the result's shape or
      broadcastable to it), by default |t| (a relative bound, for products and chains of
      roundings).
    - the dtype's smallest normal number: results in the subnormal range (an underflowed
      exp) compare absolutely.
    - dtype: the floating dtype the result was computed in, when it is not the result's own
      (a float32 exp written to a float64 out=); u and ulp are that dtype's.
    - probabilistic: for sums of many random terms, n_terms becomes min(n, 10 sqrt(n)):
      Higham and Mary's probabilistic bound (SIAM J. Sci. Comput. 41(5), 2019), which holds
      for any order of summation with probability at least 1 - 2n exp(-50) when rounding
      errors are independent. The worst-case bound n u sum|terms| grows too loose to see a
      lost term once n passes about 1/sqrt(u) (3000 terms in float32).
    - ref: a reference computed in float64 and rounded to the result's dtype (a torch tensor
      or an array of t's shape). An element also passes within the same bound of it: where
      PyTorch's own value depends on the CPU beyond rounding (float32 cosh(89) is inf in its
      AVX2 kernel, 2.2448e38 in its AVX-512 and scalar ones), the correct value decides.
    NaN must meet NaN and an infinity the same infinity. Integer and bool results (where an
    op's result dtype depends on its inputs) compare exactly."""
    _check_meta(x, t)
    if not t.dtype.is_floating_point:
        assert_same(x, t)
        return
    a, b = _values(x, t)
    a, b = a.astype(np.float64), b.astype(np.float64)
    dtype = TO_NT_DTYPE[t.dtype] if dtype is None else TO_NT_DTYPE.get(dtype, dtype)
    if probabilistic:
        n_terms = min(n_terms, 10 * np.sqrt(n_terms))
    u = unit_roundoff(dtype)

    def within(want):
        """Where `a` is `want` (NaN for NaN, the same infinity) or within the bound of it."""
        mag = np.abs(want) if scale is None else np.broadcast_to(_as_array(scale), want.shape)
        with np.errstate(invalid="ignore"):  # inf - inf, 0 * inf: these elements compare equal
            bound = (ulps * ulp(want, dtype) + 2 * n_terms * u * mag
                     + 2.0 ** FLOAT_FORMATS[dtype][1])
            return (np.isnan(a) & np.isnan(want)) | (a == want) | (
                np.isfinite(a) & np.isfinite(want) & (np.abs(a - want) <= bound))

    ok = within(b)
    if ref is not None:
        ok |= within(np.broadcast_to(_as_array(ref), b.shape))
    assert ok.all(), ("beyond the rounding bound", a[~ok], b[~ok])


# exp and log are within 1 ulp in SLEEF (PyTorch's vector kernels), a few in glibc (its scalar
# ones): results of the two may be this many ulps apart (test_unary.py measures the ops).
EXP_ULPS = 4


def reduced_dims(t, d):
    """`d` (None, [], a name, an index or a list of them) as the sorted dim indices of the
    torch tensor `t`; None and [] reduce every dim."""
    if t.dim() == 0:
        return []
    if d is None or isinstance(d, (list, tuple)) and len(d) == 0:
        return list(range(t.dim()))
    names = list(t.names)
    return sorted({(names.index(e) if isinstance(e, str) else e) % t.dim()
                   for e in (d if isinstance(d, (list, tuple)) else [d])})


def assert_reduction(got, want, op, t, d=None, correction=1, probabilistic=False):
    """ntensor's `got` against torch's `want`: `op` over the dims `d` of the torch tensor `t`
    (None or [] for all; one dim for the scans and softmax). Names, shape and dtype exactly;
    integer and bool values exactly, amax/amin values too; floating values, whose bits depend
    on the summation order PyTorch's kernel picks by CPU (and on its exp), within the
    rounding error of any order (assert_close_dtype), from the number n of terms each result
    takes and the float64 sums of their magnitudes:
    - sum: n terms, sum|x|; mean: n + 1 roundings of mean|x|; cumsum: n terms, cumsum|x|;
      prod, cumprod: n roundings, relative;
    - var: n roundings of sum(x^2) / (n - correction), which bounds the error of Welford's
      and of the two-pass algorithm; std: that, over 2 std (sqrt halves relative errors);
    - logsumexp, max + log(sum exp(x - max)): the sum's relative error becomes an absolute
      one after log: n + 4 roundings of 1 + |max|, and log's ulps;
    - softmax: n + 4 roundings, relative to the result and to 1 + |x - max| (exp turns an
      absolute error in x - max into a relative one); log_softmax: absolute, of
      1 + |x| + |max| + |result|.
    bfloat16 and float16 accumulate in float32 (PyTorch's opmath type), but PyTorch rounds
    its partial results to the 16-bit dtype after each pass over a reduced dim (ntensor once
    at the end) and its logsumexp rounds each of its steps (exp, sum, log, +): their bound
    is n float32 roundings plus one 16-bit rounding per reduced dim and per step."""
    if op in ("amax", "amin") or not want.dtype.is_floating_point:
        assert_same(got, want)
        return
    u = t.rename(None).double()
    dims = reduced_dims(t, d)
    n = int(np.prod([u.shape[i] for i in dims]))
    shape = tuple(want.shape)
    half = want.dtype in (torch.float16, torch.bfloat16)
    kw = dict(probabilistic=probabilistic)
    if op == "sum":
        kw.update(n_terms=n, scale=u.abs().sum(dims, keepdim=True).reshape(shape))
    elif op == "mean":
        kw.update(n_terms=n + 1, scale=u.abs().mean(dims, keepdim=True).reshape(shape))
    elif op in ("prod", "cumprod"):
        kw.update(n_terms=n)
    elif op == "cumsum":
        kw.update(n_terms=n, scale=u.abs().cumsum(dims[0]))
    elif op in ("var", "std"):
        sq = (u * u).sum(dims, keepdim=True).reshape(shape) / max(n - correction, 1)
        if op == "std":  # |d std| = |d var| / (2 std); sqrt(|d var|) where std is 0
            std = u.std(dims, correction=correction, keepdim=True).reshape(shape)
            sq = torch.where(std > 0, sq / (2 * std), (sq / unit_roundoff(want.dtype)).sqrt())
        kw.update(n_terms=n, scale=sq, ulps=1)
    elif op == "logsumexp":
        kw.update(n_terms=n + 4, ulps=EXP_ULPS,
                  scale=1 + u.amax(dims, keepdim=True).abs().reshape(shape))
    elif op == "softmax":
        m = u.amax(dims, keepdim=True)
        w = want.rename(None).double().abs()
        kw.update(n_terms=n + 4, ulps=EXP_ULPS,
                  scale=torch.where(w > 0, (1 + (u - m).abs()) * w, w))  # exp(-inf) is 0
    elif op == "log_softmax":
        m = u.amax(dims, keepdim=True)
        kw.update(n_terms=n + 4, ulps=EXP_ULPS,
                  scale=1 + u.abs() + m.abs() + want.rename(None).double().abs())
    else:
        raise AssertionError(op)
    if half:
        steps = {"sum": 1, "cumsum": 1, "prod": 1, "cumprod": 1, "mean": 2}.get(op, 4)
        kw["n_terms"] = (len(dims) + steps
                         + kw["n_terms"] * unit_roundoff(torch.float32) / unit_roundoff(want.dtype))
    assert_close_dtype(got, want, **kw)


def assert_same_error(nt_fn, torch_fn, exc_type=None):
    """Asserts both calls raise the same exception type with the same message."""
    try:
        torch_fn()
    except Exception as e:  # noqa: BLE001 - the oracle decides which type
        torch_exc = e
    else:
        raise AssertionError("torch raised nothing")
    try:
        nt_fn()
    except Exception as e:  # noqa: BLE001
        assert type(e) is type(torch_exc), (type(e), type(torch_exc), str(e))
        assert str(e) == str(torch_exc), (str(e), str(torch_exc))
        if exc_type is not None:
            assert type(e) is exc_type
    else:
        raise AssertionError(f"ntensor raised nothing; torch raised {torch_exc!r}")


def agree(expr, env=None, exact=True, **close):
    """Evaluates `expr` with PyTorch and with ntensor (bound to the name `torch`), env's torch
    tensors converted by from_torch: the same result (assert_same, or assert_close_dtype with
    `close`'s arguments when not exact; a torch.Size as a tuple; a tuple or list item by item,
    ours a tuple), or the same exception type and text. Returns ntensor's result (None for an error)."""
    import pytest
    env = env or {}
    tenv = dict(torch=torch, **env)
    nenv = dict(torch=nt, **{k: from_torch(v) if isinstance(v, torch.Tensor) else v
                             for k, v in env.items()})
    try:
        want = eval(expr, tenv)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            eval(expr, nenv)
        assert str(info.value) == str(e), (expr, str(info.value), str(e))
        return None
    got = eval(expr, nenv)
    if isinstance(want, torch.Size):
        assert tuple(got) == tuple(want), (expr, got, want)
        return got
    many = isinstance(want, (tuple, list))  # split, unbind, sort's (values, indices), ...
    if many:
        assert isinstance(got, tuple) and len(got) == len(want), (expr, got, want)
    for g, w in zip(got, want) if many else ((got, want),):
        if exact:
            assert_same(g, w)
        else:
            assert_close_dtype(g, w, **close)
    return got
