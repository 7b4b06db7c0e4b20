"""Tensor subclasses from Python against PyTorch 1.13: construction, isinstance, attributes,
as_subclass, which results keep the subclass (PyTorch's default __torch_function__), the
opt-out of nn.Parameter (_disabled_torch_function_impl), a __torch_function__ override, and
no leaks of subclass instances with a __dict__ in reference cycles."""
import gc
import resource

import pytest
import torch

import ntensor as nt


class NtP(nt.Tensor):
    pass


class TorchP(torch.Tensor):
    pass


def sub_of(lib):
    return NtP if lib is nt else TorchP


# each returns what an expression gives on a subclass instance `p` of [[1, 2], [3, 4]]
RESULTS = {
    "add operator": lambda lib, p: p + 1,
    "reflected operator": lambda lib, p: 2 * p,
    "comparison": lambda lib, p: p > 1,
    "matmul operator": lambda lib, p: p @ p,
    "neg": lambda lib, p: -p,
    "method": lambda lib, p: p.exp(),
    "function": lambda lib, p: lib.add(p, p),
    "function with a plain tensor first": lambda lib, p: lib.add(lib.ones(2), p),
    "reduction": lambda lib, p: p.sum(),
    "indexing": lambda lib, p: p[0],
    "view": lambda lib, p: p.view(4),
    "T": lambda lib, p: p.T,
    "detach": lambda lib, p: p.detach(),
    "clone": lambda lib, p: p.clone(),
    "cat": lambda lib, p: lib.cat([lib.ones(1, 2), p]),
    "max(dim).values": lambda lib, p: p.max(0).values,
    "max(dim).indices": lambda lib, p: p.max(0).indices,
    "split item": lambda lib, p: p.split(1)[0],
    "unbind item": lambda lib, p: p.unbind(0)[1],
    "in place": lambda lib, p: p.add_(1),
}


@pytest.mark.parametrize("case", RESULTS)
def test_results_keep_the_subclass_as_torch(case):
    x = RESULTS[case](nt, NtP([[1.0, 2.0], [3.0, 4.0]]))
    t = RESULTS[case](torch, TorchP([[1.0, 2.0], [3.0, 4.0]]))
    assert type(t) is TorchP
    assert type(x) is NtP
    assert x.tolist() == t.tolist()


def test_containers_and_non_tensors_as_torch():
    for lib in (nt, torch):
        p = sub_of(lib)([1.0, 2.0])
        assert type(p.max(0)).__name__ == "max"  # the struct sequence stays one
        assert type(p.split(1)) is tuple and type(p.tolist()) is list
        assert type(p.shape).__name__ == "Size" and type(p.dim()) is int
        assert isinstance(p, lib.Tensor) and issubclass(sub_of(lib), lib.Tensor)


def test_construction_and_attributes():
    p = NtP([1.0, 2.0])
    p.tag = "w"
    assert p.tag == "w" and p.__dict__ == {"tag": "w"}
    q = p + 1
    assert not hasattr(q, "tag")  # results are new objects (PyTorch: the same)
    assert NtP(2, 3).shape == (2, 3)


def test_as_subclass_shares_memory_and_history():
    for lib in (nt, torch):
        x = lib.ones(2, requires_grad=True)
        p = x.as_subclass(sub_of(lib))
        assert type(p) is sub_of(lib) and p.data_ptr() == x.data_ptr() and p.requires_grad
        (p * 2).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]
    x = nt.zeros(2, names=("N",))
    assert x.as_subclass(NtP).names == ("N",)
    with pytest.raises(TypeError):
        x.as_subclass(int)


def test_parameter_results_are_plain_tensors():
    for lib in (nt, torch):
        w = lib.nn.Parameter(lib.ones(2))
        assert type(w + 1) is lib.Tensor and type(w.sum()) is lib.Tensor
        assert type(lib.add(w, 1)) is lib.Tensor
        assert lib.nn.Parameter.__torch_function__ is lib._C._disabled_torch_function_impl


def test_disabled_impl_opts_a_class_out():
    class Plain(nt.Tensor):
        __torch_function__ = nt._C._disabled_torch_function_impl

    assert type(Plain([1.0]) + 1) is nt.Tensor and type(Plain([1.0]).exp()) is nt.Tensor


def make_logging(lib):
    class Logged(lib.Tensor):
        calls = []

        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            cls.calls.append(func.__name__)
            return super().__torch_function__(func, types, args, kwargs or {})

    return Logged


def test_torch_function_override_sees_functions_and_methods():
    for lib in (nt, torch):
        Logged = make_logging(lib)
        p = Logged([1.0, 2.0])
        r = lib.add(p, 1, alpha=2)
        s = p.sum(dim=0)
        assert type(r) is Logged and type(s) is Logged
        assert r.tolist() == [3.0, 4.0] and s.item() == 3.0
        assert "add" in Logged.calls and "sum" in Logged.calls


def test_override_can_change_the_result():
    class Const(nt.Tensor):
        @classmethod
        def __torch_function__(cls, func, types, args=(), kwargs=None):
            return "intercepted"

    assert nt.exp(Const([1.0])) == "intercepted"
    assert Const([1.0]).exp() == "intercepted"


def test_default_returns_notimplemented_for_unrelated_types():
    class Other(nt.Tensor):
        pass

    assert NtP.__torch_function__(nt.exp, (Other,), ()) is NotImplemented
    other = type("Other", (torch.Tensor,), {})
    assert TorchP.__torch_function__(torch.exp, (other,), ()) is NotImplemented


def test_no_leak_of_subclass_instances():
    def churn():
        for _ in range(3000):
            a = NtP(nt.zeros(64))
            a.me = a  # a reference cycle through the instance's __dict__
            b = (a + 1).sum()
            c = a.as_subclass(NtP)
            d = nt.cat([a, c]).max(0)
            del a, b, c, d
        gc.collect()

    churn()
    objects = len(gc.get_objects())
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    for _ in range(3):
        churn()
    assert len(gc.get_objects()) <= objects + 50
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss <= rss + 8 * 1024
