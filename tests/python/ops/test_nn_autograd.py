"""Gradients through the neural-network ops (their rows of the vjp table,
src/autograd/derivatives_nn.c, which call the ops' backward ops) against PyTorch 1.13's
autograd, in float64: F.gelu, F.silu, F.layer_norm, F.embedding, F.nll_loss, F.cross_entropy,
F.mse_loss and F.linear, composed as a small model would compose them."""
import numpy as np
import pytest
import torch
import torch.nn.functional as tF

import ntensor as nt
import ntensor.nn.functional as ntF
from helpers import from_torch


def leaf(t, names=None):
    """The same values as an ntensor leaf and a torch leaf that require grad."""
    x = from_torch(t.detach())
    if names:
        x = x.refine_names(*names)
    return x.requires_grad_(), t.detach().clone().requires_grad_()


def rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(tuple(shape), generator=g, dtype=torch.float64)


def same_grad(x, t, names=None):
    assert x.grad is not None and t.grad is not None
    got = x.grad.rename(None) if x.grad.has_names() else x.grad
    assert tuple(got.shape) == tuple(t.grad.shape)
    assert np.allclose(np.array(got.tolist()), t.grad.numpy(), rtol=1e-9, atol=1e-12)
    if names is not None:
        assert x.grad.names == names


def backward_both(y_nt, y_t, seed=9):
    g = rand(*y_t.shape, seed=seed)
    y_nt.backward(from_torch(g) if g.dim() else nt.tensor(g.item(), dtype=nt.float64))
    y_t.backward(g)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_and_silu_gradients(approximate):
    x, t = leaf(rand(4, 6), ("N", "C"))
    y = ntF.gelu(x, approximate=approximate)
    assert y.grad_fn.name() == tF.gelu(t, approximate=approximate).grad_fn.name()
    backward_both(y, tF.gelu(t, approximate=approximate))
    same_grad(x, t, ("N", "C"))
    x, t = leaf(rand(4, 6))
    backward_both(ntF.silu(x), tF.silu(t))
    same_grad(x, t)


@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_gradients(affine):
    x, t = leaf(rand(3, 4, 5) * 2 + 1)
    w, tw = leaf(rand(4, 5, seed=1)) if affine else (None, None)
    b, tb = leaf(rand(4, 5, seed=2)) if affine else (None, None)
    y, yt = ntF.layer_norm(x, [4, 5], w, b), tF.layer_norm(t, [4, 5], tw, tb)
    assert y.grad_fn.name() == yt.grad_fn.name()
    backward_both(y, yt)
    same_grad(x, t)
    if affine:
        same_grad(w, tw)
        same_grad(b, tb)


@pytest.mark.parametrize("padding_idx,scale", [(None, False), (1, False), (None, True)])
def test_embedding_gradients(padding_idx, scale):
    w, tw = leaf(rand(6, 3))
    i = torch.tensor([[1, 2, 1], [5, 1, 0]])
    y = ntF.embedding(from_torch(i), w, padding_idx=padding_idx, scale_grad_by_freq=scale)
    yt = tF.embedding(i, tw, padding_idx=padding_idx, scale_grad_by_freq=scale)
    assert y.grad_fn.name() == yt.grad_fn.name()
    backward_both(y, yt)
    same_grad(w, tw)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("shape", [(5, 4), (4,), (2, 4, 3)])
def test_nll_loss_and_cross_entropy_gradients(reduction, shape):
    x, t = leaf(rand(*shape))
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = (shape[0],) + shape[2:] if len(shape) > 1 else ()
    target = torch.randint(0, c, tshape, generator=torch.Generator().manual_seed(3))
    weight = rand(c, seed=4).abs()
    y = ntF.nll_loss(x, from_torch(target), from_torch(weight), reduction=reduction)
    yt = tF.nll_loss(t, target, weight, reduction=reduction)
    backward_both(y, yt)
    same_grad(x, t)
    x, t = leaf(rand(*shape))
    y = ntF.cross_entropy(x, from_torch(target), reduction=reduction, label_smoothing=0.1)
    yt = tF.cross_entropy(t, target, reduction=reduction, label_smoothing=0.1)
    backward_both(y, yt)
    same_grad(x, t)


def test_nll_loss_weight_is_not_differentiable():
    x = nt.randn(3, 4, dtype=nt.float64).requires_grad_()
    w = nt.rand(4, dtype=nt.float64).requires_grad_()
    loss = ntF.nll_loss(x, nt.tensor([0, 1, 2]), w)
    with pytest.raises(Exception, match="the derivative for 'weight' is not implemented"):
        loss.backward()


def test_mse_loss_gradients():
    a, ta = leaf(rand(4, 5))
    b, tb = leaf(rand(4, 5, seed=1))
    backward_both(ntF.mse_loss(a, b), tF.mse_loss(ta, tb))
    same_grad(a, ta)
    same_grad(b, tb)


@pytest.mark.parametrize("xshape,wshape,bshape", [
    ((5, 3), (4, 3), (4,)), ((2, 5, 3), (4, 3), (4,)), ((2, 5, 3), (4, 3), None),
    ((3,), (4, 3), (4,)), ((2, 3), (3,), None), ((3,), (3,), None), ((2, 5, 3), (4, 3), (5, 4))])
def test_linear_gradients(xshape, wshape, bshape):
    x, tx = leaf(rand(*xshape))
    w, tw = leaf(rand(*wshape, seed=1))
    b, tb = leaf(rand(*bshape, seed=2)) if bshape else (None, None)
    y = ntF.linear(x, w, b)
    # a (5, 4) bias for a 3-d input broadcasts here; PyTorch's 3-d path fails on it
    yt = tx @ tw.t() + tb if bshape == (5, 4) else tF.linear(tx, tw, tb)
    backward_both(y, yt)
    same_grad(x, tx)
    same_grad(w, tw)
    if bshape:
        same_grad(b, tb)


def test_a_small_model_end_to_end():
    """embedding -> linear -> gelu -> layer_norm -> linear -> cross_entropy, names flowing."""
    emb, temb = leaf(rand(10, 8))
    w1, tw1 = leaf(rand(16, 8, seed=1) / 3)
    b1, tb1 = leaf(rand(16, seed=2))
    w2, tw2 = leaf(rand(10, 16, seed=3) / 4)
    idx = torch.tensor([[1, 2, 3, 4], [5, 6, 7, 8]])
    target = torch.tensor([[2, 3, 4, 5], [6, 7, 8, 9]])
    h = ntF.embedding(from_torch(idx).refine_names("N", "T"), emb)
    h = ntF.layer_norm(ntF.gelu(ntF.linear(h, w1, b1)), [16])
    logits = ntF.linear(h, w2)
    assert logits.names == ("N", "T", None)
    loss = ntF.cross_entropy(logits.rename(None).flatten(0, 1), from_torch(target.flatten()))
    th = tF.layer_norm(tF.gelu(tF.linear(tF.embedding(idx, temb), tw1, tb1)), [16])
    tloss = tF.cross_entropy(tF.linear(th, tw2).flatten(0, 1), target.flatten())
    assert abs(loss.item() - tloss.item()) < 1e-12
    loss.backward()
    tloss.backward()
    for a, b in [(emb, temb), (w1, tw1), (b1, tb1), (w2, tw2)]:
        same_grad(a, b)
