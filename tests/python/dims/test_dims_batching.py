"""Implicit batching of the ops beyond pointwise ones (dims/batch.c, batch_loop.c) against
functorch.dim: reductions of every positional dim, views and shape ops on the positional part,
indexing, joins, in-place and out= forms, the loop rule (any other op), and gradients through
them."""
import re

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from ntensor import dim as ndim

from dims_helpers import errors, run, same, theirs, values


def positional(lib, r, *ds):
    """A result with dims as a positional tensor (lists stacked)."""
    if isinstance(r, (tuple, list)):
        return lib.stack([x.order(*ds) for x in r])
    return r.order(*ds)


# fn(lib, x) on x = A[i] (A: 2x3x4): each case keeps i and is compared ordered by i
ONE_DIM_CASES = {
    "sum": lambda lib, x: x.sum(),
    "max": lambda lib, x: x.max(),
    "min": lambda lib, x: x.min(),
    "mean": lambda lib, x: x.mean(),
    "argmax": lambda lib, x: x.argmax().float(),
    "std": lambda lib, x: x.std(),
    "logsumexp": lambda lib, x: x.logsumexp(1),
    "view": lambda lib, x: x.view(12),
    "view_infer": lambda lib, x: x.view(-1, 2),
    "reshape": lambda lib, x: x.reshape(4, 3),
    "flatten": lambda lib, x: x.flatten(),
    "unflatten": lambda lib, x: x.unflatten(1, (2, 2)),
    "permute": lambda lib, x: x.permute(1, 0),
    "transpose": lambda lib, x: x.transpose(0, 1),
    "t": lambda lib, x: x.t(),
    "unsqueeze": lambda lib, x: x.unsqueeze(0) + x.unsqueeze(-1).sum(),
    "squeeze": lambda lib, x: x[:1].squeeze(),
    "squeeze_dim": lambda lib, x: x[:, :1].squeeze(1),
    "expand": lambda lib, x: x[:1].expand(5, 4),
    "expand_new_dims": lambda lib, x: x.expand(2, 3, 4) + x.expand(1, 3, -1),
    "select": lambda lib, x: x.select(1, 2),
    "narrow": lambda lib, x: x.narrow(1, 1, 2),
    "movedim": lambda lib, x: x.movedim(0, 1),
    "flip": lambda lib, x: x.flip(0),
    "diagonal": lambda lib, x: x.diagonal(),
    "triu": lambda lib, x: x.triu(),
    "roll_all": lambda lib, x: x.roll(1),
    "roll_dim": lambda lib, x: x.roll(1, 1),
    "repeat": lambda lib, x: x.repeat(2, 1),
    "split": lambda lib, x: x.split(2, 1),
    "chunk": lambda lib, x: x.chunk(3, 0),
    "unbind": lambda lib, x: x.unbind(1),
    "int": lambda lib, x: x[0],
    "slice": lambda lib, x: x[:, 1:3],
    "ellipsis_none": lambda lib, x: x[..., None, 1],
    "index_tensor": lambda lib, x: x[lib.tensor([2, 0])],
    "mask": lambda lib, x: x[lib.tensor([True, False, True])],
    "index_select": lambda lib, x: x.index_select(1, lib.tensor([3, 0])),
    "gather": lambda lib, x: x.gather(1, lib.tensor([[0], [1], [2]])),
    "float": lambda lib, x: x.double(),
    "masked_fill": lambda lib, x: x.masked_fill(x > 5, 0.0),
    "outer_cat": lambda lib, x: lib.cat([x, x * 2], 1),
    "stack": lambda lib, x: lib.stack([x, x + 1], 2),
    "cat_plain": lambda lib, x: lib.cat([x, lib.zeros(2, 4)], 0),
    "linear": lambda lib, x: lib.nn.functional.linear(x, lib.ones(2, 4)),
    "softmax_pos": lambda lib, x: x.softmax(-1),
}


# functorch.dim 1.13 aborts or raises on these (logsumexp and a cat followed by a reduction
# abort the process; Tensor.split is a TypeError; unbind loses its dim): their reference is the
# positional op run per element of the dim, which is what functorch's batching rule promises
FUNCTORCH_FAILS = {"logsumexp", "split", "unbind", "outer_cat", "cat_plain"}


def per_element(fn, shape, seed=0):
    """fn(lib, x) on x = A[i] with ntensor, against torch's fn on each A[e], stacked."""
    a = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    i = ndim.dims(1)
    ours = positional(nt, fn(nt, nt.tensor(a)[i]), i)
    parts = [fn(torch, torch.tensor(a[e])) for e in range(shape[0])]
    if isinstance(parts[0], (tuple, list)):
        want = torch.stack([torch.stack(list(p)) for p in parts], 1)
    else:
        want = torch.stack(parts)
    same(ours, want)


@pytest.mark.parametrize("case", sorted(ONE_DIM_CASES))
def test_positional_ops_on_a_tensor_with_a_dim(case):
    fn = ONE_DIM_CASES[case]
    if case in FUNCTORCH_FAILS:
        per_element(fn, (2, 3, 4))
        return

    def f(lib, dims, a):
        i = dims(1)
        return positional(lib, fn(lib, a[i]), i)
    run(f, (2, 3, 4))


# fn(lib, x, y) on x = A[i] (2x3x4), y = B[j] (5x3x4): results keep i and j
TWO_DIM_CASES = {
    "cat": lambda lib, x, y: lib.cat([x, y], 0),
    "stack": lambda lib, x, y: lib.stack([x, y], -1),
    "where": lambda lib, x, y: lib.where(x > y, x, y),
    "index_with_dims": lambda lib, x, y: x[(y[0] > 0).long()],
    "index_select_dims": lambda lib, x, y: x.index_select(1, (y[0, :2] > 0).long()),
}


@pytest.mark.parametrize("case", sorted(TWO_DIM_CASES))
def test_ops_on_tensors_with_different_dims(case):
    fn = TWO_DIM_CASES[case]

    def f(lib, dims, a, b):
        i, j = dims(2)
        return positional(lib, fn(lib, a[i], b[j]), i, j)
    run(f, (2, 3, 4), (5, 3, 4))


def test_index_tensor_mixing_positional_dims_and_dims():
    def f(lib, dims, a):
        i, k = dims(2)
        idx = lib.tensor([[0, 1], [2, 0]])[k]
        return a[i][idx].order(i, k)
    run(f, (2, 3, 4))


def test_in_place_and_out():
    def in_place(lib, dims, a, b):
        i = dims(1)
        z = a.clone()[i]
        z.add_(b[i])
        z.mul_(2)
        z[0] = 7.0
        z.copy_(z * 1.5)
        return z.order(i)
    run(in_place, (2, 3, 4), (2, 3, 4))

    def out(lib, dims, a, b):
        i = dims(1)
        o = lib.zeros(2, 3, 4)[i]
        lib.add(a[i], b[i], out=o)
        return o.order(i)
    run(out, (2, 3, 4), (2, 3, 4))


def test_in_place_self_lacks_a_dim():
    def f(lib, dims):
        i, j = dims(2)
        z = lib.zeros(3, 4)[j]
        z.add_(lib.ones(2, 4)[i])
    ours, t = errors(f)
    assert ours[0] == t[0] == "RuntimeError"
    assert "lacks the first-class dim" in ours[1]


def test_keepdim_with_a_dim():
    def f(lib, dims):
        i = dims(1)
        lib.ones(2, 3)[i].sum(i, keepdim=True)
    ours, t = errors(f)
    assert ours == t == ("ValueError", "cannot preserve first-class dimensions with keepdim=True")


def test_queries_see_the_positional_part():
    i = ndim.dims(1)
    x = nt.rand(2, 3, 4)[i]
    assert (x.numel(), x.dim(), x.size(1), x.size(-1)) == (12, 2, 4, 4)
    t = theirs(lambda fdim: (lambda y: (y.numel(), y.dim(), y.size(1), y.size(-1)))(
        torch.rand(2, 3, 4)[fdim.dims(1)]))
    assert t == (12, 2, 4, 4)


def test_in_place_version_counts_one():
    i = ndim.dims(1)
    x = nt.zeros(2, 3)
    y = x[i]
    v = x._version
    y.add_(1)
    y.roll(1, 0)
    y[1] = 3.0  # a loop over i: still one write
    assert x._version == v + 2
    assert values(x).tolist() == [[1.0, 3.0, 1.0]] * 2


def test_gradients_through_views_joins_and_the_loop():
    a = nt.rand(2, 3, 4, dtype=nt.float64, requires_grad=True)
    b = nt.rand(2, 4, dtype=nt.float64, requires_grad=True)

    def f(a, b):
        i = ndim.dims(1)
        x = a[i]
        y = nt.cat([x.transpose(0, 1).reshape(12), b[i]], 0)   # shift + join
        z = x.roll(1) * x.max() + x[1:, ::2].sum()               # loop + index + reduction
        return y.order(i).sum(1) + z.sum((0, 1)).order(i)
    assert nt.autograd.gradcheck(f, (a, b))


@settings(deadline=None, max_examples=30)
@given(st.integers(1, 3), st.integers(0, 1000))
def test_random_views_and_joins(npos, seed):
    """Random chains of views, joins and reductions on A[i] against the positional ops run
    per element (functorch.dim aborts on several of these chains)."""
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, 1 + npos))
    perm = [int(p) for p in rng.permutation(npos)]
    d = int(rng.integers(0, npos))

    def f(lib, y):
        z = y.permute(*perm).contiguous().flatten()
        w = lib.cat([y, y * 2], d).unsqueeze(0).sum(-1)
        v = y.flip(d).narrow(d, 0, 1).transpose(0, -1)
        return z.sum() + w.sum() + v.sum() + y[..., :1].amax()
    per_element(f, shape, seed)


def test_every_row_batches_or_says_why():
    """Rows that take a tensor and still refuse tensors with dims: readers of memory and
    of one element (test_dims_rows in C walks the table; this is its Python face)."""
    i = ndim.dims(1)
    x = nt.rand(2, 3)[i]
    for name in ("item", "as_strided", "is_nonzero"):
        with pytest.raises(NotImplementedError, match="not implemented for this op"):
            getattr(x, name)(*(((1,), (1,)) if name == "as_strided" else ()))
    assert same(nt.zeros_like(x).order(i), torch.zeros(2, 3)) is None


def test_index_stack_cat():
    """Tensor.index, ntensor.dim.stack and ntensor.dim.cat against functorch.dim's (its cat
    raises on Python 3.11, dims() inside it: checked against stack and a reshape)."""
    def f(lib, fdim):
        i, j, k, n = fdim.dims(4)
        x = lib.arange(24.).view(2, 3, 4)[i]
        a, b, c = fdim.dims(3)
        y = lib.arange(12.).view(3, 4)[a]
        z = (lib.arange(12.).view(3, 4) * 10)[a]
        return (values(x.index((0, 1), (k, j)).order(i, k, j)),
                values(x.index([i, 0], n).order(n)),
                values(lib.arange(6.).view(2, 3).index(0, lib.tensor([1, 1, 0]))),
                values(fdim.stack([y, z], b, 0).order(a, b)),
                values(fdim.stack([y, z], c, a).order(c, a)),
                values(fdim.stack([y, lib.arange(4.)], c, a).order(c, a)),
                # over a dim that is not the tensors' first (a membership test by identity)
                values(fdim.stack([x, x * 2], c, i).order(c, i)))
    ours = f(nt, ndim)
    want = theirs(lambda fdim: f(torch, fdim))
    for o, w in zip(ours, want):
        assert o.shape == w.shape and (o == w).all()
    a, w = ndim.dims(2)
    y = nt.arange(12.).view(3, 4)[a]
    r = ndim.cat([y, y * 10], a, w)
    assert w.size == 6
    assert (values(r.order(w)) == np.concatenate([values(y.order(a)), 10 * values(y.order(a))])).all()


def test_delayed_product_where_a_tensor_goes():
    """a * b of tensors with dims (delayed for a sum) passed to where, relu, cat and stack."""
    def f(lib, dims, a, b):
        i, j = dims(2)
        x, y = a[i], b[j]
        r = lib.where(x > 0, x * y, 0) + lib.relu(x * y)
        return lib.stack([r, x * y]).order(i, j)
    run(f, (3,), (4,))


def test_T_and_mT_of_a_tensor_with_dims():
    """x.T and x.mT read the positional rank (not the physical one, which counts the dims)."""
    def f(lib, dims, a):
        i = dims(1)
        x = a[:, i]
        return lib.stack([x.T.order(i), x.mT.order(i), x.T.T.T.order(i)])
    run(f, (2, 3, 4))


# View and shape ops (the SHIFT and PERMUTE rules) failing on a tensor with dims: fn(A, b) with
# A = arange(120).view(2, 3, 4, 5) and b a dim (ours) or 0 (one example, for the positional op)
SHIFT_ERRORS = {
    "expand_too_few": lambda A, b: A[:, b].expand(3),
    "expand_too_few_2d": lambda A, b: A[0, :, b].expand(5),
    "expand_mismatch": lambda A, b: A[:, b].expand(2, 5, 5),
    "expand_negative": lambda A, b: A[:, b].expand(-2, 4, 5),
    "view_numel": lambda A, b: A[:, b].view(7),
    "view_infer": lambda A, b: A[:, b].view(-1, 7),
    "view_longer": lambda A, b: A[:, b].view(2, 2, 5),
    "reshape_numel": lambda A, b: A[:, b].reshape(2, 4, 6),
    "reshape_two_inferred": lambda A, b: A[:, b].reshape(-1, -1),
    "permute_too_few": lambda A, b: A[:, b].permute(1, 0),
    "permute_too_many": lambda A, b: A[:, b].permute(0, 1, 2, 3),
    "permute_repeated": lambda A, b: A[:, b].permute(0, 0, 1),
    "transpose_range": lambda A, b: A[:, b].transpose(0, 3),
    "transpose_range_1d": lambda A, b: A[0, 0][:, b].transpose(0, 2),
    "select_range_1d": lambda A, b: A[0, 0][:, b].select(2, 0),
    "select_index": lambda A, b: A[0, 0][:, b].select(0, 9),
    "unsqueeze_range": lambda A, b: A[:, b].unsqueeze(5),
    "squeeze_range": lambda A, b: A[:, b].squeeze(3),
    "narrow_range": lambda A, b: A[:, b].narrow(3, 0, 1),
    "narrow_length": lambda A, b: A[:, b].narrow(0, 1, 5),
    "flatten_order": lambda A, b: A[:, b].flatten(2, 0),
    "flatten_range": lambda A, b: A[:, b].flatten(0, 3),
    "unflatten_sizes": lambda A, b: A[:, b].unflatten(0, (3, 3)),
    "unflatten_range": lambda A, b: A[:, b].unflatten(3, (1, 1)),
    "movedim_range": lambda A, b: A[:, b].movedim(0, 3),
    "swapaxes_range": lambda A, b: A[:, b].swapaxes(0, 3),
    "diagonal_same": lambda A, b: A[:, b].diagonal(0, 0, 0),
    "unfold_range": lambda A, b: A[:, b].unfold(3, 1, 1),
    "unfold_size": lambda A, b: A[:, b].unfold(0, 9, 1),
    "chunk_range": lambda A, b: A[:, b].chunk(2, 3),
    "chunk_zero": lambda A, b: A[:, b].chunk(0, 0),
    "split_range": lambda A, b: A[:, b].split(2, 3),
    "unbind_range": lambda A, b: A[:, b].unbind(3),
    "t_rank": lambda A, b: A[:, b].t(),
    "mT_rank": lambda A, b: A[0, 0][:, b].mT,
}
# the ones whose functorch.dim text is the op's on one example too (its vmap prints the batched
# shape for others: expand's size mismatch, view's numel, select's index, squeeze, diagonal)
FUNCTORCH_PER_EXAMPLE = ["reshape_numel", "transpose_range", "transpose_range_1d",
                         "select_range_1d", "unsqueeze_range", "narrow_range", "narrow_length",
                         "flatten_order", "unflatten_sizes", "movedim_range", "swapaxes_range",
                         "unfold_range", "t_rank", "mT_rank"]


def shift_error(lib, b, name):
    try:
        SHIFT_ERRORS[name](lib.arange(120).view(2, 3, 4, 5), b)
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name", sorted(SHIFT_ERRORS))
def test_shift_errors_are_the_positional_ops(name):
    """The text counts the positional dims, as the op on one example (A[:, 0]) gives it."""
    ours = shift_error(nt, ndim.Dim("i"), name)
    assert ours is not None and ours == shift_error(torch, 0, name)


def test_shift_errors_as_functorch():
    want = theirs(lambda fdim: {n: shift_error(torch, fdim.Dim("i"), n)
                                for n in FUNCTORCH_PER_EXAMPLE + ["expand_too_few"]})
    for name in FUNCTORCH_PER_EXAMPLE:
        assert shift_error(nt, ndim.Dim("i"), name) == want[name], name
    # functorch's expand words it its own way; the counts are the per-example ones
    counts = r"sizes provided \(1\) must be greater or equal to the number of dimensions in " \
             r"the tensor \(3\)"
    assert re.search(counts, shift_error(nt, ndim.Dim("i"), "expand_too_few")[1])
    assert re.search(counts, want["expand_too_few"][1])
