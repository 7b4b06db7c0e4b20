"""Backward formulas of reductions, scans, order statistics, pooling and distances
(src/autograd/derivatives_reduce.c, derivatives_select.c, derivatives_scan.c,
derivatives_pool.c): gradients against PyTorch 1.13's on the same float64 inputs (values,
names, shapes, the node's name), finite-difference gradcheck, and gradgradcheck for the
families whose formulas must differentiate again."""
import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import from_torch
from ntensor.autograd import gradcheck, gradgradcheck


def _rand(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(tuple(shape), dtype=torch.float64, generator=g)


def _leaf(t, names=None):
    x = from_torch(t)
    if names:
        x = x.refine_names(*names)
    return x.requires_grad_(True)


def _first(y):
    return y[0] if isinstance(y, tuple) else y


def check_grad(nt_fn, torch_fn, *inputs, names=None, node=None, rtol=1e-9, atol=1e-10):
    """The gradients of nt_fn and torch_fn (their first result, weighted by the same random
    tensor) at the same inputs; names: the ntensor inputs' names (nt_fn then reduces by name,
    torch_fn by index), which every gradient must carry."""
    tt = [t.clone().requires_grad_(True) for t in inputs]
    xs = [_leaf(t, names[i] if names else None) for i, t in enumerate(inputs)]
    yt, yn = _first(torch_fn(*tt)), _first(nt_fn(*xs))
    assert tuple(yn.shape) == tuple(yt.shape)
    w = _rand(*yt.shape, seed=7)
    wn = from_torch(w)
    yn.backward(wn.refine_names(*yn.names) if yn.has_names() else wn)
    yt.backward(w)
    for x, t in zip(xs, tt):
        assert x.grad is not None
        assert x.grad.names == x.names
        assert tuple(x.grad.shape) == tuple(t.grad.shape)
        got = np.array(x.grad.rename(None).tolist())
        np.testing.assert_allclose(got, t.grad.numpy(), rtol=rtol, atol=atol)
    assert yn.grad_fn.name() == (node or yt.grad_fn.name())


X = _rand(3, 4, 5)
XZ = X.clone()
XZ[0, 1, 2] = 0          # one zero in some rows
XZ[1, 2, :2] = 0         # two zeros in a row
XZ[2, :, 3] = 0          # a zero in every row along dim 1
TIES = torch.tensor([[1., 3., 3., 0.], [2., 2., 0., 2.], [5., -1., 5., 5.]], dtype=torch.float64)

# (id, ntensor function, torch function, input, the node's name when it differs from PyTorch's)
CASES = [
    ("sum", lambda a: a.sum(), lambda a: a.sum(), X, None),
    ("prod", lambda a: a.prod(), lambda a: a.prod(), X, None),
    ("prod_dim", lambda a: a.prod(1), lambda a: a.prod(1), X, None),
    ("prod_keepdim", lambda a: a.prod(2, keepdim=True), lambda a: a.prod(2, keepdim=True), X, None),
    ("prod_zeros_dim0", lambda a: a.prod(0), lambda a: a.prod(0), XZ, None),
    ("prod_zeros_dim1", lambda a: a.prod(1), lambda a: a.prod(1), XZ, None),
    ("prod_zeros_dim2", lambda a: a.prod(2), lambda a: a.prod(2), XZ, None),
    ("prod_one_zero", lambda a: a.prod(), lambda a: a.prod(),
     torch.tensor([2., 0., 3.], dtype=torch.float64), None),
    ("prod_two_zeros", lambda a: a.prod(), lambda a: a.prod(),
     torch.tensor([2., 0., 0.], dtype=torch.float64), None),
    ("prod_0dim", lambda a: a.prod(), lambda a: a.prod(), torch.tensor(0., dtype=torch.float64),
     None),
    ("var", lambda a: a.var(), lambda a: a.var(), X, None),
    ("var_dim", lambda a: a.var(1), lambda a: a.var(1), X, None),
    ("var_dims_correction", lambda a: a.var([0, 2], correction=0, keepdim=True),
     lambda a: a.var([0, 2], correction=0, keepdim=True), X, None),
    ("var_unbiased_false", lambda a: a.var(2, False), lambda a: a.var(2, False), X, None),
    ("std", lambda a: a.std(), lambda a: a.std(), X, None),
    ("std_dim", lambda a: a.std(2, unbiased=False), lambda a: a.std(2, unbiased=False), X, None),
    ("std_correction", lambda a: a.std(1, correction=2), lambda a: a.std(1, correction=2), X, None),
    ("var_mean", lambda a: nt.var_mean(a, 1), lambda a: torch.var_mean(a, 1), X, None),
    ("std_mean", lambda a: nt.std_mean(a, [0, 1]), lambda a: torch.std_mean(a, [0, 1]), X, None),
    ("amax", lambda a: a.amax(1), lambda a: a.amax(1), TIES, None),
    ("amax_all", lambda a: a.amax(), lambda a: a.amax(), TIES, None),
    ("amin", lambda a: a.amin([0, 1], keepdim=True), lambda a: a.amin([0, 1], keepdim=True),
     TIES, None),
    ("max_all", lambda a: a.max(), lambda a: a.max(), TIES, None),
    ("min_all", lambda a: a.min(), lambda a: a.min(), TIES, None),
    ("median_all", lambda a: a.median(), lambda a: a.median(), TIES, None),
    ("max_dim", lambda a: a.max(1), lambda a: a.max(1), TIES, None),
    ("min_dim_keepdim", lambda a: a.min(0, keepdim=True), lambda a: a.min(0, keepdim=True),
     TIES, None),
    ("max_other", lambda a: nt.max(a, a * 0.5), lambda a: torch.max(a, a * 0.5), X, None),
    ("min_other", lambda a: nt.min(a, a * 0.5), lambda a: torch.min(a, a * 0.5), X, None),
    ("median_dim", lambda a: a.median(1), lambda a: a.median(1), X, None),
    ("mode", lambda a: a.mode(1), lambda a: a.mode(1), TIES, None),
    ("kthvalue", lambda a: a.kthvalue(2, 2), lambda a: a.kthvalue(2, 2), X, None),
    ("kthvalue_keepdim", lambda a: a.kthvalue(3, 0, True), lambda a: a.kthvalue(3, 0, True), X,
     None),
    ("topk", lambda a: a.topk(2, 1), lambda a: a.topk(2, 1), X, None),
    ("topk_smallest", lambda a: a.topk(3, 0, largest=False), lambda a: a.topk(3, 0, largest=False),
     X, None),
    ("cumsum", lambda a: a.cumsum(1), lambda a: a.cumsum(1), X, None),
    ("cumsum_0dim", lambda a: a.cumsum(0), lambda a: a.cumsum(0), torch.tensor(2., dtype=torch.float64), None),
    ("cumprod", lambda a: a.cumprod(2), lambda a: a.cumprod(2), X, None),
    ("cumprod_zeros2", lambda a: a.cumprod(2), lambda a: a.cumprod(2), XZ, None),
    ("cumprod_zeros1", lambda a: a.cumprod(1), lambda a: a.cumprod(1), XZ, None),
    ("logcumsumexp", lambda a: a.logcumsumexp(2), lambda a: a.logcumsumexp(2), X, None),
    ("logcumsumexp_wide", lambda a: a.logcumsumexp(0), lambda a: a.logcumsumexp(0), X * 30, None),
    ("cummax", lambda a: a.cummax(1), lambda a: a.cummax(1), TIES, None),
    ("cummin", lambda a: a.cummin(0), lambda a: a.cummin(0), TIES, None),
    ("logsumexp", lambda a: a.logsumexp(1), lambda a: a.logsumexp(1), X, None),
    ("softmax", lambda a: a.softmax(1), lambda a: a.softmax(1), X, None),
    ("log_softmax", lambda a: a.log_softmax(0), lambda a: a.log_softmax(0), X, None),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_grad_matches_torch(case):
    _, nt_fn, torch_fn, x, node = case
    check_grad(nt_fn, torch_fn, x, node=node)


# dims by name: (ntensor function on a tensor named N, C, L; torch function by index)
NAMED = [
    ("prod", lambda a: a.prod("C"), lambda a: a.prod(1)),
    ("var", lambda a: a.var(["N", "L"]), lambda a: a.var([0, 2])),
    ("std", lambda a: a.std("L", correction=0, keepdim=True), lambda a: a.std(2, correction=0, keepdim=True)),
    ("var_mean", lambda a: nt.var_mean(a, ["C"]), lambda a: torch.var_mean(a, [1])),
    ("amax", lambda a: a.amax(["C"]), lambda a: a.amax([1])),
    ("max_dim", lambda a: a.max("L"), lambda a: a.max(2)),
    ("median_dim", lambda a: a.median("C"), lambda a: a.median(1)),
    ("kthvalue", lambda a: a.kthvalue(2, "N"), lambda a: a.kthvalue(2, 0)),
    ("mode", lambda a: a.mode("L"), lambda a: a.mode(2)),
    ("topk", lambda a: a.topk(2, "C"), lambda a: a.topk(2, 1)),
    ("cumsum", lambda a: a.cumsum("C"), lambda a: a.cumsum(1)),
    ("cumprod", lambda a: a.cumprod("L"), lambda a: a.cumprod(2)),
    ("logcumsumexp", lambda a: a.logcumsumexp("N"), lambda a: a.logcumsumexp(0)),
    ("cummax", lambda a: a.cummax("L"), lambda a: a.cummax(2)),
    ("logsumexp", lambda a: a.logsumexp("C"), lambda a: a.logsumexp(1)),
]


@pytest.mark.parametrize("case", NAMED, ids=[c[0] for c in NAMED])
def test_grad_by_name(case):
    _, nt_fn, torch_fn = case
    node = torch_fn(X.clone().requires_grad_(True))
    check_grad(nt_fn, torch_fn, X, names=[("N", "C", "L")], node=_first(node).grad_fn.name())


POOL = _rand(2, 3, 6, 7, seed=3)


@pytest.mark.parametrize("case", [
    ("max_pool1d", lambda a: nt.max_pool1d(a, 2), lambda a: torch.max_pool1d(a, 2), POOL[0]),
    ("max_pool1d_overlap", lambda a: nt.max_pool1d(a, 3, 1, 1), lambda a: torch.max_pool1d(a, 3, 1, 1),
     POOL[0]),
    ("max_pool2d", lambda a: nt.max_pool2d(a, 3, 2, 1), lambda a: torch.max_pool2d(a, 3, 2, 1), POOL),
    ("max_pool2d_dilation_ceil", lambda a: nt.max_pool2d(a, 2, 2, 0, 2, True),
     lambda a: torch.max_pool2d(a, 2, 2, 0, 2, True), POOL),
    ("max_pool2d_lists", lambda a: nt.max_pool2d(a, (2, 3), (1, 2), (1, 1)),
     lambda a: torch.max_pool2d(a, (2, 3), (1, 2), (1, 1)), POOL),
    ("max_pool3d", lambda a: nt.max_pool3d(a, 2), lambda a: torch.max_pool3d(a, 2), POOL),
    ("max_pool3d_lists", lambda a: nt.max_pool3d(a, (2, 3, 2), (1, 2, 3), (1, 0, 1), (1, 1, 2), True),
     lambda a: torch.max_pool3d(a, (2, 3, 2), (1, 2, 3), (1, 0, 1), (1, 1, 2), True), POOL),
    ("max_pool1d_with_indices", lambda a: nt.max_pool1d_with_indices(a, 2, 1),
     lambda a: torch.max_pool1d_with_indices(a, 2, 1), POOL[0]),
    ("max_pool2d_with_indices", lambda a: nt._C.max_pool2d_with_indices(a, 2, 1),
     lambda a: torch._C._nn.max_pool2d_with_indices(a, 2, 1), POOL),
    ("max_pool3d_with_indices", lambda a: nt._C.max_pool3d_with_indices(a, 2),
     lambda a: torch._C._nn.max_pool3d_with_indices(a, 2), POOL),
], ids=lambda c: c[0])
def test_pool_grad(case):
    _, nt_fn, torch_fn, x = case
    check_grad(nt_fn, torch_fn, x)


def test_pool_grad_named():
    check_grad(lambda a: nt.max_pool2d(a, 2), lambda a: torch.max_pool2d(a, 2), POOL,
               names=[("N", "C", "H", "W")])


@pytest.mark.parametrize("p", [0, 0.5, 1, 1.5, 2, 3, float("inf")])
def test_cdist_grad(p):
    x1, x2 = _rand(2, 4, 5, seed=1), _rand(2, 3, 5, seed=2)
    check_grad(lambda a, b: nt.cdist(a, b, p), lambda a, b: torch.cdist(a, b, p), x1, x2)


def test_cdist_broadcast_and_repeated_rows():
    x1, x2 = _rand(4, 3, seed=1), _rand(2, 5, 3, seed=2)
    x2[1, 2] = x1[0]  # a zero distance: its term is 0
    check_grad(lambda a, b: nt.cdist(a, b), lambda a, b: torch.cdist(a, b), x1, x2)


@pytest.mark.parametrize("p", [0.5, 1, 2, 3, float("inf")])
def test_pdist_grad(p):
    check_grad(lambda a: nt.pdist(a, p), lambda a: torch.pdist(a, p), _rand(5, 3, seed=4))


def test_pdist_repeated_rows_and_small_inputs():
    x = _rand(4, 3, seed=14)
    x[2] = x[0]  # a zero distance: its term is 0
    check_grad(lambda a: nt.pdist(a), lambda a: torch.pdist(a), x)
    check_grad(lambda a: nt.pdist(a, 1), lambda a: torch.pdist(a, 1), _rand(1, 3, seed=15))
    a = nt.zeros(0, 3, dtype=nt.float64).requires_grad_(True)
    nt.pdist(a).sum().backward()
    assert tuple(a.grad.shape) == (0, 3)


# ------------------------------------------------------------------ finite differences

def _nt(t, names=None):
    return _leaf(t, names)


SMALL = _rand(2, 3, 4, seed=5)
GRADCHECK = [
    ("prod", lambda a: a.prod(1)),
    ("prod_all", lambda a: a.prod()),
    ("var", lambda a: a.var(2)),
    ("std", lambda a: a.std([0, 2], correction=0)),
    ("var_mean", lambda a: nt.var_mean(a, 1)),
    ("std_mean", lambda a: nt.std_mean(a)),
    ("amax", lambda a: a.amax(1)),
    ("amin", lambda a: a.amin()),
    ("max_all", lambda a: a.max()),
    ("median_all", lambda a: a.median()),
    ("max_dim", lambda a: a.max(2)[0]),
    ("min_dim", lambda a: a.min(0, True)[0]),
    ("median_dim", lambda a: a.median(1)[0]),
    ("mode", lambda a: a.mode(1)[0]),
    ("kthvalue", lambda a: a.kthvalue(2, 2)[0]),
    ("topk", lambda a: a.topk(2, 1)[0]),
    ("cumsum", lambda a: a.cumsum(2)),
    ("cumprod", lambda a: a.cumprod(1)),
    ("logcumsumexp", lambda a: a.logcumsumexp(2)),
    ("cummax", lambda a: a.cummax(2)[0]),
    ("cummin", lambda a: a.cummin(1)[0]),
    ("max_pool1d", lambda a: nt.max_pool1d(a, 2)),
    ("max_pool2d", lambda a: nt.max_pool2d(a, 2, 1)),
    ("max_pool3d_with_indices", lambda a: nt._C.max_pool3d_with_indices(a.unsqueeze(0), 2)[0]),
    ("pdist", lambda a: nt.pdist(a.select(0, 0))),
]


@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck(case):
    assert gradcheck(case[1], (_nt(SMALL),))


@pytest.mark.parametrize("case", GRADCHECK, ids=[c[0] for c in GRADCHECK])
def test_gradcheck_noncontiguous(case):
    base = from_torch(_rand(4, 3, 2, seed=6))
    x = base.permute(2, 1, 0).detach().requires_grad_(True)  # strides (1, 2, 6)
    assert not x.is_contiguous()
    assert gradcheck(case[1], (x,))
    stepped = from_torch(_rand(2, 3, 8, seed=6))[:, :, ::2].detach().requires_grad_(True)
    assert not stepped.is_contiguous()
    assert gradcheck(case[1], (stepped,))


def test_gradcheck_named():
    x = _nt(SMALL, ("A", "B", "C"))
    assert gradcheck(lambda a: a.prod("B"), (x,))
    assert gradcheck(lambda a: a.var(["A", "C"]), (x,))
    assert gradcheck(lambda a: a.topk(2, "C")[0], (x,))


def test_gradcheck_cdist():
    assert gradcheck(lambda a, b: nt.cdist(a, b, 1.5), (_nt(_rand(3, 2, seed=8)), _nt(_rand(2, 2, seed=9))))


def test_gradcheck_prod_with_zero():
    x = SMALL.clone()
    x[0, 1, 2] = 0
    assert gradcheck(lambda a: a.prod(2), (_nt(x),))
    assert gradcheck(lambda a: a.cumprod(2), (_nt(x),))


GRADGRAD = [
    ("sum", lambda a: a.sum(1)),
    ("mean", lambda a: a.mean([0, 2])),
    ("prod", lambda a: a.prod(1)),
    ("prod_all", lambda a: a.prod()),
    ("var", lambda a: a.var(2)),
    ("std", lambda a: a.std(1)),
    ("logsumexp", lambda a: a.logsumexp(2)),
    ("softmax", lambda a: a.softmax(1)),
    ("log_softmax", lambda a: a.log_softmax(2)),
    ("cumsum", lambda a: a.cumsum(1)),
    ("cumprod", lambda a: a.cumprod(2)),
    ("amax", lambda a: a.amax(1)),
    ("max_dim", lambda a: a.max(2)[0]),
    ("topk", lambda a: a.topk(2, 1)[0]),
    ("logcumsumexp", lambda a: a.logcumsumexp(2)),
]


@pytest.mark.parametrize("case", GRADGRAD, ids=[c[0] for c in GRADGRAD])
def test_gradgradcheck(case):
    assert gradgradcheck(case[1], (_nt(SMALL),))


@pytest.mark.parametrize("p", [1.5, 2, 3])
def test_gradgradcheck_cdist(p):
    x1, x2 = _nt(_rand(2, 3, 4, seed=10)), _nt(_rand(2, 2, 4, seed=11))
    assert gradgradcheck(lambda a, b: nt.cdist(a, b, p), (x1, x2))


@pytest.mark.parametrize("p", [0.5, 1.5, 2, 3, float("inf")])
def test_gradgradcheck_pdist(p):
    assert gradgradcheck(lambda a: nt.pdist(a, p), (_nt(_rand(4, 3, seed=16)),))


def test_indices_not_differentiable():
    x = _nt(X)
    values, indices = x.max(1)
    assert values.requires_grad and not indices.requires_grad
    values, indices = x.topk(2, 1)
    assert not indices.requires_grad


# ------------------------------------------------------------------ edges: empty, 0-dim, float32, dtype=

def _edge_leaf(t):
    x = from_torch(t) if t.numel() else nt.zeros(*t.shape, dtype=nt.float64)
    return x.requires_grad_(True)


def _check_sum_grad(nt_fn, torch_fn, t):
    x, tt = _edge_leaf(t), t.clone().requires_grad_(True)
    _first(nt_fn(x)).sum().backward()
    _first(torch_fn(tt)).sum().backward()
    assert x.grad.dtype == x.dtype and tuple(x.grad.shape) == tuple(tt.grad.shape)
    got = np.array(x.grad.tolist()).reshape(tuple(x.grad.shape))
    np.testing.assert_allclose(got, tt.grad.numpy(), rtol=1e-5, atol=1e-6)


EDGE_OPS = [
    ("prod", lambda a: a.prod(0)), ("var", lambda a: a.var(0)), ("std", lambda a: a.std(0)),
    ("amax", lambda a: a.amax(0)), ("cumsum", lambda a: a.cumsum(0)),
    ("cumprod", lambda a: a.cumprod(0)), ("logcumsumexp", lambda a: a.logcumsumexp(0)),
    ("cummax", lambda a: a.cummax(0)), ("topk", lambda a: a.topk(1, 0)),
    ("max_dim", lambda a: a.max(0)), ("median", lambda a: a.median()),
    ("kthvalue", lambda a: a.kthvalue(1, 0)), ("mode", lambda a: a.mode(0)),
]


@pytest.mark.parametrize("case", EDGE_OPS, ids=[c[0] for c in EDGE_OPS])
def test_edge_0dim_and_float32(case):
    _check_sum_grad(case[1], case[1], torch.tensor(1.5, dtype=torch.float64))
    t = _rand(3, 4, seed=12).float()
    _check_sum_grad(case[1], case[1], t)


@pytest.mark.parametrize("case", [c for c in EDGE_OPS if c[0] not in ("median", "kthvalue", "mode", "topk")],
                         ids=lambda c: c[0])
def test_edge_empty(case):
    _check_sum_grad(case[1], case[1], torch.zeros(3, 0, dtype=torch.float64))


@pytest.mark.parametrize("name", ["prod", "cumsum", "cumprod", "sum"])
def test_dtype_argument(name):
    t = _rand(3, 4, seed=13).float()
    _check_sum_grad(lambda a: getattr(a, name)(1, dtype=nt.float64),
                    lambda a: getattr(a, name)(1, dtype=torch.float64), t)


def test_nan_ties_go_to_the_nans():
    t = torch.tensor([1., float("nan"), 2., float("nan")], dtype=torch.float64)
    x = _edge_leaf(t)
    x.max().backward()
    assert x.grad.tolist() == [0.0, 0.5, 0.0, 0.5]


def test_many_reduced_dims():
    """A gradient spread back over 20 reduced dims (one reshape, not an unsqueeze per dim: a
    formula's temporaries are bounded)."""
    x = nt.ones(*([1] * 19 + [3]), dtype=nt.float64).requires_grad_(True)
    for f in (lambda a: a.sum(), lambda a: a.prod(), lambda a: a.amax(),
              lambda a: nt.std_mean(a, list(range(20)))[0]):
        f(x).backward()
        assert tuple(x.grad.shape) == tuple(x.shape)
        x.grad = None
