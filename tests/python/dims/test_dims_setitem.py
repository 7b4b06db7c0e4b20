"""t[index] = value through an index with first-class dims (nt_tensor_bind_set_), against
functorch.dim 1.13 (run in a forked child) and, where functorch fails or is wrong, against the
per-element definition: for each element of the dims' union, PyTorch's positional setitem."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from ntensor import dim as ndim

from dims_helpers import theirs, values


def arange(T, *shape, dtype=None):
    n = int(np.prod(shape))
    return T.arange(float(n) if dtype is None else n).view(*shape)


def assign(x, index, value):
    x[index] = value  # the statement form: functorch patches the slot, not the method


def run(case, T, D):
    """case(T, D) -> the tensor written (its values), or the error raised."""
    try:
        return ("=", case(T, D).tolist())
    except Exception as e:  # noqa: BLE001
        return ("!", type(e).__name__, str(e))


def ours(case):
    return run(case, nt, ndim)


def oracle(case):
    return theirs(lambda fd: run(case, torch, fd))


def written(shape, index, value, base=None):
    """A case: zeros(shape)[index(i, j, k)] = value(T, i, j, k); the written tensor."""
    def case(T, D):
        i, j, k = D.dims(3)
        x = T.zeros(*shape) if base is None else base(T)
        assign(x, index(T, i, j, k), value(T, i, j, k))
        return x
    return case


CASES = {
    "scalar": written((3, 4), lambda T, i, j, k: i, lambda T, i, j, k: 1.5),
    "int scalar into long": written((2, 3), lambda T, i, j, k: i, lambda T, i, j, k: 7,
                                    base=lambda T: T.zeros(2, 3, dtype=T.long)),
    "float into long truncates": written((2, 3), lambda T, i, j, k: i, lambda T, i, j, k: 2.7,
                                         base=lambda T: T.zeros(2, 3, dtype=T.long)),
    "plain tensor broadcast": written((3, 4), lambda T, i, j, k: i,
                                      lambda T, i, j, k: arange(T, 4)),
    "size-one dim broadcast": written((2, 3, 4), lambda T, i, j, k: i,
                                      lambda T, i, j, k: T.ones(3, 1)),
    "transpose": written((3, 4), lambda T, i, j, k: (i, k),
                         lambda T, i, j, k: arange(T, 4, 3)[k, i]),
    "slice": written((3, 4), lambda T, i, j, k: (j, slice(1, 3)), lambda T, i, j, k: 5),
    "stepped slice": written((3, 6), lambda T, i, j, k: (j, slice(0, 6, 2)),
                             lambda T, i, j, k: arange(T, 3)),
    "value with the index's dim": written((3, 4), lambda T, i, j, k: i,
                                          lambda T, i, j, k: arange(T, 3)[i] * 10 + arange(T, 4)),
    "long value into float": written((2, 3), lambda T, i, j, k: i,
                                     lambda T, i, j, k: arange(T, 2, dtype=T.long)[i]),
    "0-dim tensor": written((2, 3), lambda T, i, j, k: j, lambda T, i, j, k: T.tensor(4.0)),
    "int and dim": written((2, 3), lambda T, i, j, k: (1, j), lambda T, i, j, k: 5),
    "None": written((2, 3), lambda T, i, j, k: (i, None), lambda T, i, j, k: T.ones(3)),
    "ellipsis": written((2, 3, 4), lambda T, i, j, k: (..., j), lambda T, i, j, k: arange(T, 3)),
    "pack": written((2, 6), lambda T, i, j, k: (i, (j, k)),
                    lambda T, i, j, k: arange(T, 2)[i] * 10 + arange(T, 2, 3)[j, k]),
    "diagonal": written((3, 3), lambda T, i, j, k: (i, i), lambda T, i, j, k: arange(T, 3)[i] + 1),
    "dim expression": written((5, 4), lambda T, i, j, k: (arange(T, 3, dtype=T.long)[i] + 1,),
                              lambda T, i, j, k: arange(T, 3)[i] * 10 + arange(T, 4)),
    "index tensor with dims": written(
        (5, 4), lambda T, i, j, k: (T.tensor([4, 0, 2])[i], j),
        lambda T, i, j, k: arange(T, 3, 4)[i, j]),
    "list beside a dim": written((5, 4), lambda T, i, j, k: (j, [0, 2]),
                                 lambda T, i, j, k: arange(T, 5, 2)[j]),
    "list first": written((5, 4), lambda T, i, j, k: ([0, 2], j),
                          lambda T, i, j, k: arange(T, 4, 2)[j]),
    "mask": written((5, 4), lambda T, i, j, k: (j, T.tensor([True, False, True, False])),
                    lambda T, i, j, k: arange(T, 2)),
    "mask first": written((5, 4), lambda T, i, j, k: (T.tensor([True, False, True, False, True]), j),
                          lambda T, i, j, k: arange(T, 3)),
    "True": written((5, 4), lambda T, i, j, k: (j, True), lambda T, i, j, k: 3),
    "False": written((5, 4), lambda T, i, j, k: (j, False), lambda T, i, j, k: 3),
    "0-dim bool tensor": written((5, 4), lambda T, i, j, k: (j, T.tensor(True)),
                                 lambda T, i, j, k: 3),
    "index tensor beside a slice": written(
        (2, 3, 4), lambda T, i, j, k: (slice(None), i, [0, 1, 3]), lambda T, i, j, k: arange(T, 3)),
    "a Dim as the value": written((3, 3), lambda T, i, j, k: (i, j), lambda T, i, j, k: j),
    "a delayed product": written((3, 3), lambda T, i, j, k: (i, j),
                                 lambda T, i, j, k: arange(T, 3)[i] * arange(T, 3)[j]),
}


def through_a_view(T, D):
    base = T.zeros(3, 4, 5)
    i, j = D.dims(2)
    x = base[i]
    assign(x, j, arange(T, 3)[i] * 10 + arange(T, 5))
    return base


def int_into_a_view(T, D):
    base = T.zeros(3, 4)
    i = D.dims(1)
    x = base[i]
    assign(x, 2, arange(T, 3)[i])
    return base


CASES["through a tensor with dims"] = through_a_view
CASES["plain index into a tensor with dims"] = int_into_a_view


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_as_functorch(name):
    mine, want = ours(CASES[name]), oracle(CASES[name])
    assert mine[0] == "=", mine
    assert want[0] == "=", want
    np.testing.assert_array_equal(np.asarray(mine[1]), np.asarray(want[1]))  # copies: exact


ERRORS = {
    "rhs dim not on the left": written(
        (2, 3, 4), lambda T, i, j, k: (i, slice(None), j), lambda T, i, j, k: T.ones(5)[k]),
    "rhs dim not on the left, one level": written(
        (3,), lambda T, i, j, k: i, lambda T, i, j, k: T.ones(5)[k]),
    "rhs dim, plain index": written((5,), lambda T, i, j, k: 0, lambda T, i, j, k: T.ones(3)[i]),
    "rhs too many dims": written((2, 3, 4), lambda T, i, j, k: i,
                                 lambda T, i, j, k: T.ones(5, 3, 4)),
    "rhs leading one too many": written((3, 4), lambda T, i, j, k: i,
                                        lambda T, i, j, k: T.ones(1, 4)),
    "size mismatch": written((2, 3, 4), lambda T, i, j, k: (i, j), lambda T, i, j, k: T.ones(5)),
    "size mismatch, middle": written((2, 3, 4), lambda T, i, j, k: i,
                                     lambda T, i, j, k: arange(T, 2, 5, 4)[i]),
    "rebinding": written((3, 4), lambda T, i, j, k: (i, i), lambda T, i, j, k: 7),
    "too many indices": written((2, 3), lambda T, i, j, k: (1, j, k), lambda T, i, j, k: 5),
    "index out of bounds": written((2, 3), lambda T, i, j, k: (T.tensor([0, 7])[i],),
                                   lambda T, i, j, k: 1),
    "index tensors that do not broadcast": written(
        (2, 3, 4), lambda T, i, j, k: (i, [0, 1], [0, 1, 2]), lambda T, i, j, k: 1.0),
}


def aliasing(T, D):
    x = T.zeros(3, 3)
    i, j = D.dims(2)
    assign(x, (i, j), x[j, i])
    return x


ERRORS["value aliasing x"] = aliasing


def leaf(T, D):
    w = T.ones(3, 4, requires_grad=True)
    i = D.dims(1)
    assign(w, i, 1.0)
    return w


ERRORS["a leaf that requires grad"] = leaf


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_functorch(name):
    mine, want = ours(ERRORS[name]), oracle(ERRORS[name])
    assert mine[0] == "!" and want[0] == "!", (mine, want)
    assert mine[1] == want[1]
    # dims are named d0, d1, d2 in functorch's child (dims(3) outside an assignment)
    text = want[2]
    for a, b in (("d0", "i"), ("d1", "j"), ("d2", "k")):
        text = text.replace(a, b)
    assert mine[2] == text


def test_size_mismatch_where_functorch_expands():
    """functorch words some size mismatches as expand's ("The expanded size of the tensor (4)
    must match the existing size (3) at non-singleton dimension 2.  Target sizes: [2, 3, 4].
    Tensor sizes: [3, 3]", its physical layout); ours is the broadcast text of the others."""
    case = written((2, 3, 4), lambda T, i, j, k: (slice(None), i), lambda T, i, j, k: T.ones(3))
    mine, want = ours(case), oracle(case)
    assert mine[:2] == want[:2] == ("!", "RuntimeError")
    assert mine[2] == ("The size of tensor a (4) must match the size of tensor b (3) at "
                       "non-singleton dimension 2")


def test_a_dim_expression_selects_where_functorch_broadcasts():
    """functorch counts a dim expression as an index tensor of its dims' shape (so [2] and [3]
    do not broadcast); per element it is a 0-dim index, selecting as an int does."""
    case = written((2, 3, 4), lambda T, i, j, k: (T.tensor([0, 1])[i], slice(None), [0, 1, 3]),
                   lambda T, i, j, k: arange(T, 3, 1))
    assert oracle(case)[:2] == ("!", "IndexError")
    want = torch.zeros(2, 3, 4)
    for e in range(2):
        want[[0, 1][e], :, [0, 1, 3]] = torch.arange(3.0).view(3, 1)
    got = ours(case)
    np.testing.assert_array_equal(np.asarray(got[1]), want.numpy())


def test_value_shape_mismatch_with_index_tensors():
    """functorch reports index_put_'s text with its own physical layout (which pads the value
    in some cases); ours lays the shapes out [U, positional]: the type and the words agree."""
    case = written((2, 3, 4), lambda T, i, j, k: (i, [0, 1], slice(None)),
                   lambda T, i, j, k: arange(T, 3))
    mine, want = ours(case), oracle(case)
    assert mine[:2] == want[:2] == ("!", "RuntimeError")
    assert mine[2].startswith("shape mismatch: value tensor of shape [2, 3] cannot be broadcast")
    case = written((2, 3, 4), lambda T, i, j, k: (slice(None), i, [0, 1, 3]),
                   lambda T, i, j, k: arange(T, 4))
    assert ours(case) == oracle(case)


def test_writes_into_the_storage():
    base = nt.zeros(4, 5)
    x = base[1:]  # a view: the write reaches base
    i, j = ndim.dims(2)
    i.size, j.size = 3, 5
    v0 = base._version
    x[i, j] = i * 10 + j
    want = np.zeros((4, 5))
    want[1:] = np.arange(3)[:, None] * 10 + np.arange(5)
    np.testing.assert_array_equal(values(base), want)
    assert base._version == v0 + 1


def test_repeated_positions_take_one_value():
    """An index tensor with a dim that x lacks writes some positions several times
    (index_put_'s rule: one of the values); equal values make it deterministic."""
    x = nt.zeros(3)
    i = ndim.dims(1)
    x[nt.tensor([0, 1, 0, 2])[i]] = 5.0
    np.testing.assert_array_equal(values(x), [5, 5, 5])


# ---------------------------------------------------------------- bool scalars when reading


@pytest.mark.parametrize("scalar", [True, False, "tensor True", "tensor False", "uint8 1"])
def test_bool_scalar_index_per_element(scalar):
    def make(T):
        if scalar in (True, False):
            return scalar
        if scalar == "uint8 1":
            return T.tensor(1, dtype=T.uint8)
        return T.tensor(scalar == "tensor True")
    a = np.arange(24.0).reshape(2, 3, 4)
    for index in (lambda i, s: (i, s), lambda i, s: (s, i), lambda i, s: (i, slice(None), s),
                  lambda i, s: (i, s, [0, 2])):
        i = ndim.dims(1)
        try:
            want = torch.stack([torch.tensor(a)[index(e, make(torch))] for e in range(2)])
        except IndexError as e:  # False beside [0, 2]: [] and [2] do not broadcast
            with pytest.raises(IndexError, match=str(e).replace("[", r"\[").replace("]", r"\]")):
                nt.tensor(a)[index(i, make(nt))]
            continue
        got = nt.tensor(a)[index(i, make(nt))].order(i)
        assert tuple(got.shape) == tuple(want.shape)
        np.testing.assert_array_equal(values(got).reshape(want.shape), want.numpy())


def test_bool_scalar_setitem_per_element():
    a = np.arange(12.0).reshape(3, 4)
    j = ndim.dims(1)
    x = nt.tensor(a)
    x[j, True] = nt.arange(4.0).view(1, 4)
    want = torch.tensor(a)
    for e in range(3):
        want[e][True] = torch.arange(4.0).view(1, 4)
    np.testing.assert_array_equal(values(x), want.numpy())


# ---------------------------------------------------------------- autograd


def test_gradients_as_functorch():
    def case(T, D):
        T.manual_seed(0)
        w = T.tensor(np.linspace(-1, 1, 12).reshape(3, 4), requires_grad=True)
        v = T.tensor(np.linspace(0.5, 2, 3), requires_grad=True)
        x = w * 2
        i, j = D.dims(2)
        assign(x, (i, 2), v[i] * 3)
        assign(x, (i, slice(0, 2)), v[i].exp())
        (x * x).sum().backward()
        return T.cat([w.grad.flatten(), v.grad])
    mine, want = ours(case), oracle(case)
    assert mine[0] == want[0] == "="
    np.testing.assert_allclose(mine[1], want[1], rtol=1e-6)


def test_a_tensor_without_grad_takes_the_value_history():
    v = nt.tensor([1.0, 2.0, 3.0], requires_grad=True)
    x = nt.zeros(3, 4)
    i = ndim.dims(1)
    x[nt.tensor([2, 0, 1])[i], 2] = v[i] * 3
    assert x.requires_grad and x.grad_fn is not None
    (x * x).sum().backward()
    np.testing.assert_allclose(values(v.grad), 18 * values(v))


def test_gradcheck():
    def f(w, v):
        x = w * 1
        i, j = ndim.dims(2)
        x[i, 0:2] = v[i] * 2
        x[j, 3] = v[j, 0].exp()
        a, b, c = ndim.dims(3)
        b.size = 2
        x[nt.tensor([1, 0])[a] + 1, (b, c)] = v[:2, 0][a] * v[:2, 1][b]  # an index, a pack
        return x
    w = nt.randn(3, 4, dtype=nt.float64, requires_grad=True)
    v = nt.randn(3, 2, dtype=nt.float64, requires_grad=True)
    assert nt.autograd.gradcheck(f, (w, v))


def test_into_a_view_of_a_tensor_with_dims():
    base = nt.randn(3, 4, requires_grad=True)
    b = base * 1
    i, j = ndim.dims(2)
    v = nt.randn(3, requires_grad=True)
    b[i][j] = v[i] * 3
    (b * b).sum().backward()
    np.testing.assert_array_equal(values(base.grad), np.zeros((3, 4)))
    np.testing.assert_allclose(values(v.grad), 72 * values(v), rtol=1e-5)


# ---------------------------------------------------------------- random mixes


def per_element(x, entries, value, nsize):
    """The definition: for each element e of the dim, x[entries at e] = value at e (torch)."""
    out = x.clone()
    for e in range(nsize):
        index = tuple(e if ent == "i" else ent for ent in entries)
        out[index] = value[e] if value.dim() > 0 else value
    return out


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1))
def test_random_mixes_follow_the_definition(seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, size=int(rng.integers(1, 4))))
    at = int(rng.integers(0, len(shape)))
    entries = []
    for d, size in enumerate(shape):
        if d == at:
            entries.append("i")
            continue
        kind = rng.integers(0, 3)
        entries.append(slice(None) if kind == 0 else int(rng.integers(0, size)) if kind == 1
                       else slice(0, size, 2))
    a = rng.standard_normal(shape)
    x_t = torch.tensor(a)
    # one element's result shape, and a value over the dim broadcasting to it
    elem = x_t[tuple(0 if e == "i" else e for e in entries)]
    vshape = [shape[at]] + [s if rng.integers(0, 2) else 1 for s in elem.shape]
    val = rng.standard_normal(vshape)
    want = per_element(x_t, entries, torch.tensor(val), shape[at])
    x = nt.tensor(a)
    i = ndim.dims(1)
    index = tuple(i if e == "i" else e for e in entries)
    x[index] = nt.tensor(val)[i]
    np.testing.assert_array_equal(values(x), want.numpy())
