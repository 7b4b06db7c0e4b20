"""First-class dims (ntensor.dim) against functorch.dim (PyTorch 1.13): binding, order, dims
as tensors, implicit batching of pointwise ops, reductions, scans, softmax and the matrix
products, the spec's examples, and functorch's error texts and types."""
import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from ntensor import dim as ndim

from dims_helpers import errors, run, run_arrays, same, theirs, values


def test_mm():
    def mm(lib, dims, A, B):
        i, j, k = dims(3)
        return (A[i, k] * B[k, j]).sum(k).order(i, j)
    run(mm, (3, 4), (4, 5))


def test_bmm():
    def bmm(lib, dims, A, B):
        b, i, j, k = dims(4)
        return (A[b, i, k] * B[b, k, j]).sum(k).order(b, i, j)
    run(bmm, (2, 3, 4), (2, 4, 5))


def test_gram_matrix():
    def gram(lib, dims, y):
        b, c, c2, h, w = dims(5)
        r = (y[b, c, h, w] * y[b, c2, h, w]).sum((h, w))
        r = r / (h.size * w.size)
        return r.order(b, c, c2)
    run(gram, (1, 2, 3, 4))


def test_attention():
    def attention(lib, dims, K, Q, V):
        batch, channel, key, query = dims(4)
        k, q, v = K[batch, channel, key], Q[batch, channel, query], V[batch, channel, key]
        a = (k * q).sum(channel)
        a = (a * (channel.size ** -0.5)).softmax(key)
        r = (v * a).sum(key)
        return lib.cat((r.order(batch, channel, query), Q), dim=1)
    run(attention, (2, 3, 4), (2, 3, 4), (2, 3, 4))


def test_pixel_shuffle():
    def pixel_shuffle(lib, dims, img):
        h2, w2, c, b, h, w = dims(6)
        h2.size = w2.size = 2
        return img[b, (c, h2, w2), h, w].order(b, c, (h, h2), (w, w2))
    run(pixel_shuffle, (2, 8, 3, 5))


def test_model_batching_dot_relu():
    def batched(lib, dims, examples, weights):
        batch = dims(1)
        return examples[batch].dot(weights).relu().order(batch)
    run(batched, (3, 5), (5,))


@pytest.mark.parametrize("shapes", [((3, 4), (4,)), ((3, 4), (4, 2)), ((2, 3, 4), (4, 5))])
def test_matmul_batched(shapes):
    def f(lib, dims, a, b):
        i = dims(1)
        return lib.matmul(a[i], b).order(i)
    run(f, (6,) + shapes[0], shapes[1])


def test_outer_diag_transpose():
    def outer(lib, dims, a, b):
        i, j = dims(2)
        return (a[i] * b[j]).order(i, j)
    run(outer, (3,), (4,))

    def diag(lib, dims, a):
        i = dims(1)
        return a[i, i].order(i)
    run(diag, (4, 4))

    def transpose(lib, dims, B):
        i, j = dims(2)
        return B[i, j].order(j, i)
    run(transpose, (3, 4, 5))


def eye_triu(lib, dims):
    i, j = dims(2, sizes=[4, 4])
    return (values(lib.where(i <= j, 1, 0).order(i, j)),
            values(lib.where(i == j, 1, 0).order(i, j)))


def test_eye_triu():
    ours = eye_triu(nt, ndim.dims)
    t = theirs(lambda fdim: eye_triu(torch, fdim.dims))
    assert (ours[0] == t[0]).all() and (ours[1] == t[1]).all()

    def triu(lib, dims, A):
        i, j = dims(2)
        a = A[i, j]
        return lib.where(i <= j, a, 0).order(i, j)
    run(triu, (3, 4))


def test_vstack_dims_arith():
    def vstack(lib, dims, a, b):
        v, i = dims(2, sizes=[2, None])
        return lib.where(v == 0, a[i], b[i]).order(v, i)
    run(vstack, (5,), (5,))
    def arith(dims):
        c = dims(1)
        c.size = 3
        return (c + 1000).order(c).tolist()
    assert arith(ndim.dims) == theirs(lambda fdim: arith(fdim.dims)) == [1000, 1001, 1002]


def split_sizes(lib, dims):
    i, j, k = dims(3)
    j.size = 2
    a = lib.rand(6, 4)[(i, j), k]
    return (i.size, j.size, k.size), tuple(a.order(i, (j, k)).shape)


def test_split_and_flatten_sizes():
    ours = split_sizes(nt, ndim.dims)
    assert ours == theirs(lambda fdim: split_sizes(torch, fdim.dims)) == ((3, 2, 4), (3, 8))


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "prod"])
def test_reductions(op):
    def f(lib, dims, x):
        i, j = dims(2)
        y = x[i, :, j]
        return getattr(y, op)(j if op != "amax" else (j,)).order(i)
    run(f, (3, 4, 5))

    def g(lib, dims, x):  # every positional dim
        i, j = dims(2)
        return getattr(x[i, :, j], op)().order(i, j) if op != "amax" else x[i, :, j].amax(0).order(i, j)
    run(g, (3, 4, 5))


def test_scans_softmax():
    def f(lib, dims, x):
        i, j = dims(2)
        y = x[i, j]
        return (y.cumsum(j) + y.softmax(i)).order(j, i)
    run(f, (3, 4))
    # functorch.dim 1.13 aborts the process on log_softmax with a dim: compared with softmax
    i, j = ndim.dims(2)
    y = nt.rand(3, 4)[i, j]
    same(y.log_softmax(j).order(i, j), torch.tensor(y.softmax(j).order(i, j).tolist()).log())

    def g(lib, dims, x):
        i = dims(1)
        return x[i].cumsum(0).order(i)
    run(g, (3, 4))


def test_max_pair():
    def f(lib, dims, x):
        i, j = dims(2)
        v, ix = x[i, :, j].max(0)
        return v.order(i, j) + ix.order(i, j)
    run(f, (3, 4, 5))


def test_reprs():
    i, j = ndim.dims(2)
    t = nt.arange(12).view(3, 4)[i]
    ft = theirs(lambda fdim: repr(torch.arange(12).view(3, 4)[fdim.dims(2)[0]]))
    assert repr(t).replace("d0", "i") == ft.replace("d0", "i")
    assert repr(i) == "i" and t.dims == (i,) and t.ndim == 1 and tuple(t.shape) == (4,)
    assert repr(ndim.Dim("zz")) == "zz" and ndim.Dim("zz", 3).size == 3


def test_dims_names_guessed():
    a, b = ndim.dims()
    c = ndim.dims()
    assert (repr(a), repr(b), repr(c)) == ("a", "b", "c")
    x, y = ndim.dims("x y")
    assert (repr(x), repr(y)) == ("x", "y")
    assert [repr(d) for d in (lambda: ndim.dims(2))()] == ["d0", "d1"]
    i, j = ndim.dims(sizes=[2, None])
    assert i.size == 2 and i.is_bound and not j.is_bound


@pytest.mark.parametrize("case", range(7))
def test_error_texts(case):
    def too_many(lib, dims):
        i, j, k = dims(3)
        lib.rand(3, 4)[i, j, k]

    def rebind(lib, dims):
        i = dims(1)
        i.size = 3
        i.size = 4

    def unbound(lib, dims):
        i = dims(1)
        return i.size

    def infer_two(lib, dims):
        a, b = dims(2)
        lib.rand(6, 2)[(a, b), :]

    def uneven(lib, dims):
        a, b = dims(2)
        b.size = 4
        lib.rand(6)[(a, b), ]

    def mismatch(lib, dims):
        a, b = dims(2)
        a.size = b.size = 2
        lib.rand(6)[(a, b), ]

    def order_missing(lib, dims):
        p, q, r = dims(3)
        lib.rand(3, 4)[p, q].order(r)

    fns = [too_many, rebind, unbound, infer_two, uneven, mismatch, order_missing]
    ours, theirs = errors(fns[case])
    assert ours is not None and theirs is not None
    assert ours[1] == theirs[1]
    assert ours[0] == theirs[0]


@settings(deadline=None, max_examples=25)  # each example forks a functorch.dim process
@given(st.integers(1, 3), st.integers(0, 2), st.integers(0, 1000))
def test_random_binding_and_batching(nbound, npos, seed):
    rng = np.random.default_rng(seed)
    shape = tuple(int(s) for s in rng.integers(1, 4, nbound + npos))
    where = sorted(rng.permutation(nbound + npos)[:nbound].tolist())

    def f(lib, dims, x, b):
        ds = dims(nbound) if nbound > 1 else (dims(1),)
        idx = [slice(None)] * (nbound + npos)
        for d, w in zip(ds, where):
            idx[w] = d
        y = x[tuple(idx)]
        z = (y * b[ds[0]]).exp() + y
        return z.sum(ds[-1]).order(*ds[:-1]) if nbound > 1 else z.order(ds[0])
    run(f, shape, (shape[where[0]],))


def test_gradients_through_binding_and_batching():
    a = nt.rand(3, 4, dtype=nt.float64, requires_grad=True)
    b = nt.rand(4, 5, dtype=nt.float64, requires_grad=True)

    def f(a, b):
        i, j, k = ndim.dims(3)
        return ((a[i, k] * b[k, j]).sum(k).exp()).order(i, j)
    assert nt.autograd.gradcheck(f, (a, b))
    ta = torch.tensor(a.tolist(), dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b.tolist(), dtype=torch.float64, requires_grad=True)
    f(a, b).sum().backward()
    (ta @ tb).exp().sum().backward()
    same(a.grad, ta.grad)
    same(b.grad, tb.grad)


def test_binding_outlives_what_it_borrows():
    """t[i, k] borrows t's storage and the dims, which its object keeps: the view outlives
    the names bound to them, keeps them alive only as long as it lives, and a second holder
    (autograd, a list of C references) makes it an owner."""
    import gc
    import weakref
    a = nt.arange(12.).reshape(3, 4)
    want = a.tolist()
    i, k = ndim.dims(2)
    alive = weakref.ref(a)
    v = a[i, k]
    del a, i, k
    gc.collect()
    assert alive() is not None
    assert v.order(*v.dims).tolist() == want
    w = v + 0
    del v
    gc.collect()
    assert alive() is None
    assert w.order(*w.dims).tolist() == want
    b = nt.rand(3, 4, dtype=nt.float64)
    p, q = ndim.dims(2)
    held = b[p, q]
    held.requires_grad_()
    loss = (held * held).sum((p, q))
    del b, p, q
    gc.collect()
    loss.backward()
    assert held.grad.order(*held.grad.dims).tolist() == (2 * held).order(*held.dims).tolist()
    for shape in [(3, 4), (64, 64)]:  # a storage in the tensor's block, and one of its own
        src = nt.rand(*shape)
        want = src.tolist()
        r, s = ndim.dims(2)
        views = [src[r, s], src[r, s]]
        src.data = nt.zeros(2)  # moves off the storage the views borrow
        src.data = nt.ones(5)
        assert [x.order(r, s).tolist() for x in views] == [want, want]
        assert src.tolist() == [1.0] * 5
    t = nt.rand(2, 3)
    m, n = ndim.dims(2)
    kept = [t[m, n] for _ in range(3)]
    assert all(x.dims == (m, n) for x in kept) and nt.cat([x.order(m, n) for x in kept]).shape == (6, 3)


@pytest.mark.parametrize("spec", [
    ("ik", "kj", "k"), ("bik", "bkj", "k"), ("ik", "kj", "ik"), ("ijk", "k", "k"),
    ("ij", "jk", "ij"), ("i", "j", "i"), ("bhw", "bhw", "hw"), ("ik", "kj", "kj"),
    ("kib", "jbk", "k"), ("i", "i", "i")])
def test_contraction_groupings(spec):
    """(a * b).sum(dims) as one GEMM (the delayed product) equals the product summed, on
    several groupings of dims into batch / rows / columns / contracted / one side only."""
    sa, sb, ss = spec
    letters = sorted(set(sa + sb))
    ds = dict(zip(letters, ndim.dims(len(letters)) if len(letters) > 1 else (ndim.dims(1),)))
    sizes = {c: 2 + k for k, c in enumerate(letters)}
    a = nt.rand(*[sizes[c] for c in sa], dtype=nt.float64)
    b = nt.rand(*[sizes[c] for c in sb], dtype=nt.float64)
    x, y = a[tuple(ds[c] for c in sa)], b[tuple(ds[c] for c in sb)]
    sdims = tuple(ds[c] for c in ss)
    got = (x * y).sum(sdims)
    want = nt.mul(x, y).sum(sdims)
    keep = [ds[c] for c in letters if c not in ss]
    if keep:
        got, want = got.order(*keep), want.order(*keep)
    same(got, torch.tensor(want.tolist()))


def test_indexing_with_dims_examples():
    def embedding_bag(lib, dims, input, W):
        batch, sequence, features = dims(3)
        r = W[input[batch, sequence], features].sum(sequence)
        return r.order(batch, features)

    def roll(lib, dims, a):
        i = dims(1, sizes=[a.size(0)])
        return a[lib.where(i + 1 < i.size, i + 1, 0)].order(i)

    def flip(lib, dims, a):
        i = dims(1, sizes=[a.size(0)])
        return a[i.size - i - 1].order(i)

    def diff(lib, dims, a):
        i = dims(1)
        d = a[i] - a[i - 1]
        return lib.where(i - 1 >= 0, d, a[i]).order(i)

    def sequence_mask(lib, dims, values, length):
        j, i = dims(2)
        v = values[i, j]
        return lib.where(j < length[i], v, 0).order(i, j)

    idx = np.array([[1, 0, 4, 3], [2, 2, 0, 1]])
    W = np.random.default_rng(1).standard_normal((5, 2)).astype(np.float32)
    run_arrays(embedding_bag, idx, W)
    for fn in (roll, flip, diff):
        run(fn, (6,))
    vals = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    run_arrays(sequence_mask, vals, np.array([2, 0, 4]))


def test_relative_positional_embedding_and_multihead_attention():
    def rpe(lib, dims, q, k, w):
        batch, query_sequence, key_sequence, heads, features = dims(5)
        heads.size = 2
        q = q[batch, query_sequence, [heads, features]]
        k = k[batch, key_sequence, [heads, features]]
        distance = query_sequence - key_sequence
        n_embeddings = w.size(0)
        index_bias = n_embeddings // 2
        positional_embedding = w[distance + index_bias, features]
        sq = (q * positional_embedding).sum(features)
        sk = (k * positional_embedding).sum(features)
        return (sq + sk).order(batch, heads, key_sequence, query_sequence)
    run(rpe, (2, 3, 8), (2, 3, 8), (7, 4))

    def mha(lib, dims, q, k, v):
        batch, query_sequence, key_sequence, heads, features = dims(5)
        heads.size = 2
        q = q[batch, query_sequence, [heads, features]]
        k = k[batch, key_sequence, [heads, features]]
        v = v[batch, key_sequence, [heads, features]]
        scores = (q * k).sum(features) * (features.size ** -0.5)
        probs = scores.softmax(key_sequence)
        context = (probs * v).sum(key_sequence)
        return context.order(batch, query_sequence, [heads, features])
    run(mha, (2, 3, 8), (2, 5, 8), (2, 5, 8))


def test_gradients_contraction_order_indexing():
    """gradcheck through nt_dims_dot (a batched GEMM), order with a flattened group, the
    diagonal, softmax over a dim and indexing with a dim expression."""
    a = nt.rand(2, 3, 4, dtype=nt.float64, requires_grad=True)
    b = nt.rand(2, 4, 5, dtype=nt.float64, requires_grad=True)

    def contraction(a, b):
        n, i, j, k = ndim.dims(4)
        return (a[n, i, k] * b[n, k, j]).sum(k).softmax(j).order(n, (i, j))
    assert nt.autograd.gradcheck(contraction, (a, b))

    c = nt.rand(4, 4, dtype=nt.float64, requires_grad=True)

    def diag_shift(c):
        i = ndim.dims(1)
        d = c[i, i]
        return (d * c[i.size - i - 1, 0]).order(i)
    assert nt.autograd.gradcheck(diag_shift, (c,))


def test_unbatched_ops_fail_clearly():
    """Readers of memory refuse tensors with dims (never a wrong answer)."""
    i = ndim.dims(1)
    x = nt.rand(3, 4)[i]
    for fn, kind in ((lambda: x.as_strided((2, 2), (1, 1)), NotImplementedError),
                     (lambda: x.item(), NotImplementedError),
                     (lambda: x.tolist(), ValueError),
                     (lambda: memoryview(x), ValueError)):
        with pytest.raises(kind):
            fn()


def test_dims_arguments_are_checked_as_python_does():
    with pytest.raises(TypeError, match="multiple values for argument 'n'"):
        ndim.dims(2, n=2)
    with pytest.raises(TypeError, match="unexpected keyword argument 'm'"):
        ndim.dims(m=2)
    with pytest.raises(TypeError, match="at most 2 arguments"):
        ndim.dims(1, None, 3)
    a, b = ndim.dims(n=2, sizes=[3, None])
    assert (repr(a), a.size, b.is_bound) == ("a", 3, False)


def test_dims_call_sites_are_read_once_each():
    def site_one():
        first, second = ndim.dims()
        return first, second

    def site_two():
        x, y, z = ndim.dims()
        return x, y, z
    for _ in range(3):
        assert [repr(d) for d in site_one()] == ["first", "second"]
        assert [repr(d) for d in site_two()] == ["x", "y", "z"]
        unassigned = [ndim.dims(1)]
        assert repr(unassigned[0]) == "d0"


def test_delayed_product_other_uses_compute_it():
    """a * b of tensors with dims only is delayed: sum over dims is one GEMM, and every other
    use (other sums, arithmetic, attributes, printing, indexing) sees the product."""
    i, j, k = ndim.dims(3)
    a, b = nt.rand(3, 4, dtype=nt.float64), nt.rand(4, 5, dtype=nt.float64)
    p = a[i, k] * b[k, j]
    full = nt.mul(a[i, k], b[k, j])
    assert type(p).__name__ == "_DelayedMul"
    with pytest.raises(TypeError, match="cannot create"):
        type(p)()
    same(p.sum(k, keepdim=False).order(i, j), full.sum(k).order(i, j))
    same(p.sum((k,)).order(i, j), full.sum(k).order(i, j))
    same(p.sum(dim=k).order(i, j), full.sum(k).order(i, j))
    same((p + 1).order(i, j, k), (full + 1).order(i, j, k))
    same((2 * p).order(i, j, k), (full * 2).order(i, j, k))
    same(p.exp().order(i, j, k), full.exp().order(i, j, k))
    assert p.dims == full.dims and p.ndim == 0
    assert repr(p) == repr(full)
    q = a[i, k] * b[k, j]
    q.mean(k)  # computed once: a later sum over dims uses the value
    same(q.sum(k).order(i, j), full.sum(k).order(i, j))
    with pytest.raises(TypeError):
        hash(p)


def test_plain_index_past_the_positional_dims():
    """functorch's ValueError, counting positional dims only"""
    b, c = ndim.dims(2)
    x = nt.rand(2, 3, 4)[b, c]
    assert x[(0,)].shape == ()
    for t, idx, text in ((x, (0, 0), "at least 2 indices were supplied but the tensor only has 1"),
                         (nt.rand(2, 3)[b, c], 0, "at least 1 indices were supplied but the "
                                                   "tensor only has 0")):
        with pytest.raises(ValueError, match=text):
            t[idx]
