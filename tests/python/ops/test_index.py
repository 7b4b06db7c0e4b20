"""Indexing against PyTorch 1.13: __getitem__/__setitem__ (ints, slices, None, Ellipsis,
bools, integer and bool tensors, lists), index_fill, masked_fill and masked_select, with
values, shapes, dtypes, names and every error's type and text. Where PyTorch refuses named
tensors (None and tensor indices, index_put_), our rule (docs/decisions_ops_index.md) is
tested directly."""
import warnings

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from helpers import DTYPE_PAIRS, agree, assert_same, assert_same_error, from_torch


def both(expr, **tensors):
    """agree() on `expr` with the given torch tensors (converted for ntensor)."""
    return agree(expr, tensors)


T = torch.arange(2 * 3 * 4 * 5, dtype=torch.float32).reshape(2, 3, 4, 5)
X = torch.arange(12.0).reshape(3, 4)
S = torch.tensor(5.0)

GETITEM_CASES = [
    # two Ellipses reach a phantom dim past the last one: only `:0` passes there in PyTorch
    "x[..., ..., :0]", "x[..., ..., :]", "x[..., ..., 1:]", "x[..., ..., 0]",
    "x[..., ..., :0, :0]",
    "x[1]", "x[-1]", "x[5]", "x[-4]", "x[:, 5]", "x[1:]", "x[::2]", "x[1::2, ::3]", "x[-100:100]",
    "x[2:1]", "x[10:]", "x[:, -2:]", "x[..., 1]", "x[1, ...]", "x[None]", "x[None, ..., None]",
    "x[:, None, 1]", "x[True]", "x[False]", "x[True, 1]", "x[0, 0, 0]", "x[(0,)]", "x[[0, 2]]",
    "x[[[0, 1], [1, 2]]]", "x[[0, 1], [1, 2]]", "x[[0, 1], [1, 2, 3]]", "x[:, [0, 3]]",
    "x[[True, False, True]]", "x[[]]", "x[[0, 1.0]]", "x[[0, True]]", "x[[[0]]]",
    "x[torch.tensor([0, 2])]", "x[torch.tensor([5])]", "x[torch.tensor([-4])]",
    "x[:, torch.tensor([5])]", "x[torch.tensor([0.5])]", "x[torch.tensor([1], dtype=torch.int32)]",
    "x[torch.tensor([True, False, True])]", "x[torch.tensor([True, False])]",
    "x[torch.tensor(1)]", "x[torch.tensor(True)]", "x[torch.tensor(False)]", "x[torch.tensor(1.0)]",
    "x[torch.tensor([[1, 0], [2, 2]])]", "x[torch.tensor([[0, 1]]), torch.tensor([1, 2])]",
    "x[torch.tensor([1, 0, 1], dtype=torch.uint8)]", "x[..., torch.tensor([1, 2]), None]",
    "x[0, ..., 0]", "x[..., 0, ...]", "x[1, ..., 1, ...]", "x[::-1]", "x[1.5]", "x['a']",
    "x[2**70]", "x[0:3:2, torch.tensor(2)]", "x[0, torch.tensor([[1, 2], [0, 0]])]",
    "x[torch.ones(3, 4, dtype=torch.bool)]", "x[torch.zeros(3, 4, dtype=torch.bool)]",
    "x[torch.ones(4, dtype=torch.bool)]",
    "t[:, [0, 1], :, [0, 1]]", "t[:, [0, 1], [0, 1]]", "t[[0, 1], :, [0, 1]]", "t[:, 0, :, [0, 1]]",
    "t[0, :, [1], 1]", "t[:, None, [0, 1], None, [0, 1]]", "t[:, [0, 1], None, [0, 1]]",
    "t[..., [0, 1], :]", "t[:, [[0], [1]], [0, 1, 2]]", "t[:, [0, 1], ..., [0, 1]]",
    "t[:, torch.ones(3, 4, dtype=torch.bool)]", "t[torch.zeros(2, 3, dtype=torch.bool), :, [0, 1]]",
    "t[0, torch.ones(3, 4, dtype=torch.bool)]", "t[torch.tensor(1), [0, 1]]", "t[:, True, [0, 1]]",
    "t[:, [0, 1], True, [0, 1]]", "t[torch.ones(2, 3, dtype=torch.bool), 0:2]",
    "t[:, torch.ones(3, 5, dtype=torch.bool)]", "t[:, torch.ones(4, 4, dtype=torch.bool)]",
    "t[[1, 0], torch.tensor([True, False, True])]", "t[:, :, torch.tensor([9])]",
    "t[torch.tensor([0]), :, torch.tensor([9])]", "t.transpose(1, 3)[:, [0, 4], 1:3]",
    "t[..., ::2][[1, 0]]", "t.expand(3, 2, 3, 4, 5)[:, 1, [0, 2]]",
    "s[0]", "s[1]", "s[0,]", "s[:]", "s[...]", "s[None]", "s[True]", "s[torch.tensor(True)]",
    "s[[0]]",
]


@pytest.mark.parametrize("expr", GETITEM_CASES)
def test_getitem_matches_torch(expr):
    both(expr, x=X, t=T, s=S)


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
def test_getitem_every_dtype(nd, td):
    x = (torch.arange(24).reshape(2, 3, 4) % 5).to(td)
    for expr in ["x[1, ::2]", "x[:, [2, 0]]", "x[x.bool()]" if td != torch.bool else "x[x]",
                 "x[[1, 0], :, [3, 3]]", "x.transpose(0, 2)[[1, 2]]"]:
        both(expr, x=x)


def test_basic_indexing_is_a_view():
    x = nt.arange(12.0).reshape(3, 4)
    v = x[1:, ::2]
    v[0, 0] = 100.0
    assert x[1, 0].item() == 100.0
    w = x[[1, 2]]  # advanced indexing copies
    w[0, 0] = -1.0
    assert x[1, 0].item() == 100.0


def test_names_basic_indexing_matches_torch():
    xn = X.refine_names("N", "C")
    for expr in ["x[1]", "x[:, 1]", "x[1:, ::2]", "x[..., 2]", "x[0, 0]", "x[...]", "x[-1, 1:]"]:
        both(expr, x=xn)


def test_names_our_rules():
    x = nt.arange(24.0).reshape(2, 3, 4).refine_names("N", "C", "W")
    assert x[None].names == (None, "N", "C", "W")
    assert x[:, None, 1].names == ("N", None, "W")
    assert x[[0, 1]].names == (None, "C", "W")
    assert x[:, [0, 2], 1:].names == ("N", None, "W")
    assert x[:, [0, 1], :, ].names == ("N", None, "W")
    assert x[[0, 1], :, [0, 1]].names == (None, "C")
    assert x[True].names == (None, "N", "C", "W")
    assert x[nt.tensor([True, False])].names == (None, "C", "W")
    m = nt.ones(2, 3, dtype=nt.bool)
    assert x[m].names == (None, "W")


SETITEM_CASES = [
    ("0", "1.0"), ("(slice(None), 1)", "torch.tensor([7., 8, 9])"),
    ("(slice(None), 1)", "torch.tensor([7., 8])"), ("(slice(None), 1)", "torch.tensor([[7., 8, 9]])"),
    ("(slice(None), 1)", "torch.tensor([[[7., 8, 9]]])"), ("[0, 2]", "torch.tensor([1., 2, 3, 4])"),
    ("([0, 2], [1, 1])", "torch.tensor([5., 6])"), ("([0, 0], [1, 1])", "torch.tensor([5., 6])"),
    ("5", "1."), ("0", "'a'"), ("0", "torch.tensor([1, 2, 3, 4])"), ("0", "None"), ("0", "[1, 2, 3, 4]"),
    ("0", "torch.tensor(3)"), ("None", "3"), ("Ellipsis", "3"), ("True", "3"), ("False", "3"),
    ("(torch.tensor([0, 1]), slice(None))", "torch.tensor([[1.], [2.]])"),
    ("[0, 2]", "torch.tensor([1, 2, 3, 4])"), ("[0, 2]", "5"), ("slice(None)", "x.t()"),
    ("torch.tensor([True, False, True])", "torch.tensor(4)"),
    ("torch.tensor([True, False, True])", "torch.tensor([1., 2, 3, 4])"),
    ("torch.ones(3, 4, dtype=torch.bool)", "torch.arange(12.)"),
    ("torch.ones(3, 4, dtype=torch.bool)", "torch.arange(3.)"),
    ("(slice(None), torch.tensor([True, False, True, True]))", "0.5"),
    ("torch.tensor([5])", "1."), ("(Ellipsis, [1, 3])", "torch.tensor([[1.], [2.], [3.]])"),
    ("[0, 1]", "2**100"), ("(1, slice(None, None, 2))", "torch.tensor([9., 9.])"),
]


@pytest.mark.parametrize("index, value", SETITEM_CASES)
def test_setitem_matches_torch(index, value):
    def run(lib, x):
        env = dict(torch=lib, x=x)
        y = x.clone()
        v = eval(value, env)
        y[eval(index, env)] = v
        return y
    tx = X.clone()
    env_t = dict(torch=torch, x=tx)
    try:
        expected = run(torch, tx)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            run(nt, from_torch(tx))
        assert str(info.value) == str(e)
        return
    assert_same(run(nt, from_torch(tx)), expected)
    del env_t


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
def test_setitem_every_dtype(nd, td):
    x = torch.zeros(3, 4, dtype=td)
    y = from_torch(x)
    x[1] = 1
    y[1] = 1
    x[[0, 2], 3] = torch.tensor([1, 0], dtype=td)
    y[[0, 2], 3] = nt.tensor([1, 0], dtype=nd)
    x[x.bool()] = 0 if td == torch.bool else 3
    y[y.bool()] = 0 if td == torch.bool else 3
    assert_same(y, x)


def test_setitem_overflow_and_overlap_errors():
    for dtype, tdtype, value in [(nt.uint8, torch.uint8, 300), (nt.int32, torch.int32, 1e10),
                                 (nt.float32, torch.float32, 1e300), (nt.int64, torch.int64, 1e19)]:
        def f(lib, d):
            y = lib.zeros(3, dtype=d)
            y[0] = value
        assert_same_error(lambda: f(nt, dtype), lambda: f(torch, tdtype))
    def g(lib):
        y = lib.arange(12.0).reshape(3, 4)
        y[1:] = y[:-1]
    assert_same_error(lambda: g(nt), lambda: g(torch))


def test_setitem_bumps_version_and_names():
    x = nt.zeros(2, 3, names=("N", "C"))
    v0 = x._version if hasattr(x, "_version") else None
    x[0] = nt.ones(3, names=("C",))
    assert x.names == ("N", "C") and x.tolist()[0] == [1.0, 1.0, 1.0]
    if v0 is not None:
        assert x._version > v0
    with pytest.raises(RuntimeError, match="dim 'C' and dim 'N' are at the same position"):
        x[0] = nt.ones(3, names=("N",))
    x[[0, 1]] = 2.0  # advanced setitem on a named tensor: supported (torch refuses)
    assert x.tolist() == [[2.0] * 3] * 2


INDEX_FILL_CASES = [
    "x.index_fill(0, i, -1)", "x.index_fill(1, torch.tensor([1]), torch.tensor(7.))",
    "x.index_fill(0, i, torch.tensor([7.]))", "x.index_fill(0, i, torch.tensor(7))",
    "x.index_fill(0, torch.tensor([0.]), 1)", "x.index_fill(0, torch.tensor([0], dtype=torch.int32), 1)",
    "x.index_fill(0, torch.tensor([[0]]), 1)", "x.index_fill(0, torch.tensor(0), 1)",
    "x.index_fill(0, torch.tensor([3]), 1)", "x.index_fill(0, torch.tensor([-1]), 1)",
    "x.index_fill(0, torch.tensor([-4]), 1)", "x.index_fill(2, i, 1)", "x.index_fill(-1, i, 1.5)",
    "x.long().index_fill(0, i, 1.5)", "x.long().index_fill(0, i, torch.tensor(1.5))",
    "torch.zeros(3, dtype=torch.uint8).index_fill(0, i, 300)",
    "torch.zeros(3, dtype=torch.uint8).index_fill(0, i, -1)",
    "torch.zeros(3, dtype=torch.bool).index_fill(0, i, 2)", "s.index_fill(0, torch.tensor([0]), 1)",
    "s.index_fill(0, torch.tensor(0), 1)", "s.index_fill(0, torch.tensor([1]), 1)",
    "x.t().index_fill(1, i, 9)", "torch.index_fill(x, 0, i, 9)", "x.clone().index_fill_(0, i, 9)",
    "x.index_fill(0, i, torch.tensor([1., 2]))", "x.index_fill(1, torch.tensor([], dtype=torch.long), 3)",
    "x[:, ::2].index_fill(1, torch.tensor([1, 1]), 3)",
]


@pytest.mark.parametrize("expr", INDEX_FILL_CASES)
def test_index_fill_matches_torch(expr):
    both(expr, x=torch.arange(12.0).reshape(3, 4), i=torch.tensor([0, 2]), s=torch.tensor(5.0))


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
def test_index_fill_every_dtype(nd, td):
    x = (torch.arange(12).reshape(3, 4) % 3).to(td)
    both("x.index_fill(1, torch.tensor([0, 3]), 1)", x=x)
    both("x.t().index_fill(0, torch.tensor([2]), True)", x=x)


def test_index_fill_names():
    x = torch.arange(12.0).reshape(3, 4).refine_names("N", "C")
    both("x.index_fill(0, torch.tensor([1]), -1)", x=x)
    y = nt.arange(12.0).reshape(3, 4).refine_names("N", "C")
    r = y.index_fill("C", nt.tensor([1]), -1.0)  # by name: torch 1.13 accepts it too
    assert r.names == ("N", "C") and r.tolist()[0] == [0.0, -1.0, 2.0, 3.0]


MASKED_FILL_CASES = [
    "x.masked_fill(m, -1)", "x.clone().masked_fill_(m, -1)", "x.masked_fill(torch.tensor([1, 0]), -1)",
    "x.masked_fill(torch.tensor([2, 0]), -1)", "x.masked_fill(torch.tensor([1, 0], dtype=torch.uint8), -1)",
    "x.masked_fill(torch.tensor([1., 0]), -1)", "x.masked_fill(m, torch.tensor([1.]))",
    "x.masked_fill(m, torch.tensor(1))", "x.long().masked_fill(m, 1.5)",
    "x.long().masked_fill(m, torch.tensor(1.5))", "x.masked_fill(torch.ones(2, 3, 2, dtype=torch.bool), 1)",
    "x.clone().masked_fill_(torch.ones(2, 3, 2, dtype=torch.bool), 1)",
    "x.masked_fill(torch.ones(3, dtype=torch.bool), 1)", "x.masked_fill(m, 1e300)",
    "x.masked_fill(m, float('nan'))", "x.masked_fill(m, float('inf'))",
    "torch.zeros(3, dtype=torch.uint8).masked_fill(torch.tensor(True), 300)",
    "torch.zeros(3, dtype=torch.uint8).masked_fill(torch.tensor(True), -1)",
    "torch.zeros(2, dtype=torch.float16).masked_fill(torch.tensor(True), 1e6)",
    "torch.zeros(2, dtype=torch.bool).masked_fill(torch.tensor(True), 0.5)",
    "torch.zeros(2, dtype=torch.int32).masked_fill(torch.tensor(True), torch.tensor(2**40))",
    "torch.masked_fill(x, m, 2)", "x.expand(2, 3, 2).clone().masked_fill_(m, 1)",
    "x.t().masked_fill(torch.tensor([True, False, True]), 4)", "x.masked_fill(m, 'a')",
    "x[:, :1].masked_fill(m[:1], 5)", "x.masked_fill(m.expand(3, 2), 5)",
]


@pytest.mark.parametrize("expr", MASKED_FILL_CASES)
def test_masked_fill_matches_torch(expr):
    both(expr, x=torch.arange(6.0).reshape(3, 2), m=torch.tensor([True, False]))


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
def test_masked_fill_every_dtype(nd, td):
    x = (torch.arange(24).reshape(4, 6) % 4).to(td)
    m = torch.arange(6) % 2 == 0
    both("x.masked_fill(m, 1)", x=x, m=m)
    both("x.clone().masked_fill_(m, 0)", x=x, m=m)
    both("x.t().masked_fill(m[:4], 1)", x=x, m=m)
    both("x[:, ::2].masked_fill(m[::2], 1)", x=x, m=m)


def test_masked_fill_large_parallel_matches():
    x = torch.randn(300, 1000)
    m = torch.rand(300, 1000) > 0.5
    both("x.masked_fill(m, 2.5)", x=x, m=m)
    both("x.clone().masked_fill_(m[0], -1.0)", x=x, m=m)
    both("x.t().masked_fill(m.t(), 3.0)", x=x, m=m)


def test_masked_fill_expanded_self_writes_consistently():
    base = nt.zeros(4)
    e = base.expand(50000, 4)
    e.masked_fill_(nt.tensor([True, False, True, False]), 1.0)
    assert base.tolist() == [1.0, 0.0, 1.0, 0.0]


def test_masked_fill_names():
    a = torch.arange(6.0).reshape(3, 2).refine_names("N", "C")
    m = torch.tensor([True, False])
    for expr in ["a.masked_fill(m, -1)", "a.masked_fill(m.refine_names('C'), -1)",
                 "a.masked_fill(m.refine_names('N'), -1)", "a.clone().masked_fill_(m, -1)",
                 "a.clone().masked_fill_(m.expand(3, 2).refine_names('N', 'C'), -1)"]:
        both(expr, a=a, m=m)
    u = nt.zeros(3, 2)
    u.masked_fill_(nt.tensor([[True, False]] * 3).refine_names("N", "C"), 1.0)
    assert u.names == ("N", "C")


MASKED_SELECT_CASES = [
    "x.masked_select(m)", "torch.masked_select(x, m)", "torch.masked_select(x, torch.ones(2, 3, 2, dtype=torch.bool))",
    "torch.masked_select(x, torch.tensor([1, 0]))", "torch.masked_select(x, torch.tensor([1, 0], dtype=torch.uint8))",
    "torch.masked_select(x, torch.ones(3, dtype=torch.bool))",
    "torch.masked_select(x.t(), torch.tensor([True, False, True]))",
    "torch.masked_select(torch.tensor(3.), torch.tensor(True))", "x.masked_select(m.expand(3, 2).t().contiguous().t())",
    "xn.masked_select(m)", "xn.masked_select(m.refine_names('N'))", "xn.masked_select(m.refine_names('C'))",
]


@pytest.mark.parametrize("expr", MASKED_SELECT_CASES)
def test_masked_select_matches_torch(expr):
    x = torch.arange(6.0).reshape(3, 2)
    both(expr, x=x, xn=x.refine_names("N", "C"), m=torch.tensor([True, False]))


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
def test_masked_select_every_dtype(nd, td):
    x = (torch.arange(12).reshape(3, 4) % 3).to(td)
    both("x.masked_select(torch.tensor([True, False, False, True]))", x=x)


def test_masked_select_out():
    """out= as PyTorch's masked_select_out: the same dtype only, resized (with its warning
    when it had elements), a named out resized too under PyTorch's NoNamesGuard (its names
    cut to one dim) and returned itself."""
    def run(lib, shape, dtype, names):
        x = lib.arange(6.0).reshape(3, 2)
        out = lib.zeros(*shape, dtype=dtype, names=names)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            r = lib.masked_select(x, x > 1.5, out=out)
        assert r is out
        texts = [str(w.message).split(" (Triggered internally")[0] for w in caught
                 if "resized" in str(w.message)]
        return out, texts
    for shape, dtype, names in [((4,), "float32", None), ((0,), "float32", None),
                                ((2, 3), "float32", None), ((7,), "float32", None),
                                ((2,), "int64", None), ((3,), "float32", ("A",)),
                                ((4,), "float32", ("A",)), ((2, 3), "float32", ("A", "B"))]:
        try:
            t_out, t_warn = run(torch, shape, getattr(torch, dtype), names)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)) as info:
                run(nt, shape, getattr(nt, dtype), names)
            assert str(info.value) == str(e)
            continue
        n_out, n_warn = run(nt, shape, getattr(nt, dtype), names)
        assert_same(n_out, t_out)
        assert n_warn == t_warn


# ---------------------------------------------------------------- randomised getitem


@st.composite
def index_case(draw):
    rank = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=rank, max_size=rank)))
    items = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["int", "slice", "none", "ellipsis", "bool", "list", "tensor", "mask"]))
        if kind == "int":
            items.append(draw(st.integers(-5, 5)))
        elif kind == "slice":
            items.append(slice(draw(st.one_of(st.none(), st.integers(-6, 6))),
                               draw(st.one_of(st.none(), st.integers(-6, 6))),
                               draw(st.one_of(st.none(), st.integers(1, 3)))))
        elif kind == "none":
            items.append(None)
        elif kind == "ellipsis":
            items.append(Ellipsis)
        elif kind == "bool":
            items.append(draw(st.booleans()))
        elif kind == "list":
            items.append(draw(st.lists(st.integers(-4, 4), min_size=0, max_size=3)))
        elif kind == "tensor":
            vals = draw(st.lists(st.integers(-4, 4), min_size=1, max_size=4))
            items.append(("t", vals, draw(st.booleans())))
        else:
            n = draw(st.integers(0, 4))
            items.append(("m", draw(st.lists(st.booleans(), min_size=n, max_size=n))))
    return shape, items


def materialise(lib, items):
    out = []
    for it in items:
        if isinstance(it, tuple) and it[0] == "t":
            t = lib.tensor(it[1])
            out.append(t.reshape(len(it[1]), 1) if it[2] and len(it[1]) > 1 else t)
        elif isinstance(it, tuple) and it[0] == "m":
            out.append(lib.tensor(it[1], dtype=lib.bool))
        else:
            out.append(it)
    return tuple(out)


@settings(max_examples=400, deadline=None)
@given(index_case(), st.booleans())
def test_getitem_random(case, transpose):
    shape, items = case
    n = int(np.prod(shape)) if shape else 1
    if transpose and len(shape) >= 2:
        swapped = (shape[-1],) + shape[1:-1] + (shape[0],)
        tx = torch.arange(n, dtype=torch.float32).reshape(swapped).transpose(0, -1)
        nx = nt.arange(n, dtype=nt.float32).reshape(swapped).transpose(0, -1)
    else:
        tx = torch.arange(n, dtype=torch.float32).reshape(shape)
        nx = nt.arange(n, dtype=nt.float32).reshape(shape)
    ti, ni = materialise(torch, items), materialise(nt, items)
    try:
        expected = tx[ti]
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            nx[ni]
        assert str(info.value) == str(e), (shape, items)
        return
    assert_same(nx[ni], expected)
    # the same index as a setitem target
    ty, ny = tx.clone(), nx.clone()
    ty[ti] = -1.0
    ny[ni] = -1.0
    assert_same(ny, ty)


def test_two_ellipses_with_none_error_text():
    """Found by test_getitem_random exploring (NT_HYPOTHESIS_RANDOM=1): with two Ellipses an
    integer index may land past the last dim; PyTorch raises "Dimension out of range
    (expected to be in range of [-4, 3], but got 5)" for x[..., None, ..., 0] on a 3-d x."""
    both("x[..., None, ..., 0]", x=torch.zeros(2, 3, 4))


@pytest.mark.parametrize("value", [True, 3, 2.5, np.int64(7), np.float32(1.5), "a", 1j, [1]],
                         ids=repr)
def test_setitem_of_a_python_value_like_torch(value):
    # PyTorch takes a bool, an int, a float or a NumPy integer; not a NumPy float32
    x, t = nt.zeros(3), torch.zeros(3)
    try:
        t[0] = value
    except Exception:  # noqa: BLE001 - then ntensor must fail the same way
        def assign(target):
            target[0] = value
        assert_same_error(lambda: assign(x), lambda: assign(t))
        return
    x[0] = value
    assert x.tolist() == t.tolist()
