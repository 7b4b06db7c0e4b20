"""Exchange without copies: DLPack both ways with NumPy 1.24 and PyTorch 1.13 (memory shared,
capsules renamed on consumption and deleted once), the refused cases with clear errors,
as_tensor / tensor over objects with __dlpack__ or __array__, and from_numpy's warning for a
read-only array (PyTorch's text)."""
import gc
import os
import subprocess
import sys
import textwrap
import weakref

import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS


def test_dlpack_device_and_capsule():
    t = nt.ones(2)
    assert t.__dlpack_device__() == torch.ones(2).__dlpack_device__() == (1, 0)
    cap = t.__dlpack__()
    assert "dltensor" in repr(cap) and "used" not in repr(cap)
    assert t.__dlpack__(stream=None) is not None and t.__dlpack__(stream=1) is not None
    with pytest.raises(TypeError, match=r"stream must be ``int`` or ``none``"):
        t.__dlpack__(stream="x")


def test_versioned_capsule_of_dlpack_1():
    """__dlpack__(max_version=(1, x)) gives DLPack 1.0's versioned capsule, consumed once and
    renamed; older consumers (NumPy 1.24, PyTorch 1.13) still get the unversioned one."""
    t = nt.arange(6.0).reshape(2, 3)
    cap = t.__dlpack__(max_version=(1, 0))
    assert '"dltensor_versioned"' in repr(cap)
    u = nt.from_dlpack(cap)
    assert '"used_dltensor_versioned"' in repr(cap)
    assert u.data_ptr() == t.data_ptr() and u.tolist() == t.tolist()
    with pytest.raises(RuntimeError, match="consumed only once"):
        nt.from_dlpack(cap)
    assert '"dltensor"' in repr(t.__dlpack__(max_version=(0, 8)))
    v = nt.from_dlpack(t)  # asks for 1.x first
    assert v.data_ptr() == t.data_ptr()
    c = nt.from_dlpack(t.__dlpack__(max_version=(1, 0), copy=True))
    assert c.data_ptr() != t.data_ptr() and c.tolist() == t.tolist()
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    with pytest.raises(TypeError):
        t.__dlpack__(max_version=1)
    assert np.from_dlpack(t).tolist() == t.tolist()  # NumPy 1.24 asks without max_version
    t.__dlpack__(max_version=(1, 0))  # dropped unconsumed: its destructor deletes it


@pytest.mark.parametrize("ntd,td", [p for p in DTYPE_PAIRS if p[1] is not torch.bool])
def test_to_torch_shares_memory(ntd, td):
    x = nt.arange(6).to(ntd).reshape(2, 3).t()
    y = torch.utils.dlpack.from_dlpack(x.__dlpack__())
    assert y.dtype == td and y.shape == (3, 2) and y.stride() == x.stride()
    assert y.data_ptr() == x.data_ptr()
    y2 = torch.from_dlpack(x)
    assert y2.data_ptr() == x.data_ptr()
    x[0, 1] = 5
    assert y[0, 1].item() == 5


@pytest.mark.parametrize("ntd,td", [p for p in DTYPE_PAIRS if p[1] is not torch.bool])
def test_from_torch_shares_memory(ntd, td):
    t = torch.arange(6).to(td).reshape(2, 3)[:, 1:]
    x = nt.from_dlpack(t)
    assert x.dtype == ntd and x.shape == (2, 2) and x.stride() == t.stride()
    assert x.data_ptr() == t.data_ptr()
    x2 = nt.from_dlpack(torch.utils.dlpack.to_dlpack(t))
    assert x2.data_ptr() == t.data_ptr()
    t[1, 1] = 1
    assert x[1, 1].item() == 1


def test_numpy_both_ways_shares_memory():
    x = nt.arange(6.0).reshape(2, 3)
    a = np.from_dlpack(x)
    assert a.ctypes.data == x.data_ptr() and a.strides == (12, 4)
    x[0, 0] = 9  # NumPy 1.24 marks arrays from DLPack read-only
    assert a[0, 0] == 9
    b = np.arange(12, dtype=np.int32).reshape(3, 4)[:, ::2]
    y = nt.from_dlpack(b)
    assert y.data_ptr() == b.ctypes.data and y.stride() == (4, 2)
    b[2, 1] = -1
    assert y[2, 1].item() == -1


def test_the_producer_lives_while_the_consumer_does():
    t = torch.arange(4.0)
    ref = weakref.ref(t)
    x = nt.from_dlpack(t)
    del t
    gc.collect()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0]
    del x
    gc.collect()
    assert ref() is None  # the deleter ran: torch's tensor went away
    x = nt.arange(3.0)
    y = torch.from_dlpack(x)
    del x
    gc.collect()
    assert y.tolist() == [0.0, 1.0, 2.0]


def test_capsule_is_consumed_once():
    cap = nt.ones(2).__dlpack__()
    nt.from_dlpack(cap)
    assert "used_dltensor" in repr(cap)
    with pytest.raises(RuntimeError) as e:
        nt.from_dlpack(cap)
    with pytest.raises(RuntimeError) as te:
        torch.utils.dlpack.from_dlpack(cap)
    assert str(e.value) == str(te.value)
    with pytest.raises(RuntimeError) as e:
        nt.from_dlpack(1)
    assert str(e.value) == str(te.value)
    tcap = torch.ones(2).__dlpack__()
    nt.from_dlpack(tcap)
    assert "used_dltensor" in repr(tcap)
    del cap, tcap
    nt.ones(2).__dlpack__()  # dropped unconsumed: its destructor deletes it


def test_refused_cases():
    for lib in (torch, nt):  # same type and text as PyTorch's
        with pytest.raises(RuntimeError, match="Bool type is not supported by dlpack"):
            lib.ones(2, dtype=lib.bool).__dlpack__()
        with pytest.raises(RuntimeError,
                           match=r"Can't export tensors that require gradient, use "
                                 r"tensor.detach\(\)"):
            lib.ones(2, requires_grad=True).__dlpack__()
    # PyTorch 1.13 aborts the process on a negative stride; ntensor refuses
    with pytest.raises(ValueError, match="negative strides are not supported"):
        nt.from_dlpack(np.arange(4.0)[::-1])
    with pytest.raises(RuntimeError, match="unsupported dtype"):
        nt.from_dlpack(np.arange(3, dtype=np.uint16))
    ro = np.arange(3.0)
    ro.flags.writeable = False
    with pytest.raises(BufferError):  # NumPy refuses to export it: DLPack has no read-only flag
        nt.from_dlpack(ro)

    class OnGpu:
        def __dlpack_device__(self):
            return (2, 0)

        def __dlpack__(self, stream=None):
            raise AssertionError("not to be called")

    with pytest.raises(RuntimeError, match="CPU memory only"):
        nt.from_dlpack(OnGpu())


def test_names_do_not_ride_in_a_capsule():
    x = nt.ones(2, 3, names=("N", "C"))
    assert torch.from_dlpack(x).names == (None, None)
    assert nt.from_dlpack(x).names == (None, None)
    assert nt.from_dlpack(x).data_ptr() == x.data_ptr()


def test_as_tensor_and_tensor_take_a_torch_tensors_names_and_bools():
    t = torch.zeros(2, 3, names=("N", None))
    a = nt.as_tensor(t)
    assert a.names == ("N", None) and a.data_ptr() == t.data_ptr()
    assert nt.tensor(t).names == ("N", None)
    b = torch.tensor([True, False])  # no bool in DLPack 0.6: through __array__ (numpy())
    assert nt.as_tensor(b).data_ptr() == b.data_ptr()
    assert nt.tensor(b).tolist() == [True, False] and nt.tensor(b).dtype == nt.bool


def test_as_tensor_shares_and_tensor_copies():
    t = torch.arange(4.0)
    a = nt.as_tensor(t)
    assert a.data_ptr() == t.data_ptr()
    b = nt.tensor(t)
    assert b.data_ptr() != t.data_ptr() and b.tolist() == t.tolist()
    c = nt.as_tensor(t, dtype=nt.int64)
    assert c.dtype == nt.int64 and c.data_ptr() != t.data_ptr()
    x = nt.ones(2, names=("N",))
    assert nt.as_tensor(x) is x
    assert nt.as_tensor(x, dtype=nt.float32) is x
    n = np.arange(3)
    assert nt.as_tensor(n).data_ptr() == n.ctypes.data
    assert nt.as_tensor([1, 2], dtype=nt.float64).dtype == nt.float64
    assert nt.as_tensor(3).dtype == nt.int64 and torch.as_tensor(3).dtype == torch.int64

    class ArrayLike:
        def __init__(self):
            self.a = np.arange(3.0)

        def __array__(self, dtype=None):
            return self.a

    al = ArrayLike()
    assert nt.as_tensor(al).data_ptr() == al.a.ctypes.data
    assert nt.tensor(al).tolist() == [0.0, 1.0, 2.0]
    assert nt.tensor(al).data_ptr() != al.a.ctypes.data
    # PyTorch 1.13's as_tensor reads NumPy arrays and sequences only: from_dlpack, or
    # as_tensor over numpy.asarray (the buffer protocol), share an ntensor's memory
    x = nt.arange(3.0)
    assert torch.as_tensor(np.asarray(x)).data_ptr() == x.data_ptr()


def test_from_numpy_of_a_read_only_array_warns_once_as_pytorch():
    code = textwrap.dedent("""
        import warnings, numpy as np, torch, ntensor as nt
        a = np.arange(3.0); a.flags.writeable = False
        for lib in (torch, nt):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                t = lib.from_numpy(a); lib.from_numpy(a); lib.as_tensor(a)
                assert t.data_ptr() == a.ctypes.data
            assert len(w) == 1 and w[0].category is UserWarning, w
            print(str(w[0].message).split(" (Triggered internally")[0])
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            nt.tensor(a)
        assert not w
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=":".join(sys.path)))  # ASan's too
    assert out.returncode == 0, out.stderr
    torch_text, nt_text = out.stdout.strip().split("\n")
    assert nt_text == torch_text
