"""Autograd's memory and threads: a training-like loop does not grow the process, graphs die with
their outputs (no cycles between nodes and tensors), hooks' Python errors propagate, and two
threads run backward at once on their own graphs with their own grad mode."""
import gc
import os
import threading
import weakref

import pytest
import torch

import ntensor as nt


# The process's size says nothing under AddressSanitizer (the python-asan stage), whose
# quarantine keeps freed blocks resident; there, LeakSanitizer's view is the C tests'.
measures_rss = pytest.mark.skipif("ASAN_OPTIONS" in os.environ,
                                  reason="resident size is not a leak measure under ASan")


def resident_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


@measures_rss
def test_loop_does_not_grow():
    x = nt.randn(8, 8, requires_grad=True)
    w = nt.randn(8, 8, requires_grad=True)

    def step():
        y = (x.matmul(w).tanh() * 2).exp().sum()
        y.backward()
        x.grad = None
        w.grad = None
    for _ in range(200):  # warm the allocators
        step()
    before = resident_bytes()
    for _ in range(1000):
        step()
    # a leak of one small node or tensor per step would be > 1000 * 100 bytes
    assert resident_bytes() - before < 1 << 20


@measures_rss
def test_retained_graph_loop_does_not_grow():
    x = nt.randn(16, requires_grad=True)
    for _ in range(100):
        nt.autograd.grad((x * x).exp().sum(), x, create_graph=True)[0].sum().backward()
    before = resident_bytes()
    for _ in range(1000):
        (g,) = nt.autograd.grad((x * x).exp().sum(), x, create_graph=True)
        g.sum().backward()
    assert resident_bytes() - before < 1 << 20


def test_graph_dies_with_outputs():
    def make():
        a = nt.ones(2, requires_grad=True)
        y = (a * 2).exp()
        fn = y.grad_fn
        nxt = fn.next_functions[0][0]
        return weakref.ref(a), weakref.ref(y), fn, nxt
    wa, wy, fn, nxt = make()
    gc.collect()
    assert wy() is None
    assert wa() is None  # the Python object; the C leaf lives on in the graph kept by fn
    assert fn.name() == "ExpBackward0" and nxt.name() == "MulBackward0"
    del fn, nxt


def test_tensor_and_grad_fn_die_after_backward():
    def make():
        a = nt.ones(2, requires_grad=True)
        y = (a * a).sum()
        y.backward()
        return weakref.ref(a), weakref.ref(y), a.grad
    wa, wy, g = make()
    gc.collect()
    assert wa() is None and wy() is None
    assert g.tolist() == [2.0, 2.0]


def test_hook_closure_on_leaf_does_not_keep_others():
    def make():
        a = nt.ones(2, requires_grad=True)
        b = nt.ones(2)
        a.register_hook(lambda g: g * b)
        return weakref.ref(b)
    wb = make()
    gc.collect()
    assert wb() is None


@pytest.mark.parametrize("leaf", [True, False])
def test_hook_exception_propagates(leaf):
    class Boom(Exception):
        pass

    def hook(g):
        raise Boom("from the hook")
    x = nt.ones(2, requires_grad=True)
    t = x if leaf else x * 2
    handle = t.register_hook(hook)
    with pytest.raises(Boom, match="from the hook"):
        (t * 3).sum().backward()
    assert x.grad is None
    handle.remove()  # then the same graph runs
    y = (x * 3).sum()
    y.backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_hook_exception_in_autograd_grad():
    x = nt.ones(2, requires_grad=True)
    y = x * 2

    def hook(g):
        raise KeyError("k")
    y.register_hook(hook)
    with pytest.raises(KeyError):
        nt.autograd.grad(y.sum(), x)


def test_two_threads_backward_at_once():
    results, errors = {}, []
    barrier = threading.Barrier(2)

    def worker(i):
        try:
            results[i, "mode"] = nt.is_grad_enabled()  # a thread starts with grad enabled
            x = nt.full((64,), float(i + 1), dtype=nt.float64, requires_grad=True)
            barrier.wait()
            for _ in range(200):
                x.grad = None
                (x * x * x).exp().sum().backward()
            results[i] = x.grad.tolist()
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    with nt.no_grad():  # this thread's mode does not reach the workers
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert not errors
    for i in range(2):
        tx = torch.full((64,), float(i + 1), dtype=torch.float64, requires_grad=True)
        (tx * tx * tx).exp().sum().backward()
        assert results[i, "mode"] is True
        assert results[i] == pytest.approx(tx.grad.tolist(), rel=1e-12)


def test_grad_mode_is_per_thread():
    seen = []
    with nt.no_grad():
        t = threading.Thread(target=lambda: seen.append(nt.is_grad_enabled()))
        t.start()
        t.join()
        assert not nt.is_grad_enabled()
    assert seen == [True]


@measures_rss
def test_create_graph_backward_warns_and_grad_none_breaks_the_cycle():
    with pytest.warns(UserWarning, match="create a reference cycle between the parameter and its"):
        x = nt.ones(2, requires_grad=True)
        (x * x * x).sum().backward(create_graph=True)

    def step():
        x = nt.randn(1000, requires_grad=True)
        (x * x * x).sum().backward(create_graph=True)
        x.grad = None
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(50):
            step()
        before = resident_bytes()
        for _ in range(500):
            step()
    assert resident_bytes() - before < 1 << 20  # 8 KB per step would leak 4 MB
