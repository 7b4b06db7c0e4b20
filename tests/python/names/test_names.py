"""The named-dimension methods (names, rename, rename_, refine_names, align_to, align_as,
flatten, unflatten) against PyTorch 1.13: names, shapes, strides, values, storage sharing
and every error's type and text. Where the spec deliberately differs from PyTorch (names
starting with '_', align_to on unnamed dims, flatten(start, end) on named tensors, ...), our
behaviour is tested directly."""
from collections import OrderedDict

import numpy as np
import pytest
import torch
from hypothesis import given, settings, strategies as st

import ntensor as nt
from helpers import assert_same, assert_same_error


def make(lib):
    """The tensors the cases use, built the same way in both libraries."""
    x = lib.arange(2 * 3 * 5 * 7, dtype=lib.float32).reshape(2, 3, 5, 7)
    return dict(
        x=x.refine_names("N", "C", "H", "W"),
        u=lib.arange(6, dtype=lib.float32).reshape(2, 3),
        p=lib.arange(8, dtype=lib.float32).reshape(2, 1, 4).refine_names("N", None, "W"),
        f=x.refine_names("N", "C", "H", "W").flatten(["H", "W"], "F"),
        s=lib.tensor(3.0),
        torch=lib, OrderedDict=OrderedDict,
    )


def check(expr):
    """Evaluates `expr` with ntensor and with torch; both must give the same tensor (names,
    shape, strides, dtype, values) or fail with the same exception type and text."""
    try:
        expected = eval(expr, make(torch))
    except Exception:  # noqa: BLE001 - then ntensor must fail the same way
        assert_same_error(lambda: eval(expr, make(nt)), lambda: eval(expr, make(torch)))
        return
    got = eval(expr, make(nt))
    if isinstance(expected, torch.Tensor):
        assert_same(got, expected)
        assert got.stride() == expected.stride(), (got.stride(), expected.stride())
    else:
        assert got == expected


NAMES_CASES = [
    "x.names", "u.names", "p.names", "s.names",
    # rename(*names)
    "x.rename(None)", "x.rename('a', 'b', 'c', 'd')", "x.rename(None, 'a', None, None)",
    "x.rename('...', 'h')", "x.rename('batch', ..., 'width')", "x.rename('...', 'a', 'b', 'c', 'd')",
    "u.rename('a', 'b')", "u.rename(None)", "s.rename()", "s.rename(None)",
    "x.rename()", "u.rename()", "x.rename('a', 'b')", "x.rename(None, None)",
    "x.rename('a', 'a', 'b', 'c')", "x.rename('a b', 'a', 'b', 'c')", "x.rename('a b', 'c')",
    "x.rename(1, 2, 3, 4)", "x.rename(['a', 'b', 'c', 'd'])", "x.rename('a', 'b', 1, 2)",
    "x.rename('...', 'h', ...)", "x.rename(..., 'a', 'b', 'c', 'd', 'e')",
    "u.rename('...', 'a', 'b', 'c')", "torch.zeros(2, 3, 4).rename('...', 'a', 'b', 'c', 'd')",
    # rename(**rename_map)
    "x.rename(N='batch')", "x.rename(N='batch', C='channels')", "x.rename(W='width', H='height')",
    "x.rename(N='C', C='N')", "x.rename(N=None)", "p.rename(W='w')",
    "x.rename(X='b')", "u.rename(X='b')", "x.rename(N='C')", "x.rename(N=1)", "x.rename(C=1)",
    "x.rename(N='a b')", "x.rename(**{'a b': 'q'})", "x.rename('a', N='b')",
    # rename_
    "x.rename_('a', N='q')", "x.rename_(X='q')", "x.rename_('a', 'b')",
    # refine_names
    "u.refine_names('a', 'b')", "u.refine_names(..., 'b')", "u.refine_names('a', ...)",
    "x.refine_names('N', 'C', 'H', 'W')", "x.refine_names(..., 'W')", "x.refine_names('N', '...')",
    "p.refine_names('N', 'b', 'W')", "p.refine_names(..., 'c', 'W')", "s.refine_names()",
    "x.refine_names('N', 'C', 'H', 'X')", "u.refine_names('a')", "u.refine_names('a', 'b', 'c')",
    "u.refine_names('...', 'a', 'b', 'c')", "u.refine_names(..., ...)", "u.refine_names(['a', 'b'])",
    "u.refine_names('a', 1)", "u.refine_names(1, 'a')", "u.refine_names()", "u.refine_names('a', 'a')",
    "p.refine_names('a', 'b', 'c')", "p.refine_names('N', 'W', 'b')", "u.refine_names('a b', 'c')",
    # align_to
    "x.align_to('W', 'N', 'C', 'H')", "x.align_to('W', ...)", "x.align_to('W', 'Z', ...)",
    "x.align_to(..., 'N')", "x.align_to('H', ..., 'C')", "x.align_to(...)", "x.align_to('W', 'N', 'C', 'H', 'Z')",
    "x.align_to('W', 'N', 'C', 'H', '...')", "x.align_to('Z', 'W', 'N', 'Y', 'C', 'H')",
    "x.align_to('W', 'N', 'C')", "x.align_to('W', 'N', 'C', 'X')", "x.align_to('W', 'N', 'C', 'H', 'N')",
    "x.align_to(..., 'N', ...)", "x.align_to()", "p.align_to('N', 'W', None)",
    "u.align_to('a', 'b')", "x.align_to(['W', 'N', 'C', 'H'])", "x.align_to('W', 1)",
    "x.align_to(..., 1)", "x.align_to(1, ...)", "x.align_to('a b', ...)",
    # align_as
    "x.rename(None).refine_names('C', 'N', 'W', 'H').align_as(x)",
    "torch.zeros(3, names=('N',)).align_as(x)", "torch.zeros(7, names=('W',)).align_as(p)",
    "x.align_as(torch.zeros(3, names=('N',)))", "p.align_as(x)", "x.align_as(p)",
    "torch.zeros(3, names=('N',)).align_as(u)", "torch.zeros(3, names=('N',)).align_as(1)",
    # flatten(dims, out_dim) and flatten(start, end, out_dim)
    "x.flatten(['C', 'H', 'W'], 'F')", "x.flatten(('C', 'H', 'W'), 'F')", "x.flatten(['N', 'C'], 'F')",
    "x.flatten(['N', 'C', 'H', 'W'], 'all')", "x.flatten(['C', 'H'], None)", "x.flatten(['C', 'H'], out_dim=None)",
    "x.flatten(dims=['C', 'H'], out_dim='F')", "x.flatten(1, 2, 'F')", "x.flatten('C', 'H', 'F')",
    "x.flatten(1, 2, None)", "x.flatten(1, 1)", "x.flatten(1, 1, 'F')",
    "x.transpose(1, 2).flatten(['H', 'C'], 'F')",
    "x.transpose(0, 3).flatten(['C', 'H'], 'F')", "x.narrow(3, 1, 3).flatten(['H', 'W'], 'F')",
    "x.flatten(['C', 'W'], 'F')", "x.flatten(['W', 'H'], 'F')", "x.flatten([], 'F')",
    "x.flatten(['C', 'X'], 'F')", "x.flatten(['C', 'H'])", "x.flatten(['C', 'H'], 'N')",
    "x.flatten(['C', 'H'], 1)", "x.flatten([1, 2], 'F')", "x.flatten(1, 2, 3)",
    "x.flatten(['C', 'H'], 'F', 'G')",
    "x.flatten('C', 'H', 'F', 1)", "x.flatten(2, 1)", "x.flatten(1, 5)", "x.flatten(2, 1, 'F')",
    "x.transpose(1, 2).flatten(['C', 'H'], 'F')", "u.flatten(0.0)", "u.flatten(foo=1)",
    # flatten of unnamed tensors
    "u.flatten()", "u.flatten(0, 0)", "u.flatten(1)", "u.flatten(start_dim=1)", "u.flatten(end_dim=0)",
    "u.t().flatten()", "s.flatten()", "torch.zeros(3).flatten()",
    # unflatten
    "f.unflatten('F', (('H', 5), ('W', 7)))", "f.unflatten('F', [('H', 5), ('W', 7)])",
    "f.unflatten('F', (('H', 5), ('W', -1)))", "f.unflatten('F', OrderedDict((('H', 5), ('W', 7))))",
    "f.unflatten('F', (('H', 5), (None, 7)))", "f.unflatten('F', (('H', 5, 1), ('W', 7)))",
    "f.unflatten('F', [('Q', 35)])", "f.unflatten('F', (('A', 5), ('B', 1), ('C', 7)))",
    "f.transpose(1, 2).unflatten('F', (('H', 5), ('W', 7)))",
    "f.unflatten('F', (('H', -1), ('W', -1)))", "f.unflatten('F', (('H', 4), ('W', 7)))",
    "f.unflatten('F', (('H', 4), ('W', -1)))", "f.unflatten('F', (('H', 0), ('W', -1)))",
    "f.unflatten('F', ())", "f.unflatten('F', (5, 7))", "f.unflatten(2, (5, 7))",
    "f.unflatten(2, torch.Size([5, 7]))", "f.unflatten('F', (('N', 5), ('W', 7)))",
    "f.unflatten('F', (('H', 5), (1, 7)))", "f.unflatten('F', ((1, 5), ('W', 7)))",
    "f.unflatten('F', (('H', 5.0), ('W', 7)))", "f.unflatten('F', (('H', 5), ('W', 7.0)))",
    "f.unflatten('F', (('H',), ('W', 7)))", "f.unflatten('F', ((), ('W', 7)))",
    "f.unflatten('F', (('H', 5), 7))", "f.unflatten('F', [('H', 5), ('W', 7), ('X', 1, 2)])",
    "f.unflatten('X', (('H', 5), ('W', 7)))", "f.unflatten('F', [35])", "f.unflatten('F', 35)",
    "f.unflatten('F', None)", "f.unflatten(1.0, (('H', 5), ('W', 7)))", "f.unflatten('F', {'H': 5, 'W': 7})",
    "x.unflatten(1, (3, 1))",
    "u.unflatten(1, (3, 1))", "u.unflatten(1, (-1,))", "u.unflatten(1, (-1, 1))", "u.unflatten(0, (1, 2))",
    "u.unflatten(-1, (1, 3))", "u.unflatten(dim=1, sizes=(3,))", "u.unflatten(1, torch.Size([3]))",
    "u.t().unflatten(0, (3, 1))",
    "u.unflatten(1, (-1, -1))", "u.unflatten(1, (4, -1))", "u.unflatten(1, (2, 2))",
    "u.unflatten(1, (1.0, 3))", "u.unflatten(1, (3, 1.0))", "u.unflatten(1, [])", "u.unflatten(1, 3)",
    "u.unflatten(1.0, (3,))", "u.unflatten(None, (3,))", "u.unflatten(2, (3,))", "u.unflatten(1)",
    "u.unflatten(1, (3,), 2)", "u.unflatten(1, sizes=(3,), dim=1)",
    "u.unflatten()",
    "torch.zeros(2, 0).unflatten(1, (0, -1))", "torch.zeros(2, 0).unflatten(1, (2, -1))",
    "torch.zeros(2, 6).unflatten(1, (0, -1))",
]


@pytest.mark.parametrize("expr", NAMES_CASES)
def test_same_as_torch(expr):
    check(expr)


# ---- the names attribute ----

def test_names_setter_renames_in_place():
    for lib in (nt, torch):
        x = lib.zeros(2, 3, names=("N", "C"))
        x.names = ["batch", None]
        assert x.names == ("batch", None)
        x.names = None
        assert x.names == (None, None) and not x.has_names()
        x.names = ("a", "b")
        assert x.names == ("a", "b") and x.has_names()


@pytest.mark.parametrize("value", [["a"], ["a", "a"], ["a b", "c"], ("a", "b", "c")])
def test_names_setter_errors(value):
    def assign(lib):
        x = lib.zeros(2, 3)
        x.names = value
    assert_same_error(lambda: assign(nt), lambda: assign(torch))


def test_names_of_views_are_their_own():
    x = nt.zeros(2, 3, names=("N", "C"))
    v = x.rename("a", "b")
    v.names = ["p", "q"]
    assert x.names == ("N", "C") and v.names == ("p", "q")


# ---- rename_ ----

def test_rename__returns_self_and_renames_in_place():
    x = nt.zeros(2, 3, names=("N", "C"))
    assert x.rename_("a", "b") is x
    assert x.names == ("a", "b")
    assert x.rename_(a="N") is x and x.names == ("N", "b")
    assert x.rename_(None) is x and x.names == (None, None)
    assert x.rename_(..., "W") is x and x.names == (None, "W")


def test_rename__failure_leaves_names():
    x = nt.zeros(2, 3, names=("N", "C"))
    with pytest.raises(RuntimeError):
        x.rename_("a", "a")
    assert x.names == ("N", "C")


# ---- storage sharing ----

def base_and_array():
    a = np.arange(2 * 3 * 4, dtype=np.float32).reshape(2, 3, 4)
    return a, nt.from_numpy(a)


@pytest.mark.parametrize("make_view", [
    lambda b: b.rename("N", "C", "W"),
    lambda b: b.refine_names("N", "C", "W").rename(None),
    lambda b: b.refine_names("N", "C", "W").rename(N="batch"),
    lambda b: b.refine_names("N", ..., "W"),
    lambda b: b.refine_names("N", "C", "W").align_to("W", "Z", ...),
    lambda b: b.refine_names("N", "C", "W").align_as(nt.zeros(1, 1, 1, 1, names=("Z", "W", "C", "N"))),
    lambda b: b.refine_names("N", "C", "W").flatten(["C", "W"], "F"),
    lambda b: b.refine_names("N", "C", "W").flatten(0, 1, "F"),
    lambda b: b.flatten(),
    lambda b: b.refine_names("N", "C", "W").unflatten("W", (("A", 2), ("B", 2))),
    lambda b: b.unflatten(2, (2, -1)),
])
def test_names_methods_return_views(make_view):
    a, base = base_and_array()
    v = make_view(base)
    assert v.data_ptr() == base.data_ptr()
    before = v.rename(None).tolist()
    a += 100  # writes through the shared buffer
    after = v.rename(None).tolist()
    assert np.array_equal(np.array(after), np.array(before) + 100)
    assert base.names == (None, None, None)


def test_flatten_of_non_contiguous_dims_copies():
    x = nt.arange(24).reshape(2, 3, 4).refine_names("A", "B", "C").transpose("A", "C")
    y = x.flatten(["B", "A"], "F")
    t = torch.arange(24).reshape(2, 3, 4).refine_names("A", "B", "C").transpose("A", "C")
    assert_same(y, t.flatten(["B", "A"], "F"))
    assert y.is_contiguous()


# ---- where the spec differs from PyTorch ----

@pytest.mark.parametrize("call", [
    lambda x: x.rename(N="_a"),
    lambda x: x.rename("_a", "C"),
    lambda x: x.refine_names("_a", "C"),
    lambda x: x.flatten(["N", "C"], "_f"),
    lambda x: x.align_to("_a", ...),
])
def test_names_starting_with_underscore_are_invalid(call):
    x = nt.zeros(2, 3, names=("N", "C"))
    with pytest.raises(RuntimeError, match="may not start with an underscore. got: '_"):
        call(x)
    assert x.names == ("N", "C")


def test_names_setter_rejects_non_names():
    # PyTorch: "names must either be None or a tuple of dim names" (RuntimeError)
    x = nt.zeros(2, 3)
    with pytest.raises((TypeError, RuntimeError)):
        x.names = [1, "c"]
    assert x.names == (None, None)


def test_names_setter_rejects_underscore():
    x = nt.zeros(2, 3)
    with pytest.raises(RuntimeError, match="underscore"):
        x.names = ["_a", "b"]


@pytest.mark.parametrize("expr, index", [
    ("p.align_to('N', ...)", 1), ("u.align_to(...)", 0), ("p.align_to(..., 'W')", 1),
    ("p.align_as(x)", 1),
])
def test_align_needs_every_dim_named(expr, index):
    env = make(nt)
    with pytest.raises(RuntimeError) as info:
        eval(expr, env)
    assert f"All input dims must be named. Found unnamed dim at index {index} of Tensor[" in str(info.value)


def test_align_to_of_fully_named_tensor_with_ellipsis():
    x = nt.zeros(2, 3, 4, names=("A", "B", "C"))
    assert x.align_to("C", ...).names == ("C", "A", "B")
    assert x.align_to("C", ...).shape == (4, 2, 3)


def test_flatten_of_one_named_dim_leaves_input_alone():
    # PyTorch 1.13 renames the input itself here (x.flatten(['C'], 'F') mutates x.names)
    x = nt.zeros(2, 3, 5, names=("N", "C", "H"))
    y = x.flatten(["C"], "F")
    assert y.names == ("N", "F", "H") and y.shape == (2, 3, 5)
    assert x.names == ("N", "C", "H")


@pytest.mark.parametrize("args, names, shape", [
    ((0, -1, "all"), ("all",), (210,)),  # PyTorch 1.13 fails here with a wrong name count
    ((1, "H", "F"), ("N", "F", "W"), (2, 15, 7)),  # an index and a name mixed
    (("C", 2, "F"), ("N", "F", "W"), (2, 15, 7)),
    ((), (None,), (210,)),
    ((1,), ("N", None), (2, 105)),
    ((1, 2), ("N", None, "W"), (2, 15, 7)),
    (("C", "H"), ("N", None, "W"), (2, 15, 7)),
    ((0, -2), (None, "W"), (30, 7)),
    ((2, 2), ("N", "C", "H", "W"), (2, 3, 5, 7)),
])
def test_positional_flatten_of_named_tensor(args, names, shape):
    # PyTorch refuses (_reshape_alias); the spec keeps the names of dims it keeps
    x = make(nt)["x"]
    y = x.flatten(*args)
    assert y.names == names and tuple(y.shape) == shape
    dims = [a if isinstance(a, int) else "NCHW".index(a) for a in args[:2]]
    expected = torch.arange(210.).reshape(2, 3, 5, 7).flatten(*dims)
    assert y.rename(None).tolist() == expected.tolist()


def test_flatten_of_one_dim_is_self():
    for lib in (nt, torch):
        u = lib.zeros(2, 3)
        assert u.flatten(0, 0) is u
        assert u.flatten(1, -1) is u
        assert u.flatten(0, 1) is not u


@pytest.mark.parametrize("dim", [2, -1])
def test_unflatten_takes_an_index_with_a_namedshape(dim):
    # PyTorch only takes a name there; the spec's dim is Union[int, str]
    f = make(nt)["f"]
    y = f.unflatten(dim, (("H", 5), ("W", 7)))
    assert y.names == ("N", "C", "H", "W") and y.shape == (2, 3, 5, 7)
    assert y.rename(None).tolist() == torch.arange(210.).reshape(2, 3, 5, 7).tolist()


def test_unflatten_of_unnamed_tensor_with_namedshape():
    u = make(nt)["u"]
    y = u.unflatten(1, (("a", 3), ("b", 1)))
    assert y.names == (None, "a", "b") and y.shape == (2, 3, 1)
    assert y.rename(None).tolist() == [[[0.0], [1.0], [2.0]], [[3.0], [4.0], [5.0]]]


# ---- randomised round trips against torch ----

NAME_POOL = ["A", "B", "C", "D", "E", "F", "G"]


@st.composite
def named_shapes(draw, all_named=False, min_rank=0):
    rank = draw(st.integers(min_rank, 5))
    sizes = draw(st.lists(st.integers(1, 3), min_size=rank, max_size=rank))
    names = draw(st.permutations(NAME_POOL))[:rank]
    if not all_named:
        keep = draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
        names = [n if k else None for n, k in zip(names, keep)]
    return sizes, list(names)


def both(sizes, names):
    n = int(np.prod(sizes)) if sizes else 1
    a = nt.arange(n, dtype=nt.float32).reshape(*sizes) if sizes else nt.tensor(0.0)
    b = torch.arange(n, dtype=torch.float32).reshape(*sizes) if sizes else torch.tensor(0.0)
    if any(names):
        a, b = a.refine_names(*names), b.refine_names(*names)
    return a, b


@settings(max_examples=150, deadline=None)
@given(named_shapes(), st.data())
def test_refine_names_round_trip(shape, data):
    sizes, names = shape
    a, b = both(sizes, [None] * len(sizes))
    target = [n if n is not None else data.draw(st.sampled_from([None, "Z"])) for n in names]
    if target.count("Z") > 1:
        target = [n if n != "Z" else None for n in target]
    cut = data.draw(st.integers(0, len(target)))
    with_ellipsis = target[:cut] + [...] + target[cut + data.draw(st.integers(0, len(target) - cut)):]
    for args in (target, with_ellipsis):
        got, expected = a.refine_names(*args), b.refine_names(*args)
        assert_same(got, expected)
        assert_same(got.refine_names(*expected.names), expected.refine_names(*expected.names))
        assert_same(got.rename(None), expected.rename(None))


@settings(max_examples=150, deadline=None)
@given(named_shapes(all_named=True), st.data())
def test_align_to_round_trip(shape, data):
    sizes, names = shape
    a, b = both(sizes, names)
    extra = [n for n in NAME_POOL if n not in names][: data.draw(st.integers(0, 2))]
    order = data.draw(st.permutations(names + extra))
    got, expected = a.align_to(*order), b.align_to(*order)
    assert_same(got, expected)
    assert got.stride() == expected.stride()
    back = got.align_to(*names + extra) if extra else got.align_to(*names)
    assert_same(back, expected.align_to(*names + extra) if extra else expected.align_to(*names))
    if order:
        k = data.draw(st.integers(0, len(order) - 1))
        ell = list(order[:k]) + [...]
        assert_same(a.align_to(*ell), b.align_to(*ell))


@settings(max_examples=150, deadline=None)
@given(named_shapes(all_named=True, min_rank=1), st.data())
def test_flatten_unflatten_round_trip(shape, data):
    sizes, names = shape
    a, b = both(sizes, names)
    start = data.draw(st.integers(0, len(names) - 1))
    end = data.draw(st.integers(start, len(names) - 1))
    dims = names[start:end + 1]
    # (PyTorch renames its input when flattening one dim, so each torch call gets a fresh b)
    got, expected = a.flatten(dims, "Z"), both(sizes, names)[1].flatten(dims, "Z")
    assert_same(got, expected)
    assert got.stride() == expected.stride()
    namedshape = [(n, s) for n, s in zip(dims, sizes[start:end + 1])]
    if data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(namedshape) - 1))
        namedshape[i] = (namedshape[i][0], -1)
    back = got.unflatten("Z", namedshape)
    assert_same(back, expected.unflatten("Z", namedshape))
    assert_same(back, both(sizes, names)[1])
    got3, exp3 = a.flatten(start, end, "Z"), both(sizes, names)[1].flatten(start, end, "Z")
    assert_same(got3, exp3)


@settings(max_examples=100, deadline=None)
@given(named_shapes(min_rank=1), st.data())
def test_unflatten_plain_sizes_of_unnamed(shape, data):
    sizes, _ = shape
    a, b = both(sizes, [None] * len(sizes))
    dim = data.draw(st.integers(-len(sizes), len(sizes) - 1))
    n = sizes[dim]
    split = [d for d in range(1, n + 1) if n % d == 0]
    first = data.draw(st.sampled_from(split))
    new = [first, n // first]
    if data.draw(st.booleans()):
        new[data.draw(st.integers(0, 1))] = -1
    assert_same(a.unflatten(dim, new), b.unflatten(dim, new))
