"""matmul over batch dims that do not merge into one stride (the heads of
x.view(N, T, H, Dh).transpose(1, 2)): read in place as a two-level batch, or copied when no
split works; values against PyTorch, and the products' gradients (only those wanted, and a
folded (batch..., n, m) @ (m, p) weight gradient) against PyTorch's."""
import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import TO_NT_DTYPE, from_torch


def close_product(got, a, b):
    """ntensor's a @ b (`got`) against the float64 reference within the rounding bound of sums
    of k products, (k + 3) u sum |a_i b_i| (integers exactly); dtype and shape exactly."""
    want = a.matmul(b)
    assert got.dtype == TO_NT_DTYPE[want.dtype] and tuple(got.shape) == tuple(want.shape)
    if not want.dtype.is_floating_point:
        assert got.tolist() == want.tolist()
        return
    u = 2.0 ** -24 if want.dtype == torch.float32 else 2.0 ** -53
    ref = a.double().matmul(b.double()).numpy()
    bound = (a.shape[-1] + 3) * u * a.double().abs().matmul(b.double().abs()).numpy()
    x = np.asarray(got.double().contiguous().tolist())
    assert (np.abs(x - ref) <= bound + 1e-300).all()


def close(got, want):
    """float64 gradients: the same values up to a few roundings."""
    x = np.asarray(got.rename(None).tolist()) if got.names else np.asarray(got.tolist())
    assert x.shape == tuple(want.shape)
    np.testing.assert_allclose(x, want.detach().numpy(), rtol=1e-10, atol=1e-12)


def heads(t, n, tt, h, dh):
    return t.view(n, tt, h, dh).transpose(1, 2)


# (what, base shape of a, view of a, base shape of b, view of b): the views use methods both
# libraries have, so both see the same strides
LAYOUTS = [
    ("heads @ heads^T", (3, 5, 8), lambda t: heads(t, 3, 5, 2, 4),
     (3, 5, 8), lambda t: heads(t, 3, 5, 2, 4).transpose(-2, -1)),
    ("contiguous @ heads", (3, 2, 5, 5), lambda t: t, (3, 5, 8), lambda t: heads(t, 3, 5, 2, 4)),
    ("broadcast batch", (3, 5, 8), lambda t: heads(t, 3, 5, 2, 4), (1, 2, 4, 6), lambda t: t),
    ("three batch dims, middle split", (2, 3, 4, 5, 6), lambda t: t.permute(0, 2, 1, 3, 4),
     (2, 3, 4, 6, 5), lambda t: t.transpose(1, 2)),
    ("no split: copied", (4, 3, 2, 5, 6), lambda t: t.permute(1, 0, 2, 3, 4).select(2, 1),
     (3, 4, 6, 2), lambda t: t),
    ("large heads (BLAS)", (2, 64, 128), lambda t: heads(t, 2, 64, 4, 32),
     (2, 64, 128), lambda t: heads(t, 2, 64, 4, 32).transpose(-2, -1)),
    ("large heads, transposed rows", (2, 64, 128), lambda t: heads(t, 2, 64, 4, 32).transpose(-2, -1),
     (2, 64, 128), lambda t: heads(t, 2, 64, 4, 32)),
]


@pytest.mark.parametrize("what,sa,va,sb,vb", LAYOUTS, ids=[x[0] for x in LAYOUTS])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64])
def test_matmul_batch_layouts(what, sa, va, sb, vb, dtype):
    g = torch.Generator().manual_seed(1)
    a, b = torch.randn(*sa, generator=g), torch.randn(*sb, generator=g)
    if dtype == torch.int64:
        a, b = (a * 4).round().to(dtype), (b * 4).round().to(dtype)
    else:
        a, b = a.to(dtype), b.to(dtype)
    got = va(from_torch(a)).matmul(vb(from_torch(b)))
    close_product(got, va(a), vb(b))


def test_matmul_heads_strided_in_place():
    """q @ k^T with q, k heads views of (N, T, D) tensors, as attention computes it."""
    g = torch.Generator().manual_seed(2)
    for n, t, h, dh in ((3, 5, 2, 4), (2, 64, 4, 32)):
        x = torch.randn(n, t, h * dh, generator=g)
        y = torch.randn(n, t, h * dh, generator=g)
        nx, ny = from_torch(x), from_torch(y)
        q, k = heads(x, n, t, h, dh), heads(y, n, t, h, dh)
        nq, nk = nx.view(n, t, h, dh).transpose(1, 2), ny.view(n, t, h, dh).transpose(1, 2)
        close_product(nq.matmul(nk.transpose(-2, -1)), q, k.transpose(-2, -1))
        s = torch.randn(n, h, t, t, generator=g)
        close_product(from_torch(s).matmul(nk), s, k)
        out = nt.empty(n, h, t, t)
        nt.matmul(nq, nk.transpose(-2, -1), out=out)
        close_product(out, q, k.transpose(-2, -1))


def _grads(lib, a, b, wants):
    a = a.detach().clone() if lib is torch else from_torch(a)
    b = b.detach().clone() if lib is torch else from_torch(b)
    a.requires_grad_(wants[0])
    b.requires_grad_(wants[1])
    (lib.matmul(a, b) * 1.5).sum().backward()
    return a.grad, b.grad


@pytest.mark.parametrize("shapes", [((3, 4, 5), (5, 6)), ((2, 3, 4, 5), (5, 6)), ((4, 5), (3, 5, 6)),
                                    ((2, 1, 4, 5), (3, 5, 6)), ((5,), (2, 5, 6)), ((3, 4, 5), (5,))])
@pytest.mark.parametrize("wants", [(True, True), (True, False), (False, True)])
def test_matmul_grads(shapes, wants):
    g = torch.Generator().manual_seed(3)
    a = torch.randn(*shapes[0], generator=g, dtype=torch.float64)
    b = torch.randn(*shapes[1], generator=g, dtype=torch.float64)
    ta, tb = _grads(torch, a, b, wants)
    na, nb = _grads(nt, a, b, wants)
    for got, want in ((na, ta), (nb, tb)):
        if want is None:
            assert got is None
        else:
            close(got, want)


def test_attention_heads_grads():
    """q @ k^T over heads views, then weights @ v: every gradient against PyTorch's."""
    g = torch.Generator().manual_seed(4)
    n, t, h, dh = 2, 6, 2, 3
    xs = [torch.randn(n, t, h * dh, generator=g, dtype=torch.float64) for _ in range(3)]

    def run(lib, xs):
        q, k, v = (x.view(n, t, h, dh).transpose(1, 2) for x in xs)
        w = lib.softmax(q.matmul(k.transpose(-2, -1)), -1)
        w.matmul(v).transpose(1, 2).reshape(n, t, h * dh).sum().backward()

    tx = [x.clone().requires_grad_() for x in xs]
    nx = [from_torch(x).requires_grad_() for x in xs]
    run(torch, tx)
    run(nt, nx)
    for a, b in zip(nx, tx):
        close(a.grad, b.grad)
