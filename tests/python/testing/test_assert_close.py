"""ntensor.testing.assert_close against torch.testing.assert_close (PyTorch 1.13): passing
cases pass in both, failing cases raise the same exception type with the same message; the
names check (check_names) is ntensor's own. make_tensor: dtype, shape, range, options."""
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS

NT_OF = {str(t): n for n, t in DTYPE_PAIRS}


def both(build):
    """The case's (actual, expected, kwargs) for ntensor and for torch."""
    return build(nt), build(torch)


# each: lib -> (actual, expected, kwargs)
CASES = {
    "equal floats": lambda lib: (lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.0]), {}),
    "within float32 tolerance": lambda lib: (
        lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.000001]), {}),
    "one of four off": lambda lib: (
        lib.tensor([1.0, 2.0, 3.0, 4.0]), lib.tensor([1.0, 2.5, 3.0, 4.0]), {}),
    "matrix off": lambda lib: (
        lib.tensor([[1.0, 2.0], [3.0, 4.0]]), lib.tensor([[1.0, 2.0], [3.5, 4.0]]), {}),
    "float64": lambda lib: (
        lib.tensor([1.0, 2.0], dtype=lib.float64), lib.tensor([1.0, 2.001], dtype=lib.float64),
        {}),
    "float16": lambda lib: (
        lib.tensor([1.0, 2.0], dtype=lib.float16), lib.tensor([1.0, 2.01], dtype=lib.float16),
        {}),
    "bfloat16 within": lambda lib: (
        lib.tensor([1.0, 2.0], dtype=lib.bfloat16), lib.tensor([1.0, 2.02], dtype=lib.bfloat16),
        {}),
    "ints exact": lambda lib: (lib.tensor([1, 2, 3]), lib.tensor([1, 2, 4]), {}),
    "bools": lambda lib: (lib.tensor([True, False]), lib.tensor([True, True]), {}),
    "scalar tensor": lambda lib: (lib.tensor(1.0), lib.tensor(1.5), {}),
    "given tolerances": lambda lib: (
        lib.tensor([1.0, 2.0]), lib.tensor([1.1, 2.0]), {"rtol": 0.0, "atol": 0.2}),
    "zero tolerances": lambda lib: (
        lib.tensor([1.0, 2.0]), lib.tensor([1.0, 2.5]), {"rtol": 0, "atol": 0}),
    "only rtol": lambda lib: (lib.tensor([1.0]), lib.tensor([1.0]), {"rtol": 0.1}),
    "nan": lambda lib: (lib.tensor([float("nan"), 1.0]), lib.tensor([float("nan"), 1.0]), {}),
    "nan equal": lambda lib: (
        lib.tensor([float("nan"), 1.0]), lib.tensor([float("nan"), 1.0]), {"equal_nan": True}),
    "inf": lambda lib: (lib.tensor([float("inf")]), lib.tensor([float("inf")]), {}),
    "dtype mismatch": lambda lib: (lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64), {}),
    "dtype unchecked": lambda lib: (
        lib.tensor([1.0]), lib.tensor([1.0], dtype=lib.float64), {"check_dtype": False}),
    "dtype unchecked, off": lambda lib: (
        lib.tensor([1, 2]), lib.tensor([1.0, 2.5]), {"check_dtype": False}),
    "shape mismatch": lambda lib: (lib.zeros(2, 3), lib.zeros(3, 2), {}),
    "stride checked": lambda lib: (
        lib.zeros(2, 3), lib.zeros(3, 2).t(), {"check_stride": True}),
    "stride unchecked": lambda lib: (lib.zeros(2, 3), lib.zeros(3, 2).t(), {}),
    "numbers close": lambda lib: (1.0, 1.0 + 1e-9, {}),
    "numbers off": lambda lib: (1.0, 1.5, {}),
    "int and float": lambda lib: (1, 1.0, {}),
    "int and float, dtype checked": lambda lib: (1, 1.0, {"check_dtype": True}),
    "booleans": lambda lib: (True, False, {}),
    "none": lambda lib: (None, None, {}),
    "none and tensor": lambda lib: (None, lib.zeros(1), {}),
    "list of tensors": lambda lib: (
        [lib.zeros(2), lib.ones(2)], [lib.zeros(2), lib.tensor([1.0, 3.0])], {}),
    "list lengths": lambda lib: ([lib.zeros(2)], [lib.zeros(2), lib.zeros(2)], {}),
    "dict": lambda lib: (
        {"a": lib.zeros(2), "b": {"c": lib.ones(1)}},
        {"a": lib.zeros(2), "b": {"c": lib.zeros(1)}}, {}),
    "dict keys": lambda lib: ({"a": 1, "b": 2}, {"a": 1, "c": 2}, {}),
    "tensor and list": lambda lib: (lib.tensor([1.0, 2.0]), [1.0, 2.0], {}),
    "unrelated types": lambda lib: ("a", 1, {}),
    "msg string": lambda lib: (lib.zeros(1), lib.ones(1), {"msg": "Argh!"}),
    "msg callable": lambda lib: (
        lib.zeros(1), lib.ones(1), {"msg": lambda m: "Header\n\n" + m + "\n\nFooter"}),
    "empty": lambda lib: (lib.zeros(0), lib.zeros(0), {}),
    "large diff index": lambda lib: (
        lib.arange(12.0).reshape(3, 4), lib.arange(12.0).reshape(3, 4) * 1.5, {}),
}


def outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type and text are compared
        return type(e), str(e).replace("ntensor.Tensor", "torch.Tensor")
    return None


@pytest.mark.parametrize("case", CASES)
def test_assert_close_matches_torch(case):
    (a, e, kw), (ta, te, tkw) = both(CASES[case])
    got = outcome(lambda: nt.testing.assert_close(a, e, **kw))
    want = outcome(lambda: torch.testing.assert_close(ta, te, **tkw))
    assert got == want


def test_names_are_compared():
    a, b = nt.zeros(2, 3, names=("N", "C")), nt.zeros(2, 3, names=("N", None))
    with pytest.raises(AssertionError) as info:
        nt.testing.assert_close(a, b)
    assert str(info.value) == ("The values for attribute 'names' do not match: "
                               "('N', 'C') != ('N', None).")
    nt.testing.assert_close(a, b, check_names=False)
    nt.testing.assert_close(a, a.clone())
    with pytest.raises(AssertionError, match=r"item \['x'\]"):
        nt.testing.assert_close({"x": a}, {"x": b})


def test_named_values_are_compared_by_position():
    a = nt.tensor([[1.0, 2.0], [3.0, 4.0]], names=("N", "C"))
    b = nt.tensor([[1.0, 2.0], [3.0, 5.0]], names=("N", "C"))
    t = torch.tensor([[1.0, 2.0], [3.0, 4.0]]), torch.tensor([[1.0, 2.0], [3.0, 5.0]])
    assert outcome(lambda: nt.testing.assert_close(a, b)) == \
        outcome(lambda: torch.testing.assert_close(*t))


@pytest.mark.parametrize("dtype", [nt.bool, nt.uint8, nt.int8, nt.int32, nt.int64,
                                   nt.float16, nt.bfloat16, nt.float32, nt.float64])
def test_make_tensor(dtype):
    t = nt.testing.make_tensor(3, 4, dtype=dtype)
    assert t.shape == (3, 4) and t.dtype == dtype
    if dtype is not nt.bool:
        assert float(t.min()) >= (0 if dtype is nt.uint8 else -9)
        assert float(t.max()) <= 10
    t = nt.testing.make_tensor((5, 6), dtype=dtype, low=1, high=3, noncontiguous=True,
                               exclude_zero=True, names=("N", "C"))
    assert t.shape == (5, 6) and t.names == ("N", "C") and not t.is_contiguous()
    if dtype is not nt.bool:
        assert float(t.min()) >= 1 and float(t.max()) <= 3
    assert nt.testing.make_tensor(2, dtype=nt.float32, requires_grad=True).requires_grad
