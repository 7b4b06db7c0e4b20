"""out= tensors of another shape than the result's, as PyTorch 1.13 treats them: an unnamed
one is resized (a UserWarning when it had elements, none when it was empty), a named one is
refused with the named-tensor resize error. Each op family adds its cases to OPS."""
import warnings

import pytest
import torch

import ntensor as nt
from helpers import assert_same_error

# name: (make the inputs from a module, call with out=)
OPS = {
    "exp": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.exp(x, out=out)),
    "abs": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.abs(x, out=out)),
    "mm": (lambda m: (m.ones(2, 3), m.ones(3, 4)), lambda m, a, b, out: m.mm(a, b, out=out)),
    "addmv": (lambda m: (m.ones(2), m.ones(2, 3), m.ones(3)),
              lambda m, s, a, v, out: m.addmv(s, a, v, out=out)),
    "dot": (lambda m: (m.ones(3), m.ones(3)), lambda m, a, b, out: m.dot(a, b, out=out)),
    "cat": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.cat([x, x], 1, out=out)),
    "concat": (lambda m: (m.ones(1, 3),), lambda m, x, out: m.concat([x, x], out=out)),
    "sum": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.sum(x, 1, out=out)),
    "mean": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.mean(x, 0, keepdim=True, out=out)),
    "std": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.std(x, 1, out=out)),
    "prod": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.prod(x, 1, out=out)),
    "logsumexp": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.logsumexp(x, 1, out=out)),
    "cumsum": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.cumsum(x, 1, out=out)),
    "logcumsumexp": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.logcumsumexp(x, 1, out=out)),
    "add": (lambda m: (m.ones(2, 3), m.ones(3)), lambda m, x, y, out: m.add(x, y, out=out)),
    "eq": (lambda m: (m.ones(2, 3), m.ones(3)), lambda m, x, y, out: m.eq(x, y, out=out)),
    "clamp": (lambda m: (m.ones(2, 3),), lambda m, x, out: m.clamp(x, 0, 0.5, out=out)),
    "clamp_t": (lambda m: (m.ones(2, 3), m.zeros(3)), lambda m, x, lo, out: m.clamp(x, lo, out=out)),
    # factories, random: bernoulli's out= takes input's shape by resize_as_ (no warning)
    "bernoulli": (lambda m: (m.zeros(2, 3),), lambda m, x, out: m.bernoulli(x, out=out)),
}


def _run(m, op, out):
    make, call = OPS[op]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        r = call(m, *make(m), out)
    texts = [str(w.message).split(" (Triggered internally")[0] for w in caught
             if "resized" in str(w.message)]
    return r, texts


@pytest.mark.parametrize("op", sorted(OPS))
@pytest.mark.parametrize("shape", [(3,), (0,), (2, 3), (4, 5, 6)], ids=str)
def test_unnamed_out_is_resized(op, shape):
    out_t = torch.zeros(*shape)
    r_t, w_t = _run(torch, op, out_t)
    out_n = nt.zeros(*shape)
    r_n, w_n = _run(nt, op, out_n)
    assert r_n is out_n
    assert tuple(out_n.shape) == tuple(out_t.shape)
    assert out_n.stride() == out_t.stride()
    assert w_n == w_t


@pytest.mark.parametrize("op", sorted(OPS))
def test_named_out_of_another_shape_is_refused(op):
    make, call = OPS[op]
    assert_same_error(lambda: call(nt, *make(nt), nt.zeros(3, names=("X",))),
                      lambda: call(torch, *make(torch), torch.zeros(3, names=("X",))))


@pytest.mark.parametrize("op", ["sum", "amax", "cumsum", "mean"])
def test_out_that_is_the_input(op):
    """An out= tensor that is also the input is resized by the op; the op reads the input
    as it was (values as PyTorch's for the ops where PyTorch reads it first)."""
    x = nt.arange(6.0).reshape(3, 2)
    want = getattr(nt, op)(x.clone(), 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = getattr(nt, op)(x, 0, out=x)
    assert r is x
    assert x.tolist() == want.tolist()
