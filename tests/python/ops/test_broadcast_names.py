"""Randomised broadcasting and name unification against PyTorch 1.13 (hypothesis): random
ranks 0-5, random partial names, random broadcast patterns (size-1 dims, missing leading
dims, mismatches), for add, mul, eq and the in-place add_. Each case checks the names, the
shape and the values of the result, or the exact error type and text."""
import numpy as np
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import ntensor as nt
from helpers import TO_NT_DTYPE, assert_same

NAMES = ["A", "B", "C", "D", "E"]


@st.composite
def named_shape(draw, rank):
    sizes = [draw(st.integers(1, 3)) for _ in range(rank)]
    pool = NAMES[:]
    names = []
    for _ in range(rank):
        if draw(st.booleans()) and pool:
            n = draw(st.sampled_from(pool))
            pool.remove(n)
            names.append(n)
        else:
            names.append(None)
    return sizes, names


@st.composite
def operand_pair(draw):
    """Two shapes that often broadcast: b is a suffix of a with some dims set to 1, its
    names drawn from a's (sometimes shifted, sometimes fresh), or an unrelated shape."""
    ra = draw(st.integers(0, 5))
    sa, na = draw(named_shape(ra))
    mode = draw(st.sampled_from(["suffix", "suffix", "swap", "random"]))
    if mode == "random":
        sb, nb = draw(named_shape(draw(st.integers(0, 5))))
        return (sa, na), (sb, nb)
    rb = draw(st.integers(0, ra))
    sb = list(sa[ra - rb:])
    nb = list(na[ra - rb:])
    for i in range(rb):
        if draw(st.integers(0, 3)) == 0:
            sb[i] = 1
        u = draw(st.integers(0, 5))
        if u == 0:
            nb[i] = None
        elif u == 1:
            free = [n for n in NAMES if n not in nb]
            nb[i] = draw(st.sampled_from(free)) if free else None
    if mode == "swap" and rb >= 2:
        i = draw(st.integers(0, rb - 2))
        nb[i], nb[i + 1] = nb[i + 1], nb[i]
    if draw(st.booleans()):  # sometimes b has extra leading dims instead
        extra = draw(st.integers(0, 2))
        sb = [draw(st.integers(1, 2)) for _ in range(extra)] + sb
        nb = [None] * extra + nb
        sb, nb = sb[-5:], nb[-5:]
    # names must stay unique within one tensor
    seen = set()
    for i, n in enumerate(nb):
        if n is not None and n in seen:
            nb[i] = None
        seen.add(n)
    return (sa, na), (sb, nb)


def make(spec, seed, dtype=torch.float32):
    sizes, names = spec
    g = torch.Generator().manual_seed(seed)
    t = (torch.randn(sizes, generator=g) * 4).to(dtype) if sizes else torch.tensor(1.5).to(dtype)
    if dtype == torch.int64:
        t = torch.randint(-5, 6, sizes, generator=g)
    named = t.refine_names(*names) if names and any(n is not None for n in names) else t
    x = nt.tensor(t.tolist(), dtype=TO_NT_DTYPE[t.dtype])
    if names and any(n is not None for n in names):
        x = x.refine_names(*names)
    return x, named


def outcome(fn):
    try:
        return fn(), None
    except RuntimeError as e:
        return None, e


def compare(nt_fn, torch_fn):
    t, te = outcome(torch_fn)
    x, xe = outcome(nt_fn)
    if te is not None:
        assert xe is not None, f"ntensor gave {x!r}; torch raised {te}"
        assert type(xe) is type(te) and str(xe) == str(te), (str(xe), str(te))
        return
    assert xe is None, f"ntensor raised {xe}; torch gave {t!r}"
    # add, mul, eq and each step of x * 2.5 - y are one correctly rounded operation: exact
    assert_same(x, t)


@settings(max_examples=300, deadline=None)
@given(operand_pair(), st.integers(0, 1000), st.sampled_from(["add", "mul", "eq"]))
def test_binary_names_and_broadcasting(pair, seed, op):
    (xa, ta), (xb, tb) = make(pair[0], seed), make(pair[1], seed + 1)
    compare(lambda: getattr(nt, op)(xa, xb), lambda: getattr(torch, op)(ta, tb))
    compare(lambda: getattr(nt, op)(xb, xa), lambda: getattr(torch, op)(tb, ta))


@settings(max_examples=300, deadline=None)
@given(operand_pair(), st.integers(0, 1000))
def test_inplace_add_names(pair, seed):
    (xa, ta), (xb, tb) = make(pair[0], seed), make(pair[1], seed + 1)

    def nt_fn():
        xa.add_(xb)
        return xa

    def torch_fn():
        return ta.clone().add_(tb)

    compare(nt_fn, torch_fn)


@settings(max_examples=150, deadline=None)
@given(operand_pair(), st.integers(0, 1000))
def test_mixed_dtypes_and_scalars(pair, seed):
    (xa, ta), (xb, tb) = make(pair[0], seed, torch.int64), make(pair[1], seed + 1)
    compare(lambda: xa + xb, lambda: ta + tb)
    compare(lambda: xa * 2.5 - xb, lambda: ta * 2.5 - tb)
    compare(lambda: 3 - xa, lambda: 3 - ta)
