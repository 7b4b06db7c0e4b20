"""Joining and splitting against PyTorch 1.13: cat (every dtype pair's promotion, legacy
empty tensors, out=, names), stack, split / split_with_sizes, chunk, unbind, resize_ and
resize_as_: values, shapes, dtypes, names, view semantics and every error's type and text.
Where PyTorch refuses named tensors or names as dims (stack, split/chunk by name), our
rule (docs/decisions_ops_index.md) is tested directly."""
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, agree, assert_same


def both(expr, **tensors):
    """agree() on `expr` with the given torch tensors (converted for ntensor)."""
    return agree(expr, tensors)


A = torch.ones(2, 3).refine_names("N", "C")
B = torch.zeros(1, 3).refine_names("N", "C")

CAT_CASES = [
    "torch.cat([a, b])", "torch.cat([a, b], 'N')", "torch.cat([a, b], dim='C')",
    "torch.cat([a, torch.ones(2, 2).refine_names('N', 'C')], 'C')", "torch.cat([a, b], 1)",
    "torch.cat([])", "torch.cat([torch.tensor(1.), torch.tensor(2.)])",
    "torch.cat([torch.ones(2), torch.ones(2, 2)])", "torch.cat([torch.ones(2, 3), torch.ones(0)])",
    "torch.cat([torch.ones(0), torch.arange(6.).reshape(2, 3)])", "torch.cat([torch.ones(2, 3), torch.ones(2, 3)], 2)",
    "torch.cat([torch.ones(2, 3), torch.ones(2, 3)], -3)", "torch.cat([torch.ones(2, 3), torch.ones(2, 3)], -1)",
    "torch.cat([torch.ones(2, 3), 1])", "torch.cat(torch.ones(2, 3))", "torch.cat([a, b], 'X')",
    "torch.cat([a, torch.ones(2, 3).refine_names('N', 'D')])", "torch.cat([a, torch.ones(1, 4)], 0)",
    "torch.cat([torch.ones(2, 3, 4), torch.ones(2, 4, 4)], 2)", "torch.cat([torch.ones(0, 3), torch.ones(2, 3)])",
    "torch.cat([torch.ones(0), torch.ones(0)])", "torch.cat([torch.ones(0, dtype=torch.int64), torch.ones(2, 3)])",
    "torch.cat([torch.arange(6.).reshape(2, 3).t(), torch.arange(4.).reshape(2, 2).t()])",
    "torch.cat([torch.arange(6.).reshape(2, 3)[:, ::2], torch.ones(2, 1).expand(2, 4)], 1)",
    "torch.cat([a, torch.ones(2, 3)])", "torch.cat([torch.ones(2, 3), a])",
    "torch.cat([a, torch.ones(0)])", "torch.cat([torch.ones(2, 3)] * 2, dim=None)",
    "torch.concat([a, b])", "torch.cat((a, b), 0)", "torch.cat([a, b], 1.5)",
    "torch.concat(torch.ones(2))", "torch.cat([torch.ones(2), 'a'])", "torch.cat()",
    "torch.concat([torch.ones(2), torch.ones(2)], dim=None)",
    "torch.cat([a.rename('A', None), torch.ones(1, 3).rename(None, 'C')])",
]


@pytest.mark.parametrize("expr", CAT_CASES)
def test_cat_matches_torch(expr):
    both(expr, a=A, b=B)


@pytest.mark.parametrize("n1, t1", DTYPE_PAIRS)
@pytest.mark.parametrize("n2, t2", DTYPE_PAIRS)
def test_cat_promotes_every_dtype_pair(n1, t1, n2, t2):
    x = (torch.arange(6).reshape(2, 3) % 3).to(t1)
    y = (torch.arange(3).reshape(1, 3) % 2).to(t2)
    both("torch.cat([x, y])", x=x, y=y)
    both("torch.cat([x.t(), y.t()], 1)", x=x, y=y)


def test_cat_out():
    def run(lib, out_names, out_shape, out_dtype, in_names):
        x = lib.ones(2, 3, names=in_names)
        out = lib.empty(*out_shape, dtype=out_dtype, names=out_names)
        r = lib.cat([x, x], dim=0, out=out)
        assert r is out
        return out
    for args in [((None, None), (4, 3), "float32", None), (("A", "B"), (4, 3), "float32", None),
                 (("A", "C"), (4, 3), "float32", ("A", "B")), (None, (0,), "int32", None),
                 (None, (0,), "float64", ("A", "B")), (("A", "B"), (2, 2), "float32", None)]:
        names, shape, dtype, in_names = args
        try:
            expected = run(torch, names, shape, getattr(torch, dtype), in_names)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)) as info:
                run(nt, names, shape, getattr(nt, dtype), in_names)
            assert str(info.value) == str(e)
            continue
        assert_same(run(nt, names, shape, getattr(nt, dtype), in_names), expected)


def test_cat_large_parallel():
    x = torch.randn(700, 300)
    y = torch.randn(700, 100).double()
    both("torch.cat([x, y], 1)", x=x, y=y)
    both("torch.cat([x.t(), y.t().float()])", x=x, y=y)


STACK_CASES = [
    "torch.stack([torch.ones(2, 3), torch.zeros(2, 3)], 1)", "torch.stack([torch.ones(2, 3), torch.ones(2, 3)], 3)",
    "torch.stack([torch.ones(2, 3), torch.ones(3, 3)])", "torch.stack([])",
    "torch.stack([torch.tensor(1.), torch.tensor(2)])", "torch.stack([torch.arange(6.).reshape(2, 3), torch.ones(2, 3)], -1)",
    "torch.stack([torch.arange(6.).reshape(2, 3).t(), torch.ones(3, 2, dtype=torch.int32)])",
    "torch.stack((torch.ones(2), torch.zeros(2)), dim=0)", "torch.stack([torch.ones(2)], dim=None)",
    "torch.stack([torch.ones(2)], 1.5)", "torch.stack([torch.ones(2), 1])",
    "torch.stack([torch.ones(2)], 0, torch.ones(1))",
]


@pytest.mark.parametrize("expr", STACK_CASES)
def test_stack_matches_torch(expr):
    both(expr)


def test_stack_named_our_rule():
    a = nt.ones(2, 3, names=("N", "C"))
    b = nt.zeros(2, 3, names=(None, "C"))
    r = nt.stack([a, b])
    assert r.names == (None, "N", "C") and tuple(r.shape) == (2, 2, 3)
    assert nt.stack([a, b], 2).names == ("N", "C", None)
    assert nt.stack([a, b], "C").names == ("N", None, "C")  # before the named dim
    with pytest.raises(RuntimeError, match="Error when attempting to stack dims"):
        nt.stack([a, nt.ones(2, 3, names=("N", "D"))])


X = torch.arange(10.0).reshape(5, 2)
SPLIT_CASES = [
    "x.split(2)", "x.split([2, 3])", "x.split([2, 2])", "x.split([3, 3])", "x.split(0)", "x.split(-1)",
    "x.split(10)", "x.split(2, 2)", "torch.ones(0, 2).split(0)", "torch.ones(0, 2).split(2)",
    "torch.tensor(1.).split(1)", "torch.split(x, 2, dim=1)", "torch.split(x, [1, 4], 0)",
    "torch.split(x, [1, -1, 5], 0)", "x.split_with_sizes([1, 4])", "x.split((2, 3))", "x.split(1, -1)",
    "x.split([1, 1], -1)", "x.split([1, 3], -2)", "x.t().split(2, 1)", "xn.split(2)",
    "x.chunk(2)", "x.chunk(3)", "x.chunk(4)", "x.chunk(6)", "x.chunk(0)", "x.chunk(-1)",
    "torch.ones(0, 2).chunk(3)", "torch.tensor(1.).chunk(1)", "torch.chunk(x, 2, dim=1)",
    "torch.ones(6).chunk(4)", "torch.ones(5).chunk(4)", "torch.ones(13).chunk(6)", "xn.chunk(2)",
    "x.unbind()", "x.unbind(1)", "torch.unbind(x, 1)", "torch.tensor(1.).unbind()", "x.unbind(2)",
    "torch.ones(0, 2).unbind()", "xn.unbind()", "xn.unbind('C')", "xn.unbind(1)",
    # Tensor.split and torch.split are Python functions in PyTorch: their own binding, then
    # _VF.split or _VF.split_with_sizes (whose errors name them)
    "x.split(2.5)", "torch.split(x, 2.5)", "x.split()", "torch.split(x)", "torch.split()",
    "x.split(2, 1.5)", "x.split([2, 3], 1.5)", "x.split(2, dim=1.5)", "x.split(True)",
    "x.split(torch.tensor(2))", "x.split(torch.tensor([2, 3]))", "x.split(2, None)",
    "x.split(1, 2, 3)", "x.split(2, self=x)", "x.split(2, foo=1)", "x.split(2, split_size=2)", "torch.split(1, 2)",
    "torch.split(x, split_size_or_sections=2)", "torch.split(tensor=x, split_size_or_sections=[4, 1])",
    "x.split(split_size=2, dim=1)", "x.chunk(2, None)", "x.chunk(2.5)", "x.unbind(1.5)",
    "x.unbind(None)", "torch.split_with_sizes(x, [2, 3])", "x.split_with_sizes(2)",
    "x.reshape(10).split([1] * 10)", "torch.arange(100.).split([1] * 100)",
    "torch.arange(100.).split_with_sizes([1] * 99 + [2])",
]


@pytest.mark.parametrize("expr", SPLIT_CASES)
def test_split_chunk_unbind_match_torch(expr):
    both(expr, x=X, xn=X.refine_names("N", "C"))


def test_splits_are_views_and_by_name():
    x = nt.arange(10.0).reshape(5, 2).refine_names("N", "C")
    parts = x.split(2, "N")
    assert [tuple(p.shape) for p in parts] == [(2, 2), (2, 2), (1, 2)]
    assert all(p.names == ("N", "C") for p in parts)
    parts[1][0, 0] = -7.0
    assert x.tolist()[2][0] == -7.0
    assert [tuple(p.shape) for p in x.chunk(2, "C")] == [(5, 1), (5, 1)]
    assert [tuple(p.shape) for p in nt.split(x, [1, 4], "N")] == [(1, 2), (4, 2)]
    u = x.unbind("C")
    u[0][1] = 99.0
    assert x.tolist()[1][0] == 99.0
    with pytest.raises(RuntimeError, match="Name 'Q' not found"):
        x.split(1, "Q")


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
def test_split_every_dtype(nd, td):
    x = (torch.arange(12).reshape(3, 4) % 2).to(td)
    both("x.split(3, 1)", x=x)
    both("x.t().chunk(2)", x=x)
    both("x.unbind(1)", x=x)


RESIZE_CASES = [
    "a.clone().resize_(3, 2)", "a.clone().resize_(2, 3)", "a.clone().resize_(6)",
    "a.clone().resize_as_(torch.ones(3, 2))", "a.clone().resize_as_(torch.ones(2, 3))", "a.t().resize_(2, 3)",
    "u.clone().resize_(2, 2)", "u.clone().resize_(0)", "u.clone().resize_(-1)", "u.clone().resize_(())",
    "u.clone().resize_([2, 1])", "u.t().clone().resize_(2, 3)", "u.clone().t().resize_(3, 2)",
    "u.clone().t().resize_(6)", "u.clone().resize_as_(torch.ones(2, 2).refine_names('A', 'B'))",
    "u.clone().resize_(2**62, 4)", "u.clone().resize_(2, 2.0)", "u.clone().resize_('a')",
    "u.clone().resize_as_(3)", "u.clone().expand(2, 3, 2).resize_(2)", "u.clone()[1:].resize_(2)",
    "u.clone().resize_(1, 2, 1, 3)", "u.clone().resize_(size=(3, 2))",
    "torch.resize_as_(u.clone(), torch.ones(2))", "torch.resize_as_(u.clone(), 1)",
    "u.clone().resize_()", "u.clone().resize_(3, memory_format=None)",
    "u.clone().resize_as_(u, memory_format=None)",
]


@pytest.mark.parametrize("expr", RESIZE_CASES)
def test_resize_matches_torch(expr):
    u = torch.arange(6.0).reshape(3, 2)
    both(expr, a=u.refine_names("N", "C"), u=u)


def test_resize_grows_storage_and_keeps_prefix():
    for lib in (nt, torch):
        v = lib.arange(6.0).reshape(3, 2)
        w = v[1:]
        w.resize_(4)
        assert w.tolist() == [2.0, 3.0, 4.0, 5.0] and v.tolist()[0] == [0.0, 1.0]
    x = nt.arange(6.0)
    y = x.view(6)
    x.resize_(4, 5)  # grows: the first six values stay, and views see the new storage
    assert x.flatten().tolist()[:6] == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
    x[0, 0] = 42.0
    assert y[0].item() == 42.0
    assert tuple(x.stride()) == (5, 1)
