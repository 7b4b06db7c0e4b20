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
    x = torch.zeros(64, 3)
    i = idx(3, (64, 100_000 // 64 * 64 // 64), seed=9)
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
