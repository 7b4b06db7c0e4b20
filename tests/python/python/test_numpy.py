"""NumPy exchange: from_numpy and numpy() share memory both ways (strides kept), tensor()
copies, the buffer protocol, and PyTorch's errors for what cannot be shared."""
import gc
import sys

import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, assert_same, assert_same_error

NP_DTYPES = [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64, np.longlong,
             np.float16, np.float32, np.float64]


def sample(dtype, shape=(3, 4)):
    a = (np.arange(int(np.prod(shape))).reshape(shape) % 7 - 2).astype(dtype)
    return a


@pytest.mark.parametrize("dtype", NP_DTYPES, ids=[d.__name__ for d in NP_DTYPES])
def test_from_numpy_every_dtype_shares_memory(dtype):
    a = sample(dtype)
    x, t = nt.from_numpy(a), torch.from_numpy(a)
    assert_same(x, t)
    assert x.data_ptr() == a.ctypes.data
    a[1, 2] = 1  # write through the array ...
    assert x.tolist()[1][2] == t.tolist()[1][2]
    x.numpy()[0, 0] = 0  # ... and through the tensor
    assert a[0, 0] == 0


@pytest.mark.parametrize("index", [
    (slice(None), slice(None, None, 2)), (slice(1, None), slice(None)), (1,),
    (slice(None, None, 2), slice(1, 3)), (Ellipsis,),
])
def test_from_numpy_keeps_strides(index):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)[index]
    x, t = nt.from_numpy(a), torch.from_numpy(a)
    assert x.shape == t.shape and x.stride() == t.stride()
    assert x.is_contiguous() == t.is_contiguous()
    assert x.data_ptr() == t.data_ptr()
    assert_same(x, t)


def test_from_numpy_transposed_and_high_dim():
    a = np.arange(120, dtype=np.int32).reshape(2, 3, 4, 5).transpose(3, 1, 0, 2)
    x, t = nt.from_numpy(a), torch.from_numpy(a)
    assert x.stride() == t.stride() and x.shape == t.shape
    assert x.tolist() == a.tolist()
    assert np.shares_memory(x.numpy(), a)


def test_from_numpy_zero_dim_and_empty():
    for a in [np.array(5.0), np.zeros((0, 3), dtype=np.int16), np.zeros((2, 0))]:
        assert_same(nt.from_numpy(a), torch.from_numpy(a))
    # strides of empty arrays are irrelevant (torch copies NumPy's (0, 0), the buffer says
    # otherwise); a 0-dim array has none
    assert nt.from_numpy(np.array(5.0)).stride() == ()


def test_from_numpy_readonly_array_is_shared():
    a = np.arange(3.0)
    a.setflags(write=False)
    x = nt.from_numpy(a)
    assert x.tolist() == [0.0, 1.0, 2.0] and x.data_ptr() == a.ctypes.data


def test_from_numpy_lifetimes():
    a = np.arange(1000, dtype=np.float64)
    before = sys.getrefcount(a)
    x = nt.from_numpy(a)
    assert sys.getrefcount(a) > before  # the buffer keeps the array alive
    del a
    gc.collect()
    assert x.numpy()[999] == 999.0
    y = x.view(10, 100)
    del x
    gc.collect()
    assert y.tolist()[9][99] == 999.0
    b = np.ones(4)
    before = sys.getrefcount(b)
    z = nt.from_numpy(b)
    del z
    gc.collect()
    assert sys.getrefcount(b) == before  # released when the last view dies


@pytest.mark.parametrize("make", [
    lambda: [1, 2],
    lambda: np.float32(1.0),
    lambda: np.zeros(3, dtype=np.uint16),
    lambda: np.zeros(3, dtype=np.uint32),
    lambda: np.zeros(3, dtype=np.uint64),
    lambda: np.array(["a"]),
    lambda: np.zeros(3, dtype=object),
    lambda: np.zeros(3, dtype="M8[s]"),
    lambda: np.zeros(3, dtype=np.longdouble),
    lambda: np.arange(6, dtype=np.int32)[::-1],
    lambda: np.arange(12, dtype=np.float32).reshape(3, 4)[:, ::-2],
    lambda: np.arange(4, dtype=np.int32).astype(">i4"),
    lambda: np.ndarray((2,), dtype=np.int32, buffer=np.zeros(10, dtype=np.uint8), offset=1,
                       strides=(3,)),
])
def test_from_numpy_errors_match_torch(make):
    a = make()
    assert_same_error(lambda: nt.from_numpy(a), lambda: torch.from_numpy(a))


def test_tensor_of_array_copies():
    for dtype in NP_DTYPES:
        a = sample(dtype)
        x = nt.tensor(a)
        assert_same(x, torch.tensor(a))
        assert x.data_ptr() != a.ctypes.data
        a[0, 0] = 1
        assert x.tolist()[0][0] == sample(dtype)[0, 0]
    a = np.arange(12).reshape(3, 4)[:, ::-1]  # negative strides are copied fine ... in torch?
    assert_same_error(lambda: nt.tensor(a), lambda: torch.tensor(a))
    b = np.arange(12.0).reshape(3, 4).T
    assert_same(nt.tensor(b), torch.tensor(b))
    assert nt.tensor(b).is_contiguous()
    assert_same(nt.tensor(b, dtype=nt.int8), torch.tensor(b, dtype=torch.int8))
    assert_same(nt.tensor(b, names=("A", "B")), torch.tensor(b, names=("A", "B")))
    assert_same_error(lambda: nt.tensor(np.zeros(2, dtype=np.uint16)),
                      lambda: torch.tensor(np.zeros(2, dtype=np.uint16)))


# ---------------------------------------------------------------- numpy() and the buffer

@pytest.mark.parametrize("ntd,td", [p for p in DTYPE_PAIRS if p[0] != nt.bfloat16])
def test_numpy_every_dtype_shares_memory(ntd, td):
    x = nt.tensor([[0, 1, 2], [3, 4, 5]], dtype=ntd)
    t = torch.tensor([[0, 1, 2], [3, 4, 5]], dtype=td)
    a, b = x.numpy(), t.numpy()
    assert a.dtype == b.dtype and a.shape == b.shape and a.strides == b.strides
    assert np.array_equal(a, b)
    assert a.ctypes.data == x.data_ptr()
    a[1, 1] = 0  # write through the array, read through the tensor
    assert x.tolist()[1][1] == (False if ntd == nt.bool else 0)
    x2 = nt.from_numpy(a)  # and round trip
    assert x2.data_ptr() == x.data_ptr() and x2.dtype == ntd


def test_numpy_of_strided_tensors():
    x, t = nt.arange(24.0).view(4, 6), torch.arange(24.0).view(4, 6)
    for f in [lambda v: v.t(), lambda v: v.narrow(1, 1, 3), lambda v: v.select(0, 2),
              lambda v: v.permute(1, 0).narrow(0, 2, 2), lambda v: v.view(2, 2, 6)]:
        a, b = f(x).numpy(), f(t).numpy()
        assert a.strides == b.strides and np.array_equal(a, b)
        assert np.shares_memory(a, x.numpy())
    x.t().numpy()[0, 3] = -1.0
    assert x.tolist()[3][0] == -1.0


def test_numpy_of_named_and_zero_dim_tensors():
    x = nt.zeros(2, 3, names=("N", "C"))
    t = torch.zeros(2, 3, names=("N", "C"))
    assert np.array_equal(x.numpy(), t.numpy())
    assert x.numpy(force=True).shape == (2, 3)
    s = nt.tensor(2.5)
    assert s.numpy().shape == () and s.numpy()[()] == 2.5


def test_numpy_keeps_tensor_alive():
    a = nt.arange(1000, dtype=nt.float64).numpy()
    gc.collect()
    assert a[999] == 999.0 and a.flags.writeable
    view = memoryview(nt.arange(6, dtype=nt.int32).view(2, 3).t())
    gc.collect()
    assert view.tolist() == [[0, 3], [1, 4], [2, 5]] and view.strides == (4, 12)


def test_bfloat16_cannot_go_to_numpy():
    x, t = nt.zeros(2, dtype=nt.bfloat16), torch.zeros(2, dtype=torch.bfloat16)
    assert_same_error(lambda: x.numpy(), lambda: t.numpy())
    assert_same_error(lambda: np.asarray(x), lambda: np.asarray(t))


def test_asarray_and_array_protocol():
    x = nt.arange(6).view(2, 3)
    a = np.asarray(x)
    assert a.dtype == np.int64 and np.shares_memory(a, x.numpy())
    f = np.asarray(x, dtype=np.float32)
    assert f.dtype == np.float32 and f.tolist() == [[0, 1, 2], [3, 4, 5]]
    assert np.array(x).tolist() == x.tolist()
    assert x.__array__().dtype == np.int64
    assert x.__array__(np.float64).dtype == np.float64
    assert np.sum(np.asarray(nt.ones(3, 4))) == 12.0


def test_memoryview_formats():
    for ntd, fmt in [(nt.bool, "?"), (nt.uint8, "B"), (nt.int8, "b"), (nt.int16, "h"),
                     (nt.int32, "i"), (nt.float16, "e"), (nt.float32, "f"), (nt.float64, "d")]:
        m = memoryview(nt.zeros(2, 3, dtype=ntd))
        assert m.format == fmt and m.shape == (2, 3) and not m.readonly
        assert m.itemsize == nt.zeros(1, dtype=ntd).element_size()
    assert memoryview(nt.zeros(2, dtype=nt.int64)).format in ("l", "q")


def test_round_trip_through_numpy_preserves_values():
    nt.manual_seed(0)
    for ntd in [nt.float16, nt.float32, nt.float64]:
        x = nt.randn(5, 7, dtype=ntd)
        y = nt.from_numpy(x.numpy().copy())
        assert y.tolist() == x.tolist() and y.dtype == x.dtype
