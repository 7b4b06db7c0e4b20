"""The neural-network ops (src/ops/activation.c, layer_norm.c, embedding.c, loss.c,
linalg_linear.c) and their nn.functional entries, against PyTorch 1.13: values, names, shapes,
dtypes and errors; the backward ops against torch.ops.aten's. PyTorch refuses named tensors in
these ops: names are checked against the rules of docs/name_inference.md, values against
PyTorch on the unnamed tensors."""
import math
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as tF

import ntensor as nt
import ntensor.nn.functional as ntF
from helpers import (EXP_ULPS, TO_NT_DTYPE, assert_close_dtype, assert_same, assert_same_error,
                     from_torch as _from_torch)

aten = torch.ops.aten
FLOATS = [torch.float32, torch.float64, torch.bfloat16]


def rand(*shape, dtype=torch.float32, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(tuple(shape), generator=g, dtype=torch.float64) * 2).to(dtype)


def from_torch(t):
    """helpers.from_torch, keeping the shape of an empty tensor."""
    if t.numel() == 0:
        return nt.zeros(tuple(t.shape), dtype=TO_NT_DTYPE[t.dtype])
    return _from_torch(t)


def unnamed(x):
    return x.rename(None) if x.has_names() else x


def close(got, want, **kw):
    """ntensor `got` (maybe named) against unnamed torch `want`."""
    assert_close_dtype(unnamed(got), want, **kw)


# ---------------------------------------------------------------- gelu, silu


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
@pytest.mark.parametrize("shape", [(), (7,), (3, 300), (0, 4)])
def test_gelu_values(dtype, approximate, shape):
    """erf and tanh forms within a few ulps of PyTorch's (SLEEF's erf/tanh against PyTorch's
    own polynomials); bfloat16 computed in float and rounded once."""
    t = rand(*shape, dtype=dtype)
    got = nt.gelu(from_torch(t), approximate=approximate)
    # x/2 (1 + erf): 1 + erf cancels for negative x, so each library's erf error of an ulp of 1
    # becomes an absolute error of about |x| u
    bound = dict(ulps=8, n_terms=4, scale=t.double().abs() + 1e-30)
    close(got, torch._C._nn.gelu(t, approximate=approximate), **bound)
    assert_close_dtype(ntF.gelu(from_torch(t)), tF.gelu(t), **bound)


@pytest.mark.parametrize("dtype", FLOATS)
def test_silu_values(dtype):
    t = rand(5, 200, dtype=dtype)
    close(ntF.silu(from_torch(t)), tF.silu(t), ulps=EXP_ULPS, n_terms=2)


def test_activations_keep_names_and_take_strided_input():
    t = rand(6, 8)
    x = from_torch(t).refine_names("N", "C")
    for f, tf in [(ntF.gelu, tF.gelu), (ntF.silu, tF.silu)]:
        got = f(x.t())
        assert got.names == ("C", "N")
        close(got, tf(t.t()), ulps=8, n_terms=4, scale=t.t().abs())


def test_activation_out_and_inplace_forms():
    t = rand(3, 4)
    x, out = from_torch(t), nt.empty(0)
    r = nt.gelu(x, approximate="tanh", out=out)
    assert r is out
    close(out, tF.gelu(t, approximate="tanh"), ulps=8, n_terms=4, scale=t.abs())
    y = ntF.silu(x, inplace=True)
    assert y is x
    close(x, tF.silu(t), ulps=EXP_ULPS, n_terms=2)


@pytest.mark.parametrize("dtype", [torch.float16, torch.int64, torch.bool])
def test_activation_dtype_errors(dtype):
    t = torch.ones(2, 3, dtype=dtype)
    x = from_torch(t)
    assert_same_error(lambda: nt.gelu(x), lambda: torch._C._nn.gelu(t))
    assert_same_error(lambda: nt.silu(x), lambda: torch._C._nn.silu(t))


def test_gelu_argument_errors():
    t = torch.ones(2)
    x = from_torch(t)
    assert_same_error(lambda: nt.gelu(x, approximate="foo"),
                      lambda: torch._C._nn.gelu(t, approximate="foo"))
    assert_same_error(lambda: nt.gelu(x, approximate=3),
                      lambda: torch._C._nn.gelu(t, approximate=3))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_backward(dtype, approximate):
    t, g = rand(4, 100, dtype=dtype), rand(4, 100, dtype=dtype, seed=1)
    got = nt.gelu_backward(from_torch(g), from_torch(t), approximate=approximate)
    close(got, aten.gelu_backward(g, t, approximate=approximate), ulps=8, n_terms=8,
          scale=g.double().abs() * 2)


@pytest.mark.parametrize("dtype", FLOATS)
def test_silu_backward(dtype):
    t, g = rand(4, 100, dtype=dtype), rand(4, 100, dtype=dtype, seed=1)
    got = nt.silu_backward(from_torch(g), from_torch(t))
    close(got, aten.silu_backward(g, t), ulps=8, n_terms=8, scale=g.double().abs() * 2)


def test_activation_backward_broadcasts_promotes_and_unifies_names():
    t, g = rand(2, 3), rand(3, dtype=torch.float64, seed=1)
    got = nt.silu_backward(from_torch(g), from_torch(t))
    close(got, aten.silu_backward(g, t), ulps=8, n_terms=8, scale=g.abs().expand(2, 3) * 2)
    x = from_torch(t).refine_names("N", "C")
    d = from_torch(g).refine_names("C")
    assert nt.gelu_backward(d, x).names == ("N", "C")
    assert nt.silu_backward(d, x).dtype == nt.float64
    with pytest.raises(RuntimeError, match="Error when attempting to broadcast"):
        nt.gelu_backward(from_torch(g).refine_names("X"), x)
    with pytest.raises(RuntimeError, match="either none or tanh"):
        nt.gelu_backward(d, x, approximate="exact")


def test_gelu_backward_is_the_derivative():
    """Central differences of gelu in float64 (both forms) and of silu."""
    x = from_torch(rand(50, dtype=torch.float64))
    h = 1e-6
    for approximate in ["none", "tanh"]:
        fd = (nt.gelu(x + h, approximate=approximate) - nt.gelu(x - h, approximate=approximate)) / (2 * h)
        an = nt.gelu_backward(nt.ones_like(x), x, approximate=approximate)
        assert np.allclose(an.tolist(), fd.tolist(), atol=1e-8)
    fd = (nt.silu(x + h) - nt.silu(x - h)) / (2 * h)
    assert np.allclose(nt.silu_backward(nt.ones_like(x), x).tolist(), fd.tolist(), atol=1e-8)


# ---------------------------------------------------------------- layer_norm


def ln_bound(t, w, b, shape):
    """layer_norm's rounding: the moments' sums of n terms, scaled by |xhat w| + |b| + |w|."""
    n = int(np.prod(shape))
    dims = list(range(t.dim() - len(shape), t.dim()))
    u = t.double()
    xhat = (u - u.mean(dims, keepdim=True)) / (u.var(dims, unbiased=False, keepdim=True) + 1e-5).sqrt()
    wa = 1 if w is None else w.double().abs()
    ba = 0 if b is None else b.double().abs()
    return dict(n_terms=n + 8, scale=(xhat.abs() + 1) * wa + ba)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape,normalized", [((4, 5, 6), [6]), ((4, 5, 6), [5, 6]),
                                              ((3, 512), [512]), ((7,), [7]), ((0, 3), [3])])
@pytest.mark.parametrize("affine", ["none", "weight", "both", "bias"])
def test_layer_norm_values(dtype, shape, normalized, affine):
    t = rand(*shape, dtype=dtype) + 3
    w = rand(*normalized, dtype=dtype, seed=1) if affine in ("weight", "both") else None
    b = rand(*normalized, dtype=dtype, seed=2) if affine in ("bias", "both") else None
    f = (lambda v: None if v is None else from_torch(v))
    got = ntF.layer_norm(from_torch(t), normalized, f(w), f(b))
    want = tF.layer_norm(t, normalized, w, b)
    close(got, want, **ln_bound(t, w, b, normalized))
    close(nt.layer_norm(from_torch(t), normalized, f(w), f(b), 1e-5), want,
          **ln_bound(t, w, b, normalized))


def test_layer_norm_names_eps_and_strided_input():
    t = rand(6, 5)
    x = from_torch(t).refine_names("N", "C")
    got = ntF.layer_norm(x.t(), [6], eps=0.5)
    assert got.names == ("C", "N")
    close(got, tF.layer_norm(t.t(), [6], eps=0.5), **ln_bound(t.t(), None, None, [6]))
    big = rand(4096, 64)
    close(ntF.layer_norm(from_torch(big), [64]), tF.layer_norm(big, [64]),
          **ln_bound(big, None, None, [64]))


def test_layer_norm_is_accurate_for_a_large_mean():
    """float32 rows whose mean is 1000 times their spread (the one-pass moments in float64)."""
    t = rand(8, 256) + 1000
    close(ntF.layer_norm(from_torch(t), [256]), tF.layer_norm(t, [256]), n_terms=2048,
          scale=1 + t.double().abs().mean() / 2)


@pytest.mark.parametrize("args", [
    ((2, 3), [4], None, None), ((2, 3), [], None, None), ((2, 3), [3], (2,), None),
    ((2, 3), [3], None, (2,)), ((2, 3), [2, 3, 4], None, None), ((3,), [2], (3,), None)])
def test_layer_norm_shape_errors(args):
    shape, normalized, wshape, bshape = args
    t = torch.ones(shape)
    w = None if wshape is None else torch.ones(wshape)
    b = None if bshape is None else torch.ones(bshape)
    f = (lambda v: None if v is None else from_torch(v))
    assert_same_error(lambda: ntF.layer_norm(from_torch(t), normalized, f(w), f(b)),
                      lambda: tF.layer_norm(t, normalized, w, b))


def test_layer_norm_dtype_errors():
    for t, w in [(torch.ones(2, 3), torch.ones(3, dtype=torch.float64)),
                 (torch.ones(2, 3, dtype=torch.float16), None),
                 (torch.ones(2, 3, dtype=torch.int64), None)]:
        x = from_torch(t)
        assert_same_error(lambda: nt.layer_norm(x, [3], None if w is None else from_torch(w)),
                          lambda: torch.layer_norm(t, [3], w))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_backward(dtype, affine):
    shape, normalized = (4, 5, 16), [5, 16]
    t = rand(*shape, dtype=dtype)
    g = rand(*shape, dtype=dtype, seed=3)
    w = rand(*normalized, dtype=dtype, seed=1) if affine else None
    b = rand(*normalized, dtype=dtype, seed=2) if affine else None
    _, mean, rstd = aten.native_layer_norm(t, normalized, w, b, 1e-5)
    want = aten.native_layer_norm_backward(g, t, normalized, mean, rstd, w, b,
                                           [True, affine, affine])
    got = nt.layer_norm_backward(from_torch(g), from_torch(t), normalized,
                                 None if w is None else from_torch(w), 1e-5)
    assert isinstance(got, (list, tuple)) and len(got) == 3
    n = 80
    gs = g.double().abs()
    ws = 1 if w is None else w.double().abs()
    close(got[0], want[0], n_terms=3 * n + 8, scale=(gs * ws).mean((1, 2), keepdim=True) * 8)
    u = t.double()
    xhat = (u - u.mean((1, 2), keepdim=True)) / (u.var((1, 2), unbiased=False, keepdim=True)
                                                 + 1e-5).sqrt()
    dw = want[1] if affine else (g.double() * xhat).sum(0).to(dtype)
    db = want[2] if affine else g.sum(0)
    close(got[1], dw, n_terms=n, scale=(gs * (xhat.abs() + 1)).sum(0))
    close(got[2], db, n_terms=8, scale=gs.sum(0))


def test_layer_norm_backward_names_and_errors():
    x = nt.randn(3, 4, names=("N", "C"))
    g = nt.randn(3, 4)
    gi, gw, gb = nt.layer_norm_backward(g, x, [4])
    assert gi.names == ("N", "C") and gw.names == ("C",) and gb.names == ("C",)
    w = nt.randn(4, names=("D",))
    assert nt.layer_norm_backward(g, x, [4], w)[1].names == ("D",)
    with pytest.raises(RuntimeError, match="grad_out of shape"):
        nt.layer_norm_backward(nt.randn(3), x, [4])


# ---------------------------------------------------------------- embedding


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.float16,
                                   torch.int64])
@pytest.mark.parametrize("index_dtype", [torch.int64, torch.int32])
def test_embedding_values(dtype, index_dtype):
    w = rand(10, 3, dtype=torch.float64).to(dtype)
    i = torch.tensor([[0, 9, 2], [2, 5, 1]], dtype=index_dtype)
    assert_same(nt.embedding(from_torch(w), from_torch(i)), torch.embedding(w, i))
    assert_same(ntF.embedding(from_torch(i), from_torch(w)), tF.embedding(i, w))
    assert_same(ntF.embedding(from_torch(i[0, 0]), from_torch(w)), tF.embedding(i[0, 0], w))
    assert_same(ntF.embedding(from_torch(i), from_torch(w.t().contiguous().t())),
                tF.embedding(i, w))
    big = torch.randint(0, 10, (100, 200), dtype=index_dtype)
    assert_same(ntF.embedding(from_torch(big), from_torch(w)), tF.embedding(big, w))


def test_embedding_names():
    w = nt.randn(10, 4, names=("V", "D"))
    i = nt.tensor([[1, 2, 3]], names=("N", "T"))
    assert nt.embedding(w, i).names == ("N", "T", "D")
    assert nt.embedding(w.rename(None), i).names == ("N", "T", None)
    assert nt.embedding(w, i.rename(None)).names == (None, None, "D")
    assert not nt.embedding(w.rename(None), i.rename(None)).has_names()
    with pytest.raises(RuntimeError, match="duplicate names"):
        nt.embedding(w.rename("V", "N"), i)


def test_embedding_errors():
    w = torch.randn(5, 3)
    cases = [(w, torch.tensor([0, 5])), (w, torch.tensor([0, -1])), (w, torch.tensor([0., 1])),
             (w, torch.tensor([0, 1], dtype=torch.int16)), (w[0], torch.tensor([0])),
             (torch.randn(2, 3, 4), torch.tensor([0]))]
    for a, b in cases:
        assert_same_error(lambda: nt.embedding(from_torch(a), from_torch(b)),
                          lambda: torch.embedding(a, b))
    i = torch.tensor([1])
    for pad in [5, -6]:
        assert_same_error(lambda: ntF.embedding(from_torch(i), from_torch(w), padding_idx=pad),
                          lambda: tF.embedding(i, w, padding_idx=pad))
    with pytest.raises(NotImplementedError):
        ntF.embedding(from_torch(i), from_torch(w), max_norm=1.0)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16])
@pytest.mark.parametrize("padding_idx,scale", [(-1, False), (2, False), (-1, True), (1, True)])
def test_embedding_dense_backward(dtype, padding_idx, scale):
    i = torch.tensor([[1, 2, 1], [4, 1, 0]])
    g = rand(2, 3, 5, dtype=dtype)
    want = aten.embedding_dense_backward(g, i, 6, padding_idx, scale)
    got = nt.embedding_dense_backward(from_torch(g), from_torch(i), 6, padding_idx, scale)
    close(got, want, n_terms=4, scale=g.double().abs().sum((0, 1)))
    got32 = nt.embedding_dense_backward(from_torch(g), from_torch(i.int()), 6, padding_idx, scale)
    close(got32, want, n_terms=4, scale=g.double().abs().sum((0, 1)))


def test_embedding_dense_backward_names_and_errors():
    g = nt.randn(2, 3, names=("N", "D"))
    assert nt.embedding_dense_backward(g, nt.tensor([1, 1]), 4, -1, False).names == (None, "D")
    for gg, i in [(torch.randn(2, 3), torch.tensor([1., 1])),
                  (torch.randn(3, 3), torch.tensor([[1, 2]]))]:
        assert_same_error(
            lambda: nt.embedding_dense_backward(from_torch(gg), from_torch(i), 4, -1, False),
            lambda: aten.embedding_dense_backward(gg, i, 4, -1, False))
    with pytest.raises(IndexError, match="index out of range in self"):
        nt.embedding_dense_backward(nt.randn(2, 3), nt.tensor([1, 4]), 4, -1, False)


# ---------------------------------------------------------------- nll_loss, cross_entropy


def nll_inputs(shape, dtype=torch.float32, ignore=None):
    x = torch.log_softmax(rand(*shape, dtype=torch.float64), 1 if len(shape) > 1 else 0).to(dtype)
    c = shape[1] if len(shape) > 1 else shape[0]
    tshape = (shape[0],) + tuple(shape[2:]) if len(shape) > 1 else ()
    g = torch.Generator().manual_seed(5)
    t = torch.randint(0, c, tshape, generator=g)
    if ignore is not None and t.dim():
        t.view(-1)[::3] = ignore
    return x, t


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(6, 4), (4,), (3, 4, 5), (2, 3, 4, 5), (2, 3, 2, 2, 2), (0, 3)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_values(dtype, shape, reduction, weighted):
    x, t = nll_inputs(shape, dtype, ignore=-100)
    c = shape[1] if len(shape) > 1 else shape[0]
    w = rand(c, dtype=dtype, seed=2).abs() if weighted else None
    got = ntF.nll_loss(from_torch(x), from_torch(t), None if w is None else from_torch(w),
                       reduction=reduction)
    want = tF.nll_loss(x, t, w, reduction=reduction)
    n = max(t.numel(), 1)
    close(got, want, n_terms=2 * n + 2, scale=x.double().abs().sum() * (1 if w is None else 3) + 1)


def test_nll_loss_ignore_index_names_and_c_entry():
    x, t = nll_inputs((5, 4))
    got = ntF.nll_loss(from_torch(x), from_torch(t), ignore_index=2, reduction="none")
    close(got, tF.nll_loss(x, t, ignore_index=2, reduction="none"))
    named = ntF.nll_loss(from_torch(x).refine_names("N", "C"), from_torch(t).refine_names("N"),
                         reduction="none")
    assert named.names == ("N",)
    assert ntF.nll_loss(from_torch(x).refine_names("N", "C"), from_torch(t)).names == ()
    all_ignored = torch.full((5,), -100)
    assert_same(ntF.nll_loss(from_torch(x), from_torch(all_ignored)), tF.nll_loss(x, all_ignored))
    # torch._C._nn.nll_loss's Python default of reduction reads as 0 (none) in both parsers
    close(nt.nll_loss(from_torch(x), from_torch(t)), torch._C._nn.nll_loss(x, t))
    close(nt.nll_loss(from_torch(x), from_torch(t.to(torch.uint8)), None, 2),
          torch._C._nn.nll_loss(x, t.to(torch.uint8), None, 2), n_terms=12, scale=x.abs().sum())


def test_nll_loss_errors():
    x = torch.randn(3, 4)
    t = torch.tensor([0, 3, 1])
    c = torch._C._nn
    cases = [
        (x, torch.tensor([0, 4, 1]), None, 1), (x, torch.tensor([0, -1, 1]), None, 1),
        (x, t.int(), None, 1), (x, t.float(), None, 1), (x.long(), t, None, 1),
        (x.half(), t, None, 1), (x, t[:2], None, 1), (x, t, torch.ones(3), 1),
        (x, t, torch.ones(4, dtype=torch.float64), 1), (x, t.view(3, 1), None, 1),
        (torch.randn(()), t[0], None, 1), (torch.randn(2, 3, 4), torch.zeros(2, 4).long(), None, 1)]
    for a, b, w, r in cases:
        f = (lambda v: None if v is None else from_torch(v))
        assert_same_error(lambda: nt.nll_loss(from_torch(a), from_torch(b), f(w), r),
                          lambda: c.nll_loss(a, b, w, r))
    nd_cases = [(torch.randn(()), t[0]), (torch.randn(2, 3, 4), torch.zeros(3, 4).long()),
                (torch.randn(2, 3, 4, 5), torch.zeros(2, 4).long()),
                (torch.randn(2, 3, 4, 5), torch.zeros(2, 4, 6).long()),
                (torch.randn(2, 3, 4, 5, 6), torch.zeros(2, 4, 5).long()),
                (torch.randn(2, 3, 4), torch.full((2, 4), 3))]
    for a, b in nd_cases:
        assert_same_error(lambda: nt.nll_loss_nd(from_torch(a), from_torch(b), None, 1),
                          lambda: c.nll_loss_nd(a, b, None, 1))


def test_reduction_strings():
    x, t = nll_inputs((3, 4))
    X, T = from_torch(x), from_torch(t)
    assert_same_error(lambda: ntF.nll_loss(X, T, reduction="avg"),
                      lambda: tF.nll_loss(x, t, reduction="avg"))
    assert_same_error(lambda: ntF.mse_loss(X, X, reduction="x"),
                      lambda: tF.mse_loss(x, x, reduction="x"))
    for kw in [dict(size_average=False), dict(reduce=False), dict(size_average=True, reduce=True)]:
        with warnings.catch_warnings(record=True) as a:
            warnings.simplefilter("always")
            got = ntF.nll_loss(X, T, **kw)
        with warnings.catch_warnings(record=True) as b:
            warnings.simplefilter("always")
            want = tF.nll_loss(x, t, **kw)
        assert [str(w.message) for w in a] == [str(w.message) for w in b]
        close(got, want, n_terms=8, scale=x.abs().sum())
    with pytest.warns(UserWarning, match="elementwise_mean"):
        ntF.nll_loss(X, T, reduction="elementwise_mean")


@pytest.mark.parametrize("reduction", [0, 1, 2])
@pytest.mark.parametrize("shape", [(5, 4), (4,)])
@pytest.mark.parametrize("weighted", [False, True])
def test_nll_loss_backward(reduction, shape, weighted):
    x, t = nll_inputs(shape, ignore=-100 if len(shape) > 1 else None)
    w = rand(shape[-1], seed=3).abs() if weighted else None
    out, tw = aten.nll_loss_forward(x, t, w, reduction, -100)
    g = rand(*out.shape, seed=4)
    want = aten.nll_loss_backward(g, x, t, w, reduction, -100, tw)
    f = (lambda v: None if v is None else from_torch(v))
    got = nt.nll_loss_backward(from_torch(g), from_torch(x), from_torch(t), f(w), reduction,
                               -100, from_torch(tw))
    close(got, want, n_terms=4)
    recomputed = nt.nll_loss_backward(from_torch(g), from_torch(x), from_torch(t), f(w),
                                      reduction, -100)
    close(recomputed, want, n_terms=t.numel() + 4)


def test_nll_loss_backward_nd_matches_autograd():
    x, t = nll_inputs((2, 3, 4, 5), ignore=-100)
    for reduction, r in [("none", 0), ("mean", 1), ("sum", 2)]:
        xx = x.clone().requires_grad_()
        loss = tF.nll_loss(xx, t, reduction=reduction)
        g = torch.ones_like(loss) * 1.5
        loss.backward(g)
        got = nt.nll_loss_backward(from_torch(g), from_torch(x).refine_names("N", "C", "H", "W"),
                                   from_torch(t), None, r, -100)
        assert got.names == ("N", "C", "H", "W")
        close(got, xx.grad, n_terms=t.numel())


def test_nll_loss_backward_errors():
    x, t = nll_inputs((3, 4))
    tw = torch.tensor(3.)
    cases = [(torch.ones(2), 0, tw), (torch.ones(3), 1, tw), (torch.ones(3, 4), 0, tw),
             (torch.tensor(2.).double(), 1, tw), (torch.tensor(2.), 1, tw.double()),
             (torch.tensor(2.), 1, torch.ones(2))]
    for g, r, w in cases:
        assert_same_error(
            lambda: nt.nll_loss_backward(from_torch(g), from_torch(x), from_torch(t), None, r,
                                         -100, from_torch(w)),
            lambda: aten.nll_loss_backward(g, x, t, None, r, -100, w))


@pytest.mark.parametrize("shape", [(6, 5), (5,), (3, 5, 4)])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.2])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy(shape, reduction, label_smoothing, weighted):
    x = rand(*shape)
    _, t = nll_inputs(shape, ignore=-100)
    c = shape[1] if len(shape) > 1 else shape[0]
    w = rand(c, seed=2).abs() if weighted else None
    f = (lambda v: None if v is None else from_torch(v))
    got = ntF.cross_entropy(from_torch(x), from_torch(t), f(w), reduction=reduction,
                            label_smoothing=label_smoothing)
    want = tF.cross_entropy(x, t, w, reduction=reduction, label_smoothing=label_smoothing)
    close(got, want, n_terms=4 * x.numel() + 8, scale=(x.abs().sum() + x.numel()) * 3 + 1,
          ulps=EXP_ULPS)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_cross_entropy_probability_targets(reduction, weighted):
    x = rand(4, 5)
    p = torch.softmax(rand(4, 5, seed=7), 1)
    w = rand(5, seed=2).abs() if weighted else None
    f = (lambda v: None if v is None else from_torch(v))
    got = ntF.cross_entropy(from_torch(x), from_torch(p), f(w), reduction=reduction,
                            label_smoothing=0.1)
    want = tF.cross_entropy(x, p, w, reduction=reduction, label_smoothing=0.1)
    close(got, want, n_terms=4 * x.numel() + 8, scale=(x.abs().sum() + x.numel()) * 3 + 1,
          ulps=EXP_ULPS)
    assert_same_error(lambda: ntF.cross_entropy(from_torch(x), from_torch(p), label_smoothing=2.0),
                      lambda: tF.cross_entropy(x, p, label_smoothing=2.0))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_mse_loss(reduction):
    a, b = rand(4, 5), rand(4, 5, seed=1)
    got = ntF.mse_loss(from_torch(a).refine_names("N", "C"), from_torch(b), reduction=reduction)
    close(got, tF.mse_loss(a, b, reduction=reduction), n_terms=a.numel() + 2,
          scale=((a - b) ** 2).sum() + 1)
    if reduction == "none":
        assert got.names == ("N", "C")
    with pytest.warns(UserWarning, match="different to the input size"):
        got = ntF.mse_loss(from_torch(a), from_torch(b[0]), reduction=reduction)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = tF.mse_loss(a, b[0], reduction=reduction)
    close(got, want, n_terms=a.numel() + 2, scale=((a - b[0]) ** 2).sum() + 1)


# ---------------------------------------------------------------- linear


def linear_bound(x, w, b):
    s = x.double().abs() @ w.double().abs().t()
    return dict(n_terms=x.shape[-1] + 1, scale=s + (0 if b is None else b.double().abs()))


@pytest.mark.parametrize("dtype", FLOATS + [torch.int64])
@pytest.mark.parametrize("xshape", [(5, 7), (2, 3, 7), (2, 1, 3, 7), (7,)])
@pytest.mark.parametrize("bias", [False, True])
def test_linear_values(dtype, xshape, bias):
    x = rand(*xshape, dtype=torch.float64).to(dtype)
    w = rand(4, 7, dtype=torch.float64, seed=1).to(dtype)
    b = rand(4, dtype=torch.float64, seed=2).to(dtype) if bias else None
    got = ntF.linear(from_torch(x), from_torch(w), None if b is None else from_torch(b))
    close(got, tF.linear(x, w, b), **linear_bound(x, w, b))


def test_linear_layouts_and_the_large_case():
    x = rand(32 * 4, 64)
    w = rand(48, 64, seed=1)
    b = rand(48, seed=2)
    for xx, ww in [(x, w), (x.t().contiguous().t(), w), (x, w.t().contiguous().t()),
                   (x[:, ::2], w[:, ::2]), (x.view(4, 32, 64).transpose(0, 1), w)]:
        got = ntF.linear(from_torch(xx), from_torch(ww), from_torch(b))
        close(got, tF.linear(xx, ww, b), **linear_bound(xx, ww, b))
    big = rand(32, 128, 512)
    wb = rand(512, 512, seed=3)
    close(ntF.linear(from_torch(big), from_torch(wb)), tF.linear(big, wb),
          **linear_bound(big, wb, None))


def test_linear_other_ranks_and_bias_shapes():
    f = (lambda v: None if v is None else from_torch(v))
    for xs, ws, bs in [((3,), (4, 3), (4,)), ((3,), (3,), None), ((2, 3), (3,), None),
                       ((5, 2, 3), (4, 3), (5, 1, 4)), ((2, 3), (4, 3), (2, 4)), ((0, 3), (4, 3), (4,)),
                       ((2, 0), (4, 0), (4,)), ((2, 0), (4, 0), None)]:
        x, w = rand(*xs), rand(*ws, seed=1)
        b = None if bs is None else rand(*bs, seed=2)
        got = ntF.linear(from_torch(x), from_torch(w), f(b))
        want = (x @ w.t() if w.dim() == 2 else x @ w) + (0 if b is None else b)
        bound = linear_bound(x, w if w.dim() == 2 else w.view(1, -1), b)
        bound["scale"] = bound["scale"].reshape(want.shape)
        close(got, want, **bound)


def test_linear_names():
    x = nt.randn(2, 5, 3, names=("N", "T", "D"))
    w = nt.randn(4, 3)
    assert ntF.linear(x, w).names == ("N", "T", None)
    assert ntF.linear(x, w, nt.randn(4)).names == ("N", "T", None)
    assert ntF.linear(x, w.refine_names("O", "D")).names == ("N", "T", "O")
    assert ntF.linear(x, w, nt.randn(4, names=("O",))).names == ("N", "T", "O")
    assert ntF.linear(x.rename(None), w.refine_names("O", "D")).names == (None, None, "O")
    t = torch.randn(2, 3, names=("N", "D"))
    tw = torch.randn(4, 3, names=("N", "D"))
    assert_same_error(lambda: ntF.linear(from_torch(t), from_torch(tw)),
                      lambda: tF.linear(t, tw))
    tb = torch.randn(4, names=("N",))
    assert_same_error(lambda: ntF.linear(from_torch(t), from_torch(tw.rename(None)), from_torch(tb)),
                      lambda: tF.linear(t, tw.rename(None), tb))


def test_linear_errors():
    f = (lambda v: None if v is None else from_torch(v))
    cases = [(torch.randn(2, 3), torch.randn(4, 5), None),
             (torch.randn(5, 2, 3), torch.randn(4, 2), None),
             (torch.randn(2, 3), torch.randn(4, 3), torch.randn(2)),
             (torch.randn(2, 3), torch.randn(4, 3).double(), None),
             (torch.randn(2, 3), torch.randn(4, 3), torch.randn(4).double()),
             (torch.randn(2, 3).half(), torch.randn(4, 3).half(), None),
             (torch.randn(()), torch.randn(4, 3), None),
             (torch.randn(3), torch.randn(2, 4, 3), None),
             (torch.randn(3), torch.randn(4, 3), torch.randn(2, 4)),
             (torch.randn(2, 3), torch.randn(3), torch.randn(2))]
    for x, w, b in cases:
        assert_same_error(lambda: ntF.linear(from_torch(x), from_torch(w), f(b)),
                          lambda: tF.linear(x, w, b))


def test_gelu_float32_is_accurate_where_phi_is_small():
    """float32 gelu's erf form computes erfc (no 1 + erf cancellation): within 8 + 2 x^2 ulps
    of the exact value down to x = -9 (exp's argument -x^2/2 is rounded in float32; PyTorch's
    own float32 kernel is off by percents there), and special values as PyTorch's."""
    t = torch.linspace(-9, 9, 4001)
    got = np.array(nt.gelu(from_torch(t)).tolist())
    exact = np.array([v * 0.5 * math.erfc(-v / math.sqrt(2)) for v in t.double().tolist()])
    ulps = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    allowed = (8 + 2 * t.double().numpy() ** 2) * ulps + 1e-45
    assert (np.abs(got - exact) <= allowed).all()
    special = torch.tensor([float("inf"), float("nan"), 0.0, 100.0])
    assert_same(nt.gelu(from_torch(special)), torch._C._nn.gelu(special))
    assert_same(nt.silu(from_torch(special)), torch._C._nn.silu(special))
    assert nt.silu(nt.tensor([-100.0])).item() == 0.0
