"""The layers' forward against torch.nn with the same weights (loaded through
load_state_dict): Linear (names flow: leading names kept, the last dim unnamed), ReLU, GELU,
LayerNorm, Embedding, Dropout (by its distribution: zeros with probability p, the rest scaled by
1/(1-p); the identity in eval mode), Sequential and ModuleList as containers. The forwards run
under no_grad: they compare values (the parameters require grad; test_nn_module_grads.py has the
gradients). A layer whose nn.functional function is not built yet is skipped."""
import math

import numpy as np
import pytest
import torch

import ntensor as nt
from ntensor import nn
from ntensor.nn import functional as F

from helpers import assert_close_dtype, assert_same, from_torch, to_torch


def needs(name):
    return pytest.mark.skipif(not hasattr(F, name), reason="F.%s is not built yet" % name)


@pytest.fixture(autouse=True)
def _no_grad():
    with nt.no_grad():
        yield


def copy_weights(module, tmodule):
    """Loads tmodule's state into module (both libraries' modules of the same tree)."""
    module.load_state_dict({k: from_torch(v.detach()) for k, v in tmodule.state_dict().items()})


def _plain(t):
    return t.rename(None) if any(n is not None for n in t.names) else t


@needs("linear")
@pytest.mark.parametrize("shape,bias", [((5, 7), True), ((2, 3, 7), False), ((7,), True)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_linear_matches_torch(shape, bias, dtype):
    torch.manual_seed(0)
    t = torch.nn.Linear(7, 4, bias=bias).to(dtype)
    m = nn.Linear(7, 4, bias=bias).to(from_torch(torch.zeros(1, dtype=dtype)).dtype)
    copy_weights(m, t)
    x = torch.randn(shape, dtype=dtype)
    want = t(x).detach()
    got = m(from_torch(x))
    scale = (x.abs() @ t.weight.detach().abs().t()).double()
    if bias:
        scale += t.bias.detach().abs().double()
    assert_close_dtype(got.detach(), want, n_terms=8, scale=scale)


@needs("linear")
def test_linear_names_flow():
    m = nn.Linear(3, 2)
    x = nt.randn(4, 5, 3, names=("N", "T", "C"))
    y = m(x)
    assert y.names == ("N", "T", None) and tuple(y.shape) == (4, 5, 2)
    y = m(nt.randn(3, names=("C",)))
    assert y.names == (None,)


def test_relu_matches_torch():
    x = torch.randn(4, 6).refine_names("N", "C")
    for inplace in (False, True):
        got = nn.ReLU(inplace=inplace)(from_torch(x))
        assert_same(got, torch.nn.ReLU()(x))
    xn = from_torch(x)
    assert nn.ReLU(inplace=True)(xn) is xn


@needs("gelu")
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_matches_torch(approximate):
    x = torch.randn(50, dtype=torch.float64) * 3
    got = nn.GELU(approximate)(from_torch(x))
    assert_close_dtype(got, torch.nn.GELU(approximate)(x), ulps=8)


@needs("layer_norm")
@pytest.mark.parametrize("shape,normalized", [((4, 6), 6), ((2, 3, 4), (3, 4))])
def test_layer_norm_matches_torch(shape, normalized):
    torch.manual_seed(1)
    t = torch.nn.LayerNorm(normalized)
    with torch.no_grad():
        t.weight.normal_()
        t.bias.normal_()
    m = nn.LayerNorm(normalized)
    copy_weights(m, t)
    x = torch.randn(shape)
    n = math.prod(t.normalized_shape)
    want = t(x).detach()
    assert_close_dtype(m(from_torch(x)).detach(), want, n_terms=4 * n,
                       scale=want.abs().double() + 1)


@needs("embedding")
def test_embedding_matches_torch():
    t = torch.nn.Embedding(10, 3, padding_idx=2)
    m = nn.Embedding(10, 3, padding_idx=2)
    copy_weights(m, t)
    idx = torch.tensor([[1, 2, 9], [0, 0, 4]])
    assert_same(m(from_torch(idx)).detach(), t(idx).detach())


def test_dropout_eval_is_identity_and_train_distribution():
    x = nt.full((200_000,), 3.0, names=("N",))
    d = nn.Dropout(0.3)
    d.eval()
    y = d(x)
    assert y.names == ("N",) and _values_equal(y, x)
    d.train()
    nt.manual_seed(0)
    y = d(x)
    assert y.names == ("N",)
    v = np.array(y.rename(None).tolist())
    kept = v != 0
    assert np.allclose(v[kept], 3.0 / 0.7)
    n, p = v.size, 0.3
    assert abs((~kept).sum() - n * p) <= 5 * math.sqrt(n * p * (1 - p))
    assert _values_equal(nn.Dropout(0.0)(x), x)
    assert (np.array(nn.Dropout(1.0)(x).rename(None).tolist()) == 0).all()


def test_dropout_inplace_and_errors():
    x = nt.ones(10)
    assert nn.Dropout(0.5, inplace=True)(x) is x
    for p in (-0.1, 1.5):
        with pytest.raises(ValueError) as want:
            torch.nn.Dropout(p)
        with pytest.raises(ValueError, match="^" + str(want.value).replace(".", r"\.") + "$"):
            nn.Dropout(p)


def _values_equal(a, b):
    return _plain(a).tolist() == _plain(b).tolist()


def test_sequential_indexing_and_forward():
    mods = [nn.ReLU(), nn.Identity(), nn.Dropout(0.0)]
    s = nn.Sequential(*mods)
    assert len(s) == 3 and s[0] is mods[0] and s[-1] is mods[2]
    assert isinstance(s[1:], nn.Sequential) and list(s[1:]) == mods[1:]
    assert [k for k, _ in s[1:].named_children()] == ["1", "2"]  # torch keeps the keys too
    assert [k for k, _ in torch.nn.Sequential(torch.nn.ReLU(), torch.nn.ReLU(),
                                              torch.nn.ReLU())[1:].named_children()] == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        s[3]
    s.append(nn.ReLU())
    s.insert(0, nn.Identity())
    assert [type(m).__name__ for m in s] == ["Identity", "ReLU", "Identity", "Dropout", "ReLU"]
    del s[1]
    assert [k for k, _ in s.named_children()] == ["0", "1", "2", "3"]
    s.extend([nn.Identity()])
    assert len(s) == 5 and len(s + s) == 10 and len(s * 2) == 10
    x = nt.tensor([-1.0, 2.0], names=("C",))
    assert _values_equal(s(x), nt.tensor([0.0, 2.0]))
    ts = torch.nn.Sequential(torch.nn.ReLU())
    ns = nn.Sequential(nn.ReLU())
    with pytest.raises(ValueError) as want:
        ts + 1
    with pytest.raises(ValueError) as got:
        ns + 1
    assert str(got.value) == str(want.value)


def test_sequential_from_ordered_dict_names():
    from collections import OrderedDict
    s = nn.Sequential(OrderedDict([("first", nn.ReLU()), ("second", nn.Identity())]))
    t = torch.nn.Sequential(OrderedDict([("first", torch.nn.ReLU()),
                                         ("second", torch.nn.Identity())]))
    assert repr(s) == repr(t)
    assert s.first is s[0] and s.second is s[-1]


def test_module_list():
    ml = nn.ModuleList([nn.ReLU(), nn.Identity()])
    tl = torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.Identity()])
    for lst, lib in ((ml, nn), (tl, torch.nn)):
        lst.append(lib.ReLU())
        lst.extend([lib.Identity(), lib.ReLU()])
        lst.insert(1, lib.Dropout())
        lst += [lib.Identity()]
        lst[0] = lib.GELU()
        del lst[2]
    assert repr(ml) == repr(tl)
    assert len(ml) == len(tl) == 6
    assert [type(m).__name__ for m in ml] == [type(m).__name__ for m in tl]
    assert ml[-1] is ml[5] and isinstance(ml[1:3], nn.ModuleList) and len(ml[1:3]) == 2
    assert [k for k, _ in ml.named_modules()] == [k for k, _ in tl.named_modules()]
    with pytest.raises(IndexError, match="index 6 is out of range"):
        ml[6]
    with pytest.raises(TypeError) as want:
        tl.extend(3)
    with pytest.raises(TypeError) as got:
        ml.extend(3)
    assert str(got.value) == str(want.value)
    with pytest.raises(NotImplementedError) as want:
        tl(1)
    with pytest.raises(NotImplementedError) as got:
        ml(1)
    assert str(got.value) == str(want.value)


def test_module_dict():
    md = nn.ModuleDict({"a": nn.ReLU(), "b": nn.Identity()})
    td = torch.nn.ModuleDict({"a": torch.nn.ReLU(), "b": torch.nn.Identity()})
    md["c"] = nn.Dropout()
    td["c"] = torch.nn.Dropout()
    assert repr(md) == repr(td) and list(md) == list(td) and "a" in md
    assert md.pop("a") is not None and list(md.keys()) == ["b", "c"]


def test_to_torch_roundtrip_of_a_parameter():
    p = nn.Parameter(nt.tensor([1.0, 2.0]), requires_grad=False)
    assert_same(p.detach(), to_torch(p.detach()))
