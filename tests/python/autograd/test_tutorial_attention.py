"""The tutorial's MultiHeadAttention (examples/attention.py, verbatim) forward and backward,
batched and unbatched, self- and encoder-attention: values and gradients against the same
computation in PyTorch 1.13 on unnamed tensors with the same parameters (PyTorch fails on the
named batched form: "aten::view is not yet supported with named tensors")."""
import math
import os
import sys

import numpy as np
import pytest
import torch

import ntensor as nt

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples"))
from attention import MultiHeadAttention  # noqa: E402

N, T, TK, D, H = 3, 5, 4, 12, 3


def torch_attention(params, query, key, mask, self_attn):
    """The tutorial's computation with view/transpose on unnamed torch tensors."""
    wq, bq, wk, bk, wv, bv, wo, bo = params
    dph = D // H
    lead = query.shape[:-2]

    def heads(t):
        return t.reshape(*t.shape[:-1], H, dph).transpose(-2, -3)

    key = query if self_attn else key
    q = heads(query @ wq.t() + bq) / math.sqrt(dph)
    k = heads(key @ wk.t() + bk)
    v = heads(key @ wv.t() + bv)
    dot = q @ k.transpose(-1, -2)
    if self_attn:  # the mask covers the query positions (..., T) -> (..., 1, T, 1)
        m = (mask == 0).unsqueeze(-2).unsqueeze(-1)
    else:  # (..., T, T_key) -> (..., 1, T, T_key)
        m = (mask == 0).unsqueeze(-3)
    dot = dot.masked_fill(m, -1e20)
    w = torch.softmax(dot / math.sqrt(dph), dim=-1)
    ctx = (w @ v).transpose(-2, -3).reshape(*lead, query.shape[-2], D)
    return ctx @ wo.t() + bo


def tensors(module):
    lins = [module.q_lin, module.k_lin, module.v_lin, module.out_lin]
    return [p for lin in lins for p in (lin.weight, lin.bias)]


@pytest.mark.parametrize("batched", [True, False])
@pytest.mark.parametrize("self_attn", [True, False])
def test_attention_forward_backward_like_torch(batched, self_attn):
    rng = np.random.RandomState(3)
    nt.manual_seed(0)
    attn = MultiHeadAttention(H, D).double()
    lead = (N,) if batched else ()
    lead_names = ("N",) if batched else ()
    q_np = rng.standard_normal(lead + (T, D))
    k_np = rng.standard_normal(lead + (TK, D))
    if self_attn:
        m_np = (rng.rand(*lead, T) > 0.3).astype(np.float64)
    else:
        m_np = (rng.rand(*lead, T, TK) > 0.3).astype(np.float64)
    query = nt.tensor(q_np, names=lead_names + ("T", "D"), requires_grad=True)
    key = nt.tensor(k_np, names=lead_names + ("T", "D"), requires_grad=True)
    mask = nt.tensor(m_np, names=lead_names + (("T",) if self_attn else ("T", "T_key")))
    out = attn(query, mask=mask) if self_attn else attn(query, key, mask=mask)
    assert out.names == lead_names + ("T", "D")
    g_np = rng.standard_normal(out.shape)
    out.backward(nt.tensor(g_np, names=out.names))

    params = [torch.tensor(p.detach().numpy(), requires_grad=True) for p in tensors(attn)]
    tq = torch.tensor(q_np, requires_grad=True)
    tk = torch.tensor(k_np, requires_grad=True)
    tout = torch_attention(params, tq, tk, torch.tensor(m_np), self_attn)
    tout.backward(torch.tensor(g_np))

    np.testing.assert_allclose(out.detach().rename(None).numpy(), tout.detach().numpy(),
                               rtol=1e-10, atol=1e-10)
    assert query.grad.names == query.names
    np.testing.assert_allclose(query.grad.rename(None).numpy(), tq.grad.numpy(), rtol=1e-9,
                               atol=1e-10)
    if not self_attn:
        assert key.grad.names == key.names
        np.testing.assert_allclose(key.grad.rename(None).numpy(), tk.grad.numpy(), rtol=1e-9,
                                   atol=1e-10)
    else:
        assert key.grad is None
    for p, tp in zip(tensors(attn), params):
        assert p.grad.names == p.names
        if tp.grad is None:  # k/v projections are unused... never in this computation
            continue
        np.testing.assert_allclose(p.grad.numpy(), tp.grad.numpy(), rtol=1e-9, atol=1e-10)


def test_attention_float32_trains_one_step():
    nt.manual_seed(1)
    attn = MultiHeadAttention(4, 16)
    x = nt.randn(2, 6, 16, names=("N", "T", "D"))
    mask = nt.ones(2, 6, names=("N", "T"))
    loss = attn(x, mask=mask).pow(2).mean()
    loss.backward()
    grads = [p.grad for p in attn.parameters()]
    assert all(g is not None and g.shape == p.shape for g, p in zip(grads, attn.parameters()))
    with nt.no_grad():
        for p in attn.parameters():
            p -= 0.1 * p.grad
    assert attn(x, mask=mask).pow(2).mean().item() < loss.item()


@pytest.mark.parametrize("make", [
    lambda lib: lib.ones(2, requires_grad=True),
    lambda lib: lib.ones(2, names=("A",), requires_grad=True),
    lambda lib: lib.ones(2, names=("A",), requires_grad=True) * 2,
    lambda lib: (lib.ones(2, 3, requires_grad=True) * 2).sum(),
    lambda lib: lib.ones(2, requires_grad=True).detach(),
])
def test_repr_shows_autograd_like_torch(make):
    assert repr(make(nt)) == repr(make(torch))
