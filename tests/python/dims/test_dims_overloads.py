"""A first-class dim where an op takes a dim or a tensor, against functorch.dim (PyTorch 1.13):
x.max(i) / x.min(i) reduce over i (the parser prefers the dim overload to max(other), as
functorch's wrapped methods do), expand(*dims) adds first-class dims, and diag_embed is
batched over dims. Values and printed order are compared as repr strings; error types and
texts; gradients by gradcheck."""
import numpy as np
import pytest
import torch

import ntensor as nt
from ntensor import dim as ndim

from dims_helpers import Oracle, values


@pytest.fixture(scope="module")
def oracle():
    o = Oracle()
    yield o
    o.close()


# name -> fn(lib, D, T, i, j, k), T = arange(120.).view(2, 3, 4, 5) (distinct values: the
# indices of max / min are unique); m and n are sized dims made in the case
CASES = {
    # max / min with a dim as the only argument: (values, indices) over it
    "max_dim": lambda lib, D, T, i, j, k: T[i].max(i),
    "min_dim": lambda lib, D, T, i, j, k: T[i].min(i),
    "max_dim_mid": lambda lib, D, T, i, j, k: T[:, i].max(i),
    "min_dim_last": lambda lib, D, T, i, j, k: T[..., i].min(i),
    "max_one_of_two": lambda lib, D, T, i, j, k: T[i, :, j].max(j),
    "min_one_of_two": lambda lib, D, T, i, j, k: T[:, j, :, i].min(j),
    "max_dim_of_sum": lambda lib, D, T, i, j, k: (T[:, j, :, i] + T[0, j, :, 0]).max(i),
    "max_values": lambda lib, D, T, i, j, k: T[:, j, :, i].max(i).values,
    "min_indices": lambda lib, D, T, i, j, k: T[:, j, :, i].min(j).indices,
    "max_keepdim_false": lambda lib, D, T, i, j, k: T[:, i].max(i, False),
    "max_keyword": lambda lib, D, T, i, j, k: T[:, i].max(dim=i),
    # what stays elementwise: maximum with a dim (its arange)
    "maximum_dim": lambda lib, D, T, i, j, k: lib.maximum(T[:, i, 0, 0], i),
    # expand(*dims): new first-class dims in front, printed first
    "expand_plain": lambda lib, D, T, i, j, k: T[0, 0].expand(D.Dim("m", 2)),
    "expand_plain_two": lambda lib, D, T, i, j, k: T[0, 0].expand(D.Dim("m", 2), D.Dim("n", 3)),
    "expand_with_dims": lambda lib, D, T, i, j, k: T[:, i].expand(D.Dim("m", 2)),
    "expand_printed_after": lambda lib, D, T, i, j, k: T[:, j, :, i].expand(D.Dim("n", 3),
                                                                           D.Dim("m", 2)),
    "expand_no_positional": lambda lib, D, T, i, j, k: T[0, 0, 0, i].expand(D.Dim("m", 2)),
    "expand_then_sum": lambda lib, D, T, i, j, k: _expand_sum(D, T[:, i]),
    "expand_sizes": lambda lib, D, T, i, j, k: T[:, i].expand(2, 4, 5),
    "expand_sizes_infer": lambda lib, D, T, i, j, k: T[:, i, :, :1].expand(-1, -1, 3),
    # diag_embed: batched over the dims (functorch's vmap: dims first)
    "diag_embed": lambda lib, D, T, i, j, k: T[:, i, :, 0].diag_embed(),
    "diag_embed_function": lambda lib, D, T, i, j, k: lib.diag_embed(T[:, j, :, i]),
    "diag_embed_offset": lambda lib, D, T, i, j, k: lib.diag_embed(T[:, i, 0], 1, 0, 2),
    "diag_embed_negative": lambda lib, D, T, i, j, k: T[i, 0].diag_embed(-1, -1, -3),
    "diag_embed_vector": lambda lib, D, T, i, j, k: T[0, 0, i].diag_embed(),
    "diag_embed_two_dims": lambda lib, D, T, i, j, k: T[0, i, :, j].diag_embed(2, dim1=1, dim2=0),
}


def _expand_sum(D, x):
    m = D.Dim("m", 2)
    return (x.expand(m) * m).sum(m)


def case_repr(D, lib, name):
    T = lib.arange(120.).view(2, 3, 4, 5)
    i, j, k = D.Dim("i"), D.Dim("j"), D.Dim("k")
    r = CASES[name](lib, D, T, i, j, k)
    if isinstance(r, tuple):  # max / min: the named pair, as its repr shows it
        return type(r).__name__, [repr(e) for e in r]
    return repr(r)


def functorch_case(fdim, name):
    return case_repr(fdim, torch, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_against_functorch(oracle, name):
    assert case_repr(ndim, nt, name) == oracle(functorch_case, name)


# name -> fn(lib, D): each raises the same error type and text under both libraries
ERRORS = {
    "max_keepdim": lambda lib, D: _reduce_own(lib, D, lambda x, i: x.max(i, True)),
    "min_keepdim_keyword": lambda lib, D: _reduce_own(lib, D, lambda x, i: x.min(i, keepdim=True)),
    "expand_existing": lambda lib, D: _expand_own(lib, D),
    "expand_twice": lambda lib, D: lib.ones(3).expand(*[D.Dim("m", 2)] * 2),
    "expand_unbound": lambda lib, D: lib.ones(3).expand(D.Dim("u")),
    "diag_embed_out_of_range": lambda lib, D: _x(lib, D).diag_embed(0, 2, 0),
    "diag_embed_no_positional": lambda lib, D: lib.ones(3)[D.Dim("i")].diag_embed(),
}


def _x(lib, D):
    return lib.arange(12.).view(3, 4)[D.Dim("i")]


def _reduce_own(lib, D, f):
    i = D.Dim("i")
    return f(lib.arange(6.).view(2, 3)[i], i)


def _expand_own(lib, D):
    i = D.Dim("i")
    return lib.ones(2, 3)[i].expand(i)


def error_of(D, lib, name):
    try:
        ERRORS[name](lib, D)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


def functorch_error(fdim, name):
    return error_of(fdim, torch, name)


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_errors_as_functorch(oracle, name):
    ours = error_of(ndim, nt, name)
    assert ours is not None
    assert ours == oracle(functorch_error, name)


# ---- where functorch.dim 1.13 fails (an internal assert, or an abort): ours on its own ----

def test_max_min_functions_reduce_over_a_dim():
    """torch.max(x, i) is x.max(i) (functorch: an internal assert in its vmap)."""
    i, j = ndim.dims(2)
    T = nt.arange(120.).view(2, 3, 4, 5)
    for fn in ("max", "min"):
        x = T[:, j, :, i]
        got, want = getattr(nt, fn)(x, i), getattr(x, fn)(i)
        assert type(got).__name__ == fn
        assert repr(got) == repr(want)
        assert got.values.dims == (j,) and got.indices.dims == (j,)
    k = ndim.dims(1)
    plain = nt.arange(12.).view(3, 4)
    r = plain[k].max(k)
    assert values(r.values).tolist() == [8.0, 9.0, 10.0, 11.0]
    assert values(r.indices).tolist() == [2, 2, 2, 2]


def test_max_of_a_tensor_stays_elementwise():
    """x.max(other) with a tensor takes the elementwise overload (functorch reads the tensor as
    a dim: "len() of a 0-d tensor")."""
    i, j = ndim.dims(2)
    a = nt.arange(24.).view(2, 3, 4)
    b = nt.tensor([5.0, 13.0, 20.0])
    r = a[:, i].max(b[j])
    assert r.dims == (i, j)
    want = np.maximum(values(a).transpose(1, 0, 2)[:, None], values(b)[None, :, None, None])
    np.testing.assert_allclose(values(r.order(i, j)), want)


def test_a_dim_the_tensor_lacks():
    """A first-class dim as the dim of a tensor that lacks it is a clear error (functorch: an
    internal assert, or the dim's unbound size); before, an index out of range."""
    i, j = ndim.dims(2)
    x = nt.arange(12.).view(3, 4)
    with pytest.raises(ValueError, match=r"^max\(\): tensor of dimensions \(\) does not contain "
                                         r"dim j$"):
        x.max(j)
    with pytest.raises(ValueError, match=r"^min\(\): tensor of dimensions \(i,\) does not "
                                         r"contain dim j$"):
        x[i].min(j)
    with pytest.raises(ValueError, match=r"^sum\(\): tensor of dimensions \(\) does not contain"):
        x.sum(j)
    with pytest.raises(ValueError, match=r"^transpose\(\): tensor of dimensions \(i,\) does not"):
        x[i].transpose(j, 0)


def test_only_max_and_min_have_both_overloads():
    """The ops with a Tensor and a dim parameter at one position (where a dim could go to
    either): the parser's preference matters for these only (PyTorch 1.13 has the same)."""
    both = set()
    for name, mode, sigs in nt._C._binding_table():
        rows = []
        for text, *_rest, schema, _dep in sigs:
            kinds = dict(reversed(p.strip().split(" ")[:2]) for p in
                         schema[schema.index("(") + 1:schema.index(")")].split(",")
                         if p.strip() not in ("", "*"))
            params = [p.strip() for p in text[text.index("(") + 1:text.rindex(")")].split(",")]
            params = [p for p in params if p and p != "*"]
            if mode == "method" and params and params[0].startswith("Tensor "):
                params = params[1:]
            rows.append([(p.rsplit(" ", 1)[0], kinds.get(p.rsplit(" ", 1)[1].split("=")[0], ""))
                         for p in params])
        for pos in range(8):
            at = [r[pos] for r in rows if len(r) > pos]
            if any(t == "Tensor" for t, _ in at) and any(k.startswith("Dim") for _, k in at):
                both.add(name)
    assert both == {"max", "min"}


def test_expand_by_dims_more():
    """A tuple of dims is the same as the dims (functorch aborts); dims mixed with sizes take
    PyTorch's expand and its error (functorch aborts); the result is a view of the input."""
    m, n = ndim.Dim("m", 2), ndim.Dim("n", 3)
    x = nt.arange(4.)
    assert repr(x.expand((m, n))) == repr(x.expand(m, n))
    assert repr(x.expand([m])) == repr(x.expand(m))
    with pytest.raises(TypeError, match=r"^expand\(\): argument 'size' \(position 1\) must be "
                                        r"tuple of SymInts, not ntensor._C.Dim$"):
        x.expand(m, 4)
    e = x.expand(m)
    assert e.dims == (m,) and e.shape == (4,)
    x[0] = 7.0
    assert values(e.order(m)).tolist() == [[7.0, 1.0, 2.0, 3.0]] * 2


def test_gradients():
    a = nt.rand(3, 4, dtype=nt.float64, requires_grad=True)

    def max_over_dim(a):
        i, j = ndim.dims(2)
        r = a[i].max(i)
        return r.values * 2 + nt.min(a[:, j], j).values.sum()

    def expand_by_dims(a):
        m = ndim.Dim("m", 2)
        return (a.expand(m) * m).order(m)

    def diag_embed_batched(a):
        i = ndim.dims(1)
        return a[i].diag_embed(1, 0, 1).order(i)

    for f in (max_over_dim, expand_by_dims, diag_embed_batched):
        assert nt.autograd.gradcheck(f, (a,))


def test_diag_embed_against_the_positional_op():
    """diag_embed batched over dims is the positional op run per element (the dims first)."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 2, 4)).astype(np.float32)
    i = ndim.dims(1)
    x = nt.tensor(a)[:, i]
    for args in [(), (1,), (-2, 0, 2), (0, -1, 0)]:
        got = values(x.diag_embed(*args).order(i))
        want = np.stack([values(torch.diag_embed(torch.tensor(a[:, e]), *args))
                         for e in range(2)])
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
    # the op's own error on the positional part (functorch's vmap counts its batch dim: 2, 2)
    with pytest.raises(RuntimeError, match=r"^diagonal dimensions cannot be identical 1, 1$"):
        x.diag_embed(0, 1, 1)
