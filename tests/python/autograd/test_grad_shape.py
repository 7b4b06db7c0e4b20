"""Gradients of views, names ops, joins, masks, fills, copies and conversions against PyTorch
1.13 (float64 values to 1e-10, the node's name, the input's names on its gradient), gradcheck
of each row (non-contiguous and named inputs among them), gradgradcheck of reshape, permute,
select and cat, and the in-place forms recorded on tensors and on views of non-leaf tensors."""
import numpy as np
import pytest
import torch

import ntensor as nt
from ntensor.autograd import gradcheck, gradgradcheck


def arr(shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape)


def leaves(*arrays, names=None):
    """The same float64 leaves in both libraries (ntensor's named as given)."""
    xs = [nt.tensor(a, requires_grad=True) for a in arrays]
    if names:
        xs = [x.rename(*n).detach().requires_grad_() if n else x for x, n in zip(xs, names)]
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    return xs, ts


def compare(f, *arrays, names=None, g=None, tf=None, node=True):
    """f(lib, *inputs) in both libraries (tf for torch when it differs, for named forms), then
    backward of the same random gradient: values, shapes, names and the node's name agree."""
    xs, ts = leaves(*arrays, names=names)
    y = f(nt, *xs)
    ty = (tf or f)(torch, *ts)
    if node:
        assert (y.grad_fn.name() if y.grad_fn else None) == ty.grad_fn.name().replace(
            "torch::autograd::", "")
    gy = arr(tuple(ty.shape), seed=7) if g is None else g
    y.backward(nt.tensor(gy).rename(*y.names) if y.ndim and any(y.names) else nt.tensor(gy))
    ty.backward(torch.tensor(gy))
    for x, t in zip(xs, ts):
        if t.grad is None:
            assert x.grad is None
            continue
        assert tuple(x.grad.shape) == tuple(t.grad.shape)
        assert x.grad.names == x.names
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-10)
    return xs, y


def check(f, *inputs):
    assert gradcheck(lambda *a: f(nt, *a), inputs)


def t64(shape, seed=0, names=None, grad=True):
    x = nt.tensor(arr(shape, seed))
    if names:
        x = x.rename(*names)
    return x.requires_grad_(grad)


# ------------------------------------------------------------------ diagonal

@pytest.mark.parametrize("offset,d1,d2", [(0, 0, 1), (1, 0, 2), (-1, 2, 0), (2, -1, -2)])
def test_diagonal(offset, d1, d2):
    compare(lambda m, x: x.diagonal(offset, d1, d2), arr((3, 4, 5)))
    compare(lambda m, x: m.diagonal(x, offset=offset, dim1=d1, dim2=d2), arr((3, 4, 5)))


def test_diagonal_named():
    xs, y = compare(lambda m, x: x.diagonal(outdim="d", dim1="a", dim2="c", offset=1),
                    arr((3, 4, 5)), names=[("a", "b", "c")],
                    tf=lambda m, x: x.diagonal(1, 0, 2))
    assert y.names == ("b", "d")
    check(lambda m, x: x.diagonal(outdim="d", dim1="a", dim2="b"), t64((3, 3), names=("a", "b")))


def test_diagonal_gradcheck_non_contiguous():
    check(lambda m, x: x.diagonal(0, 0, 1), t64((4, 3)).detach().t().requires_grad_())
    check(lambda m, x: x.diagonal(-1, 1, 0), t64((4, 3, 2)))


# ------------------------------------------------------------------ as_strided

@pytest.mark.parametrize("size,stride,offset", [
    ((3, 3), (2, 1), 1),           # a window
    ((3, 3), (1, 1), None),        # overlapping output: repeats add up
    ((2, 4), (0, 1), 2),           # a stride-0 output
    ((2, 2, 2), (6, 2, 1), 0),
    ((0, 3), (1, 1), 0),           # empty
    ((4, 3), (1, 4), 0),           # a transpose: strided copies, no scatter
    ((2, 3, 4), (0, 4, 1), 0),     # an expand of the whole (first-class dims align so)
    ((3, 2, 2), (4, 0, 2), 1),     # a stride-0 dim between others
])
def test_as_strided(size, stride, offset):
    compare(lambda m, x: x.as_strided(size, stride, offset), arr((3, 4)))
    check(lambda m, x: x.as_strided(size, stride, offset), t64((3, 4)))


def test_as_strided_of_views():
    # an input that is itself a view with an offset, a transpose, an expanded (overlapping) input
    compare(lambda m, x: x[1:].as_strided((2, 2), (1, 3), 5), arr((3, 4)), node=False)
    compare(lambda m, x: x.t().as_strided((3, 2), (1, 4), 1), arr((3, 4)), node=False)
    compare(lambda m, x: x.expand(3, 4).as_strided((2, 2), (0, 1), 0), arr((4,)), node=False)
    check(lambda m, x: x.expand(3, 4).as_strided((2, 3), (1, 1), 0), t64((4,)))
    check(lambda m, x: x.as_strided((2, 2), (1, 2)), t64((4, 3)).detach().t().requires_grad_())


def test_as_strided_inplace():
    xs, ts = leaves(arr((3, 4)))
    y, ty = xs[0] * 1, ts[0] * 1
    y.as_strided_((2, 2), (1, 4), 1)
    ty.as_strided_((2, 2), (1, 4), 1)
    (y * y).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(xs[0].grad.numpy(), ts[0].grad.numpy(), atol=1e-12)


# ------------------------------------------------------------------ unfold, movedim, narrow

@pytest.mark.parametrize("dim,size,step", [(0, 2, 1), (1, 3, 1), (1, 2, 2), (2, 2, 3), (-1, 5, 1)])
def test_unfold(dim, size, step):
    compare(lambda m, x: x.unfold(dim, size, step), arr((3, 4, 5)))
    check(lambda m, x: x.unfold(dim, size, step), t64((3, 4, 5)))


def test_unfold_named_and_non_contiguous():
    xs, y = compare(lambda m, x: x.unfold("b", 2, 1), arr((3, 4)), names=[("a", "b")],
                    tf=lambda m, x: x.unfold(1, 2, 1))
    check(lambda m, x: x.unfold(0, 2, 1), t64((3, 4)).detach().t().requires_grad_())
    check(lambda m, x: x.unfold("a", 2, 1), t64((3, 4), names=("a", "b")))


@pytest.mark.parametrize("src,dst", [(0, 2), (-1, 0), (1, 1), ([0, 1], [2, 0]), ([2, 0], [0, 1]),
                                     ([0, 1, 2], [1, 2, 0])])
def test_movedim(src, dst):
    compare(lambda m, x: x.movedim(src, dst), arr((2, 3, 4)))
    compare(lambda m, x: m.moveaxis(x, src, dst), arr((2, 3, 4)))
    check(lambda m, x: m.movedim(x, src, dst), t64((2, 3, 4)))


def test_movedim_named():
    xs, y = compare(lambda m, x: x.movedim("a", 2), arr((2, 3, 4)), names=[("a", "b", "c")],
                    tf=lambda m, x: x.movedim(0, 2))
    assert y.names == ("b", "c", "a")
    check(lambda m, x: x.movedim(["c", "a"], [0, 1]), t64((2, 3, 4), names=("a", "b", "c")))


def test_narrow_tensor_start():
    compare(lambda m, x: x.narrow(1, m.tensor(1), 2), arr((3, 4)))
    compare(lambda m, x: m.narrow(x, -1, m.tensor(0), 3), arr((3, 4)))
    check(lambda m, x: x.narrow(0, m.tensor(1), 2), t64((3, 4)).detach().t().requires_grad_())


@pytest.mark.parametrize("f", [
    lambda m, x: x.swapaxes(0, 2), lambda m, x: m.swapdims(x, 1, 0), lambda m, x: x.transpose(-1, 0),
    lambda m, x: x.permute(2, 0, 1), lambda m, x: x.squeeze(), lambda m, x: x.unsqueeze(1),
    lambda m, x: x.flatten(1), lambda m, x: x.view(3, -1), lambda m, x: x.reshape(-1),
    lambda m, x: x.expand(2, 3, 1, 4), lambda m, x: x.select(2, 0), lambda m, x: x.narrow(0, 1, 2),
    lambda m, x: x.view_as(m.ones(12, dtype=m.float64)),
    lambda m, x: x.reshape_as(m.ones(4, 3, dtype=m.float64)),
    lambda m, x: x.t() if x.ndim <= 2 else x.transpose(0, 1).contiguous(),
    lambda m, x: x.unflatten(0, (1, 3)), lambda m, x: x.clone(),
])
def test_view_rows(f):
    compare(f, arr((3, 1, 4)), node=False)
    check(f, t64((3, 1, 4)))


# ------------------------------------------------------------------ masks, fills, copies

@pytest.mark.parametrize("value_tensor", [False, True])
def test_index_fill(value_tensor):
    def f(m, x, v):
        idx = m.tensor([0, 2, 2])
        return (x * 1).index_fill(1, idx, v if value_tensor else 1.5)
    compare(f, arr((3, 4)), arr(()))
    check(f, t64((3, 4)), t64((), seed=3))
    check(f, t64((4, 3)).detach().t().requires_grad_(), t64((), seed=3))


def test_index_fill_named_inplace():
    x = t64((3, 4), names=("a", "b"))
    y = x * 2
    y.index_fill_("b", nt.tensor([1]), 0.0)
    y.sum().backward()
    assert x.grad.names == ("a", "b")
    want = np.full((3, 4), 2.0)
    want[:, 1] = 0
    np.testing.assert_array_equal(x.grad.numpy(), want)


@pytest.mark.parametrize("xs,ms", [((3, 4), (3, 4)), ((3, 1), (3, 4)), ((4,), (3, 4)),
                                   ((3, 4), (4,))])
def test_masked_select(xs, ms):
    mask = np.random.RandomState(5).standard_normal(ms) > 0
    compare(lambda m, x: x.masked_select(m.tensor(mask)), arr(xs))
    check(lambda m, x: m.masked_select(x, m.tensor(mask)), t64(xs))


def test_masked_select_non_contiguous():
    mask = nt.tensor(np.random.RandomState(5).standard_normal((4, 3)) > 0)
    check(lambda m, x: x.masked_select(mask), t64((3, 4)).detach().t().requires_grad_())


@pytest.mark.parametrize("shape", [(3, 4), (4,), (1, 4), ()])
def test_copy_(shape):
    def f(m, x, s):
        y = x * 1
        y.copy_(s * 2)
        return y * x
    compare(f, arr((3, 4)), arr(shape, 1), node=False)
    check(f, t64((3, 4)), t64(shape, 1))


def test_copy_casts_and_names():
    x = t64((2, 3), names=("a", "b"))
    src = nt.tensor(arr((2, 3)), dtype=nt.float32, requires_grad=True)
    y = x * 1
    y.copy_(src)
    assert y.grad_fn.name() == "CopyBackwards"
    y.sum().backward()
    assert src.grad.dtype == nt.float32 and src.grad.names == (None, None)
    np.testing.assert_array_equal(src.grad.numpy(), np.ones((2, 3), np.float32))
    np.testing.assert_array_equal(x.grad.numpy(), np.zeros((2, 3)))
    assert x.grad.names == ("a", "b")


def test_fill_and_zero():
    compare(lambda m, x: (x * 2).fill_(3.0) * x, arr((3, 4)), node=False)
    compare(lambda m, x, v: (x * 2).fill_(v) * x, arr((3, 4)), arr(()), node=False)
    compare(lambda m, x: (x * 2).zero_(), arr((3, 4)))
    compare(lambda m, x: (x * 2).fill_(1.0), arr((3, 4)))
    compare(lambda m, x, v: (x * 2).fill_(v), arr((3, 4)), arr(()))
    check(lambda m, x, v: (x * 2).fill_(v) * x, t64((3, 4)), t64((), 2))


def test_type_as_and_conversions():
    compare(lambda m, x: x.type_as(m.ones(1)), arr((2, 3)))
    x = t64((2, 3))
    same = x.type_as(nt.ones(1, dtype=nt.float64))  # x itself: a leaf, no node
    assert same.requires_grad and same.grad_fn is None
    check(lambda m, x: x.type_as(m.ones(1, dtype=m.float64)) * 2, t64((2, 3)))
    for conv in (lambda x: x.long(), lambda x: x.int(), lambda x: x.short(), lambda x: x.char(),
                 lambda x: x.byte(), lambda x: x.bool(), lambda x: x.to(nt.int64),
                 lambda x: x.type_as(nt.ones(1, dtype=nt.int32))):
        y = conv(x * 1)
        assert not y.requires_grad and y.grad_fn is None
    y = (x * 1).float()
    assert y.requires_grad and y.grad_fn.name() == "ToCopyBackward0"


def test_clone_contiguous_detach():
    xs, y = compare(lambda m, x: x.clone(), arr((2, 3)), names=[("a", "b")],
                    tf=lambda m, x: x.clone())
    assert y.names == ("a", "b")
    compare(lambda m, x: x.t().contiguous(), arr((2, 3)))
    x = t64((2, 3))
    assert x.contiguous() is x
    d = x.detach()
    assert not d.requires_grad and d.grad_fn is None
    assert not (x * 2).detach().requires_grad


# ------------------------------------------------------------------ in-place forms

@pytest.mark.parametrize("op", ["exp_", "sin_", "tanh_", "sigmoid_", "neg_", "abs_", "sqrt_",
                                "relu_", "floor_", "t_", "squeeze_", "unsqueeze_"])
def test_inplace_on_clone(op):
    args = {"unsqueeze_": (0,)}.get(op, ())
    compare(lambda m, x: getattr(x.clone().abs(), op)(*args), arr((3, 1)) + 0.1, node=False)


@pytest.mark.parametrize("f", [
    lambda m, x, y: x.clone().mul_(y),
    lambda m, x, y: x.clone().add_(y, alpha=2),
    lambda m, x, y: x.clone().sub_(y),
    lambda m, x, y: x.clone().div_(y.abs() + 1),
    lambda m, x, y: x.clone().clamp_(-0.5, 0.5) * y,
    lambda m, x, y: x.clone().masked_fill_(y > 0, 0.0),
    lambda m, x, y: x.clone().transpose_(0, 1) * y.t(),
    lambda m, x, y: x.clone().swapaxes_(0, 1) * y.t(),
])
def test_inplace_binary(f):
    compare(f, arr((3, 4)), arr((3, 4), 1), node=False)
    check(f, t64((3, 4)), t64((3, 4), 1))


def test_inplace_on_views_of_non_leaf():
    def f(m, x):
        y = x * 1
        y[0].mul_(2)
        y[:, 1].sin_()
        y.select(0, 2).copy_(x[1] * 3)
        y.narrow(1, 2, 2).zero_()
        return y
    compare(f, arr((3, 4)), node=False)
    check(f, t64((3, 4)))


def test_inplace_on_leaf_refused():
    x, tx = t64((2,)), torch.tensor(arr((2,)), requires_grad=True)
    for fn in (lambda x: x.exp_(), lambda x: x.zero_(), lambda x: x.fill_(1.0)):
        with pytest.raises(RuntimeError) as e:
            fn(x)
        with pytest.raises(RuntimeError) as te:
            fn(tx)
        assert str(e.value) == str(te.value)


# ------------------------------------------------------------------ double backward

def test_gradgradcheck_views_and_joins():
    x = t64((3, 4))
    assert gradgradcheck(lambda x: (x * x).reshape(4, 3), (x,))
    assert gradgradcheck(lambda x: (x * x).reshape(2, 6).t(), (x.detach().t().requires_grad_(),))
    assert gradgradcheck(lambda x: (x * x).permute(1, 0), (x,))
    assert gradgradcheck(lambda x: (x * x).select(1, 2), (x,))
    assert gradgradcheck(lambda x: nt.cat([x * x, x], 0), (x,))
    n = t64((3, 4), names=("a", "b"))
    assert gradgradcheck(lambda x: (x * x).select("b", 1), (n,))


MASK = nt.tensor(np.random.RandomState(6).standard_normal((3, 4)) > 0)


@pytest.mark.parametrize("f", [
    lambda x: x.select(1, 2), lambda x: x.narrow(0, 1, 2), lambda x: x.diagonal(),
    lambda x: x.unfold(1, 2, 1), lambda x: x.as_strided((2, 2), (1, 1)),
    lambda x: x.reshape(-1), lambda x: x.permute(1, 0), lambda x: nt.cat([x, x * 2], 1),
    lambda x: x.masked_select(MASK),
])
def test_gradgradcheck_with_grad_outputs_requiring_grad(f):
    """The first derivative as a function of the output gradient too: the scatter formulas
    are recorded under create_graph."""
    x = t64((3, 4))
    g = t64(tuple(f(x).shape), seed=4)
    assert gradgradcheck(lambda x: f(x * x), (x,), (g,))
    gx, = nt.autograd.grad(f(x * 1), x, g, create_graph=True)
    assert gx.requires_grad
    check(lambda m, g: nt.autograd.grad(f(x * 1), x, g, create_graph=True)[0], g)


@pytest.mark.parametrize("op,args", [("t_", ()), ("transpose_", (0, 1)), ("swapaxes_", (1, 0)),
                                     ("unsqueeze_", (0,)), ("squeeze_", ())])
def test_inplace_view_ops_on_views(op, args):
    """An in-place view op on a view of a non-leaf writes nothing: the view stays a view of
    its base (a later write into it still reaches the base)."""
    def f(m, x):
        y = x * 1
        v = y[1:3] if op not in ("squeeze_",) else y[1:2]
        getattr(v, op)(*args)
        v.mul_(3)
        w = v * m.arange(v.numel(), dtype=m.float64).view(v.shape)
        return w.sum() + y.sum()
    compare(f, arr((3, 4)), node=False)
    check(f, t64((3, 4)))
