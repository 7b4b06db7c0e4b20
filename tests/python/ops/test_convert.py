"""Conversions and values out: to/float/double/..., type, type_as, detach, cpu, item, tolist,
the number protocol, and the attributes without autograd yet, against PyTorch 1.13."""
import operator

import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import DTYPE_PAIRS, TO_TORCH_DTYPE, assert_same, assert_same_error

# Values that exercise truncation, wrap-around, saturation to inf and the x86 "indefinite"
# integer of PyTorch's float->int conversions.
VALUES = [0.0, 1.0, -1.0, 2.5, -2.5, 0.1, 100.0, -100.0, 127.9, 200.0, 255.0, 300.0, 1e5,
          -1e5, 65504.0, 1e10, -3.7, 0.5]


def source_pair(ntd, td):
    """The same values in dtype td for torch and ntd for ntensor (built without to())."""
    t = torch.tensor(VALUES, dtype=torch.float64).to(td)
    if td == torch.bfloat16:
        x = nt.tensor(t.float().tolist(), dtype=nt.bfloat16)  # exact: values are bf16 already
    else:
        x = nt.from_numpy(t.numpy().copy())
    assert_same(x, t)
    return x, t


@pytest.mark.parametrize("src", DTYPE_PAIRS, ids=[str(p[1]) for p in DTYPE_PAIRS])
@pytest.mark.parametrize("dst", DTYPE_PAIRS, ids=[str(p[1]) for p in DTYPE_PAIRS])
def test_to_every_dtype_pair(src, dst):
    x, t = source_pair(*src)
    assert_same(x.to(dst[0]), t.to(dst[1]))


@pytest.mark.parametrize("src", DTYPE_PAIRS, ids=[str(p[1]) for p in DTYPE_PAIRS])
def test_named_methods_and_strided_input(src):
    x, t = source_pair(*src)
    x2, t2 = x.view(3, 6).t(), t.view(3, 6).t()
    for m in ["float", "double", "half", "bfloat16", "int", "long", "short", "char", "byte",
              "bool"]:
        assert_same(getattr(x, m)(), getattr(t, m)())
        assert_same(getattr(x2, m)(), getattr(t2, m)())


def test_conversion_keeps_names():
    x = nt.zeros(2, 3, names=("N", "C"))
    t = torch.zeros(2, 3, names=("N", "C"))
    for m in ["double", "int", "bool", "half"]:
        assert_same(getattr(x, m)(), getattr(t, m)())
    assert_same(x.to(nt.int8), t.to(torch.int8))


def test_same_dtype_returns_same_object():
    x = nt.zeros(2)
    assert x.float() is x
    assert x.to(nt.float32) is x
    assert x.to("cpu") is x
    assert x.to() is x
    assert x.cpu() is x
    assert x.type(nt.float32) is x
    assert x.type("torch.FloatTensor") is x
    assert x.type_as(nt.ones(1)) is x
    assert x.detach() is not x
    assert x.to(copy=True) is not x
    i = nt.arange(3)
    assert i.long() is i and i.int() is not i


def test_to_forms():
    x, t = nt.arange(4), torch.arange(4)
    assert_same(x.to(nt.float64), t.to(torch.float64))
    assert_same(x.to(dtype=nt.int8), t.to(dtype=torch.int8))
    assert_same(x.to("cpu", nt.float16), t.to("cpu", torch.float16))
    assert_same(x.to(nt.device("cpu"), nt.int32), t.to(torch.device("cpu"), torch.int32))
    assert_same(x.to(device="cpu", dtype=nt.bool), t.to(device="cpu", dtype=torch.bool))
    assert_same(x.to(nt.zeros(1, dtype=nt.int16)), t.to(torch.zeros(1, dtype=torch.int16)))
    assert_same(x.to(nt.int8, False, True), t.to(torch.int8, False, True))
    assert_same(x.to(float), t.to(float))
    c = x.to(copy=True)
    assert c.tolist() == x.tolist() and c.data_ptr() != x.data_ptr()
    c2 = x.to("cpu", nt.int64, copy=True)
    assert c2.data_ptr() != x.data_ptr()


def test_to_errors():
    x, t = nt.zeros(2), torch.zeros(2)
    assert_same_error(lambda: x.to("a"), lambda: t.to("a"))
    assert_same_error(lambda: x.to("cuda"), lambda: t.to("cuda"))
    with pytest.raises(TypeError):
        x.to([1])
    with pytest.raises(TypeError):
        x.to(nt.int8, dtype=nt.int16)


def test_to_is_bound_by_torchs_signatures():
    x, t = nt.zeros(2), torch.zeros(2)
    assert_same_error(lambda: x.to([1]), lambda: t.to([1]))
    assert_same_error(lambda: x.to("cpu", nt.int8, False, True, 1),
                      lambda: t.to("cpu", torch.int8, False, True, 1))
    assert_same_error(lambda: x.to("cpu", memory_format=1), lambda: t.to("cpu", memory_format=1))
    # a number where the tensor goes: PyTorch wraps it (float64, int64 or bool)
    for v in (1.5, True):
        assert str(x.to(v).dtype) == str(t.to(v).dtype)
    assert_same(x.to(nt.zeros(1, dtype=nt.int8), True), t.to(torch.zeros(1, dtype=torch.int8), True))


def test_type_and_type_as():
    for ntd, td in DTYPE_PAIRS:
        assert nt.zeros(2, dtype=ntd).type() == torch.zeros(2, dtype=td).type()
    x, t = nt.zeros(2), torch.zeros(2)
    assert_same(x.type("torch.DoubleTensor"), t.type("torch.DoubleTensor"))
    assert_same(x.type(nt.int32), t.type(torch.int32))
    assert_same(x.type(dtype=nt.uint8), t.type(dtype=torch.uint8))
    assert_same_error(lambda: x.type("foo"), lambda: t.type("foo"))
    assert_same(x.type_as(nt.zeros(1, dtype=nt.int8)), t.type_as(torch.zeros(1, dtype=torch.int8)))
    assert_same_error(lambda: x.type_as([1]), lambda: t.type_as([1]))
    assert_same_error(lambda: x.float(1), lambda: t.float(1))


def test_detach_and_data_share_memory():
    x = nt.zeros(2, 3, names=("N", "C"))
    for y in [x.detach(), x.data]:
        assert y.names == x.names and y.shape == x.shape
        assert y.data_ptr() == x.data_ptr()
        y.numpy()[0, 1] = 5.0
        assert x.tolist()[0][1] == 5.0
    assert x.detach_() is x


# ---------------------------------------------------------------- values out

@pytest.mark.parametrize("ntd,td", DTYPE_PAIRS)
def test_item_and_tolist_types(ntd, td):
    t = torch.tensor([[1, 0], [3, 7]], dtype=td)
    x = nt.tensor([[1, 0], [3, 7]], dtype=ntd)
    assert x.tolist() == t.tolist()
    assert [[type(v) for v in r] for r in x.tolist()] == [[type(v) for v in r] for r in t.tolist()]
    one_x, one_t = nt.tensor(3, dtype=ntd), torch.tensor(3, dtype=td)
    assert one_x.item() == one_t.item() and type(one_x.item()) is type(one_t.item())
    assert one_x.tolist() == one_t.tolist() and type(one_x.tolist()) is type(one_t.tolist())


def test_tolist_exact_values():
    vals = [0.1, -2.5, 1e-30, 3.4e38, float("inf"), float("-inf")]
    for ntd, td in [(nt.float32, torch.float32), (nt.float64, torch.float64),
                    (nt.float16, torch.float16), (nt.bfloat16, torch.bfloat16)]:
        t = torch.tensor(vals, dtype=td)
        assert nt.tensor(vals, dtype=ntd).tolist() == t.tolist()
    big = [2**62, -2**63, 2**63 - 1]
    assert nt.tensor(big).tolist() == torch.tensor(big).tolist()
    nan = nt.tensor([float("nan")]).tolist()[0]
    assert nan != nan


def test_tolist_shapes():
    for shape in [(), (0,), (2, 0), (0, 3), (2, 3, 4), (1, 1, 1, 1)]:
        t = torch.arange(int(np.prod(shape)) if shape else 1).reshape(shape)
        x = nt.arange(int(np.prod(shape)) if shape else 1).reshape(shape)
        assert x.tolist() == t.tolist()
    x, t = nt.arange(24).view(2, 3, 4), torch.arange(24).view(2, 3, 4)
    assert x.permute(2, 0, 1).tolist() == t.permute(2, 0, 1).tolist()
    assert x.transpose(0, 2).tolist() == t.transpose(0, 2).tolist()
    assert nt.zeros(2, names=("N",)).tolist() == [0.0, 0.0]


def test_item_errors():
    assert_same_error(lambda: nt.zeros(2, 2).item(), lambda: torch.zeros(2, 2).item())
    assert_same_error(lambda: nt.zeros(0).item(), lambda: torch.zeros(0).item())
    assert nt.zeros(1, 1, names=("N", "C")).item() == 0.0


@pytest.mark.parametrize("make", [
    lambda m: m.tensor(2.7), lambda m: m.tensor([-2.7]), lambda m: m.tensor([[3]]),
    lambda m: m.tensor(True), lambda m: m.tensor(0), lambda m: m.tensor(1e30),
    lambda m: m.tensor(float("nan")), lambda m: m.tensor(float("inf")),
    lambda m: m.tensor(5, dtype=m.int8), lambda m: m.tensor(2.5, dtype=m.float16),
    lambda m: m.tensor(-1.5, dtype=m.bfloat16), lambda m: m.zeros(2), lambda m: m.zeros(0),
    lambda m: m.tensor(255, dtype=m.uint8),
])
@pytest.mark.parametrize("fn", [float, int, bool, operator.index, complex],
                         ids=["float", "int", "bool", "index", "complex"])
def test_number_protocol(make, fn):
    x, t = make(nt), make(torch)
    try:
        expected = fn(t)
    except Exception:  # noqa: BLE001 - compare the error instead
        assert_same_error(lambda: fn(x), lambda: fn(t))
        return
    got = fn(x)
    assert type(got) is type(expected)
    assert got == expected or (got != got and expected != expected)


def test_index_use_and_dunder_methods():
    assert [10, 20, 30][nt.tensor(2)] == 30
    assert nt.tensor([4]).__index__() == 4
    assert nt.tensor(2.5).__float__() == 2.5
    assert nt.tensor(2.5).__int__() == 2
    assert nt.tensor(1).__bool__() is True
    assert_same_error(lambda: nt.zeros(1).__index__(), lambda: torch.zeros(1).__index__())


# ---------------------------------------------------------------- queries and attributes

@pytest.mark.parametrize("ntd,td", DTYPE_PAIRS)
def test_dtype_queries(ntd, td):
    x, t = nt.zeros(1, dtype=ntd), torch.zeros(1, dtype=td)
    assert x.is_floating_point() == t.is_floating_point()
    assert x.is_signed() == t.is_signed()
    assert x.is_complex() == t.is_complex()
    assert x.element_size() == t.element_size()


def test_device_attributes():
    x, t = nt.zeros(2), torch.zeros(2)
    assert repr(x.device) == repr(t.device) == "device(type='cpu')"
    assert str(x.device) == "cpu"
    assert x.device == "cpu"  # unlike torch.device, equal to its string (deliberate)
    assert x.device == nt.device("cpu") and x.device.type == "cpu" and x.device.index is None
    assert repr(nt.device("cpu:0")) == repr(torch.device("cpu:0"))
    assert repr(nt.device("cuda", 1)) == repr(torch.device("cuda", 1))
    assert repr(nt.device(0)) == repr(torch.device(0))
    assert hash(nt.device("cpu")) == hash(nt.device("cpu"))
    assert_same_error(lambda: nt.device("foo"), lambda: torch.device("foo"))
    for attr in ["is_cuda", "is_sparse", "requires_grad", "is_leaf", "grad", "is_quantized",
                 "is_meta", "grad_fn"]:
        assert getattr(x, attr) == getattr(t, attr), attr
    assert x.get_device() == t.get_device() == -1
    assert x.is_pinned() is t.is_pinned() is False
    assert x.is_shared() is t.is_shared() is False


@pytest.mark.parametrize("args", [("cpu",), ("cpu:0",), ("cuda:3",), ("cuda", 2), ("meta",),
                                  (1,), ("foo",), ("cpu:x",), ("cpu:",), ("cpu:-1",),
                                  ("cpu:+1",), ("cuda:1", 1), ("cuda", -1), ("cuda", 1.5),
                                  (3.5,), (None,), (), (True,), ("cpu", True), ("cpu", "x"),
                                  (3.5, 1), (0, 1), ("cpu", None)])
def test_device_constructor_against_torch(args):
    """ntensor.device parses as torch.device does: the same repr, str, type and index, or
    the same error."""
    try:
        want = torch.device(*args)
    except Exception:  # noqa: BLE001 - the error is what is compared
        assert_same_error(lambda: nt.device(*args), lambda: torch.device(*args))
        return
    got = nt.device(*args)
    assert (repr(got), str(got), got.type, got.index) == (repr(want), str(want), want.type,
                                                          want.index)


def test_device_is_a_value():
    """Equal to its string and to an equal device, hashed like its string, read-only,
    pickled by value, and the same object when made from a device."""
    import pickle
    d = nt.device("cuda", 1)
    assert d == "cuda:1" and d == nt.device("cuda:1") and d != "cuda:0" and d != 1
    assert hash(d) == hash("cuda:1") and len({d, nt.device("cuda:1"), "cuda:1"}) == 1
    assert nt.device(d) is d and pickle.loads(pickle.dumps(d)) == d
    with pytest.raises(AttributeError):
        d.index = 2
    assert_same_error(lambda: nt.zeros(2, device="cuda:1"), lambda: torch.zeros(2, device="cuda:1"))
    with pytest.raises(RuntimeError, match="cpu only, not on meta"):
        nt.zeros(2, device="meta")
    assert_same_error(lambda: nt.zeros(2, device=1.5), lambda: torch.zeros(2, device=1.5))
    with pytest.raises(TypeError, match="device must be str or ntensor.device, not float"):
        nt.tensor([1], device=1.5)
    assert nt.zeros(2, device=nt.device("cpu", 0)).device == "cpu"


def test_big_conversion_releases_gil_and_is_right():
    n = 1 << 17
    x = nt.arange(n, dtype=nt.float32)
    y = x.double()
    assert y.dtype == nt.float64 and float(y.numpy().sum()) == n * (n - 1) / 2
    h = x.to(nt.float16)
    assert np.array_equal(h.numpy(), np.arange(n, dtype=np.float32).astype(np.float16))
    assert TO_TORCH_DTYPE[h.dtype] == torch.float16
