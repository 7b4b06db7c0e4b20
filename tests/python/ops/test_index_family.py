"""The index family of issue 11 against PyTorch 1.13: gather, scatter (src, value, reduce=),
scatter_, scatter_add(_), index_select, index_add(_), take_along_dim — values for every dtype
(exact: these ops copy or add in one fixed order), out= and in-place forms, PyTorch's error
texts, our names (PyTorch refuses named tensors here: docs/decisions_ops_everyday.md), and
gradients (against torch's and by finite differences)."""
import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import assert_same, assert_same_error, from_torch
from ntensor.autograd import gradcheck

DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64]


def rand(shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    if dtype == torch.bool:
        return torch.rand(shape, generator=g) > 0.5
    if not dtype.is_floating_point:
        return torch.randint(0, 5, shape, generator=g).to(dtype)
    return torch.randn(shape, generator=g).to(dtype)


def idx(high, shape, seed=1):
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed))


def perm_idx(high, shape, dim, seed=1):
    """indices without repeats along dim (a plain scatter's order is then irrelevant)"""
    g = torch.Generator().manual_seed(seed)
    n = shape[dim]
    moved = list(shape)
    moved[dim], moved[-1] = moved[-1], moved[dim]
    rows = int(np.prod(moved[:-1]))
    out = torch.stack([torch.randperm(high, generator=g)[:n] for _ in range(rows)])
    return out.reshape(moved).transpose(dim, -1).contiguous()


def both(*ts):
    return [from_torch(t) for t in ts]


@pytest.mark.parametrize("dtype", DTYPES)
def test_gather_dtypes(dtype):
    x, i = rand((4, 5, 6), dtype), idx(5, (3, 7, 2))
    x_, i_ = both(x, i)
    assert_same(x_.gather(1, i_), x.gather(1, i))
    assert_same(nt.gather(x_, -1, i_ % 6 if False else from_torch(idx(6, (2, 3, 4)))),
                torch.gather(x, -1, idx(6, (2, 3, 4))))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather_dims_and_layouts(dim):
    x = rand((6, 7, 8)).permute(2, 0, 1)[:, ::2]  # (8, 3, 7), strided
    shape = [5, 3, 4]
    i = idx(x.shape[dim], tuple(shape))
    assert_same(from_torch(x).gather(dim, from_torch(i)), x.gather(dim, i))
    # a non-contiguous index
    it = idx(x.shape[dim], (4, 3, 5)).transpose(0, 2)
    assert_same(from_torch(x).gather(dim, from_torch(it)), x.gather(dim, it))


def test_gather_zero_dim_and_empty():
    x = torch.tensor(3.5)
    assert_same(from_torch(x).gather(0, nt.tensor(0)), x.gather(0, torch.tensor(0)))
    v = torch.arange(4.)
    assert_same(from_torch(v).gather(0, nt.tensor(2)), v.gather(0, torch.tensor(2)))
    e = torch.zeros(3, 0, dtype=torch.long)
    assert_same(nt.zeros(3, 4).gather(1, from_torch(e)), torch.zeros(3, 4).gather(1, e))


def test_gather_out():
    x, i = rand((3, 4)), idx(4, (3, 2))
    out = nt.empty(3, 2)
    r = nt.gather(from_torch(x), 1, from_torch(i), out=out)
    assert r is out
    assert_same(out, x.gather(1, i))


def test_gather_errors():
    x, i = rand((3, 4)), torch.tensor([[0, 5]])
    x_ = from_torch(x)
    for bad in (torch.tensor([[0, 5]]), torch.tensor([[0, -1]]), torch.tensor([[0]]).int(),
                torch.tensor([0, 1]), torch.zeros(4, 2, dtype=torch.long)):
        assert_same_error(lambda: x_.gather(1, from_torch(bad)), lambda: x.gather(1, bad))
    assert_same_error(lambda: x_.gather(2, from_torch(i)), lambda: x.gather(2, i))


def test_gather_names():
    x = nt.randn(3, 4, names=("N", "C"))
    i = nt.tensor([[0, 1], [2, 3], [1, 1]])
    assert x.gather("C", i).names == ("N", "C")
    assert x.gather(1, i.refine_names("N", None)).names == ("N", "C")
    assert x.rename(None).gather(1, i.refine_names("N", "K")).names == ("N", "K")
    with pytest.raises(RuntimeError):
        x.gather(1, i.refine_names("K", None))
    with pytest.raises(RuntimeError, match="Name 'X' not found"):
        x.gather("X", i)


@pytest.mark.parametrize("dtype", DTYPES)
def test_scatter_dtypes(dtype):
    x, i = rand((4, 6), dtype), perm_idx(6, (3, 4), 1)
    src = rand((4, 5), dtype, seed=3)
    x_, i_, s_ = both(x, i, src)
    assert_same(x_.scatter(1, i_, s_), x.scatter(1, i, src))
    value = True if dtype == torch.bool else 2
    assert_same(x_.scatter(1, i_, value), x.scatter(1, i, value))
    r = idx(4, (3, 6), seed=5)
    assert_same(x_.scatter_add(0, from_torch(r), s_[:, :1].expand(3, 6).contiguous()
                               if False else from_torch(rand((3, 6), dtype, 4))),
                x.scatter_add(0, r, rand((3, 6), dtype, 4)))


@pytest.mark.parametrize("reduce", ["add", "multiply"])
@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64])
def test_scatter_reduce(reduce, dtype):
    x, i, src = rand((4, 6), dtype), idx(6, (4, 5), seed=2), rand((4, 5), dtype, seed=3)
    x_, i_, s_ = both(x, i, src)
    assert_same(x_.scatter(1, i_, s_, reduce=reduce), x.scatter(1, i, src, reduce=reduce))
    assert_same(x_.scatter(1, i_, 3, reduce=reduce), x.scatter(1, i, 3, reduce=reduce))
    y_, y = x_.clone(), x.clone()
    assert y_.scatter_(1, i_, s_, reduce=reduce) is y_
    assert_same(y_, y.scatter_(1, i, src, reduce=reduce))


def test_scatter_inplace_out_and_versions():
    x, i, src = rand((3, 5)), perm_idx(5, (3, 2), 1), rand((3, 2), seed=2)
    x_, i_, s_ = both(x, i, src)
    y_ = x_.clone()
    v = y_._version
    assert y_.scatter_(1, i_, s_) is y_
    assert y_._version == v + 1
    assert_same(y_, x.clone().scatter_(1, i, src))
    y_ = x_.clone()
    assert y_.scatter_add_(1, i_, s_) is y_
    assert_same(y_, x.clone().scatter_add_(1, i, src))
    out = nt.empty(0)
    assert nt.scatter(x_, 1, i_, s_, out=out) is out
    assert_same(out, torch.scatter(x, 1, i, src))
    out = nt.empty(3, 5)
    assert nt.scatter_add(x_, 1, i_, s_, out=out) is out
    assert_same(out, torch.scatter_add(x, 1, i, src))


def test_scatter_add_float_order_is_fixed():
    """Many additions into few entries: the same bits as PyTorch's serial loop, and as
    ours run again."""
    i = idx(3, (64, 2000), seed=9)
    src = rand((64, 2000), seed=8)
    x = torch.zeros(64, 3)
    got = nt.zeros(64, 3).scatter_add(1, from_torch(i), from_torch(src))
    again = nt.zeros(64, 3).scatter_add(1, from_torch(i), from_torch(src))
    assert np.array_equal(got.numpy(), again.numpy())
    assert_same(got, x.scatter_add(1, i, src))


def test_scatter_errors():
    x, i = rand((3, 4)), idx(4, (3, 2))
    x_, i_ = both(x, i)
    assert_same_error(lambda: x_.scatter(1, from_torch(torch.tensor([[0, 5]])), 1.0),
                      lambda: x.scatter(1, torch.tensor([[0, 5]]), 1.0))
    assert_same_error(lambda: x_.scatter(1, i_, nt.ones(3, 1)),
                      lambda: x.scatter(1, i, torch.ones(3, 1)))
    assert_same_error(lambda: x_.scatter(1, i_, nt.ones(3, 2, dtype=nt.float64)),
                      lambda: x.scatter(1, i, torch.ones(3, 2, dtype=torch.float64)))
    assert_same_error(lambda: x_.scatter(1, i_, 1.0, reduce="max"),
                      lambda: x.scatter(1, i, 1.0, reduce="max"))
    z = torch.zeros(4, 2, dtype=torch.long)
    assert_same_error(lambda: x_.scatter(1, from_torch(z), 1.0), lambda: x.scatter(1, z, 1.0))
    assert_same_error(lambda: x_.scatter(1, i_.int(), 1.0), lambda: x.scatter(1, i.int(), 1.0))


def test_scatter_names():
    x = nt.zeros(3, 4, names=("N", "C"))
    i = nt.tensor([[0], [1], [2]])
    assert x.scatter("C", i, 1.0).names == ("N", "C")
    assert x.scatter_add(1, i, nt.ones(3, 1)).names == ("N", "C")
    assert x.clone().scatter_(1, i, 2.0).names == ("N", "C")


@pytest.mark.parametrize("dtype", DTYPES)
def test_index_select_dtypes(dtype):
    x = rand((4, 5, 3), dtype)
    for dim in range(3):
        i = idx(x.shape[dim], (6,), seed=dim)
        assert_same(from_torch(x).index_select(dim, from_torch(i)), x.index_select(dim, i))
    i32 = torch.tensor([2, 0], dtype=torch.int32)
    assert_same(nt.index_select(from_torch(x), 1, from_torch(i32)), torch.index_select(x, 1, i32))


def test_index_select_out_names_errors():
    x = rand((3, 4))
    x_ = from_torch(x)
    out = nt.empty(3, 2)
    assert nt.index_select(x_, 1, nt.tensor([3, 1]), out=out) is out
    assert_same(out, x.index_select(1, torch.tensor([3, 1])))
    assert x_.refine_names("N", "C").index_select("C", nt.tensor([1])).names == ("N", "C")
    for bad in (torch.tensor([0, 5]), torch.tensor([[0]]), torch.tensor([0.])):
        assert_same_error(lambda: x_.index_select(1, from_torch(bad)),
                          lambda: x.index_select(1, bad))
    assert_same(from_torch(x[:, ::2]).index_select(1, nt.tensor([1, 0])),
                x[:, ::2].index_select(1, torch.tensor([1, 0])))


@pytest.mark.parametrize("dtype", [torch.int32, torch.int64, torch.float32, torch.float64,
                                   torch.bfloat16])
def test_index_add(dtype):
    x, src = rand((4, 5), dtype), rand((4, 3), dtype, seed=2)
    i = torch.tensor([4, 0, 4])
    x_, s_, i_ = both(x, src, i)
    assert_same(x_.index_add(1, i_, s_), x.index_add(1, i, src))
    # alpha: source * alpha rounded, then added (PyTorch fuses the two: one rounding)
    assert_same(x_.index_add(1, i_, s_, alpha=3), x.index_add(1, i, src, alpha=3),
                exact=not dtype.is_floating_point, rtol=2e-2 if dtype == torch.bfloat16 else 1e-6)
    y_ = x_.clone()
    assert y_.index_add_(1, i_.int(), s_) is y_
    assert_same(y_, x.clone().index_add_(1, i.int(), src))
    out = nt.empty(4, 5, dtype=x_.dtype)
    assert nt.index_add(x_, 1, i_, s_, out=out) is out
    assert_same(out, torch.index_add(x, 1, i, src))


def test_index_add_errors_names():
    x = rand((3, 4))
    x_ = from_torch(x)
    i = torch.tensor([0, 1])
    for s, ii in ((torch.ones(3, 3), i), (torch.ones(3, 2, dtype=torch.float64), i),
                  (torch.ones(3, 2), torch.tensor([0, 5]))):
        assert_same_error(lambda: x_.index_add(1, from_torch(ii), from_torch(s)),
                          lambda: x.index_add(1, ii, s))
    n = x_.refine_names("N", "C")
    assert n.index_add("C", nt.tensor([0]), nt.ones(3, 1)).names == ("N", "C")


def test_take_along_dim():
    x = rand((3, 4, 5))
    x_ = from_torch(x)
    for dim, shape in ((1, (3, 2, 5)), (2, (1, 4, 3)), (0, (2, 1, 1)), (-1, (3, 1, 7))):
        i = idx(x.shape[dim], shape, seed=dim + 3)
        assert_same(nt.take_along_dim(x_, from_torch(i), dim), torch.take_along_dim(x, i, dim))
        assert_same(x_.take_along_dim(from_torch(i), dim), x.take_along_dim(i, dim))
    i = idx(60, (7,))
    assert_same(nt.take_along_dim(x_, from_torch(i)), torch.take_along_dim(x, i))
    s = x.argsort(1)
    assert_same(nt.take_along_dim(x_, from_torch(s), 1), torch.take_along_dim(x, s, 1))
    for bad, d in ((torch.tensor([[[0, -1]]]), 2), (torch.tensor([[[0]]]).int(), 1),
                   (torch.tensor([0]), 1)):
        assert_same_error(lambda: nt.take_along_dim(x_, from_torch(bad), d),
                          lambda: torch.take_along_dim(x, bad, d))
    n = x_.refine_names("A", "B", "C")
    assert nt.take_along_dim(n, nt.zeros(3, 1, 1, dtype=nt.int64), "B").names == ("A", "B", "C")
    assert nt.take_along_dim(n, nt.zeros(2, dtype=nt.int64)).names == (None,)


# ------------------------------------------------------------------ gradients

def grads(f, shapes, seed=0, gshape=None):
    """f(lib, *leaves) in both libraries, backward of one random gradient: the gradients and
    the node's name agree (float64)."""
    arrays = [np.random.RandomState(seed + k).standard_normal(s) for k, s in enumerate(shapes)]
    xs = [nt.tensor(a, requires_grad=True) for a in arrays]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    y, ty = f(nt, *xs), f(torch, *ts)
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = np.random.RandomState(99).standard_normal(tuple(ty.shape))
    y.backward(nt.tensor(g))
    ty.backward(torch.tensor(g))
    for x, t in zip(xs, ts):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert gradcheck(lambda *a: f(nt, *a), [nt.tensor(a, requires_grad=True) for a in arrays])


I = idx(5, (3, 4), seed=4)
P = perm_idx(5, (3, 4), 1, seed=4)


def test_gather_grad():
    grads(lambda m, x: m.gather(x, 1, m.tensor(I.tolist())), [(3, 5)])


def test_scatter_grads():
    grads(lambda m, x, s: x.scatter(1, m.tensor(P.tolist()), s), [(3, 5), (3, 4)])
    grads(lambda m, x: x.scatter(1, m.tensor(P.tolist()), 2.0), [(3, 5)])
    grads(lambda m, x, s: x.scatter_add(1, m.tensor(I.tolist()), s), [(3, 5), (3, 4)])


def test_index_select_add_grads():
    i = [4, 0, 4, 2]
    grads(lambda m, x: x.index_select(1, m.tensor(i)), [(3, 5)])
    grads(lambda m, x, s: x.index_add(1, m.tensor(i), s, alpha=2.0), [(3, 5), (3, 4)])


def test_take_along_dim_grad():
    j = idx(5, (1, 6), seed=2).tolist()
    arrays = [np.random.RandomState(0).standard_normal((3, 5))]
    x = nt.tensor(arrays[0], requires_grad=True)
    t = torch.tensor(arrays[0], requires_grad=True)
    nt.take_along_dim(x, nt.tensor(j), 1).sum().backward()
    torch.take_along_dim(t, torch.tensor(j), 1).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy())
    assert gradcheck(lambda a: nt.take_along_dim(a, nt.tensor(j), 1),
                     [nt.tensor(arrays[0], requires_grad=True)])
    assert gradcheck(lambda a: nt.take_along_dim(a, nt.tensor([3, 14, 3])),
                     [nt.tensor(arrays[0], requires_grad=True)])


# ------------------------------------------------------------------ sort, argsort

SORT_INPUT = torch.tensor([[1., float("nan"), -0., 0., 2., 1.], [3., 3., -1., 5., float("inf"), 0.]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_dtypes(dtype, descending):
    x = rand((5, 7), dtype) if dtype != torch.bool else rand((5, 7), dtype)
    x_ = from_torch(x)
    for dim in (0, 1, -1):
        v, i = x_.sort(dim, descending=descending)
        tv, ti = x.sort(dim=dim, descending=descending, stable=True)
        assert_same(v, tv)
        assert_same(i, ti)
        assert_same(x_.argsort(dim, descending=descending),
                    x.sort(dim=dim, descending=descending, stable=True).indices)


def test_sort_nan_ties_stable_and_forms():
    x_ = from_torch(SORT_INPUT)
    for desc in (False, True):
        r = nt.sort(x_, stable=True, descending=desc)
        t = torch.sort(SORT_INPUT, stable=True, descending=desc)
        assert type(r).__name__ == "sort"
        assert_same(r.values, t.values)
        assert_same(r.indices, t.indices)
        assert_same(nt.argsort(x_, stable=True, dim=0, descending=desc),
                    torch.argsort(SORT_INPUT, stable=True, dim=0, descending=desc))
    out = (nt.empty(0), nt.empty(0, dtype=nt.int64))
    r = nt.sort(x_, 1, out=out)
    assert type(r).__name__ == "sort_out" and r[0] is out[0] and r[1] is out[1]
    assert_same(out[0], SORT_INPUT.sort(1).values)
    s = torch.tensor(3.)
    assert_same(from_torch(s).sort().values, s.sort().values)
    assert_same(from_torch(s).argsort(), s.argsort())
    x = rand((4, 6))[:, ::2]
    assert_same(from_torch(x).sort(0).values, x.sort(0).values)


def test_sort_names_and_errors():
    x = nt.randn(3, 4, names=("N", "C"))
    v, i = x.sort("C")
    assert v.names == ("N", "C") and i.names == ("N", "C")
    assert x.argsort("N", descending=True).names == ("N", "C")
    t = rand((3, 4))
    assert_same_error(lambda: from_torch(t).sort(2), lambda: t.sort(2))


def test_sort_grad():
    grads(lambda m, x: x.sort(1, descending=True).values, [(4, 6)])
    grads(lambda m, x: m.sort(x, 0).values, [(4, 6)])


# ------------------------------------------------------------------ unique, searchsorted

def compare_results(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for a, b in zip(got, want):
            assert_same(a, b)
    else:
        assert_same(got, want)


@pytest.mark.parametrize("dtype", [torch.bool, torch.uint8, torch.int32, torch.int64,
                                   torch.float32, torch.float64])
def test_unique(dtype):
    x = rand((4, 6), dtype, seed=3)
    x_ = from_torch(x)
    for inv in (False, True):
        for cnt in (False, True):
            compare_results(nt.unique(x_, return_inverse=inv, return_counts=cnt),
                            torch.unique(x, return_inverse=inv, return_counts=cnt))
            compare_results(x_.unique(sorted=False, return_inverse=inv, return_counts=cnt),
                            torch.unique(x, sorted=True, return_inverse=inv, return_counts=cnt))
            for dim in (0, 1, -1):
                compare_results(nt.unique(x_, return_inverse=inv, return_counts=cnt, dim=dim),
                                torch.unique(x, return_inverse=inv, return_counts=cnt, dim=dim))


def test_unique_half():
    """PyTorch 1.13 has no CPU unique for float16 ("not implemented for 'Half'"); ours agrees
    with its float32 result"""
    x = rand((4, 6), torch.float16, seed=3)
    got = nt.unique(from_torch(x), return_counts=True)
    want = torch.unique(x.float(), return_counts=True)
    assert_same(got[0].float(), want[0])
    assert_same(got[1], want[1])


def test_unique_edges_and_names():
    rows = torch.tensor([[1, 2], [1, 2], [0, 5]])
    compare_results(nt.unique(from_torch(rows), dim=0, return_inverse=True, return_counts=True),
                    torch.unique(rows, dim=0, return_inverse=True, return_counts=True))
    compare_results(nt.unique(nt.tensor(4), return_inverse=True),
                    torch.unique(torch.tensor(4), return_inverse=True))
    compare_results(nt.unique(nt.zeros(0, 3), dim=0), torch.unique(torch.zeros(0, 3), dim=0))
    compare_results(nt.unique(nt.zeros(0)), torch.unique(torch.zeros(0)))
    for t in (torch.tensor([-5, 3, -5, 2 ** 40, 7]), torch.tensor([-3, -1, -3, 0], dtype=torch.int8),
              torch.tensor([2 ** 62, -2 ** 62, 0])):  # a large range: sorted; a small one: counted
        compare_results(nt.unique(from_torch(t), return_inverse=True, return_counts=True),
                        torch.unique(t, return_inverse=True, return_counts=True))
    n = nt.tensor([[1, 3, 1], [2, 3, 1]]).refine_names("N", "C")
    out, inv = n.unique(return_inverse=True)
    assert out.names == (None,) and inv.names == ("N", "C")
    assert n.unique(dim="C").names == ("N", "C")
    got = nt.unique(nt.tensor([1., float("nan"), float("nan"), 1.]), return_counts=True)
    assert got[0].shape == (3,) and got[1].tolist() == [2, 1, 1]


def test_searchsorted():
    s = torch.tensor([[1., 3, 5, 7], [2, 4, 6, 8]])
    v = torch.tensor([[3., 6, 0], [1, 9, 4]])
    s_, v_ = both(s, v)
    for kw in ({}, {"right": True}, {"side": "right"}, {"side": "left", "out_int32": True}):
        assert_same(nt.searchsorted(s_, v_, **kw), torch.searchsorted(s, v, **kw))
        assert_same(nt.searchsorted(s_[0], v_, **kw), torch.searchsorted(s[0], v, **kw))
    assert_same(nt.searchsorted(s_[1], 6), torch.searchsorted(s[1], 6))
    assert_same(nt.searchsorted(s_[1], 6.5, right=True), torch.searchsorted(s[1], 6.5, right=True))
    u, so = torch.tensor([3., 1, 2, 9]), torch.tensor([1, 2, 0, 3])
    for right in (False, True):
        assert_same(nt.searchsorted(from_torch(u), nt.tensor([2., 2.5, 10]),
                                    sorter=from_torch(so), right=right),
                    torch.searchsorted(u, torch.tensor([2., 2.5, 10]), sorter=so, right=right))
    nan = torch.tensor([1., 3, float("nan")])
    assert_same(nt.searchsorted(from_torch(nan), nt.tensor([float("nan"), 4., 2.])),
                torch.searchsorted(nan, torch.tensor([float("nan"), 4., 2.])))
    i = torch.tensor([1, 3, 5, 2 ** 60])
    assert_same(nt.searchsorted(from_torch(i), nt.tensor([3, 2 ** 60 - 1])),
                torch.searchsorted(i, torch.tensor([3, 2 ** 60 - 1])))
    out = nt.empty(0, dtype=nt.int64)
    assert nt.searchsorted(s_, v_, out=out) is out
    assert_same(out, torch.searchsorted(s, v))
    assert nt.searchsorted(s_[0], v_.refine_names("A", "B")).names == ("A", "B")
    for kw, vv in (({"side": "x"}, v), ({"side": "left", "right": True}, v), ({}, torch.ones(3, 2))):
        assert_same_error(lambda: nt.searchsorted(s_, from_torch(vv), **kw),
                          lambda: torch.searchsorted(s, vv, **kw))


# ------------------------------------------------------------------ nonzero, where, masked_scatter

@pytest.mark.parametrize("dtype", DTYPES)
def test_nonzero_where(dtype):
    x = rand((3, 4, 2), dtype, seed=5)
    x_ = from_torch(x)
    assert_same(nt.nonzero(x_), torch.nonzero(x))
    assert_same(x_.nonzero(), x.nonzero())
    compare_results(x_.nonzero(as_tuple=True), x.nonzero(as_tuple=True))
    assert_same(nt.nonzero(x_, as_tuple=False), torch.nonzero(x, as_tuple=False))
    compare_results(nt.where(x_), torch.where(x))


def test_nonzero_edges():
    for t in (torch.tensor(5.), torch.tensor(0.), torch.zeros(0, 3)):
        t_ = nt.zeros(*t.shape) if t.numel() == 0 else from_torch(t)  # from_torch flattens (0, 3)
        assert_same(nt.nonzero(t_), torch.nonzero(t))
        compare_results(nt.nonzero(t_, as_tuple=True), torch.nonzero(t, as_tuple=True))
        compare_results(nt.where(t_), torch.where(t))
    m = torch.tensor([[True, False], [True, True]])
    out = nt.empty(0, dtype=nt.int64)
    assert nt.nonzero(from_torch(m), out=out) is out
    assert_same(out, torch.nonzero(m))
    assert_same_error(lambda: nt.nonzero(from_torch(m), out=nt.empty(0)),
                      lambda: torch.nonzero(m, out=torch.empty(0)))
    assert nt.nonzero(from_torch(m).refine_names("A", "B")).names == (None, None)


@pytest.mark.parametrize("dtype", DTYPES)
def test_masked_scatter(dtype):
    x, src = rand((3, 4), dtype), rand((13,), dtype, seed=2)
    m = rand((3, 4), torch.bool, seed=4)
    x_, s_, m_ = both(x, src, m)
    assert_same(x_.masked_scatter(m_, s_), x.masked_scatter(m, src))
    assert_same(nt.masked_scatter(x_, m_[0], s_), torch.masked_scatter(x, m[0], src))
    y_ = x_.clone()
    assert y_.masked_scatter_(m_, s_) is y_
    assert_same(y_, x.clone().masked_scatter_(m, src))


def test_masked_scatter_broadcast_errors_names():
    v, m = torch.randn(4), torch.tensor([[True, False, True, False], [True, True, True, True]])
    assert_same(from_torch(v).masked_scatter(from_torch(m), nt.arange(10.)),
                v.masked_scatter(m, torch.arange(10.)))
    x = rand((3, 4))
    x_ = from_torch(x)
    ones = torch.ones(3, 4, dtype=torch.bool)
    for mm, ss in ((ones, torch.ones(5)), (ones, torch.ones(12, dtype=torch.float64))):
        assert_same_error(lambda: x_.masked_scatter(from_torch(mm), from_torch(ss)),
                          lambda: x.masked_scatter(mm, ss))
    assert_same_error(lambda: nt.zeros(1, 4).masked_scatter_(from_torch(m), nt.arange(10.)),
                      lambda: torch.zeros(1, 4).masked_scatter_(m, torch.arange(10.)))
    n = x_.refine_names("N", "C")
    assert n.masked_scatter(from_torch(ones), nt.ones(12)).names == ("N", "C")


def test_masked_scatter_grad():
    m = rand((3, 4), torch.bool, seed=4)
    grads(lambda lib, x, s: x.masked_scatter(lib.tensor(m.tolist()), s), [(3, 4), (14,)])
    grads(lambda lib, x, s: x.masked_scatter(lib.tensor(m.tolist()), s), [(4,), (14,)])


# ------------------------------------------------------------------ the C API

def test_rows_are_ops():
    """every new op is reachable as PyTorch names it"""
    for name in ("gather", "scatter", "scatter_add", "index_select", "index_add",
                 "take_along_dim", "sort", "argsort", "unique", "searchsorted", "nonzero",
                 "where", "masked_scatter"):
        assert callable(getattr(nt, name))
    for name in ("gather", "scatter", "scatter_", "scatter_add", "scatter_add_", "index_select",
                 "index_add", "index_add_", "take_along_dim", "sort", "argsort", "unique",
                 "nonzero", "masked_scatter", "masked_scatter_"):
        assert callable(getattr(nt.Tensor, name))


def test_scatter_add_independent_of_thread_count():
    """scatter_add and index_add of floats on one thread and on all: the same bits"""
    import os
    import subprocess
    import sys
    code = ("import ntensor as nt, numpy as np, sys\n"
            "g = np.random.RandomState(0)\n"
            "src = nt.tensor(g.standard_normal((512, 300)).astype(np.float32))\n"
            "i = nt.tensor(g.randint(0, 7, (512, 300)))\n"
            "j = nt.tensor(g.randint(0, 9, (300,)))\n"
            "a = nt.zeros(512, 7).scatter_add(1, i, src)\n"
            "b = nt.zeros(512, 9).index_add(1, j, src)\n"
            "sys.stdout.write(a.numpy().tobytes().hex() + b.numpy().tobytes().hex())\n")
    outs = []
    for threads in ("1", "2"):
        env = dict(os.environ, OMP_NUM_THREADS=threads)
        outs.append(subprocess.run([sys.executable, "-c", code], env=env, check=True,
                                   capture_output=True, text=True).stdout)
    assert outs[0] == outs[1] and outs[0]


def test_second_derivatives():
    """the formulas are recorded ops: gradgradcheck of gather, scatter_add, index_select,
    index_add, sort and the value-selecting ops whose backward is a scatter_add"""
    from ntensor.autograd import gradgradcheck
    i, j = nt.tensor(I.tolist()), nt.tensor([4, 0, 4, 2])

    def leaf(*shape, seed=0):
        return nt.tensor(np.random.RandomState(seed).standard_normal(shape), requires_grad=True)
    assert gradgradcheck(lambda x: (x.gather(1, i) ** 2), [leaf(3, 5)])
    assert gradgradcheck(lambda x, s: x.scatter_add(1, i, s) ** 2, [leaf(3, 5), leaf(3, 4, seed=1)])
    assert gradgradcheck(lambda x: x.index_select(1, j) ** 2, [leaf(3, 5)])
    assert gradgradcheck(lambda x, s: x.index_add(1, j, s) ** 2, [leaf(3, 5), leaf(3, 4, seed=1)])
    assert gradgradcheck(lambda x: x.sort(1).values ** 2, [leaf(3, 5)])
    assert gradgradcheck(lambda x: x.topk(2, 1).values ** 2, [leaf(3, 5)])
    assert gradgradcheck(lambda x: x.cummax(1).values ** 2, [leaf(3, 5)])
    pool = nt.nn.functional.max_pool2d
    assert gradgradcheck(lambda x: pool(x, 2, 1) ** 2, [leaf(1, 2, 4, 5)])


@pytest.mark.parametrize("case", [
    lambda m: m.zeros(3, 4).scatter_add(1, m.zeros(3, 1, dtype=m.int32), m.ones(3, 1)),
    lambda m: m.zeros(3, 4).scatter_add(1, m.zeros(3, 1, dtype=m.int64),
                                        m.ones(3, 1, dtype=m.float64)),
    lambda m: m.zeros(3, 4).index_add(1, m.tensor([0]), m.ones(2, 1)),
    lambda m: m.zeros(3, 4).index_add(1, m.tensor([0]), m.ones(1)),
    lambda m: m.zeros(3, 4).index_add(1, m.tensor([0.]), m.ones(3, 1)),
    lambda m: m.zeros(3, 4).index_add(1, m.tensor([[0]]), m.ones(3, 1)),
    lambda m: m.zeros(3, 4).masked_scatter(m.zeros(2, 4, dtype=m.bool), m.ones(12)),
    lambda m: m.searchsorted(m.tensor([1., 2]), m.tensor([1.]),
                             sorter=m.tensor([0, 1], dtype=m.int32)),
    lambda m: m.searchsorted(m.tensor([1., 2, 3]), m.tensor([1.]), sorter=m.tensor([0, 1])),
    lambda m: m.searchsorted(m.tensor(1.), m.tensor([1.])),
    lambda m: m.searchsorted(m.zeros(2, 2), 1.0),
    lambda m: m.zeros(3, 4).sort(3),
    lambda m: m.unique(m.zeros(3, 4), dim=2),
])
def test_more_errors(case):
    assert_same_error(lambda: case(nt), lambda: case(torch))
