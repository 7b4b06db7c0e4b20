"""ntensor.nn.functional: the six functions the named-tensor reference lists, against
torch.nn.functional on named tensors (names, shapes, dtypes, values, errors)."""
import warnings

import pytest
import torch
import torch.nn.functional as tF

import ntensor as nt
import ntensor.nn.functional as ntF
from helpers import (EXP_ULPS, assert_close_dtype, assert_reduction, assert_same,
                     assert_same_error, from_torch)


def named(t):
    return t.refine_names("N", "C")


@pytest.mark.parametrize("name", ["relu", "tanh", "sigmoid"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_pointwise_functions_keep_names(name, dtype):
    """Names kept; relu's values exact, tanh's and sigmoid's within a few ulps (their bits
    depend on PyTorch's kernel: SLEEF or glibc)."""
    t = named(torch.randn(4, 5, dtype=dtype))
    x = from_torch(t)
    got, want = getattr(ntF, name)(x), getattr(tF, name)(t)
    if name == "relu":
        assert_same(got, want)
    else:
        assert_close_dtype(got, want, ulps=EXP_ULPS)


def test_relu_inplace_returns_its_input():
    t = torch.randn(3, 4)
    x = from_torch(t)
    y = ntF.relu(x, inplace=True)
    assert y is x
    assert_same(x, tF.relu(t))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", ["C", "N", 0, -1])
def test_softmax_by_name_or_index(fn, dim):
    """The dim by name or index; values within softmax's rounding bound (assert_reduction)."""
    t = named(torch.randn(6, 7))
    x = from_torch(t)
    assert_reduction(getattr(ntF, fn)(x, dim=dim), getattr(tF, fn)(t, dim=dim), fn, t, dim)


def test_softmax_dtype_argument_and_bad_name():
    t = named(torch.randn(3, 4))
    x = from_torch(t)
    assert_reduction(ntF.softmax(x, dim="C", dtype=nt.float64),
                     tF.softmax(t, dim="C", dtype=torch.float64), "softmax", t, "C")
    assert_same_error(lambda: ntF.softmax(x, dim="X"), lambda: tF.softmax(t, dim="X"))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_every_form_of_call(fn):
    """F.softmax's fast entry (module.c: dim_call) takes (input, dim) by position or dim=;
    every other form goes to the Python definition: the implicit dim with PyTorch's warning
    (pointing at the caller's line), dtype by position or keyword, _stacklevel, errors."""
    t = named(torch.randn(3, 4))
    x = from_torch(t)
    f, g = getattr(ntF, fn), getattr(tF, fn)
    for args, kwargs in [(("C",), {}), ((1,), {}), ((), {"dim": "N"}), ((), {"dim": -1}),
                         ((1, 3, torch.float64), {}), ((), {"dim": 0, "dtype": torch.float64}),
                         ((), {"dim": 0, "_stacklevel": 5})]:
        nt_kwargs = {k: nt.float64 if v is torch.float64 else v for k, v in kwargs.items()}
        nt_args = tuple(nt.float64 if a is torch.float64 else a for a in args)
        assert_reduction(f(x, *nt_args, **nt_kwargs), g(t, *args, **kwargs), fn, t,
                         args[0] if args else kwargs["dim"])
    with pytest.warns(UserWarning, match="Implicit dimension choice for " + fn) as record:
        got = f(x)
    assert record[0].filename == __file__
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert_reduction(got, g(t), fn, t, 1)
    assert_same_error(lambda: f(), lambda: g())
    assert_same_error(lambda: f(x, "C", bad=1), lambda: g(t, "C", bad=1))
    assert_same_error(lambda: f([1.0, 2.0], 0), lambda: g([1.0, 2.0], 0))
    assert_same_error(lambda: f(x, "X"), lambda: g(t, "X"))
    assert f.__name__ == fn and f.__doc__.startswith(fn + "(input, dim=None")


def test_softmax_calls_a_subclass_method():
    """F.softmax(x, dim) is x.softmax(dim): a subclass's own method is the one called."""
    class Sub(nt.Tensor):
        def softmax(self, dim, dtype=None):
            return ("Sub.softmax", dim)

    x = Sub(nt.rand(2, 3))
    assert ntF.softmax(x, 1) == ("Sub.softmax", 1)
    assert ntF.softmax(x, dim=0) == ("Sub.softmax", 0)


def test_dropout_training_flag_p_and_inplace():
    t = named(torch.ones(200, 50))
    x = from_torch(t)
    assert ntF.dropout(x, p=0.5, training=False) is x
    assert_same(ntF.dropout(x, p=0.0), tF.dropout(t, p=0.0))
    y = ntF.dropout(x, p=0.25)
    assert y.names == ("N", "C")
    values = y.rename(None).numpy()
    kept = values != 0
    assert abs(kept.mean() - 0.75) < 0.02  # 10,000 draws: 0.02 is about 5 sigma
    assert (abs(values[kept] - 1 / 0.75) < 1e-6).all()
    z = ntF.dropout(x, p=0.5, inplace=True)
    assert z is x and ((x.rename(None).numpy() == 0) | (x.rename(None).numpy() == 2)).all()
    assert_same_error(lambda: ntF.dropout(x, p=1.5), lambda: tF.dropout(t, p=1.5))


def test_functional_reachable_as_an_attribute():
    assert nt.nn.functional.softmax is ntF.softmax
