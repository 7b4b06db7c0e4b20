"""The Tensor type against PyTorch 1.13: its legacy constructor (Tensor(...), also for
subclasses), Tensor._make_subclass, one Python object per tensor, subclass reprs, t.layout and
ntensor.strided, is_nonzero / bool(t), and tensor(data, names=) for named data.

Subclasses: ops on a subclass instance return the subclass, as PyTorch's default
__torch_function__ makes them (tests/python/python/test_subclass.py has the protocol)."""
import warnings

import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, assert_same, assert_same_error

warnings.filterwarnings("ignore", message="Named tensors")


class NtSub(nt.Tensor):
    pass


class TorchSub(torch.Tensor):
    pass


def lib_sub(lib):
    return NtSub if lib is nt else TorchSub


# ------------------------------------------------------------------ the legacy constructor

CTOR_CASES = {
    "nothing": lambda lib: (),
    "sizes": lambda lib: (2, 3),
    "one size": lambda lib: (4,),
    "zero size": lambda lib: (0, 2),
    "Size": lambda lib: (lib.Size([2, 5]),),
    "list of ints": lambda lib: ([1, 2, 3],),
    "nested list": lambda lib: ([[1, 2], [3, 4]],),
    "list of floats": lambda lib: ([1.5, -2.0],),
    "list of bools": lambda lib: ([True, False],),
    "tuple is data": lambda lib: ((2, 3),),
    "empty list": lambda lib: ([],),
    "ndarray": lambda lib: (np.array([[1, 2], [3, 4]], dtype=np.int32),),
}


@pytest.mark.parametrize("case", CTOR_CASES)
@pytest.mark.parametrize("sub", [False, True], ids=["Tensor", "subclass"])
def test_legacy_constructor_matches_torch(case, sub):
    args_nt, args_t = CTOR_CASES[case](nt), CTOR_CASES[case](torch)
    x = (NtSub if sub else nt.Tensor)(*args_nt)
    t = (TorchSub if sub else torch.Tensor)(*args_t)
    assert type(x) is (NtSub if sub else nt.Tensor)
    assert tuple(x.shape) == tuple(t.shape)
    assert str(x.dtype) == str(t.dtype)
    if not (case in ("nothing", "sizes", "one size", "zero size", "Size")):  # uninitialised
        assert_same(nt.Tensor(x) if sub else x, torch.Tensor(t) if sub else t)


def test_legacy_constructor_device_is_accepted():
    assert tuple(nt.Tensor(2, 3, device="cpu").shape) == (2, 3)
    assert tuple(NtSub([1.0], device="cpu").shape) == (1,)


def test_legacy_constructor_of_a_tensor_is_an_alias():
    for dtype in (nt.int64, nt.float64, nt.bool):
        x = nt.zeros(2, 3, dtype=dtype, names=("a", "b"))
        t = torch.zeros(2, 3, dtype=TO_TORCH[dtype], names=("a", "b"))
        y, u = nt.Tensor(x), torch.Tensor(t)
        assert y is not x
        assert y.data_ptr() == x.data_ptr() and u.data_ptr() == t.data_ptr()
        assert str(y.dtype) == str(u.dtype) and y.names == u.names
        s = NtSub(x)
        assert type(s) is NtSub and s.data_ptr() == x.data_ptr()


TO_TORCH = dict(DTYPE_PAIRS)

CTOR_ERRORS = {
    "str": lambda lib: lib.Tensor("ab"),
    "float": lambda lib: lib.Tensor(1.5),
    "ragged": lambda lib: lib.Tensor([[1, 2], [3]]),
    "negative size": lambda lib: lib.Tensor(2, -1),
}


@pytest.mark.parametrize("case", CTOR_ERRORS)
def test_legacy_constructor_errors_match_torch(case):
    assert_same_error(lambda: CTOR_ERRORS[case](nt), lambda: CTOR_ERRORS[case](torch))


LEGACY_INVALID = {
    "dtype": lambda lib: lib.Tensor(2, dtype=lib.int64),
    "names": lambda lib: lib.Tensor(2, names=("a",)),
    "list and int": lambda lib: lib.Tensor([1, 2], 3),
    "unknown keyword": lambda lib: lib.Tensor(x=1),
    "float size": lambda lib: lib.Tensor(2, 1.5),
    "tensor and device": lambda lib: lib.Tensor(lib.zeros(2), device="cpu"),
}


@pytest.mark.parametrize("case", LEGACY_INVALID)
def test_legacy_constructor_invalid_combinations(case):
    # bound by PyTorch's own signatures: its texts, "didn't match" notes included
    assert_same_error(lambda: LEGACY_INVALID[case](nt), lambda: LEGACY_INVALID[case](torch))


# ------------------------------------------------------------------ subclasses

def test_subclass_instances_keep_their_type_and_attributes():
    p = NtSub([1.0, 2.0])
    p.tag = "w"
    assert p.tag == "w" and isinstance(p, nt.Tensor)
    assert p.positive() is p  # the same tensor comes back as the same object
    assert p.add_(1) is p and type(p) is NtSub
    out = NtSub(2)
    assert nt.abs(p, out=out) is out
    # ops return the subclass, as PyTorch's default __torch_function__ makes them
    assert type(p + 1) is NtSub and type(p.abs()) is NtSub and type(p[0]) is NtSub
    assert type(TorchSub([1.0]) + 1) is TorchSub


def test_make_subclass_aliases_data():
    for lib in (nt, torch):
        base = lib.ones(2, 3)
        p = lib.Tensor._make_subclass(lib_sub(lib), base)
        assert type(p) is lib_sub(lib)
        assert p.data_ptr() == base.data_ptr() and tuple(p.shape) == (2, 3)
    p = nt.Tensor._make_subclass(NtSub, nt.zeros(2, names=("x",)), False)
    assert p.names == ("x",)
    with pytest.raises(TypeError):
        nt.Tensor._make_subclass(int, nt.zeros(2))
    with pytest.raises(TypeError):
        nt.Tensor._make_subclass(NtSub, [1, 2])


SUB_REPRS = {
    "vector": lambda lib: [1.0, 2.0],
    "matrix": lambda lib: [[1.0, 2.0], [3.0, 4.0]],
    "float64": lambda lib: lib.tensor([[1, 2], [3, 4]], dtype=lib.float64),
    "named": lambda lib: lib.zeros(2, 2, names=("a", "b")),
    "empty": lambda lib: [],
    # rows wrapped at the line width left after the subclass's own prefix
    "long rows": lambda lib: lib.arange(30.0).reshape(2, 15),
}


SUB_CLASSES = [(type(name, (nt.Tensor,), {}), type(name, (torch.Tensor,), {}))
               for name in ("LongerName", "Q")]


@pytest.mark.parametrize("case", SUB_REPRS)
@pytest.mark.parametrize("classes", SUB_CLASSES, ids=["long", "short"])
def test_subclass_repr_matches_torch(case, classes):
    x, t = classes[0](SUB_REPRS[case](nt)), classes[1](SUB_REPRS[case](torch))
    assert repr(x) == repr(t)


# ------------------------------------------------------------------ layout

def test_layout_is_strided():
    assert repr(nt.strided) == repr(torch.strided) == "torch.strided"
    assert str(nt.strided) == str(torch.strided)
    assert type(nt.strided) is nt.layout and type(torch.strided) is torch.layout
    for x in (nt.zeros(2, 3), nt.zeros(2, 3).t(), nt.tensor(1.5), nt.zeros(2, names=("a",))):
        assert x.layout is nt.strided
    import pickle
    assert pickle.loads(pickle.dumps(nt.strided)) is nt.strided
    assert pickle.loads(pickle.dumps(torch.strided)) is torch.strided


# ------------------------------------------------------------------ is_nonzero, bool(t)

NONZERO_CASES = {
    "one": lambda lib: lib.tensor([2]),
    "zero": lambda lib: lib.tensor([0]),
    "0-dim": lambda lib: lib.tensor(3.5),
    "negative zero": lambda lib: lib.tensor(-0.0),
    "nan": lambda lib: lib.tensor(float("nan")),
    "inf": lambda lib: lib.tensor(float("-inf")),
    "bool": lambda lib: lib.tensor([True]),
    "false": lambda lib: lib.tensor(False),
    "1x1x1": lambda lib: lib.ones(1, 1, 1, dtype=lib.int8),
    "named": lambda lib: lib.zeros(1, 1, names=("a", "b")),
    "half": lambda lib: lib.tensor([0.5], dtype=lib.float16),
    "bfloat16": lambda lib: lib.tensor([0.0], dtype=lib.bfloat16),
}


@pytest.mark.parametrize("case", NONZERO_CASES)
def test_is_nonzero_matches_torch(case):
    x, t = NONZERO_CASES[case](nt), NONZERO_CASES[case](torch)
    assert nt.is_nonzero(x) is torch.is_nonzero(t)
    assert x.is_nonzero() is t.is_nonzero()
    assert bool(x) is bool(t)


NONZERO_ERRORS = {
    "empty": lambda lib: lib.tensor([]),
    "two": lambda lib: lib.tensor([1, 2]),
    "empty 2-d": lambda lib: lib.zeros(0, 3),
    "named two": lambda lib: lib.zeros(2, names=("a",)),
}


@pytest.mark.parametrize("case", NONZERO_ERRORS)
def test_is_nonzero_errors_match_torch(case):
    x, t = NONZERO_ERRORS[case](nt), NONZERO_ERRORS[case](torch)
    assert_same_error(lambda: nt.is_nonzero(x), lambda: torch.is_nonzero(t))
    assert_same_error(lambda: x.is_nonzero(), lambda: t.is_nonzero())
    assert_same_error(lambda: bool(x), lambda: bool(t))


def test_is_nonzero_argument_errors_match_torch():
    assert_same_error(lambda: nt.is_nonzero(3), lambda: torch.is_nonzero(3))
    assert_same_error(lambda: nt.is_nonzero(), lambda: torch.is_nonzero())
    with pytest.raises(TypeError, match=r"is_nonzero\(\) takes no arguments \(1 given\)"):
        nt.tensor([1]).is_nonzero(1)


# ------------------------------------------------------------------ tensor(named, names=)

NAMES_CASES = {
    "same": (("a", "b"), ("a", "b")),
    "other": (("a", "b"), ("c", "d")),
    "swapped": (("a", "b"), ("b", "a")),
    "fewer": (("a", "b"), ("a",)),
    "more": (("a", "b"), ("a", "b", "c")),
    "None given": (("a", "b"), (None, "b")),
    "partly named data": ((None, "b"), ("a", "b")),
    "partly named, same": ((None, "b"), (None, "b")),
    "unnamed data": (None, ("x", "y")),
    "unnamed data, fewer": (None, ("x",)),
    "no names=": (("a", "b"), None),
}


@pytest.mark.parametrize("case", NAMES_CASES)
@pytest.mark.parametrize("dtype", [None, "int64"])
def test_tensor_of_named_data_checks_names_as_torch(case, dtype):
    data_names, names = NAMES_CASES[case]

    def make(lib):
        x = lib.arange(6).reshape(2, 3).float()
        if data_names is not None:
            x = x.refine_names(*data_names)
        kw = {} if dtype is None else {"dtype": getattr(lib, dtype)}
        return lib.tensor(x, names=names, **kw)

    try:
        t = make(torch)
    except RuntimeError:
        assert_same_error(lambda: make(nt), lambda: make(torch))
        return
    assert_same(make(nt), t)
