"""The rows of the operator coverage table with no name rule, against PyTorch 1.13: data_ptr,
device, get_device, is_cuda, is_floating_point, is_signed, is_leaf, is_pinned, is_shared,
is_sparse, torch.is_tensor, element_size, numel, torch.numel, ndimension, dim, ndim, type,
copy_ (with its out=/in-place name rule), zero_, fill_, item, size, stride, grad,
requires_grad, requires_grad_ and register_hook (before autograd exists: see
docs/decisions_ops_random.md), on named, unnamed and non-contiguous tensors."""
import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, assert_same, assert_same_error


def make(lib):
    return dict(
        torch=lib,
        x=lib.arange(6, dtype=lib.float32).reshape(2, 3).refine_names("N", "C"),
        u=lib.arange(6, dtype=lib.float32).reshape(2, 3),
        t=lib.arange(6, dtype=lib.float32).reshape(3, 2).t(),
        s=lib.arange(12, dtype=lib.float32).reshape(3, 4)[:, 1:3] if lib is torch
        else lib.arange(12, dtype=lib.float32).reshape(3, 4).narrow(1, 1, 2),
        e=lib.arange(3, dtype=lib.float32).expand(2, 3),
        i=lib.tensor([1, 2], dtype=lib.int64),
        b=lib.tensor([True, False]),
        z=lambda *names, shape=(2, 3): lib.zeros(*shape, names=names or None),
        T=lib.tensor,
    )


def check(expr):
    """Both libraries give the same result (tensor, tuple, str, number) or the same error."""
    try:
        expected = eval(expr, make(torch))
    except Exception:  # noqa: BLE001 - then ntensor must fail the same way
        assert_same_error(lambda: eval(expr, make(nt)), lambda: eval(expr, make(torch)))
        return
    got = eval(expr, make(nt))
    if isinstance(expected, torch.Tensor):
        assert_same(got, expected)
        assert got.stride() == expected.stride(), (got.stride(), expected.stride())
    elif isinstance(expected, torch.dtype):
        assert str(got) == str(expected)
    elif isinstance(expected, torch.device):
        assert str(got) == str(expected) and repr(got) == repr(expected)
    elif isinstance(expected, torch.Size):
        assert isinstance(got, nt.Size) and tuple(got) == tuple(expected)
    else:
        assert got == expected, (got, expected)
        assert type(got) is type(expected), (type(got), type(expected))


QUERY_CASES = [
    "x.get_device()", "torch.get_device(x)", "torch.get_device(input=x)", "torch.get_device(1)",
    "x.is_cuda", "x.is_sparse", "x.is_leaf", "x.grad", "x.requires_grad", "str(x.device)",
    "x.device.type", "x.is_pinned()", "x.is_shared()", "t.is_pinned()",
    "x.element_size()", "i.element_size()", "b.element_size()", "torch.zeros(1, dtype=torch.float16).element_size()",
    "x.ndimension()", "x.dim()", "x.ndim", "torch.zeros(()).dim()", "t.ndim",
    "x.numel()", "torch.numel(x)", "torch.numel(input=x)", "torch.numel(1)", "torch.numel(x, 1)", "s.numel()",
    "torch.zeros(0, 3).numel()", "torch.numel()",
    "torch.is_tensor(x)", "torch.is_tensor(1)", "torch.is_tensor([1])",
    "x.is_floating_point()", "i.is_floating_point()", "torch.is_floating_point(x)",
    "torch.is_floating_point(input=i)", "torch.is_floating_point(1.0)", "torch.is_floating_point()",
    "x.is_signed()", "torch.is_signed(x)", "torch.is_signed(T([1], dtype=torch.uint8))",
    "torch.is_signed(b)", "torch.is_signed(1)",
    "x.type()", "i.type()", "b.type()", "torch.zeros(1, dtype=torch.bfloat16).type()", "x.type(torch.float64)",
    "x.type('torch.IntTensor')", "x.type(torch.float32) is x", "t.type(torch.int64)",
    "x.item()", "T(2.5).item()", "T(7).item()", "T(True).item()", "T([[3]]).item()", "torch.zeros(1, names=('A',)).item()",
    "x.size()", "x.size('C')", "x.size(-1)", "x.size(2)", "x.size('Q')", "x.stride()", "x.stride('N')",
    "x.stride(5)", "t.stride()", "s.stride()", "e.stride()", "s.size(1)", "torch.zeros(()).size()",
    "torch.zeros(()).size(1)", "torch.zeros(()).size(-1)", "torch.zeros(()).stride(0)",
    "torch.zeros(()).size('A')", "x.size(1, 2)", "x.stride(foo=1)",
    "x.data_ptr() == x.data_ptr()", "x.data_ptr() != 0",
]


@pytest.mark.parametrize("expr", QUERY_CASES)
def test_queries_like_torch(expr):
    check(expr)


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
def test_dtype_queries_per_dtype(nd, td):
    x, y = nt.zeros(2, dtype=nd), torch.zeros(2, dtype=td)
    assert x.is_floating_point() == y.is_floating_point() == nt.is_floating_point(x)
    assert x.is_signed() == y.is_signed() == nt.is_signed(x)
    assert x.element_size() == y.element_size()
    assert x.type() == y.type()


def test_data_ptr_follows_views():
    x = nt.arange(12, dtype=nt.float32).reshape(3, 4)
    assert x.narrow(1, 1, 2).data_ptr() == x.data_ptr() + 4
    assert x.t().data_ptr() == x.data_ptr()
    assert x.clone().data_ptr() != x.data_ptr()
    assert x.rename("A", "B").data_ptr() == x.data_ptr()


COPY_CASES = [
    "z().copy_(z('N', 'C')).names", "z('N', 'C').copy_(z()).names",
    "z('N', None).copy_(z(None, 'C'))", "z('N', 'C').copy_(z('N', None)).names",
    "z(None, 'C').copy_(z('N', 'C'))", "z('N', 'C').copy_(z('C', 'N', shape=(3, 2)))",
    "z('N', 'C').copy_(z('A', 'C'))", "z('N', 'C').copy_(z('C', shape=(3,))).names",
    "z().copy_(z('C', shape=(3,))).names", "z('N', None).copy_(z('C', shape=(3,)))",
    "z('N', 'C').copy_(z('N', shape=(2,)))", "z('N', 'C').copy_(z(shape=(3,))).names",
    "z('N', 'C').copy_(z(shape=(2,)))", "z().copy_(z(shape=(2, 3, 4)))",
    "z('N', 'C').copy_(z('N', 'C'), True).names", "z('N', 'C').copy_(z('N', 'C'), non_blocking=True).names",
    "z().copy_(5)", "z().copy_(1.5)", "z().copy_(True)", "z().copy_()", "z().copy_(z(), 1, 2)",
    "z().copy_('a')", "z().copy_(None)", "z().copy_(z(), non_blocking=1)",
    "z().copy_(torch.arange(6.).reshape(3, 2).t())", "z('N', 'C').copy_(z('N', 'C').t())",
    "z(shape=(3,)).copy_(z('C', shape=(3,)).expand(2, 3))",
    "torch.zeros(3).expand(2, 3).copy_(torch.ones(2, 3))", "z().copy_(T(5.))", "z('N', 'C').copy_(T(5.))",
    "z().copy_(T([1, 2, 3]))", "z().copy_(z('C', 'N'))", "z('A', 'B').copy_(z('A', 'B', shape=(1, 3)))",
    "z(None, None).copy_(z('A', 'B', shape=(1, 3)))", "z('N', None).copy_(z(None, 'N'))",
    "t.copy_(u)", "s.copy_(torch.ones(3, 2))", "T([1, 2], dtype=torch.uint8).copy_(T([300., -1.]))",
    "T([1, 2], dtype=torch.uint8).copy_(300)", "T([1., 2.]).copy_(T([True, False]))",
    "x.copy_(x)",
]


@pytest.mark.parametrize("expr", COPY_CASES)
def test_copy_like_torch(expr):
    check(expr)


def test_copy_keeps_source_values_and_bumps_nothing_else():
    src = nt.arange(6, dtype=nt.float64).reshape(2, 3).refine_names("N", "C")
    dst = nt.zeros(2, 3, dtype=nt.float32)
    assert dst.copy_(src) is dst
    assert dst.names == ("N", "C") and dst.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert src.names == ("N", "C")


FILL_CASES = [
    "x.zero_()", "t.zero_()", "s.zero_()", "e.zero_()", "x.fill_(2)", "x.fill_(T(3.))", "x.fill_(T([3.]))",
    "x.fill_(T([3., 4.]))", "x.fill_(T(3.).rename())", "x.fill_(value=1.5)", "x.fill_('a')",
    "x.fill_(None)", "x.fill_()", "T([1, 2]).fill_(2.7)", "T([1, 2], dtype=torch.uint8).fill_(-1)",
    "T([1, 2], dtype=torch.uint8).fill_(300)", "T([1, 2], dtype=torch.int8).fill_(300)",
    "T([1., 2], dtype=torch.float16).fill_(1e6)", "T([True]).fill_(5)", "e.fill_(4)",
    "T([1, 2]).fill_(T(2.7))", "T([1., 2]).fill_(T(2.7, dtype=torch.float64))",
    "T([1, 2]).fill_(T([[2.7]]))", "T([1, 2]).fill_(T([]))", "T([1, 2]).fill_(T(True))",
    "torch.ones(2).fill_(float('nan'))", "T([1, 2]).fill_(float('nan'))", "T([1, 2]).fill_(float('inf'))",
    "T([1, 2]).fill_(2**70)", "torch.ones(2).fill_(2, 3)", "t.fill_(7)", "s.fill_(-1)", "x.zero_(1)",
]


@pytest.mark.parametrize("expr", FILL_CASES)
def test_fill_zero_like_torch(expr):
    if expr == "x.zero_(1)":  # CPython's own text names the class
        with pytest.raises(TypeError, match="takes no arguments"):
            eval(expr, make(nt))
        return
    check(expr)


@pytest.mark.parametrize("nd, td", DTYPE_PAIRS)
@pytest.mark.parametrize("value", [0, 1, -1, 2.5, True])
def test_fill_every_dtype(nd, td, value):
    for shape_of in (lambda lib: lib.zeros(2, 3, dtype=nd if lib is nt else td),
                     lambda lib: lib.zeros(3, 2, dtype=nd if lib is nt else td).t()):
        try:
            expected = shape_of(torch).fill_(value)
        except Exception:  # noqa: BLE001
            assert_same_error(lambda: shape_of(nt).fill_(value), lambda: shape_of(torch).fill_(value))
            continue
        assert_same(shape_of(nt).fill_(value), expected)


def test_fill_and_zero_keep_names_and_strided_gaps():
    base = nt.full((3, 4), 9.0)
    v = base.narrow(1, 1, 2)
    v.fill_(1)
    assert base.tolist() == [[9, 1, 1, 9]] * 3
    v.zero_()
    assert base.tolist() == [[9, 0, 0, 9]] * 3
    x = nt.ones(2, names=("A",))
    assert x.fill_(3).names == ("A",) and x.zero_().names == ("A",)


AUTOGRAD_CASES = [
    "u.requires_grad_(False) is u", "x.requires_grad_(requires_grad=False).names",
    "x.requires_grad_(1)", "x.requires_grad_('a')", "T([1, 2]).requires_grad_()",
    "x.requires_grad_(True, 2)", "torch.ones(2).register_hook(lambda g: g)",
    "torch.ones(2).register_hook(1, 2)", "torch.ones(2).register_hook()",
    "torch.ones(2).register_hook(hook=1, self=2)",
    "setattr(u, 'requires_grad', False)", "setattr(u, 'requires_grad', 1)",
    "setattr(torch.ones(2, dtype=torch.int64), 'requires_grad', True)",
    "setattr(u, 'grad', None)", "setattr(u, 'grad', torch.ones(2))", "setattr(u, 'grad', 5)",
    "setattr(u, 'grad', torch.ones(2, 3, dtype=torch.float64))",
]


@pytest.mark.parametrize("expr", AUTOGRAD_CASES)
def test_autograd_rows_like_torch(expr):
    check(expr)


def test_autograd_attributes_turn_on():
    u = nt.ones(2, 3)
    assert u.requires_grad_() is u and u.requires_grad is True and u.is_leaf is True
    u.requires_grad = False
    assert u.requires_grad is False
    u.grad = nt.ones(2, 3)
    assert u.grad.tolist() == [[1.0] * 3] * 2
    u.grad = None
    assert u.grad is None
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'hook'"):
        u.register_hook()
