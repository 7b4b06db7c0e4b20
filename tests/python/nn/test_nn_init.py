"""ntensor.nn.init against torch.nn.init: gains, fans and errors exactly; the random fills by
their distributions: with a fixed seed, the sample mean and variance of n draws lie within 5
standard errors of the distribution's (so a correct fill cannot fail: the seeds are fixed, and
a wrong bound, scale or shift moves them by far more), and every draw lies in the support."""
import math
import warnings

import numpy as np
import pytest
import torch

import ntensor as nt
from ntensor import nn
from ntensor.nn import init

N = 200_000  # draws per statistical check


def _values(t):
    return np.array((t.rename(None) if t.has_names() else t).double().tolist()).ravel()


def assert_moments(t, mean, var, kurtosis=3.0):
    """The sample mean and variance of t's values within 5 standard errors of mean and var:
    se(mean) = sqrt(var / n), se(variance) = var * sqrt((kurtosis - 1) / n)."""
    v = _values(t)
    n = v.size
    assert abs(v.mean() - mean) <= 5 * math.sqrt(var / n), (v.mean(), mean)
    assert abs(v.var() - var) <= 5 * var * math.sqrt((kurtosis - 1) / n), (v.var(), var)


def assert_uniform(t, lo, hi):
    v = _values(t)
    assert v.min() >= lo and v.max() <= hi, (v.min(), v.max(), lo, hi)
    assert_moments(t, (lo + hi) / 2, (hi - lo) ** 2 / 12, kurtosis=1.8)


@pytest.mark.parametrize("args", [("linear",), ("conv2d",), ("sigmoid",), ("tanh",), ("relu",),
                                  ("leaky_relu",), ("leaky_relu", 0.2), ("leaky_relu", 3),
                                  ("selu",), ("conv_transpose3d",)])
def test_calculate_gain(args):
    assert init.calculate_gain(*args) == torch.nn.init.calculate_gain(*args)


@pytest.mark.parametrize("args", [("softplus",), ("leaky_relu", True), ("leaky_relu", "x")])
def test_calculate_gain_errors(args):
    with pytest.raises(ValueError) as want:
        torch.nn.init.calculate_gain(*args)
    with pytest.raises(ValueError, match="^" + str(want.value) + "$"):
        init.calculate_gain(*args)


@pytest.mark.parametrize("shape", [(2, 3), (4, 3, 5, 5), (6, 2, 7), (0, 3)])
def test_fans(shape):
    want = torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))
    assert init._calculate_fan_in_and_fan_out(nt.empty(shape)) == want
    named = nt.empty(shape, names=tuple("ABCD"[:len(shape)]))
    assert init._calculate_fan_in_and_fan_out(named) == want


@pytest.mark.parametrize("fn", [init.xavier_uniform_, init.xavier_normal_, init.kaiming_uniform_,
                                init.kaiming_normal_])
@pytest.mark.parametrize("shape", [(5,), ()])
def test_fan_errors(fn, shape):
    with pytest.raises(ValueError, match="^Fan in and fan out can not be computed for tensor "
                                         "with fewer than 2 dimensions$"):
        fn(nt.empty(shape))


def test_mode_error():
    with pytest.raises(ValueError) as want:
        torch.nn.init.kaiming_uniform_(torch.empty(2, 2), mode="fan_avg")
    with pytest.raises(ValueError) as got:
        init.kaiming_uniform_(nt.empty(2, 2), mode="fan_avg")
    assert str(got.value) == str(want.value)


def test_fills_return_the_tensor_and_keep_names():
    x = nt.empty(3, 4, names=("out", "in"))
    for fn, args in [(init.uniform_, ()), (init.normal_, ()), (init.trunc_normal_, ()),
                     (init.constant_, (2.5,)), (init.ones_, ()), (init.zeros_, ()),
                     (init.xavier_uniform_, ()), (init.xavier_normal_, ()),
                     (init.kaiming_uniform_, ()), (init.kaiming_normal_, ())]:
        assert fn(x, *args) is x
        assert x.names == ("out", "in") and x.dtype == nt.float32
    p = nn.Parameter(nt.empty(2, 2))
    assert init.constant_(p, 2.5) is p and _values(p).tolist() == [2.5] * 4
    assert _values(init.ones_(nt.empty(3, dtype=nt.float64))).tolist() == [1.0] * 3
    assert _values(init.zeros_(nt.empty(3))).tolist() == [0.0] * 3


def test_zero_element_tensors_warn():
    for fn in (init.kaiming_uniform_, init.kaiming_normal_):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            assert tuple(fn(nt.empty(0, 3)).shape) == (0, 3)


def test_seeded_fills_repeat():
    for fn in (init.uniform_, init.normal_, init.trunc_normal_, init.xavier_uniform_,
               init.kaiming_normal_):
        nt.manual_seed(7)
        a = _values(fn(nt.empty(50, 4)))
        nt.manual_seed(7)
        b = _values(fn(nt.empty(50, 4)))
        assert (a == b).all()


def test_uniform_and_normal():
    nt.manual_seed(1)
    assert_uniform(init.uniform_(nt.empty(N)), 0.0, 1.0)
    assert_uniform(init.uniform_(nt.empty(N, dtype=nt.float64), -3.0, 0.5), -3.0, 0.5)
    assert_moments(init.normal_(nt.empty(N)), 0.0, 1.0)
    assert_moments(init.normal_(nt.empty(N // 100, 100), 2.0, 0.5), 2.0, 0.25)


@pytest.mark.parametrize("shape,gain", [((400, 500), 1.0), ((100, 50, 3, 3), 2.0)])
def test_xavier(shape, gain):
    nt.manual_seed(2)
    fan_in, fan_out = init._calculate_fan_in_and_fan_out(nt.empty(shape))
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    a = math.sqrt(3.0) * std
    assert_uniform(init.xavier_uniform_(nt.empty(shape), gain=gain), -a, a)
    assert_moments(init.xavier_normal_(nt.empty(shape), gain=gain), 0.0, std ** 2)


@pytest.mark.parametrize("a,mode,nonlinearity", [(0, "fan_in", "leaky_relu"),
                                                 (math.sqrt(5), "fan_in", "leaky_relu"),
                                                 (0, "fan_out", "relu"), (0, "FAN_IN", "tanh"),
                                                 (0.1, "fan_out", "leaky_relu")])
def test_kaiming(a, mode, nonlinearity):
    nt.manual_seed(3)
    shape = (300, 700)
    fan = 700 if mode.lower() == "fan_in" else 300
    std = torch.nn.init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    x = init.kaiming_uniform_(nt.empty(shape), a=a, mode=mode, nonlinearity=nonlinearity)
    assert_uniform(x, -bound, bound)
    x = init.kaiming_normal_(nt.empty(shape), a=a, mode=mode, nonlinearity=nonlinearity)
    assert_moments(x, 0.0, std ** 2)


def _truncated_normal_moments(mean, std, a, b):
    phi = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2  # noqa: E731
    al, be = (a - mean) / std, (b - mean) / std
    z = cdf(be) - cdf(al)
    m = mean + std * (phi(al) - phi(be)) / z
    v = std ** 2 * (1 + (al * phi(al) - be * phi(be)) / z - ((phi(al) - phi(be)) / z) ** 2)
    return m, v


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (0.5, 2.0, -1.0, 3.0),
                                          (0.0, 0.02, -0.04, 0.04), (1.0, 1.0, 1.0, 4.0)])
def test_trunc_normal(mean, std, a, b):
    nt.manual_seed(4)
    x = init.trunc_normal_(nt.empty(N), mean=mean, std=std, a=a, b=b)
    v = _values(x)
    assert v.min() >= a and v.max() <= b
    m, var = _truncated_normal_moments(mean, std, a, b)
    assert_moments(x, m, var, kurtosis=4.0)  # a truncated normal's is below the half-normal's 3.87


def test_trunc_normal_warns_far_mean():
    with pytest.warns(UserWarning, match="mean is more than 2 std from"):
        init.trunc_normal_(nt.empty(10), mean=5.0, std=1.0, a=-1.0, b=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.trunc_normal_(nt.empty(10))


def test_deprecated_names_warn():
    with pytest.warns(UserWarning, match="nn.init.uniform is now deprecated in favor of "
                                         "nn.init.uniform_"):
        init.uniform(nt.empty(3))


def test_module_initialisation():
    nt.manual_seed(5)
    lin = nn.Linear(1000, 200)
    bound = 1 / math.sqrt(1000)
    assert_uniform(lin.weight, -bound, bound)  # kaiming_uniform_(a=sqrt(5))
    v = _values(lin.bias)
    assert v.min() >= -bound and v.max() <= bound and np.unique(v).size == 200
    assert lin.weight.dtype == nt.float32
    assert nn.Linear(2, 3, dtype=nt.float64).weight.dtype == nt.float64
    emb = nn.Embedding(2000, 100, padding_idx=-3)
    assert emb.padding_idx == 1997
    assert (_values(emb.weight[1997]) == 0).all()
    w = _values(emb.weight.rename(None))
    assert_moments(nt.tensor(np.delete(w, range(1997 * 100, 1998 * 100)).tolist()), 0.0, 1.0)
    norm = nn.LayerNorm((3, 4))
    assert _values(norm.weight).tolist() == [1.0] * 12 and _values(norm.bias).tolist() == [0.0] * 12
    assert norm.weight.shape == (3, 4)
    assert nn.LayerNorm(3, elementwise_affine=False).weight is None
