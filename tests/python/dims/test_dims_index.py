"""Binding by indexing with PyTorch's other index entries beside first-class dims: slices with
bounds and steps, index tensors with positional dims (plain, from lists, with first-class dims
of their own, several that broadcast, separated by slices), bool masks. Checked against
functorch.dim (PyTorch 1.13) and against the definition: PyTorch's indexing of the positional
dims run once per element of the union of the dims involved, the results stacked."""
import itertools

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from ntensor import dim as ndim

from dims_helpers import theirs, values

# ---------------------------------------------------------------- cases as data
# An index entry, built for either library by build():
#   ("dim", k)  ("pack", (k, ...))  ("slice", (start, stop, step))  ("int", n)  ("none",)
#   ("ellipsis",)  ("list", [...])  ("tensor", array, (k, ...)): lib.tensor(array) bound by
#   the dims k... over its leading axes (all of them: a dim expression; none: a plain tensor;
#   a bool array: a mask).
# A case: (X, xdims, entries, ndims): X an array whose leading len(xdims) axes are bound to
# those dims first, ndims the number of dims made.


def build(lib, ds, entry):
    kind = entry[0]
    if kind == "dim":
        return ds[entry[1]]
    if kind == "pack":
        return tuple(ds[k] for k in entry[1])
    if kind == "slice":
        return slice(*entry[1])
    if kind == "int":
        return entry[1]
    if kind == "none":
        return None
    if kind == "ellipsis":
        return Ellipsis
    if kind == "list":
        return list(entry[1])
    t = lib.tensor(entry[1])
    return t[tuple(ds[k] for k in entry[2])] if entry[2] else t


def compute(lib, dims, case):
    """The case under one library: the result and its dims' numbers."""
    X, xdims, entries, n = case
    ds = dims(n)
    ds = ds if isinstance(ds, tuple) else (ds,)
    x = lib.tensor(X)
    if xdims:
        x = x[tuple(ds[k] for k in xdims)]
    r = x[tuple(build(lib, ds, e) for e in entries)]
    order = [next(k for k, d in enumerate(ds) if d is rd) for rd in r.dims]
    return r, order, ds


def summary(lib, dims, case):
    """(dims' numbers, positional shape, values ordered by those dims) or the error."""
    r, order, ds = compute(lib, dims, case)
    o = r.order(*[ds[k] for k in order])
    return order, tuple(r.shape), tuple(o.shape), values(o)


def ours(case):
    return summary(nt, lambda n: ndim.dims(n), case)


def oracle(case):
    return theirs(lambda fdim: summary(torch, fdim.dims, case))


def sizes_of(case):
    """Each dim's size, from the tensor it binds."""
    X, xdims, entries, n = case
    sizes = {k: X.shape[a] for a, k in enumerate(xdims)}
    for e in entries:
        if e[0] == "tensor":
            sizes.update({k: e[1].shape[a] for a, k in enumerate(e[2])})
    p = len(xdims)
    for e in entries:
        if e[0] == "ellipsis":
            p += X.ndim - len(xdims) - consumed(entries)
        elif e[0] == "dim":
            sizes[e[1]] = X.shape[p]
        elif e[0] == "pack":
            known = [sizes[k] for k in e[1] if k in sizes]
            rest = X.shape[p] // int(np.prod(known)) if known else X.shape[p]
            sizes.update({k: rest for k in e[1] if k not in sizes})
        p += width(e)
    return sizes


def width(e):
    """The positional dims of X an entry takes."""
    if e[0] in ("none", "ellipsis"):
        return 0
    if e[0] == "tensor" and e[1].dtype == bool:
        return e[1].ndim
    return 1


def consumed(entries):
    return sum(width(e) for e in entries)


def per_element(case, order):
    """The definition: torch's indexing of X's positional dims per element of the dims
    `order` (the result's), stacked in that order."""
    X, xdims, entries, n = case
    sizes = sizes_of(case)
    out = []
    for e in itertools.product(*[range(sizes[k]) for k in order]):
        at = dict(zip(order, e))
        idx = []
        for en in entries:
            if en[0] == "dim":
                idx.append(at[en[1]])
            elif en[0] == "pack":
                flat = 0
                for k in en[1]:
                    flat = flat * sizes[k] + at[k]
                idx.append(flat)
            elif en[0] == "tensor":
                t = torch.tensor(en[1])
                idx.append(t[tuple(at[k] for k in en[2])] if en[2] else t)
            else:
                idx.append(build(torch, None, en))
        x = torch.tensor(X)[tuple(at[k] for k in xdims)]
        out.append(x[tuple(idx)])
    ref = torch.stack(out) if out else None
    return ref.reshape(tuple(sizes[k] for k in order) + tuple(out[0].shape)) if out else None


def check_definition(case):
    r, order, ds = compute(nt, lambda n: ndim.dims(n), case)
    want = per_element(case, order)
    o = r.order(*[ds[k] for k in order])
    assert tuple(o.shape) == tuple(want.shape)  # (values() loses the dims after an empty one)
    np.testing.assert_allclose(values(o), values(want), rtol=1e-6, atol=1e-6)
    return order, tuple(r.shape)


def check_functorch(case):
    mine, theirs_ = ours(case), oracle(case)
    assert theirs_[0] != "!", theirs_
    assert mine[:3] == theirs_[:3]
    np.testing.assert_allclose(mine[3], theirs_[3], rtol=1e-6, atol=1e-6)


def arr(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


def ix(*rows):
    return np.array(rows, dtype=np.int64)


# ---------------------------------------------------------------- the brief's examples

X46 = arr(4, 6)
X3456 = arr(3, 4, 5, 6, seed=1)
T32 = ix([0, 1], [2, 3], [4, 5])
EXAMPLES = {
    "i, 1:3": (X46, (), [("dim", 0), ("slice", (1, 3, None))], 1),
    "i, ::2": (X46, (), [("dim", 0), ("slice", (None, None, 2))], 1),
    "1:, i": (X46, (), [("slice", (1, None, None)), ("dim", 0)], 1),
    "i, -4:-1": (X46, (), [("dim", 0), ("slice", (-4, -1, None))], 1),
    "i, -100:100:3": (X46, (), [("dim", 0), ("slice", (-100, 100, 3))], 1),
    "i, 5:2 (empty)": (X46, (), [("dim", 0), ("slice", (5, 2, None))], 1),
    "i, 1:3, None, 0 / dims after": (X3456, (), [("dim", 0), ("slice", (1, 3)), ("none",),
                                                 ("int", 0), ("dim", 1)], 2),
    "i, tensor": (X46, (), [("dim", 0), ("tensor", ix(0, 1), ())], 1),
    "i, list": (X46, (), [("dim", 0), ("list", [0, 5, -1])], 1),
    "i, t[k]": (X46, (), [("dim", 0), ("tensor", T32, (1,))], 2),
    "t[k], i": (X46, (), [("tensor", ix([0, 1], [2, 3], [3, 3]), (1,)), ("dim", 0)], 2),
    "i - 1 (a dim expression), j": (X46, (), [("tensor", ix(3, 0, 1, 2), (0,)), ("dim", 1)], 2),
    "x[m][i, t[k]]": (X3456, (2,), [("dim", 0), ("tensor", ix([0, 1], [2, 3], [4, 1]), (1,))],
                      3),
    "x[m][t[k], i]": (X3456, (2,), [("tensor", ix([0, 1], [2, 3], [3, 1]), (1,)), ("dim", 0)],
                      3),
    "j, T, T broadcast": (X3456, (), [("dim", 0), ("tensor", ix([1, 2], [2, 0], [0, 3]), ()),
                                      ("tensor", ix(0, 4), ())], 1),
    "j, T, :, T (separated: first)": (X3456, (), [("dim", 0), ("tensor", ix(0, 3), ()),
                                                  ("slice", (None,)), ("tensor", ix(5, 2), ())], 1),
    ":, j, T": (X3456, (), [("slice", (None,)), ("dim", 0), ("tensor", ix(0, 4, 1), ())], 1),
    "..., T, j": (X3456, (), [("ellipsis",), ("tensor", ix(0, 4), ()), ("dim", 0)], 1),
    "j, ..., T, :": (X3456, (), [("dim", 0), ("ellipsis",), ("tensor", ix(0, 4), ()),
                                 ("slice", (None,))], 1),
    "j, mask": (X3456, (), [("dim", 0), ("tensor", np.array([True, False, True, True]), ())], 1),
    "t[k], (i, k) pack": (X46, (), [("tensor", ix([0, 1], [3, 2]), (1,)), ("pack", (0, 1))], 2),
    "x[k][T, (i, k) pack]": (arr(2, 4, 6), (1,), [("tensor", ix([0, 1], [3, 2]), ()),
                                                   ("pack", (0, 1))], 2),
    "i, empty list": (X46, (), [("dim", 0), ("list", [])], 1),
    "i, 0-dim tensor": (X46, (), [("dim", 0), ("tensor", ix(4)[0], ())], 1),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_examples_against_functorch_and_the_definition(name):
    case = EXAMPLES[name]
    check_definition(case)
    check_functorch(case)


# Where functorch.dim 1.13 places or orders dims otherwise than PyTorch does per element:
# only the definition holds.
DIFFERENT = {
    # a dim between two index tensors: per element they are adjacent (functorch: first)
    ":, T, j, T": (X3456, (), [("slice", (None,)), ("tensor", ix(0, 1), ()), ("dim", 0),
                               ("tensor", ix(5, 2), ())], 1),
    # a dim expression selects per element, as an int (functorch: an index tensor)
    ":, T, :, j+0": (X3456, (), [("slice", (None,)), ("tensor", ix(0, 1), ()),
                                 ("slice", (None,)), ("tensor", ix(0, 1, 2, 3, 4, 5), (0,))], 1),
    # index tensors of two ranks broadcast from the right (functorch transposes them)
    "j, T(2), T(3, 1)": (X3456, (), [("dim", 0), ("tensor", ix(0, 1), ()),
                                     ("tensor", ix([1], [2], [0]), ())], 1),
    # a mask over two dims (functorch counts it as one index)
    "j, mask(4, 5)": (X3456, (), [("dim", 0), ("tensor", arr(4, 5, seed=3) > 0, ())], 1),
}


@pytest.mark.parametrize("name", sorted(DIFFERENT))
def test_cases_functorch_places_otherwise_follow_the_definition(name):
    order, shape = check_definition(DIFFERENT[name])
    assert order == [0]
    assert shape == {":, T, j, T": (3, 2), ":, T, :, j+0": (3, 2, 5),
                     "j, T(2), T(3, 1)": (3, 2, 6),
                     "j, mask(4, 5)": (int((arr(4, 5, seed=3) > 0).sum()), 6)}[name]


def test_a_plain_dims_index_is_still_a_view():
    i, j = ndim.dims(2)
    x = nt.rand(3, 4, 5)
    y = x[i, 1:3, j]
    assert y.dims == (i, j) and tuple(y.shape) == (2,)
    y.order(i, j)[0, 0, 0] = 7  # the order of a view is a view: writes reach x
    assert x[0, 1, 0].item() == 7


# ---------------------------------------------------------------- errors


def error_of(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


ERRORS = {
    "out of range": lambda lib, i, k: lib.rand(3, 4, 5)[i, lib.tensor([0, 1]),
                                                      lib.tensor([0, 7])],
    "out of range, strided": lambda lib, i, k: lib.rand(3, 5)[i, lib.tensor([[0, 9], [1, 2],
                                                                             [3, 4]]).t()],
    "out of range, with dims": lambda lib, i, k: lib.rand(3, 5)[
        i, lib.tensor([[[0, 1], [2, 3]], [[4, 0], [6, 1]]])[:, k].t()],
    "negative out of range": lambda lib, i, k: lib.rand(3, 5)[i, lib.tensor([-1, -6])],
    "float index": lambda lib, i, k: lib.rand(3, 5)[i, lib.tensor([0.0, 1.0])],
    "shapes mismatch": lambda lib, i, k: lib.rand(3, 4, 5)[i, lib.tensor([0, 1]),
                                                         lib.tensor([0, 1, 2])],
    "negative step": lambda lib, i, k: lib.rand(3, 5)[i, ::-1],
    "zero step": lambda lib, i, k: lib.rand(3, 5)[i, ::0],
    "too many": lambda lib, i, k: lib.rand(3, 5)[i, lib.tensor([0]), lib.tensor([0])],
    "int out of range": lambda lib, i, k: lib.rand(3, 5)[i, 7],
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_functorch(name):
    mine = error_of(lambda: ERRORS[name](nt, *ndim.dims(2)))
    want = theirs(lambda fdim: error_of(lambda: ERRORS[name](torch, *fdim.dims(2))))
    assert mine is not None and mine == want


def test_mask_errors():
    """A mask of the wrong size: PyTorch's text for the per-element indexing (functorch's
    type; its text names its own physical layout); masks whose count of true elements could
    vary along a dim refuse."""
    i = ndim.dims(1)
    mine = error_of(lambda: nt.rand(3, 4, 5)[:, i, nt.tensor([True, False])])
    want = error_of(lambda: torch.rand(3, 5)[:, torch.tensor([True, False])])
    assert mine == want and mine[0] == "IndexError"
    i = ndim.dims(1)
    m = nt.tensor([[True, False], [False, False]])[i]
    with pytest.raises(NotImplementedError, match="bool tensor that has first-class dims"):
        nt.rand(2, 4)[i, m]
    with pytest.raises(IndexError, match="only integers, slices"):
        nt.rand(2, 4)[i, 1.5]


# ---------------------------------------------------------------- gradients


def test_gradients_flow_through_the_new_entries():
    a = nt.rand(4, 6, dtype=nt.float64, requires_grad=True)
    t = nt.tensor([[0, 1], [2, 3], [5, 5]])
    mask = nt.tensor([True, False, True, True, False, True])

    def sliced(a):
        i = ndim.dims(1)
        return (a[i, 1:5:2] * 2).order(i)

    def gathered(a):
        i, k = ndim.dims(2)
        return a[i, t[k]].order(i, k)

    def placed(a):
        i = ndim.dims(1)
        return a.view(2, 2, 6)[[1, 0], i, 1:4].order(i)

    def broadcast(a):
        i = ndim.dims(1)
        return a[i, [[0, 1], [5, 5]]].exp().order(i)

    def masked(a):
        i = ndim.dims(1)
        return a[i, mask].order(i)

    for f in (sliced, gathered, placed, broadcast, masked):
        assert nt.autograd.gradcheck(f, (a,))


# ---------------------------------------------------------------- random mixes


def random_entry(rng, size, bshape, ndims):
    """A random entry for a dim of X of this size (in range; index tensors of positional
    shapes that broadcast to bshape; new dims numbered from ndims) and the dims it makes."""
    kind = rng.choice(["dim", "slice", "int", "tensor", "list", "expr", "mask", "full"],
                      p=[.25, .15, .1, .2, .05, .1, .05, .1])
    if kind == "dim":
        return ("dim", ndims), 1
    if kind == "slice":
        def bound():
            return None if rng.random() < .3 else int(rng.integers(-size - 2, size + 3))
        step = None if rng.random() < .5 else int(rng.integers(1, 4))
        return ("slice", (bound(), bound(), step)), 0
    if kind == "int":
        return ("int", int(rng.integers(-size, size))), 0
    if kind == "expr":
        return ("tensor", rng.integers(-size, size, int(rng.integers(1, 4))), (ndims,)), 1
    if kind == "mask":
        return ("tensor", rng.random(size) < .5, ()), 0
    if kind == "full":
        return ("slice", (None,)), 0
    nd = int(rng.integers(1, len(bshape) + 1))
    tshape = [s if rng.random() < .8 else 1 for s in bshape[len(bshape) - nd:]]
    levels = () if kind == "list" or rng.random() < .5 else (ndims,)
    vals = rng.integers(-size, size, [int(rng.integers(1, 4))] * len(levels) + tshape)
    return (("list", vals.tolist()) if kind == "list" else ("tensor", vals, levels)), len(levels)


def random_case(seed, functorch_safe):
    """A random index of dims, slices, ints, index tensors (plain, lists, with dims of their
    own, dim expressions, masks), None and '...' over a random tensor, in range. With
    functorch_safe, only what functorch.dim 1.13 does as PyTorch does per element."""
    rng = np.random.default_rng(seed)
    shape = [int(s) for s in rng.integers(1, 5, int(rng.integers(1, 5)))]
    xd = int(rng.integers(0, 2))  # a dim bound on X beforehand
    X = rng.standard_normal([2] * xd + shape).astype(np.float32)
    ndims = xd
    bshape = [int(s) for s in rng.integers(1, 4, int(rng.integers(1, 3)))]
    entries = []
    for size in shape:
        e, made = random_entry(rng, size, bshape, ndims)
        entries.append(e)
        ndims += made
    if sum(positional(e) > 0 for e in entries) > 1:  # a mask's length broadcasts with no other
        entries = [("slice", (None,)) if e[0] == "tensor" and e[1].dtype == bool else e
                   for e in entries]
    if not any(e[0] == "dim" for e in entries):
        entries[int(rng.integers(0, len(entries)))] = ("dim", ndims)
        ndims += 1
    if rng.random() < .3:  # a None somewhere
        entries.insert(int(rng.integers(0, len(entries) + 1)), ("none",))
    if rng.random() < .3:  # '...' for a run of full slices (maybe empty)
        a = b = int(rng.integers(0, len(entries) + 1))
        while b < len(entries) and entries[b] == ("slice", (None,)):
            b += 1
        entries[a:b] = [("ellipsis",)]
    case = (X, tuple(range(xd)), entries, ndims)
    return case if not functorch_safe or functorch_agrees(case) else None


def functorch_agrees(case):
    """Whether functorch.dim 1.13 gives PyTorch's per-element result here: its index tensors
    with positional dims never have more dims than the first one (it transposes them
    otherwise), a list is 1-d and the only index tensor (it aborts otherwise), and its rule
    for where their broadcast dims go (a dim bound between index tensors counts as a slice, a
    dim expression as an index tensor) gives our place."""
    X, xdims, entries, _ = case
    ell = X.ndim - len(xdims) - consumed(entries)
    kept = [1 if e[0] in ("slice", "none") else ell if e[0] == "ellipsis" else 0
            for e in entries]
    pnd = [positional(e) for e in entries]
    ranks = [n for n in pnd if n]
    if ranks and max(ranks) > ranks[0]:
        return False
    if any(e[0] == "tensor" and e[1].dtype == bool and e[1].ndim > 1 for e in entries):
        return False
    lists = [e for e in entries if e[0] == "list"]  # it aborts on a list beside other indices
    if lists and (positional(lists[0]) > 1 or
                  sum(e[0] in ("tensor", "list") for e in entries) > 1):
        return False

    def place(tensors, breaks):
        if not tensors:
            return 0
        a, b = tensors[0], tensors[-1]
        if any(breaks(entries[k], kept[k]) for k in range(a, b)):
            return 0
        return sum(kept[:a])
    ours_ = place([k for k, n in enumerate(pnd) if n], lambda e, kp: kp > 0)
    theirs_ = place([k for k, e in enumerate(entries) if e[0] in ("tensor", "list")],
                    lambda e, kp: kp > 0 or e[0] in ("dim", "pack"))
    return not ranks or ours_ == theirs_


def positional(e):
    """The broadcast dims an entry adds per element (0: not an index tensor, or one that
    selects)."""
    if e[0] == "list":
        return np.asarray(e[1]).ndim
    if e[0] == "tensor":
        return 1 if e[1].dtype == bool else e[1].ndim - len(e[2])
    return 0


@settings(deadline=None, max_examples=150)
@given(st.integers(0, 10 ** 6))
def test_random_mixes_follow_the_definition(seed):
    check_definition(random_case(seed, False))


@settings(deadline=None, max_examples=40)  # each example forks a functorch.dim process
@given(st.integers(0, 10 ** 6))
def test_random_mixes_against_functorch(seed):
    case = random_case(seed, True)
    if case is None:
        return
    check_definition(case)
    check_functorch(case)
