"""Helpers shared by the Python tests: compare an ntensor result with PyTorch's."""
import numpy as np
import torch

import ntensor as nt

DTYPE_PAIRS = [
    (nt.bool, torch.bool), (nt.uint8, torch.uint8), (nt.int8, torch.int8),
    (nt.int16, torch.int16), (nt.int32, torch.int32), (nt.int64, torch.int64),
    (nt.float16, torch.float16), (nt.bfloat16, torch.bfloat16),
    (nt.float32, torch.float32), (nt.float64, torch.float64),
]
TO_TORCH_DTYPE = {a: b for a, b in DTYPE_PAIRS}
TO_NT_DTYPE = {b: a for a, b in DTYPE_PAIRS}


def to_torch(x):
    """A torch tensor with the same values, dtype and names as the ntensor `x` (a copy)."""
    values = x.rename(None).tolist() if x.has_names() else x.tolist()
    t = torch.tensor(values, dtype=TO_TORCH_DTYPE[x.dtype])
    return t.refine_names(*x.names) if x.has_names() else t


def from_torch(t):
    """An ntensor with the same values, dtype and names as the torch tensor `t`."""
    values = t.rename(None).tolist()
    x = nt.tensor(values, dtype=TO_NT_DTYPE[t.dtype])
    return x.refine_names(*t.names) if any(n is not None for n in t.names) else x


def assert_same(x, t, exact=True, rtol=1e-6, atol=1e-6):
    """Asserts that ntensor `x` and torch `t` agree on names, shape, dtype and values."""
    assert x.names == t.names, (x.names, t.names)
    assert tuple(x.shape) == tuple(t.shape), (x.shape, t.shape)
    assert x.dtype == TO_NT_DTYPE[t.dtype], (x.dtype, t.dtype)
    a = np.array(x.rename(None).tolist() if x.has_names() else x.tolist())
    b = np.array(t.rename(None).float().tolist() if t.dtype == torch.bfloat16
                 else t.rename(None).tolist())
    if exact:
        assert np.array_equal(a, b, equal_nan=True), (a, b)
    else:
        assert np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=True), (a, b)


def assert_same_error(nt_fn, torch_fn, exc_type=None):
    """Asserts both calls raise the same exception type with the same message."""
    try:
        torch_fn()
    except Exception as e:  # noqa: BLE001 - the oracle decides which type
        torch_exc = e
    else:
        raise AssertionError("torch raised nothing")
    try:
        nt_fn()
    except Exception as e:  # noqa: BLE001
        assert type(e) is type(torch_exc), (type(e), type(torch_exc), str(e))
        assert str(e) == str(torch_exc), (str(e), str(torch_exc))
        if exc_type is not None:
            assert type(e) is exc_type
    else:
        raise AssertionError(f"ntensor raised nothing; torch raised {torch_exc!r}")
