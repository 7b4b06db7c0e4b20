"""Determinism and threads: every op family gives the same bits with 1 and 2 threads (work is
split into fixed blocks, never by thread count), seeded random streams do not depend on the
thread count, and concurrent calls from Python threads (the GIL is released around compute)
give the results of serial calls."""
import threading

import numpy as np
import pytest

import ntensor as nt

# Large enough that every op below splits its work across threads.
N, C = 512, 1024


def inputs():
    nt.manual_seed(7)
    x = nt.randn(N, C, names=("N", "C"))
    y = nt.randn(N, C, names=("N", "C"))
    w = nt.randn(C, 256)
    return x, y, w


OPS = {
    "add": lambda x, y, w: x + y,
    "mul_broadcast": lambda x, y, w: x * y[0],
    "exp": lambda x, y, w: x.exp(),
    "tanh": lambda x, y, w: x.tanh(),
    "sum_all": lambda x, y, w: x.sum(),
    "sum_C": lambda x, y, w: x.sum("C"),
    "sum_N": lambda x, y, w: x.sum("N"),
    "mean": lambda x, y, w: x.mean("C"),
    "var": lambda x, y, w: x.var("N"),
    "logsumexp": lambda x, y, w: x.logsumexp("C"),
    "amax": lambda x, y, w: x.amax("C"),
    "argmax": lambda x, y, w: x.rename(None).argmax(1),
    "softmax": lambda x, y, w: x.softmax("C"),
    "log_softmax_N": lambda x, y, w: x.log_softmax("N"),
    "cumsum": lambda x, y, w: x.cumsum("C"),
    "transpose_copy": lambda x, y, w: x.transpose("N", "C").contiguous(),
    "masked_fill": lambda x, y, w: x.masked_fill(y > 0, 0.5),
    "where": lambda x, y, w: nt.where(x > y, x, y),
    "mm": lambda x, y, w: x.rename(None) @ w,
    "mm_bfloat16": lambda x, y, w: x.rename(None).bfloat16() @ w.bfloat16(),
    "bmm": lambda x, y, w: nt.bmm(x.rename(None).reshape(8, 64, C), w.expand(8, C, 256)),
    "half_convert": lambda x, y, w: x.half(),
    "int_sum": lambda x, y, w: (x * 100).long().sum("C"),
}


def as_bytes(t):
    t = t.rename(None)
    if t.dtype == nt.bfloat16:  # NumPy has no bfloat16; widening is exact
        t = t.float()
    return t.contiguous().numpy().tobytes()


@pytest.fixture
def restore_threads():
    before = nt.get_num_threads()
    yield
    nt.set_num_threads(before)


@pytest.mark.parametrize("name", sorted(OPS))
def test_one_and_two_threads_give_the_same_bits(name, restore_threads):
    x, y, w = inputs()
    results = []
    for threads in (1, 2):
        nt.set_num_threads(threads)
        results.append(as_bytes(OPS[name](x, y, w)))
    assert results[0] == results[1]


@pytest.mark.parametrize("fill", ["rand", "randn", "dropout", "bernoulli_", "normal_"])
def test_random_streams_do_not_depend_on_threads(fill, restore_threads):
    draws = []
    for threads in (1, 2):
        nt.set_num_threads(threads)
        nt.manual_seed(123)
        if fill == "rand":
            t = nt.rand(300, 1000)
        elif fill == "randn":
            t = nt.randn(300, 1000)
        elif fill == "dropout":
            t = nt.nn.functional.dropout(nt.ones(300, 1000), 0.3)
        else:
            t = getattr(nt.empty(300, 1000), fill)(0.25) if fill == "bernoulli_" else \
                nt.empty(300, 1000).normal_(1.0, 2.0)
        draws.append(as_bytes(t))
    assert draws[0] == draws[1]


def test_concurrent_python_threads_match_serial():
    """Eight Python threads run every op at once on shared (read-only) inputs and on their
    own tensors; each result equals the serial one."""
    x, y, w = inputs()
    serial = {name: as_bytes(fn(x, y, w)) for name, fn in OPS.items()}
    errors = []

    def worker(seed):
        try:
            own = nt.full((64, 64), float(seed))
            for _ in range(3):
                for name, fn in OPS.items():
                    if as_bytes(fn(x, y, w)) != serial[name]:
                        errors.append((seed, name))
                own = own + 1
            if not np.all(own.numpy() == seed + 3):
                errors.append((seed, "own"))
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append((seed, repr(e)))

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
