"""The printed form of tensors with first-class dims against functorch.dim's (PyTorch 1.13):
functorch keeps its own order of levels (first-class and positional dims mixed) that its repr
prints its values in and Tensor.dims lists; ours has the dims first physically and records
where each prints (src/dims/printed.c). Binding, order() and each batching family are
compared as repr strings, values included."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from ntensor import dim as ndim

from dims_helpers import Oracle, OracleDied


@pytest.fixture(scope="module")
def oracle():
    o = Oracle()
    yield o
    o.close()


def _x(lib, D, T, i, j, k):
    return T[:, j, :, i]  # printed (0, j, 1, i); j is newer than i


def _cat(D, tensors, dim, new_dim):
    """D.cat; functorch's is its own stack and index (its cat calls dims() without a count,
    which fails on Python 3.11)."""
    if D is ndim:
        return D.cat(tensors, dim, new_dim)
    n = D.Dim("n")
    return D.stack(tensors, n, dim).index([n, dim], new_dim)


# name -> fn(lib, D, T, i, j, k), T = arange(120).view(2, 3, 4, 5), dims i, j, k made in that
# order (functorch's vmap orders its results' dims by age)
CASES = {
    # binding: the dims where they were bound, positional dims, None, ints, ...
    "bind_mid": lambda lib, D, T, i, j, k: T[:, i],
    "bind_two": lambda lib, D, T, i, j, k: T[i, :, j],
    "bind_last": lambda lib, D, T, i, j, k: T[..., i],
    "bind_ellipsis_mid": lambda lib, D, T, i, j, k: T[:, i, ..., j],
    "bind_none_first": lambda lib, D, T, i, j, k: T[None, :, i],
    "bind_none_after": lambda lib, D, T, i, j, k: T[:, i, None],
    "bind_none_ellipsis": lambda lib, D, T, i, j, k: T[..., None, i],
    "bind_int": lambda lib, D, T, i, j, k: T[0, :, i],
    "bind_int_after": lambda lib, D, T, i, j, k: T[:, i, 0],
    "bind_pack": lambda lib, D, T, i, j, k: T[:, :, (i, D.Dim("p", 2))],
    "bind_diagonal": lambda lib, D, T, i, j, k: T[:, :3, :3][:, i, i],
    "bind_diagonal_apart": lambda lib, D, T, i, j, k: T[0, :, :, :3][i, :, i],
    "rebind_first": lambda lib, D, T, i, j, k: T[:, i][j],
    "rebind_second": lambda lib, D, T, i, j, k: T[:, i][:, :, j],
    "rebind_none": lambda lib, D, T, i, j, k: T[:, i][:, None],
    "rebind_own_diagonal": lambda lib, D, T, i, j, k: T.view(120)[:75].view(3, 5, 5)[:, i][:, i],
    "x": _x,
    "x_bind_k": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[:, k],
    "x_bind_none_k": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[None, k],
    "dims_attribute": lambda lib, D, T, i, j, k: T[:, i][j].dims,
    "levels_attribute": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[None, k]._levels,
    "dim_expression_index": lambda lib, D, T, i, j, k: (T[0, 0, 0][i],
                                                        T[0, 0][:, (i + 1) % 5])[1],
    # order(): the new positional dims where the first positional dim left is
    "order_dim": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).order(i),
    "order_other_dim": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).order(j),
    "order_positional": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).order(1),
    "order_mixed": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).order(1, j),
    "order_group": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).order((0, j)),
    "order_all": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).order(j, i),
    "permute_is_order": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).permute(1, 0),
    # pointwise: the union of the arguments' levels
    "pointwise_scalar": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k) + 1,
    "pointwise_unary": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).float().exp(),
    "pointwise_union": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k) * T[0, 0][:, i],
    "pointwise_dims": lambda lib, D, T, i, j, k: T[0, 0, 0][i] + T[0, 0, :3][j],
    "pointwise_where": lambda lib, D, T, i, j, k: lib.where(_x(lib, D, T, i, j, k) > 50,
                                                            _x(lib, D, T, i, j, k), 0),
    "clone": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).clone(),
    "type_as": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).type_as(T),
    "zeros_like": lambda lib, D, T, i, j, k: lib.zeros_like(_x(lib, D, T, i, j, k)),
    # functorch's methods given a dim: self's levels less the dims reduced
    "sum_first": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).sum(0),
    "sum_dim": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).sum(i),
    "sum_dims": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).sum((0, j)),
    "sum_keepdim": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).sum(1, keepdim=True),
    "amax_dim": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).amax(j),
    "max_dim": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).max(0),
    "cumsum": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).cumsum(1),
    "softmax": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).float().softmax(j),
    "sort": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).sort(0),
    "unbind": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).unbind(0),
    "chunk": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).chunk(2, 1),
    # everything else runs under functorch's vmap: the dims first, oldest first
    "sum_all": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).sum(),
    "argmax_all": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).argmax(),
    "norm_dim": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).float().norm(dim=0),
    "log_softmax": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).float().log_softmax(1),
    "topk": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).topk(2, 0),
    "contiguous": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).contiguous(),
    "binary_max": lambda lib, D, T, i, j, k: lib.max(_x(lib, D, T, i, j, k), T[0, 0][:, i]),
    "view": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).reshape(8),
    "transpose": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).transpose(0, 1),
    "T": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).T,
    "unsqueeze": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).unsqueeze(1),
    "expand": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).expand(3, 2, 4),
    "select": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).select(1, 0),
    "narrow": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).narrow(1, 0, 2),
    "flip": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).flip(0),
    "matmul": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k) @ lib.ones(4, 3, dtype=T.dtype),
    "cat": lambda lib, D, T, i, j, k: lib.cat([_x(lib, D, T, i, j, k)] * 2, 1),
    "stack": lambda lib, D, T, i, j, k: lib.stack([_x(lib, D, T, i, j, k)] * 2),
    "split": lambda lib, D, T, i, j, k: lib.split(_x(lib, D, T, i, j, k), 2, 1),
    "gather": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).gather(1, lib.tensor([[0],
                                                                                    [1]])),
    "masked_fill": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).masked_fill(
        _x(lib, D, T, i, j, k) > 50, 0),
    "new_zeros": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).new_zeros(2),
    # functorch.dim.stack: the tensors' levels in order, the new dim where `dim` is
    "dim_stack_first": lambda lib, D, T, i, j, k: D.stack([_x(lib, D, T, i, j, k)] * 2, k, 0),
    "dim_stack_last": lambda lib, D, T, i, j, k: D.stack([_x(lib, D, T, i, j, k)] * 2, k, -1),
    "dim_stack_at_dim": lambda lib, D, T, i, j, k: D.stack([_x(lib, D, T, i, j, k)] * 2, k, i),
    "dim_stack_lacking": lambda lib, D, T, i, j, k: D.stack([T[0, 0][:, i], T[0, 0, :, 1] * 1], k,
                                                           i),
    "dim_cat": lambda lib, D, T, i, j, k: _cat(D, [_x(lib, D, T, i, j, k)] * 2, i, k),
    "dim_cat_lacking": lambda lib, D, T, i, j, k: _cat(D, [T[0, 0][:, i], T[0, 0, :, 1] * 1], i,
                                                       k),
    # t[...] of a tensor with dims: functorch's getitem
    "index_int": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[0],
    "index_second_int": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[:, 0],
    "index_none": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[None],
    "index_none_mid": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[:, None],
    "index_none_last": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[..., None],
    "index_slices": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[1:, ::2],
    "index_tensor": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[lib.tensor([1, 0, 1])],
    "index_tensor_second": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[
        :, lib.tensor([[0, 1]])],
    "index_tensors": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[lib.tensor([0, 1]),
                                                                       lib.tensor([1, 2])],
    "index_mask": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[lib.tensor([True, False])],
    "index_apart": lambda lib, D, T, i, j, k: T[:, j][lib.tensor([0, 1]), :, lib.tensor([1, 2])],
    "index_tensor_of_dims": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[
        lib.tensor([[0, 1], [1, 0]])[:, k]],
    "index_tensor_of_dims_second": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k)[
        :, lib.tensor([[0, 1], [1, 0]])[k]],
    # Tensor.index: each named level indexed in its place
    "index_method": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).index(j, 1),
    "index_method_positional": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).index(1, k),
    "index_method_rebind": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).index(j, k),
    "index_method_group": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).index([i, 0], k),
    "index_method_pairs": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).index((0, 1),
                                                                                 (k, 1)),
    "index_method_tensor": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).index(
        i, lib.tensor([0, 1])),
    "index_method_tensors_apart": lambda lib, D, T, i, j, k: _x(lib, D, T, i, j, k).index(
        (0, i), (lib.tensor([0, 1]), lib.tensor([1, 2]))),
    "index_method_plain": lambda lib, D, T, i, j, k: T.index((0, 2), (k, i)),
    # a * b summed over dims: one matrix product, functorch's dot
    "dot": lambda lib, D, T, i, j, k: (T[0, 0, :3][j].float() * T[0, :3, :4][j, k].float()
                                       ).sum(j),
    "dot_batch": lambda lib, D, T, i, j, k: (T[0, :3, :3, 0][i, j].float()
                                             * T[:, :3, :3, 0][k, j, i].float()).sum(j),
}


def case_repr(D, lib, name):
    T = lib.arange(120).view(2, 3, 4, 5)
    i, j, k = D.Dim("i"), D.Dim("j"), D.Dim("k")
    r = CASES[name](lib, D, T, i, j, k)
    if isinstance(r, (tuple, list)):
        return [repr(e) for e in r]
    return repr(r)


def functorch_case(fdim, name):
    return case_repr(fdim, torch, name)


@pytest.mark.parametrize("name", sorted(CASES))
def test_repr_in_functorch_order(oracle, name):
    assert case_repr(ndim, nt, name) == oracle(functorch_case, name)


def test_dims_in_printed_order():
    """Tensor.dims lists the dims in the order they print: a dim bound into a tensor that has
    dims goes where its positional dim was."""
    i, j = ndim.dims(2)
    t = nt.arange(24).view(2, 3, 4)
    assert t[:, i][j].dims == (j, i)
    assert (t[:, i][j] + 1).dims == (j, i)
    assert t[j, i].sum().dims == (i, j)  # functorch's vmap: oldest first


# ---- random bindings: a shape, one or two bindings, then an op ----

def bind_index(D, entries, made):
    """The index tuple of a binding described as data (see index_entries); `made` maps names
    to the dims made so far."""
    def dim(name, size):
        if name not in made:
            made[name] = D.Dim(name, size)
        return made[name]
    out = []
    for kind, *args in entries:
        if kind == "dim":
            out.append(dim(*args))
        elif kind == "pack":
            out.append(tuple(dim(n, s) for n, s in args[0]))
        elif kind == "int":
            out.append(args[0])
        elif kind == "none":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        else:
            out.append(slice(None))
    return tuple(out)


# the ops on a result without positional dims (functorch loops forever on x.sum(0) there)
DIM_OPS = ("none", "add", "neg_plain", "sum_dim", "order_dim")
OPS = {
    "none": lambda lib, x, d: x,
    "add": lambda lib, x, d: x + 1,
    "neg_plain": lambda lib, x, d: -x * lib.ones(x.shape[-1:], dtype=x.dtype),
    "sum0": lambda lib, x, d: x.sum(0),
    "sum_dim": lambda lib, x, d: x.sum(d),
    "cumsum0": lambda lib, x, d: x.cumsum(0),
    "order_dim": lambda lib, x, d: x.order(d),
    "order0": lambda lib, x, d: x.order(0),
    "reshape": lambda lib, x, d: x.reshape(-1),
    "index0": lambda lib, x, d: x[0],
    "index_none": lambda lib, x, d: x[:, None],
    "sum_all": lambda lib, x, d: x.sum(),
}


def random_case(D, lib, shape, first, second, op):
    T = lib.arange(int(np.prod(shape))).view(*shape) * 7 % 23
    made = {}
    x = T[bind_index(D, first, made)]
    if second is not None:
        x = x[bind_index(D, second, made)]
    dims = sorted(made)
    r = OPS[op](lib, x, made[dims[-1]])
    return repr(r), [repr(d) for d in getattr(r, "dims", ())]


def functorch_random_case(fdim, *args):
    return random_case(fdim, torch, *args)


@st.composite
def index_entries(draw, sizes, names, sized):
    """Entries binding positional dims of these sizes: new dims (names from `names`), a dim
    bound before of the same size (the diagonal), packs of two sized dims, full slices, ints,
    Nones, at most one ellipsis for a run of slices."""
    entries = []
    for size in sizes:
        entries += [("none",)] * draw(st.integers(0, 1))
        kind = draw(st.sampled_from(["dim", "dim", "slice", "int", "pack", "again"]))
        same = [n for n, s in sized.items() if s == size]
        if kind == "again" and same:
            entries.append(("dim", draw(st.sampled_from(same)), size))
        elif kind == "pack" and size % 2 == 0:
            a, b = names.pop(), names.pop()
            sized[a], sized[b] = 2, size // 2
            entries.append(("pack", ((a, 2), (b, size // 2))))
        elif kind in ("dim", "pack", "again"):
            name = names.pop()
            sized[name] = size
            entries.append(("dim", name, size))
        elif kind == "int":
            entries.append(("int", draw(st.integers(-size, size - 1))))
        else:
            entries.append(("slice",))
    entries += [("none",)] * draw(st.integers(0, 1))
    slices = [n for n, e in enumerate(entries) if e == ("slice",)]
    if slices and draw(st.booleans()):  # the last run of slices as an ellipsis
        end = slices[-1]
        start = end
        while start - 1 in slices:
            start -= 1
        entries[start:end + 1] = [("ellipsis",)]
    return entries


def positional_sizes(entries, sizes):
    out = []
    for e, size in zip([e for e in entries if e[0] not in ("none", "ellipsis")], sizes):
        if e[0] == "slice":
            out.append(size)
    return out


@settings(deadline=None, max_examples=60)
@given(st.data())
def test_random_bindings_print_as_functorch(oracle, data):
    shape = data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4))
    sized, made = {}, {}
    names = list("abcdefghmn")
    first = data.draw(index_entries(shape, names, sized))
    r = nt.arange(int(np.prod(shape))).view(*shape)[bind_index(ndim, first, made)]
    second = None
    if r.ndim and data.draw(st.booleans()):
        second = data.draw(index_entries(list(r.shape), names, sized))
        r = r[bind_index(ndim, second, made)]
    if not sized:
        return  # nothing bound: an ordinary tensor
    op = data.draw(st.sampled_from(sorted(OPS) if r.ndim else DIM_OPS))
    ours = random_case(ndim, nt, shape, first, second, op)
    try:
        want = oracle(functorch_random_case, shape, first, second, op)
    except OracleDied:  # functorch aborts on some inputs (an internal assert)
        oracle.restart()
        return
    if want[0] == "!":
        return  # functorch raises (its vmap on some of these shapes)
    assert ours == tuple(want)
