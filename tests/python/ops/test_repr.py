"""repr(tensor) is PyTorch's, byte for byte, for tensors made by the factories (names,
dtypes, shapes, special values, summarisation, strided views)."""
import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import TO_NT_DTYPE, assert_same_error

CASES = [
    lambda m: m.zeros(2, 3, names=("N", "C")),
    lambda m: m.ones(2, 3, dtype=m.int32),
    lambda m: m.zeros(()),
    lambda m: m.tensor(3.5),
    lambda m: m.tensor(-7),
    lambda m: m.tensor(True),
    lambda m: m.zeros(0),
    lambda m: m.zeros(2, 0, names=("A", None)),
    lambda m: m.zeros(0, 3, dtype=m.int8),
    lambda m: m.arange(10),
    lambda m: m.arange(0, 1, 0.1),
    lambda m: m.arange(-5, 5, dtype=m.float64),
    lambda m: m.arange(2000),
    lambda m: m.arange(1001.0),
    lambda m: m.arange(24).view(2, 3, 4),
    lambda m: m.arange(24.0).view(2, 3, 4).permute(2, 0, 1),
    lambda m: m.arange(6).view(2, 3).t(),
    lambda m: m.full((2, 2), 1e10),
    lambda m: m.full((3,), 1e-10),
    lambda m: m.full((2,), 123456.789),
    lambda m: m.tensor([1.0, float("nan"), float("inf"), -float("inf")]),
    lambda m: m.tensor([0.1, 2.5, -3.25], dtype=m.float16),
    lambda m: m.tensor([0.1, 2.5, -3.25], dtype=m.bfloat16),
    lambda m: m.tensor([True, False, True]),
    lambda m: m.tensor([[1, -2], [300, 4]], dtype=m.int16),
    lambda m: m.tensor([200, 3], dtype=m.uint8),
    lambda m: m.tensor([1e-5, 1.0, 1e5]),
    lambda m: m.tensor([1.0, 2.0, 3.0], dtype=m.float64),
    lambda m: m.tensor([[1.5, 2], [3, 4]], names=("N", "C")),
    lambda m: m.tensor([1, 2, 3], names=("X",)),
    lambda m: m.full((2, 3), True, names=(None, "C")),
    lambda m: m.ones(1, 1, 1, 1, names=("A", "B", "C", "D")),
    lambda m: m.zeros(3, 40),
    lambda m: m.arange(100.0).view(10, 10),
    lambda m: m.arange(0, 10, 1 / 3),
    lambda m: m.tensor([-0.0, 0.0]),
    lambda m: m.tensor(2**62),
    lambda m: m.tensor([123456789.0, 1.0]),
]


@pytest.mark.parametrize("make", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_repr_matches_torch(make):
    assert repr(make(nt)) == repr(make(torch))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_repr_of_random_values_matches_torch(seed):
    nt.manual_seed(seed)
    for shape, ntd in [((4, 5), nt.float32), ((3, 3), nt.float64), ((2, 6), nt.float16),
                       ((30, 40), nt.float32)]:
        x = nt.randn(*shape, dtype=ntd)
        t = torch.from_numpy(x.numpy().copy())
        assert repr(x) == repr(t)
        assert str(x) == str(t)


def test_repr_of_numpy_backed_tensors():
    a = np.linspace(-3, 3, 13).reshape(13, 1).astype(np.float32)
    assert repr(nt.from_numpy(a)) == repr(torch.from_numpy(a))
    b = np.arange(12, dtype=np.int64).reshape(3, 4)[:, ::2]
    assert repr(nt.from_numpy(b)) == repr(torch.from_numpy(b))
    for dtype in [np.int8, np.uint8, np.int32, np.float64, np.bool_]:
        c = (np.arange(8) % 3).astype(dtype)
        x, t = nt.from_numpy(c), torch.from_numpy(c)
        assert repr(x) == repr(t)
        assert TO_NT_DTYPE[t.dtype] == x.dtype


@pytest.mark.parametrize("call", [
    lambda m: m.set_printoptions(1, 2, 3, 4, 5, 6, 7),
    lambda m: m.set_printoptions(4, precision=4),
    lambda m: m.set_printoptions(digits=4),
])
def test_set_printoptions_binds_its_arguments_like_python(call):
    # torch.set_printoptions is a Python function: Python's own TypeErrors
    assert_same_error(lambda: call(nt), lambda: call(torch))


def test_print_profiles_like_torch():
    x, t = nt.arange(12.0).reshape(3, 4) / 3, torch.arange(12.0).reshape(3, 4) / 3
    try:
        for profile in ("short", "bogus", "full", "default"):
            nt.set_printoptions(profile=profile)
            torch.set_printoptions(profile=profile)
            assert repr(x) == repr(t), profile
    finally:
        nt.set_printoptions(profile="default", sci_mode=None)
        torch.set_printoptions(profile="default", sci_mode=None)
