"""The shape and factory family against PyTorch 1.13: flip, roll, repeat, tile, triu / tril
(and triu_ / tril_, out=), outer / ger, eye, linspace, logspace: values, shapes, dtypes,
names and every error's type and text; gradients by finite differences (gradcheck) and
against torch's. Where PyTorch refuses named tensors (flip, roll, repeat, tile, triu, outer)
or takes no names= (eye, linspace, logspace), our rule (docs/decisions_ops_everyday.md) is
tested directly."""
import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, agree, assert_close_dtype, assert_same, from_torch, to_torch


X = torch.arange(24.).reshape(2, 3, 4)
M = torch.arange(12).reshape(3, 4)

CASES = [
    # flip
    "x.flip(0)", "x.flip(-1)", "x.flip((0, 2))", "torch.flip(x, [1, 2])", "x.flip(())",
    "x.flip(0, 0)", "x.flip(3)", "m.flip(1)", "x.transpose(0, 2).flip(1)", "x[:, ::2].flip(0, 1)",
    "torch.tensor(5).flip(0)", "torch.ones(0, 3).flip(0)",
    # roll
    "x.roll(1)", "x.roll(-5)", "x.roll(1, 0)", "x.roll(2, -1)", "x.roll((1, -2), (0, 2))",
    "torch.roll(x, 7, 1)", "x.roll((1, 2))", "x.roll(1, (0, 1))", "x.roll(1, 5)",
    "x.transpose(0, 1).roll(1, 0)", "m.roll(0, 0)", "torch.ones(0, 2).roll(1, 0)",
    "torch.tensor(5.).roll(1, 0)", "torch.tensor(5.).roll(3, -1)", "torch.tensor(5.).roll(1, 1)",
    "torch.tensor(5.).roll((1, 2), (0, -1))", "torch.tensor(5.).roll(2)",
    # repeat, tile
    "x.repeat(1, 1, 1)", "x.repeat(2, 1, 3)", "x.repeat(2, 1, 1, 2)", "m.repeat(0, 2)",
    "x.repeat(2)", "m.repeat(-1, 2)", "m.repeat((2, 2))", "x.transpose(0, 2).repeat(1, 2, 1)",
    "m.tile(2)", "m.tile((2, 1, 3))", "torch.tile(m, (3,))", "x.tile(())",
    "torch.tensor(3).repeat(2, 2)",
    # triu, tril
    "m.triu()", "m.tril()", "m.triu(1)", "m.tril(-1)", "m.triu(-5)", "m.tril(9)", "x.triu(1)",
    "torch.triu(x, -1)", "torch.tril(x.transpose(1, 2))", "torch.ones(3).triu()",
    "torch.tensor(1.).tril()", "torch.ones(0, 2).triu()", "m.bool().tril()",
    # outer, ger
    "torch.outer(torch.arange(3.), torch.arange(4.))", "torch.arange(3).outer(torch.arange(2.))",
    "torch.ger(torch.arange(3), torch.arange(4))", "torch.outer(torch.ones(2), torch.ones(2, 2))",
    "torch.ger(torch.ones(2, 2), torch.ones(2))",
    # diag_embed
    "x.diag_embed()", "torch.diag_embed(x, 1)", "torch.diag_embed(x, -2, 0, 2)",
    "torch.diag_embed(x, 0, 0, 1)", "x.diag_embed(dim1=1, dim2=0)", "m.diag_embed(10)",
    "torch.diag_embed(x, offset=1, dim1=-1, dim2=-3)", "x.transpose(0, 2).diag_embed(-1)",
    "x[:, ::2].diag_embed(2, 3, 1)", "torch.diag_embed(torch.arange(3))",
    "torch.diag_embed(torch.ones(0, 3))", "torch.diag_embed(torch.ones(2, 0))",
    "x.diag_embed(0, 1, 1)", "x.diag_embed(0, -1, 3)", "x.diag_embed(0, 4, 1)",
    "x.diag_embed(0, -5, 1)", "torch.diag_embed(torch.tensor(1.))", "torch.diag_embed(x, 1.0)",
    "torch.diag_embed(x, 0, 'a', 'b')", "torch.diag_embed(x, out=x)", "x.diag_embed(0, 0)",
    # eye, linspace, logspace
    "torch.eye(3)", "torch.eye(2, 4)", "torch.eye(4, 2, dtype=torch.int32)", "torch.eye(0)",
    "torch.eye(-1)", "torch.eye(2, -1)", "torch.eye(3, dtype=torch.bool)",
    "torch.linspace(0, 10, 5)", "torch.linspace(0, 10, 5, dtype=torch.int64)",
    "torch.linspace(3, 3, 1)", "torch.linspace(0, 1, 0)", "torch.linspace(0, 1, -1)",
    "torch.linspace(1.5, -2.5, 9, dtype=torch.float64)", "torch.linspace(-1, 1, 2)",
    "torch.linspace(0, 1, 1000)", "torch.linspace(-3, 11.1, 777)", "torch.linspace(0, 997, 100, dtype=torch.int64)",
    "torch.linspace(-5, 1234, 99, dtype=torch.int32)", "torch.linspace(-3, 11.1, 777, dtype=torch.float64)",
    "torch.logspace(0, 3, 4, dtype=torch.int64)", "torch.linspace(-3, 7, 6, dtype=torch.int16)",
]


@pytest.mark.parametrize("expr", CASES)
def test_against_torch(expr):
    agree(expr, dict(x=X, m=M))


FLOAT_CASES = [
    "torch.linspace(-1, 1, 7, dtype=torch.float16)",
    "torch.linspace(-7.25, 3.5, 33, dtype=torch.bfloat16)", "torch.logspace(0, 2, 5, base=2.0)",
    "torch.logspace(-2, 2, 9, dtype=torch.float64)", "torch.logspace(1, 0, 3)",
]


@pytest.mark.parametrize("expr", FLOAT_CASES)
def test_float_grids(expr):
    if "float16" in expr:  # computed in float here, in Half / BFloat16 arithmetic there
        got = eval(expr, dict(torch=nt))
        want = eval(expr, dict(torch=torch))
        assert_close_dtype(got, want, ulps=4)
    else:
        agree(expr)


@pytest.mark.parametrize("nd,td", DTYPE_PAIRS)
def test_every_dtype(nd, td):
    t = (torch.arange(12) % 5).reshape(3, 4).to(td)
    # (PyTorch 1.13 has no bfloat16 eye: ours makes one)
    eye = [] if td == torch.bfloat16 else ["torch.eye(3, dtype=dt)"]
    for expr in ["m.flip(0)", "m.roll(1, 1)", "m.repeat(2, 1)", "m.tile((1, 2))", "m.triu()",
                 "m.tril(1)", "torch.outer(m[0], m[1])", "m.diag_embed()",
                 "torch.diag_embed(m, -1, 0, 2)"] + eye:
        tenv = dict(torch=torch, m=t, dt=td)
        nenv = dict(torch=nt, m=from_torch(t), dt=nd)
        assert_same(eval(expr, nenv), eval(expr, tenv))


def test_in_place_and_out():
    for op in ["triu", "tril"]:
        t = M.clone().float()
        x = from_torch(t)
        v = x._version
        r = getattr(x, op + "_")(1)
        assert r is x and x._version == v + 1
        getattr(t, op + "_")(1)
        assert_same(x, t)
        out = nt.empty(0)
        r = getattr(nt, op)(from_torch(M.float()), -1, out=out)
        assert r is out
        assert_same(out, getattr(torch, op)(M.float(), -1))
    out = nt.empty(7, dtype=nt.int64)
    assert_same(nt.linspace(0, 1, 3, out=out), torch.linspace(0, 1, 3, out=torch.empty(7, dtype=torch.int64)))
    out = nt.empty(2)
    assert_same(nt.eye(2, 3, out=out), torch.eye(2, 3))
    with pytest.raises(RuntimeError, match=r"dtype Int does not match dtype of out parameter \(Float\)"):
        nt.eye(2, dtype=nt.int32, out=nt.empty(2))
    out = nt.empty(1)
    assert_same(nt.outer(nt.arange(2.), nt.arange(3.), out=out), torch.outer(torch.arange(2.), torch.arange(3.)))


def test_large_flip_is_threaded_and_right():
    t = torch.randn(300, 257)
    assert_same(from_torch(t).flip(0, 1), t.flip(0, 1))
    assert_same(from_torch(t).t().flip(1), t.t().flip(1))


# ------------------------------------------------------------------ names (PyTorch refuses)

def test_names_kept():
    x = nt.arange(24.).reshape(2, 3, 4).refine_names("N", "C", "W")
    assert x.flip("C").names == ("N", "C", "W")
    assert_same(x.flip("C").rename(None), X.flip(1))
    assert_same(x.flip(["N", "W"]).rename(None), X.flip(0, 2))
    assert x.roll(1, "W").names == ("N", "C", "W")
    assert_same(x.roll((1, 2), ("N", "W")).rename(None), X.roll((1, 2), (0, 2)))
    assert x.roll(3).names == ("N", "C", "W")
    assert_same(x.roll(3).rename(None), X.roll(3))
    assert x.triu().names == ("N", "C", "W") and x.tril(1).names == ("N", "C", "W")
    # repeat / tile: the input's names kept, new leading dims unnamed
    assert x.repeat(2, 1, 1).names == ("N", "C", "W")
    assert x.repeat(2, 1, 1, 1).names == (None, "N", "C", "W")
    assert x.tile((2, 1, 1, 1)).names == (None, "N", "C", "W")
    assert_same(x.repeat(2, 1, 2, 1).rename(None), X.repeat(2, 1, 2, 1))
    # outer: (a's, b's)
    a = nt.arange(2.).refine_names("A")
    b = nt.arange(3.).refine_names("B")
    assert nt.outer(a, b).names == ("A", "B")
    assert nt.outer(a, nt.arange(3.)).names == ("A", None)
    with pytest.raises(RuntimeError, match="not found"):
        x.flip("Q")


def test_factories_take_names():
    assert nt.eye(2, 3, names=("R", "C")).names == ("R", "C")
    assert_same(nt.eye(2, names=("R", "C")).rename(None), torch.eye(2))
    assert nt.linspace(0, 1, 4, names=("T",)).names == ("T",)
    assert nt.logspace(0, 1, 4, names=("T",)).names == ("T",)
    with pytest.raises(RuntimeError, match="Number of names"):
        nt.eye(2, names=("R",))


# ------------------------------------------------------------------ gradients

GRAD_CASES = [
    ("flip", lambda x: x.flip(0, 2)),
    ("roll", lambda x: x.roll((1, -1), (0, 2))),
    ("roll_flat", lambda x: x.roll(5)),
    ("repeat", lambda x: x.repeat(2, 1, 2, 1)),
    ("tile", lambda x: x.tile((2, 1))),
    ("triu", lambda x: x.triu(1)),
    ("tril", lambda x: x.tril(-1)),
    ("triu_", lambda x: (x * 1).triu_()),
    ("outer", lambda x: x[0, 0].outer(x[1, 1])),
]


@pytest.mark.parametrize("name,f", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradients(name, f):
    t = torch.randn(2, 3, 4, dtype=torch.float64)
    x = from_torch(t).requires_grad_()
    assert nt.autograd.gradcheck(f, (x,))
    tt = t.clone().requires_grad_()
    g = torch.randn(f(tt).shape, dtype=torch.float64)
    f(tt).backward(g)
    f(x).backward(from_torch(g))
    assert_same(x.grad, tt.grad, exact=False, rtol=1e-10, atol=1e-12)  # float64, a few terms


def test_flip_grad_fn_and_named_grad():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    y = x.flip("C")
    assert y.grad_fn.name() == "FlipBackward0"
    (y * nt.arange(6.).reshape(2, 3)).sum().backward()
    assert_same(x.grad.rename(None), torch.arange(6.).reshape(2, 3).flip(1))


def test_public_signatures_match_torch():
    for name in ["flip", "roll", "tile", "triu", "tril", "outer", "ger", "eye", "linspace",
                 "logspace"]:
        assert callable(getattr(nt, name)), name
    for name in ["flip", "roll", "repeat", "tile", "triu", "tril", "triu_", "tril_", "outer",
                 "ger"]:
        assert callable(getattr(nt.Tensor, name)), name


def test_no_per_element_python():
    # a large tensor through every op finishes at C speed (a loose bound)
    import time
    x = nt.randn(1000, 1000)
    t0 = time.perf_counter()
    x.flip(0), x.roll(3, 1), x.triu(), x.repeat(2, 1), nt.linspace(0, 1, 10 ** 6)
    assert time.perf_counter() - t0 < 5
    np.testing.assert_equal(nt.eye(500).sum().item(), 500.0)


# ------------------------------------------------------------------ diag, one_hot, norm

CASES2 = [
    "torch.diag(v)", "torch.diag(v, 1)", "torch.diag(v, -2)", "torch.diag(m)", "torch.diag(m, 1)",
    "torch.diag(m, -2)", "m.diag(3)", "torch.diag(m.t(), 1)", "torch.diag(x)",
    "torch.diag(torch.tensor(1.))",
    "torch.nn.functional.one_hot(i)", "torch.nn.functional.one_hot(i, 6)",
    "torch.nn.functional.one_hot(i.reshape(2, 2))", "torch.nn.functional.one_hot(i, 2)",
    "torch.nn.functional.one_hot(i - 1)", "torch.nn.functional.one_hot(v)",
    "torch.nn.functional.one_hot(torch.tensor([], dtype=torch.long))",
    "torch.nn.functional.one_hot(torch.tensor([], dtype=torch.long), 3)",
    "torch.norm(m)", "torch.randint(5, 5, (2,))", "torch.randperm(-1)", "torch.randint(3, (2, -1))",
    "x.new_zeros(2, 3)", "x.new_ones((2,), dtype=torch.int32)", "m.new_full((2, 2), 1.5)",
    "x.new_empty(2, 0).shape", "m.new_zeros(())", "x.new_full((3,), 7, dtype=torch.float64)",
]


@pytest.mark.parametrize("expr", CASES2)
def test_against_torch_more(expr):
    agree(expr, dict(x=X, m=M, v=torch.arange(3.), i=torch.tensor([0, 3, 1, 2])))


NORM_CASES = [
    "x.norm()", "x.norm(1)", "x.norm(3)", "x.norm(0.5, dim=1)", "x.norm(2, dim=(0, 2), keepdim=True)",
    "torch.norm(x, float('inf'), dim=-1)", "torch.norm(x, -float('inf'), 0)", "x.norm(0, 1)",
    "x.norm(2, dim=1, dtype=torch.float64)", "x.double().norm(p=1.5)", "x.half().norm(dim=2)",
    "torch.zeros(2, 0).norm(dim=1)", "x.norm('fro')", "torch.norm(x, p='fro', dim=(0, 1))",
    "x.norm('fro', dim=1, keepdim=True)",
]


@pytest.mark.parametrize("expr", NORM_CASES)
def test_norm(expr):
    t = torch.randn(3, 4, 5)
    got = eval(expr, dict(torch=nt, x=from_torch(t)))
    want = eval(expr, dict(torch=torch, x=t))
    assert_close_dtype(got, want, n_terms=60)


def test_norm_strings_refused_as_pytorch_does():
    t = torch.randn(3, 4, 5)
    x = from_torch(t)
    for p, kw in (("fro", dict(dim=(0, 1, 2))), ("bad", {})):
        with pytest.raises(RuntimeError) as want:
            torch.norm(t, p, **kw)
        with pytest.raises(RuntimeError) as got:
            nt.norm(x, p, **kw)
        assert str(got.value) == str(want.value)
    with pytest.raises(NotImplementedError, match="nuclear norm"):  # no SVD here
        x.norm("nuc", dim=(0, 1))


def test_norm_names_and_errors():
    x = nt.randn(2, 3, names=("N", "C"))
    assert x.norm(dim="C").names == ("N",)
    assert x.norm(1, "N", keepdim=True).names == ("N", "C")
    with pytest.raises(RuntimeError, match="norm\\(\\): input dtype should be either floating "
                       "point or complex. Got Long instead."):
        nt.arange(3).norm()


def test_diag_one_hot_names():
    v = nt.arange(3.).refine_names("A")
    assert nt.diag(v).names == (None, None)
    # diag_embed (PyTorch refuses names): the other dims keep theirs, the two new are unnamed
    x = nt.arange(24.).reshape(2, 3, 4).refine_names("N", "C", "W")
    assert x.diag_embed().names == ("N", "C", None, None)
    assert nt.diag_embed(x, 1, 0, 2).names == (None, "N", None, "C")
    assert_same(x.diag_embed(-1, 3, 1).rename(None), X.diag_embed(-1, 3, 1))
    i = nt.tensor([[0, 2], [1, 1]]).refine_names("N", "T")
    hot = nt.nn.functional.one_hot(i)
    assert hot.names == ("N", "T", None)
    assert_same(hot.rename(None), torch.nn.functional.one_hot(torch.tensor([[0, 2], [1, 1]])))


def test_diag_and_norm_gradients():
    for f, shape in [(lambda x: x.diag(1), (3,)), (lambda x: x.diag(-2), (2,)), (lambda x: x.diag(-1), (3, 4)),
                     (lambda x: x.norm(), (3, 4)), (lambda x: x.norm(1, dim=1), (3, 4)),
                     (lambda x: x.norm(3, dim=0, keepdim=True), (3, 4)),
                     (lambda x: x.norm(float("inf"), dim=1), (3, 4)),
                     (lambda x: x.diag_embed(), (2, 3)), (lambda x: x.diag_embed(-1, 0, 2), (2, 3)),
                     (lambda x: nt.diag_embed(x, 2, -1, 0) if isinstance(x, nt.Tensor)
                      else torch.diag_embed(x, 2, -1, 0), (3,))]:
        t = torch.randn(*shape, dtype=torch.float64)
        x = from_torch(t).requires_grad_()
        assert nt.autograd.gradcheck(f, (x,))
        tt = t.clone().requires_grad_()
        y = f(tt)
        g = torch.randn(y.shape, dtype=torch.float64)
        y.backward(g)
        f(x).backward(from_torch(g))
        assert_same(x.grad, tt.grad, exact=False, rtol=1e-10, atol=1e-12)


def test_diag_embed_node_and_named_gradient():
    """DiagEmbedBackward0 (PyTorch's node) whose formula, the gradient's diagonal, is recorded
    (second derivatives); a named input gets its gradient under its own names."""
    from ntensor.autograd import gradgradcheck
    t = torch.randn(2, 3, dtype=torch.float64)
    x = from_torch(t).requires_grad_()
    assert x.diag_embed().grad_fn.name() == t.requires_grad_().diag_embed().grad_fn.name()
    assert x.diag_embed().grad_fn.name() == "DiagEmbedBackward0"
    assert gradgradcheck(lambda a: a.diag_embed(1, 0, 2) ** 2, [x])
    n = from_torch(t).refine_names("N", "C").requires_grad_()
    (n.diag_embed(-1) * nt.arange(16.).reshape(4, 4)).sum().backward()
    assert n.grad.names == ("N", "C")
    assert_same(n.grad.rename(None), torch.tensor([[4.0, 9.0, 14.0]] * 2, dtype=torch.float64))


# ------------------------------------------------------------------ new_*, randint, randperm, T, mT

def test_new_factories():
    x = nt.ones(2, 3, dtype=nt.float64, names=("A", "B"))
    z = x.new_zeros(4)
    assert z.dtype == nt.float64 and z.names == (None,) and z.tolist() == [0.0] * 4
    r = x.new_ones(2, requires_grad=True)
    assert r.requires_grad and r.is_leaf
    assert x.new_full((2,), 3).tolist() == [3.0, 3.0]
    assert x.new_empty((1, 2), dtype=nt.int8).dtype == nt.int8


def test_randint_randperm():
    nt.manual_seed(0)
    a = nt.randint(3, 9, (1000,))
    assert a.dtype == nt.int64 and a.shape == (1000,)
    vals = set(a.tolist())
    assert vals == set(range(3, 9))
    b = nt.randint(4, (2, 3), dtype=nt.int16)
    assert b.dtype == nt.int16 and 0 <= b.min().item() and b.max().item() < 4
    assert nt.randint(2, 5, (7,))._version == 0
    out = nt.empty(0, dtype=nt.int32)
    assert nt.randint(10, (5,), out=out) is out and out.shape == (5,)
    nt.manual_seed(1)
    p = nt.randperm(1000)
    assert p.dtype == nt.int64 and sorted(p.tolist()) == list(range(1000))
    assert p.tolist() != list(range(1000))
    nt.manual_seed(1)
    assert nt.randperm(1000).tolist() == p.tolist()
    assert nt.randperm(5, dtype=nt.float32).dtype == nt.float32
    assert nt.randperm(0).shape == (0,)


def test_T_and_mT():
    t = torch.randn(2, 3, 4)
    x = from_torch(t)
    assert_same(x.mT, t.mT)
    assert_same(from_torch(t[0]).T, t[0].T)
    n = nt.ones(2, 3, 4, names=("A", "B", "C"))
    assert n.mT.names == ("A", "C", "B")
    assert n[0].T.names == ("C", "B")
    with pytest.raises(RuntimeError, match="tensor.mT is only supported on matrices or batches "
                       "of matrices. Got 1-D tensor."):
        nt.ones(3).mT
    assert nt.ones(3).T.shape == (3,)


def test_T_warns_once_as_torch():
    import subprocess
    import sys
    code = ("import warnings, ntensor as nt\nwarnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    nt.ones(2, 3, 4).T; nt.ones(2, 3, 4).T; nt.ones(2, 3).T\n"
            "print(len(w)); print(w[0].category.__name__); print(w[0].message)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    count, category, message = out.stdout.strip().split("\n", 2)
    assert (count, category) == ("1", "UserWarning")
    assert message.startswith("The use of `x.T` on tensors of dimension other than 2 to reverse "
                              "their shape is deprecated")
    assert x_T_torch_text() in message


def x_T_torch_text():
    import warnings
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.ones(2, 3, 4).T
    text = str(w[0].message) if w else ""
    return text.split(" (Triggered internally")[0] if text else "Consider `x.mT`"


# ------------------------------------------------------------------ nn.functional.pad

PAD_CASES = [
    "torch.nn.functional.pad(x, (1, 2))", "torch.nn.functional.pad(x, (1, 0, 0, 2), value=-1.5)", "torch.nn.functional.pad(x, (1, 1, 1, 1, 1, 1))",
    "torch.nn.functional.pad(x, (-1, 2))", "torch.nn.functional.pad(x, (0, 0, -1, 0))", "torch.nn.functional.pad(m, (2, 1), value=7)", "torch.nn.functional.pad(x, ())",
    "torch.nn.functional.pad(x, (1,))", "torch.nn.functional.pad(x, (1, 1, 1, 1, 1, 1, 1, 1))", "torch.nn.functional.pad(x, (1, 1), mode='bogus')",
    "torch.nn.functional.pad(x, (1, 1), mode='reflect', value=1.)", "torch.nn.functional.pad(x, (2, 1), mode='reflect')",
    "torch.nn.functional.pad(x, (3, 3), mode='reflect')", "torch.nn.functional.pad(x, (1, 2, 1, 0), mode='reflect')",
    "torch.nn.functional.pad(x, (2, 1), mode='replicate')", "torch.nn.functional.pad(x, (1, 2, 2, 0), mode='replicate')",
    "torch.nn.functional.pad(x, (1, 3), mode='circular')", "torch.nn.functional.pad(x, (1, 1, 2, 1), mode='circular')",
    "torch.nn.functional.pad(x, (4, 0), mode='circular')", "torch.nn.functional.pad(x, (1, 1, 1, 1, 1, 1), mode='reflect')",
    "torch.nn.functional.pad(x, (1, 1), mode='replicate', value=0.)", "torch.nn.functional.pad(y, (1, 1, 1, 1, 1, 1), mode='replicate')",
    "torch.nn.functional.pad(x[0], (1, 1), mode='reflect')", "torch.nn.functional.pad(m[0], (1, 1), mode='reflect')",
    "torch.nn.functional.pad(y, (1, 0, 2, 1, 1, 1), mode='reflect')", "torch.nn.functional.pad(y, (1, 1, 0, 2, 1, 0), mode='circular')",
    "torch.nn.functional.pad(x.t(), (2, 1), mode='reflect')",
]


@pytest.mark.parametrize("expr", PAD_CASES)
def test_pad(expr):
    agree(expr, dict(x=torch.arange(24.).reshape(2, 3, 4), m=M, y=torch.randn(1, 2, 3, 3, 2)))


def test_pad_names_and_gradients():
    x = nt.ones(2, 3, names=("N", "C"))
    assert nt.nn.functional.pad(x, (1, 1)).names == ("N", "C")
    for mode in ["constant", "reflect", "replicate", "circular"]:
        t = torch.randn(1, 2, 3, 4, dtype=torch.float64)
        f = lambda a, F: F.pad(a, (2, 1, 1, 2), mode=mode)  # noqa: E731
        xx = from_torch(t).requires_grad_()
        assert nt.autograd.gradcheck(lambda a: f(a, nt.nn.functional), (xx,))
        tt = t.clone().requires_grad_()
        g = torch.randn(f(tt, torch.nn.functional).shape, dtype=torch.float64)
        f(tt, torch.nn.functional).backward(g)
        f(xx, nt.nn.functional).backward(from_torch(g))
        assert_same(xx.grad, tt.grad, exact=False, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ einsum

EINSUM_CASES = [
    "torch.einsum('ij,jk->ik', a, b)", "torch.einsum('ij,jk', a, b)", "torch.einsum('ij->ji', a)",
    "torch.einsum('ij->', a)", "torch.einsum('ij->j', a)", "torch.einsum('ii->i', s)",
    "torch.einsum('ii', s)", "torch.einsum('i,i->', v, v)", "torch.einsum('i,j->ij', v, w)",
    "torch.einsum('bij,bjk->bik', c, d)", "torch.einsum('bij,bjk->bki', c, d)",
    "torch.einsum('ij,jk,kl->il', a, b, e)", "torch.einsum('ij,ij->ij', a, a)",
    "torch.einsum('ij,ij->i', a, a)", "torch.einsum('bij,jk->bik', c, b)",
    "torch.einsum('i j,j k->i k', a, b)", "torch.einsum('ij,jk->ik', [a, b])",
    "torch.einsum('bij,bkj->bik', c, c)", "torch.einsum('ij,kj->ik', a, a)",
    "torch.einsum('ij,jk->ik', a)", "torch.einsum('ij->ik', a)", "torch.einsum('ij->ii', a)",
    "torch.einsum('ij,jk->ik', a, b, b)", "torch.einsum('ijk', a)", "torch.einsum('ii', a)",
    "torch.einsum('i1', a)", "torch.einsum('ij')", "torch.einsum('xy,yz->zx', a, b)",
    "torch.einsum('Ab,bC->CA', a, b)", "torch.einsum('ij,j->i', a, torch.ones(1))",
    # ellipses: the dims the letters leave, broadcast right-aligned
    "torch.einsum('...ij->ij', f)", "torch.einsum('...ij,jk', f, b)",
    "torch.einsum('...ij,...jk', f, torch.ones(1, 3, 4, 2))",
    "torch.einsum('...ij,...jk', f, torch.ones(3, 4, 2))", "torch.einsum('i...->...', v)",
    "torch.einsum('...', a)", "torch.einsum('b...ij,b...jk->b...ik', f, torch.ones(2, 3, 4, 5))",
    "torch.einsum('...ii->...i', torch.ones(2, 3, 3))", "torch.einsum('ba...,c', c, v)",
    "torch.einsum('ij->...', a)", "torch.einsum('i...,j->', f, v)", "torch.einsum('...ij->...', f)",
    "torch.einsum('ij...->j', f)", "torch.einsum('i ... , ... j', a, torch.ones(3, 5))",
    "torch.einsum('...ij...', f)", "torch.einsum('...ij..', f)", "torch.einsum('abcde...', f)",
    "torch.einsum('...ij,...jk', f, torch.ones(2, 4, 6))", "torch.einsum('i.j', a)",
    "torch.einsum('...ij->i.j', f)", "torch.einsum('...ij->...i...', f)",
]


@pytest.mark.parametrize("expr", EINSUM_CASES)
def test_einsum(expr):
    g = torch.Generator().manual_seed(7)
    env = dict(a=torch.randn(2, 3, generator=g), b=torch.randn(3, 4, generator=g),
               e=torch.randn(4, 5, generator=g), s=torch.randn(3, 3, generator=g),
               v=torch.randn(3, generator=g), w=torch.randn(2, generator=g),
               c=torch.randn(2, 3, 4, generator=g), d=torch.randn(2, 4, 5, generator=g),
               f=torch.randn(2, 3, 4, 2, generator=g))
    agree(expr, env, exact=False, n_terms=20)


def test_einsum_named_form():
    a = nt.randn(2, 3, names=("N", "C"))
    b = nt.randn(3, 4, names=("C", "D"))
    r = nt.einsum("N C, C D -> N D", a, b)
    assert r.names == ("N", "D")
    assert_same(r.rename(None), torch.einsum("ij,jk->ik", to_torch(a).rename(None),
                                             to_torch(b).rename(None)), exact=False, rtol=1e-5)
    # dims taken by name, in whatever order the tensor holds them
    r2 = nt.einsum("N C, C D -> D N", a, b.align_to("D", "C"))
    assert r2.names == ("D", "N")
    assert_same(r2.rename(None), to_torch(r.rename(None).t()), exact=False, rtol=1e-5)
    # words longer than a letter: the named form on unnamed tensors too
    x = nt.randn(2, 3)
    y = nt.randn(3)
    r3 = nt.einsum("batch feat, feat -> batch", x, y)
    assert r3.names == ("batch",)
    assert_same(r3.rename(None), torch.einsum("ij,j->i", to_torch(x), to_torch(y)),
                exact=False, rtol=1e-5)
    with pytest.raises(RuntimeError):
        nt.einsum("N Q, C D -> N D", a, b)
    # an ellipsis among names: its dims unnamed in the result
    c = nt.randn(5, 2, 3, names=("B", "N", "C"))
    r4 = nt.einsum("... N C, C D -> ... N D", c, b)
    assert r4.names == (None, "N", "D")
    assert_same(r4.rename(None), torch.einsum("...ij,jk->...ik", to_torch(c).rename(None),
                                              to_torch(b).rename(None)), exact=False, rtol=1e-5)


def test_einsum_gradients():
    t1 = torch.randn(2, 3, 4, dtype=torch.float64)
    t2 = torch.randn(2, 4, 5, dtype=torch.float64)
    x1, x2 = from_torch(t1).requires_grad_(), from_torch(t2).requires_grad_()
    f = lambda m, a, b: m.einsum("bij,bjk->bik", a, b)  # noqa: E731
    assert nt.autograd.gradcheck(lambda a, b: f(nt, a, b), (x1, x2))
    y1, y2 = t1.clone().requires_grad_(), t2.clone().requires_grad_()
    f(torch, y1, y2).sum().backward()
    f(nt, x1, x2).sum().backward()
    assert_same(x1.grad, y1.grad, exact=False, rtol=1e-10, atol=1e-12)
    assert_same(x2.grad, y2.grad, exact=False, rtol=1e-10, atol=1e-12)
    s = from_torch(torch.randn(3, 3, dtype=torch.float64)).requires_grad_()
    assert nt.autograd.gradcheck(lambda a: nt.einsum("ii->i", a), (s,))


# ------------------------------------------------------------------ repeat_interleave

INTERLEAVE_CASES = [
    "x.repeat_interleave(2)", "x.repeat_interleave(2, 1)", "x.repeat_interleave(3, dim=0)",
    "x.repeat_interleave(torch.tensor([1, 2]), 0)", "x.repeat_interleave(torch.tensor([1, 2]), 1)",
    "x.repeat_interleave(-1)", "x.repeat_interleave(torch.tensor([[1]]), 0)",
    "torch.repeat_interleave(torch.tensor([2, 0, 1]))", "x.repeat_interleave(torch.tensor([1, -2]), 0)",
    "x.repeat_interleave(torch.tensor(2), 0)", "x.repeat_interleave(torch.tensor([2]), 1)",
    "x.repeat_interleave(2, 5)", "x.repeat_interleave(torch.tensor([1., 2]), 0)",
    "x.repeat_interleave(2, 0, output_size=4)", "torch.repeat_interleave(x, torch.tensor([0, 3, 1]), 1)",
    "torch.repeat_interleave(x, 0, 1)", "x.t().repeat_interleave(torch.tensor([0, 0, 0]), 0)",
    "torch.repeat_interleave(torch.tensor([2, 1], dtype=torch.int32))",
]


@pytest.mark.parametrize("expr", INTERLEAVE_CASES)
def test_repeat_interleave(expr):
    agree(expr, dict(x=torch.arange(6.).reshape(2, 3)))


def test_repeat_interleave_names_and_gradients():
    x = nt.ones(2, 3, names=("N", "C"))
    assert x.repeat_interleave(2, "C").names == ("N", "C")
    assert x.repeat_interleave(2).names == (None,)
    for f in [lambda a, m: a.repeat_interleave(2, 1),
              lambda a, m: a.repeat_interleave(m.tensor([2, 0]), 0)]:
        t = torch.randn(2, 3, dtype=torch.float64)
        xx = from_torch(t).requires_grad_()
        assert nt.autograd.gradcheck(lambda a: f(a, nt), (xx,))
        tt = t.clone().requires_grad_()
        g = torch.randn(f(tt, torch).shape, dtype=torch.float64)
        f(tt, torch).backward(g)
        f(xx, nt).backward(from_torch(g))
        assert_same(xx.grad, tt.grad, exact=False, rtol=1e-10, atol=1e-12)


def test_triangle_large_strided_and_in_place_views():
    t = torch.randn(3, 300, 257)
    assert_same(from_torch(t).triu(-3), t.triu(-3))
    assert_same(from_torch(t).transpose(1, 2).tril(5), t.transpose(1, 2).tril(5))
    base, tb = from_torch(t).clone(), t.clone()
    base[1].t().triu_(2)
    tb[1].t().triu_(2)
    assert_same(base, tb)
    y = from_torch(t).requires_grad_()
    assert y.triu().grad_fn.name() == "TriuBackward0"
    assert y.tril(1).grad_fn.name() == "TrilBackward0"


def test_einsum_ellipsis_gradients():
    """the broadcast ellipsis dims sum their gradient back, as any broadcast does"""
    a = from_torch(torch.randn(2, 1, 3, 4, dtype=torch.float64)).requires_grad_()
    b = from_torch(torch.randn(5, 4, 2, dtype=torch.float64)).requires_grad_()
    assert nt.autograd.gradcheck(lambda x, y: nt.einsum("...ij,...jk->...ik", x, y), (a, b))
