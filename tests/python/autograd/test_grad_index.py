"""Gradients through t[...] and t[...] = v (the INDEX and INDEX_PUT rows) against PyTorch 1.13:
basic indices give views (the gradient written into zeros), advanced indices gather (repeated
indices add up), a write zeroes the written region's gradient and gives the value the gradient
read there; the node's names as PyTorch's, the input's names on its gradient, gradcheck on
non-contiguous and named inputs, gradgradcheck through both."""
import numpy as np
import pytest
import torch

import ntensor as nt
from ntensor.autograd import gradcheck, gradgradcheck


def arr(shape, seed=0):
    return np.random.RandomState(seed).standard_normal(shape)


def both(a, names=None):
    x = nt.tensor(a)
    if names:
        x = x.rename(*names)
    return x.requires_grad_(), torch.tensor(a, requires_grad=True)


def index_in(lib, key):
    """The index key with its tensors made by `lib` (lists of ints and masks as tensors)."""
    def conv(k):
        if isinstance(k, np.ndarray):
            return lib.tensor(k)
        return k
    return tuple(conv(k) for k in key) if isinstance(key, tuple) else conv(key)


A = arr((4, 5, 6))
MASK3 = A > 0
MASK2 = A[:, :, 0] > 0
KEYS = [
    0, -1, slice(1, 3), slice(None, None, 2), slice(-3, None, 2), None, Ellipsis, (),
    (0, 1), (0, slice(1, None)), (slice(None), 0), (Ellipsis, 1), (None, 0), (0, None),
    (slice(None), None, slice(1, 4, 2)), (1, Ellipsis, slice(0, 5, 3)),
    np.array([0, 0, 2, 3]), np.array([[1, 1], [3, 0]]), (np.array([0, 1]), np.array([2, 2])),
    (slice(None), np.array([4, 0, 4])), (np.array([0, 3]), slice(None), np.array([1, 5])),
    (Ellipsis, np.array([5, 5, 0])), MASK3, MASK2, (slice(None), MASK3[0]), (0, MASK2[0]), True,
    False, (True, 0), (0, True), (np.array(True),),
    (np.array(2),), (None, np.array([1, 1])), [0, 2, 2], [[0, 1], [1, 1]],
]


@pytest.mark.parametrize("key", KEYS, ids=lambda k: repr(k)[:40])
def test_getitem_grad(key):
    x, tx = both(A)
    y, ty = x[index_in(nt, key)], tx[index_in(torch, key)]
    assert y.grad_fn.name() == ty.grad_fn.name()
    g = arr(tuple(ty.shape), 3)
    y.backward(nt.tensor(g))
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("key", [0, slice(1, 3), (slice(None), np.array([1, 1, 0])),
                                 (np.array([0, 0, 2]), slice(None, None, 2)), MASK2[:, :3]],
                         ids=lambda k: repr(k)[:40])
def test_getitem_gradcheck(key):
    x = nt.tensor(arr((3, 4))).t().detach().requires_grad_()  # non-contiguous (4, 3)
    assert gradcheck(lambda x: x[index_in(nt, key)], (x,))
    assert gradcheck(lambda x: (x * x)[index_in(nt, key)], (x,))


def test_getitem_named():
    x = nt.tensor(A).rename("a", "b", "c").requires_grad_()
    y = x[1:3, 0]
    assert y.names == ("a", "c")
    y.sum().backward()
    assert x.grad.names == ("a", "b", "c")
    want = np.zeros(A.shape)
    want[1:3, 0] = 1
    np.testing.assert_array_equal(x.grad.numpy(), want)
    x.grad = None
    x[nt.tensor([0, 0])].sum().backward()
    assert x.grad.names == ("a", "b", "c")
    assert x.grad.numpy()[0].max() == 2
    assert gradcheck(lambda x: x[..., 1], (nt.tensor(arr((2, 3))).rename("a", "b")
                                           .requires_grad_(),))


def test_getitem_duplicates_add_up():
    x = nt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x[nt.tensor([2, 2, 2, 0])].sum().backward()
    assert x.grad.tolist() == [1.0, 0.0, 3.0]
    h = nt.tensor([1.0, 2.0], dtype=nt.float16, requires_grad=True)
    h[[1, 1, 1]].sum().backward()
    assert h.grad.dtype == nt.float16 and h.grad.tolist() == [0.0, 3.0]


@pytest.mark.parametrize("key,vshape", [
    (0, (5, 6)), (0, (6,)), (0, (1, 1, 6)), (slice(1, 3), (2, 1, 6)), ((Ellipsis, 0), ()),
    ((slice(None), 1, slice(None, None, 2)), (4, 3)), (np.array([0, 2]), (2, 5, 6)),
    (np.array([3, 1]), (5, 1)), ((np.array([0, 1]), np.array([2, 2])), (6,)),
    (MASK2, (1,)), (MASK3, ()), (MASK3, (int(MASK3.sum()),)), (True, (4, 5, 6)),
])
def test_setitem_grad(key, vshape):
    x, tx = both(A)
    v, tv = both(arr(vshape, 2))
    y, ty = x * 1, tx * 1
    y[index_in(nt, key)] = v
    ty[index_in(torch, key)] = tv
    assert y.grad_fn.name() == ty.grad_fn.name().replace("torch::autograd::", "")
    g = arr(A.shape, 3)
    (y * y).backward(nt.tensor(g))
    (ty * ty).backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert v.grad.shape == tv.grad.shape


@pytest.mark.parametrize("key,vshape", [
    (0, (3,)), ((slice(None), 1), (1,)), (np.array([0, 2]), (2, 3)),
    ((slice(None), np.array([2, 0])), (4, 2)), (MASK2[:, :3], ()),
])
def test_setitem_gradcheck(key, vshape):
    def f(x, v):
        y = x * 2
        y[index_in(nt, key)] = v * 3
        return y
    x = nt.tensor(arr((3, 4))).t().detach().requires_grad_()
    v = nt.tensor(arr(vshape, 1)).requires_grad_()
    assert gradcheck(f, (x, v))


def test_setitem_scalar_and_view_of_non_leaf():
    x, tx = both(arr((3, 4)))
    v, tv = both(arr((2,), 1))
    y, ty = x * 1, tx * 1
    z, tz = y[1], ty[1]          # a view of a non-leaf, written through
    z[2:] = v
    tz[2:] = tv
    y[0, 0] = 5.0
    ty[0, 0] = 5.0
    y[[2, 2]] = 1.0
    ty[[2, 2]] = 1.0
    (y.exp().sum() + z.sum()).backward()
    (ty.exp().sum() + tz.sum()).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(v.grad.numpy(), tv.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("key", [0, [0], True, slice(0, 1), (None, 0), np.array(0),
                                 np.array([True, False, True])], ids=repr)
def test_setitem_refused_on_leaf(key):
    x, tx = both(arr((3,)))
    with pytest.raises(RuntimeError) as e:
        x[index_in(nt, key)] = 1.0
    with pytest.raises(RuntimeError) as te:
        tx[index_in(torch, key)] = 1.0
    assert str(e.value) == str(te.value)
    with nt.no_grad():
        x[0] = 1.0
        x[[1]] = 2.0
    assert x.tolist()[:2] == [1.0, 2.0] and x.grad_fn is None


def test_no_grad_indexing_while_autograd_in_use():
    keep = nt.ones(2, requires_grad=True)  # noqa: F841  (autograd is live)
    t = nt.arange(12.0).view(3, 4)
    assert t[1, 2].item() == 6.0 and t[[0, 2], 1].tolist() == [1.0, 9.0]
    t[0] = 0.0
    t[t > 10] = -1.0
    assert t[0].tolist() == [0.0] * 4 and t[2, 3].item() == -1.0
    assert not t[0].requires_grad and t.grad_fn is None
    i = nt.arange(6).view(2, 3)
    assert i[1, [0, 2]].tolist() == [3, 5]


def test_index_put_accumulate():
    t = nt.zeros(4)
    idx = nt.tensor([0, 0, 3, 0])
    t[idx] = nt.tensor([1.0, 2.0, 3.0, 4.0])
    assert t.tolist() in ([4.0, 0.0, 0.0, 3.0], [1.0, 0.0, 0.0, 3.0], [2.0, 0.0, 0.0, 3.0])
    x = nt.tensor(arr((4,)), requires_grad=True)
    (x[nt.tensor([0, 0, 3, 0])] * nt.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [7.0, 0.0, 0.0, 3.0]


def test_gradgradcheck_getitem_setitem():
    x = nt.tensor(arr((3, 4))).requires_grad_()
    assert gradgradcheck(lambda x: (x * x)[1], (x,))
    assert gradgradcheck(lambda x: (x * x)[[0, 0, 2], 1:], (x,))
    assert gradgradcheck(lambda x: (x * x)[x.detach() > 0], (x,))
    g = nt.tensor(arr((3, 3), 5)).requires_grad_()
    assert gradgradcheck(lambda x: (x * x)[[0, 0, 2], 1:], (x,), (g,))
    g1 = nt.tensor(arr((4,), 5)).requires_grad_()
    assert gradgradcheck(lambda x: (x * x)[1], (x,), (g1,))

    def put(x, v):
        y = x * x
        y[[0, 2], 1] = v * v
        return y
    v = nt.tensor(arr((2,), 1)).requires_grad_()
    assert gradgradcheck(put, (x, v))
    gy = nt.tensor(arr((3, 4), 6)).requires_grad_()
    assert gradgradcheck(put, (x, v), (gy,))
