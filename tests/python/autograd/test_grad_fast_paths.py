"""The fast paths of backward: softmax's fused gradient kernel (contiguous float rows over
the last dim, no create_graph) against PyTorch and against the op-by-op formula it replaces
(create_graph, non-last dims, strided gradients), and t.backward() without arguments."""
import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import from_torch


def close(got, want):
    """Gradients within a few roundings of the dtype (sums of up to a few hundred terms)."""
    x = np.asarray(got.rename(None).tolist()) if got.names else np.asarray(got.tolist())
    assert x.shape == tuple(want.shape)
    tol = 1e-10 if want.dtype == torch.float64 else 2e-5
    np.testing.assert_allclose(x, want.detach().double().numpy(), rtol=tol, atol=tol * 1e-2)


DTYPES = [torch.float32, torch.float64]


def _softmax_grads(lib, x, w, dim, create_graph=False):
    x = x.detach().clone().requires_grad_() if lib is torch else from_torch(x).requires_grad_()
    w = w if lib is torch else from_torch(w)
    y = lib.softmax(x, dim)
    (y * w).sum().backward(create_graph=create_graph)
    return x.grad


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,dim", [((3, 5, 7), -1), ((4, 130), 1), ((2, 3, 1), 2),
                                       ((3, 5, 7), 1), ((6,), 0), ((2, 33, 17), -1)])
def test_softmax_backward_against_torch(dtype, shape, dim):
    g = torch.Generator().manual_seed(5)
    x = torch.randn(*shape, generator=g, dtype=dtype)
    w = torch.randn(*shape, generator=g, dtype=dtype)
    want = _softmax_grads(torch, x, w, dim)
    got = _softmax_grads(nt, x, w, dim)
    close(got, want)
#the op - by - op formula(create_graph) gives the same values
    slow = _softmax_grads(nt, x, w, dim, create_graph=True)
    close(got, torch.tensor(slow.detach().tolist(), dtype=dtype))


def test_softmax_backward_named_and_strided_gradient():
    g = torch.Generator().manual_seed(6)
    x = torch.randn(4, 6, generator=g, dtype=torch.float64)
    nx = from_torch(x).refine_names("N", "C").requires_grad_()
    tx = x.clone().requires_grad_()
    nt.softmax(nx, "C").sum().backward()  # the gradient arrives as an expanded (stride 0) view
    torch.softmax(tx, 1).sum().backward()
    assert nx.grad.names == ("N", "C")
    close(nx.grad, tx.grad)
    nx.grad = None
    tx.grad = None
    w = torch.randn(4, 6, generator=g, dtype=torch.float64)
    (nt.softmax(nx, "C") * from_torch(w)).sum().backward()
    (torch.softmax(tx, 1) * w).sum().backward()
    assert nx.grad.names == ("N", "C")
    close(nx.grad, tx.grad)


def test_softmax_gradcheck():
    g = torch.Generator().manual_seed(7)
    x = from_torch(torch.randn(3, 9, generator=g, dtype=torch.float64)).requires_grad_()
    assert nt.autograd.gradcheck(lambda t: nt.softmax(t, -1), (x,))
    assert nt.autograd.gradgradcheck(lambda t: nt.softmax(t, -1), (x,))


def test_backward_without_arguments():
    a = nt.tensor([1.0, 2.0, 3.0]).requires_grad_()
    (a * a).sum().backward()
    assert a.grad.tolist() == [2.0, 4.0, 6.0]
    (a * a).backward(nt.tensor([1.0, 0.5, 2.0]))  # a positional gradient: the general path
    assert a.grad.tolist() == [4.0, 6.0, 18.0]
    (a * a).sum().backward(None, True)
    assert a.grad.tolist() == [6.0, 10.0, 24.0]
    for lib in (nt, torch):
        b = lib.tensor([1.0, 2.0]).requires_grad_()
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
            (b * 2).backward()
        with pytest.raises(RuntimeError, match="does not require grad"):
            lib.tensor(1.0).backward()
