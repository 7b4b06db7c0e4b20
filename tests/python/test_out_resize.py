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
