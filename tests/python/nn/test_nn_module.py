"""ntensor.nn.Module and Parameter against torch.nn: the same module trees give the same
parameter, buffer and module names in the same order, the same state_dict keys, the same
printed text, the same hook order, train/eval propagation and load_state_dict errors; to()
converts parameters in place, keeping the Parameter objects."""
import copy
from collections import OrderedDict

import pytest
import torch

import ntensor as nt
from ntensor import nn

from helpers import assert_same, from_torch


class Net:
    """The same small network in either library: a module with parameters, buffers (one
    non-persistent), a shared submodule, a None parameter and nested containers."""

    @staticmethod
    def build(lib):
        class Block(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(4, 3)
                self.act = lib.nn.ReLU()
                self.register_buffer("running", lib.zeros(3))
                self.register_buffer("scratch", lib.ones(2), persistent=False)
                self.register_parameter("unused", None)

            def forward(self, x):
                return self.act(self.fc(x))

        class Top(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()
                self.shared = self.block.fc  # the same Linear twice
                self.seq = lib.nn.Sequential(
                    lib.nn.Linear(3, 2, bias=False), lib.nn.GELU(approximate="tanh"),
                    lib.nn.Sequential(OrderedDict([("norm", lib.nn.LayerNorm(2)),
                                                   ("drop", lib.nn.Dropout(0.1))])))
                self.heads = lib.nn.ModuleList([lib.nn.Linear(2, 2), lib.nn.Identity()])
                self.emb = lib.nn.Embedding(5, 4, padding_idx=0)
                self.scale = lib.nn.Parameter(lib.ones(1))

        return Top()


@pytest.fixture
def nets():
    return Net.build(nt), Net.build(torch)


def _shapes(items):
    return [(k, tuple(v.shape)) for k, v in items]


def test_named_parameters_names_shapes_and_order(nets):
    a, b = nets
    assert _shapes(a.named_parameters()) == _shapes(b.named_parameters())
    assert _shapes(a.named_parameters(prefix="m")) == _shapes(b.named_parameters(prefix="m"))
    assert _shapes(a.named_parameters(recurse=False)) == _shapes(b.named_parameters(recurse=False))
    assert len(list(a.parameters())) == len(list(b.parameters()))
    # the shared Linear's parameters come once
    assert len({id(p) for p in a.parameters()}) == len(list(a.parameters()))


def test_buffers_children_and_modules(nets):
    a, b = nets
    assert _shapes(a.named_buffers()) == _shapes(b.named_buffers())
    assert [k for k, _ in a.named_children()] == [k for k, _ in b.named_children()]
    assert [k for k, _ in a.named_modules()] == [k for k, _ in b.named_modules()]
    assert ([k for k, _ in a.named_modules(remove_duplicate=False)]
            == [k for k, _ in b.named_modules(remove_duplicate=False)])
    assert ([type(m).__name__ for m in a.modules()] == [type(m).__name__ for m in b.modules()])
    assert len(list(a.children())) == len(list(b.children()))


def test_state_dict_keys_and_values(nets):
    a, b = nets
    sa, sb = a.state_dict(), b.state_dict()
    assert isinstance(sa, OrderedDict)
    assert list(sa.keys()) == list(sb.keys())
    assert list(sa._metadata.keys()) == list(sb._metadata.keys())
    for k, v in sa.items():
        assert type(v) is nt.Tensor, k  # detached aliases, not the Parameters
    assert sa["block.fc.weight"].data_ptr() == a.block.fc.weight.data_ptr()
    kept = a.state_dict(keep_vars=True)
    assert kept["block.fc.weight"] is a.block.fc.weight
    assert list(a.state_dict(prefix="p.").keys()) == list(b.state_dict(prefix="p.").keys())


def test_repr_matches_torch(nets):
    a, b = nets
    assert repr(a) == repr(b)
    assert str(a.seq) == str(b.seq)
    for args in [dict(), dict(p=0.0, inplace=True), dict(p=1)]:
        assert repr(nn.Dropout(**args)) == repr(torch.nn.Dropout(**args))
    assert repr(nn.ReLU(inplace=True)) == repr(torch.nn.ReLU(inplace=True))
    assert repr(nn.LayerNorm([2, 3], eps=1e-3, elementwise_affine=False)) == repr(
        torch.nn.LayerNorm([2, 3], eps=1e-3, elementwise_affine=False))
    assert repr(nn.Embedding(5, 2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True)) == repr(
        torch.nn.Embedding(5, 2, max_norm=1.0, norm_type=1.0, scale_grad_by_freq=True))
    assert repr(nn.Sequential()) == repr(torch.nn.Sequential())
    assert repr(nn.ModuleList()) == repr(torch.nn.ModuleList())

    class Multi(nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"

    class TMulti(torch.nn.Module):
        def extra_repr(self):
            return "a=1\nb=2"

    m, t = Multi(), TMulti()
    m.child, t.child = nn.Linear(1, 1), torch.nn.Linear(1, 1)
    assert repr(m) == repr(t).replace("TMulti", "Multi")


@pytest.mark.parametrize("rg", [True, False])
def test_parameter_repr(rg):
    values = [[1.5, -2.0], [0.25, 3.0]]
    p = nn.Parameter(nt.tensor(values), requires_grad=rg)
    q = torch.nn.Parameter(torch.tensor(values), requires_grad=rg)
    assert repr(p) == repr(q)
    assert str(p) == str(q)


def test_parameter_type():
    p = nn.Parameter()
    assert tuple(p.shape) == (0,) and isinstance(p, nn.Parameter)
    assert repr(nn.Parameter(requires_grad=False)) == repr(
        torch.nn.Parameter(requires_grad=False))
    x = nt.ones(2, 3, names=("N", "C"))
    p = nn.Parameter(x)
    assert p.data_ptr() == x.data_ptr() and p.names == ("N", "C")  # an alias
    assert type(p + 1) is nt.Tensor and type(p.detach()) is nt.Tensor
    assert p.requires_grad and p.is_leaf and p.grad_fn is None
    d = copy.deepcopy(p)
    assert type(d) is nn.Parameter and d.data_ptr() != p.data_ptr()
    assert_same(d.rename(None), torch.ones(2, 3))


def test_setattr_registers_and_getattr_errors():
    m = nn.Module()
    m.w = nn.Parameter(nt.zeros(2))
    m.sub = nn.Linear(2, 2)
    m.register_buffer("buf", nt.zeros(1))
    m.plain = 3
    assert list(m._parameters) == ["w"] and list(m._modules) == ["sub"]
    assert list(m._buffers) == ["buf"] and m.__dict__["plain"] == 3
    m.buf = nt.ones(1)  # a tensor assigned to a buffer stays a buffer
    assert m._buffers["buf"].tolist() == [1.0]
    m.w = None
    assert m._parameters["w"] is None and "w" not in dict(m.named_parameters())
    # a Parameter assigned over a buffer, a module over a parameter: moved
    m.buf = nn.Parameter(nt.zeros(1))
    assert "buf" in m._parameters and "buf" not in m._buffers
    with pytest.raises(TypeError, match="as parameter 'w'"):
        m.w = nn.Identity()  # a parameter's name takes a Parameter or None only
    del m.w
    m.w = nn.Identity()
    assert "w" in m._modules and "w" not in m._parameters
    del m.w, m.buf, m.sub, m.plain
    assert not m._modules and not m._parameters and "plain" not in m.__dict__
    with pytest.raises(AttributeError, match="^'Module' object has no attribute 'nothing'$"):
        m.nothing


ERROR_CASES = [
    ("param over tensor", lambda lib, m: setattr(m, "weight", lib.zeros(1))),
    ("module over None", lambda lib, m: setattr(m, "child", 3)),
    ("buffer bad type", lambda lib, m: setattr(m, "buf", 3)),
    ("register_buffer name", lambda lib, m: m.register_buffer(1, None)),
    ("register_buffer dot", lambda lib, m: m.register_buffer("a.b", None)),
    ("register_buffer empty", lambda lib, m: m.register_buffer("", None)),
    ("register_buffer exists", lambda lib, m: m.register_buffer("weight", None)),
    ("register_buffer type", lambda lib, m: m.register_buffer("x", [1])),
    ("register_parameter dot", lambda lib, m: m.register_parameter("a.b", None)),
    ("register_parameter empty", lambda lib, m: m.register_parameter("", None)),
    ("register_parameter exists", lambda lib, m: m.register_parameter("buf", None)),
    ("register_parameter type", lambda lib, m: m.register_parameter("x", lib.zeros(1))),
    ("add_module type", lambda lib, m: m.add_module("x", 3)),
    ("add_module name", lambda lib, m: m.add_module(3, None)),
    ("add_module dot", lambda lib, m: m.add_module("a.b", None)),
    ("add_module empty", lambda lib, m: m.add_module("", None)),
    ("add_module exists", lambda lib, m: m.add_module("weight", None)),
    ("train mode", lambda lib, m: m.train(1)),
    ("load type", lambda lib, m: m.load_state_dict([1])),
    ("to int", lambda lib, m: m.to(lib.int32)),
    ("get_submodule", lambda lib, m: m.get_submodule("child.x")),
    ("get_parameter", lambda lib, m: m.get_parameter("buf")),
    ("get_buffer", lambda lib, m: m.get_buffer("weight")),
    ("forward missing", lambda lib, m: lib.nn.Module()(1)),
]


def _error_host(lib):
    m = lib.nn.Module()
    m.weight = lib.nn.Parameter(lib.zeros(2), requires_grad=False)
    m.add_module("child", None)
    m.register_buffer("buf", lib.zeros(1))
    return m


@pytest.mark.parametrize("name,action", ERROR_CASES, ids=[c[0] for c in ERROR_CASES])
def test_errors_match_torch(name, action):
    with pytest.raises(Exception) as want:
        action(torch, _error_host(torch))
    with pytest.raises(Exception) as got:
        action(nt, _error_host(nt))
    assert type(got.value) is type(want.value)
    text = str(want.value).replace("torch.nn.modules.module.Module",
                                   "ntensor.nn.modules.module.Module")
    assert str(got.value) == text


def test_errors_before_init():
    class Early(nn.Module):
        def __init__(self, what):
            if what == "param":
                self.p = nn.Parameter(nt.zeros(1))
            elif what == "module":
                self.m = nn.Identity()
            else:
                self.register_buffer("b", None)

    texts = {"param": "cannot assign parameters before Module.__init__() call",
             "module": "cannot assign module before Module.__init__() call",
             "buffer": "cannot assign buffer before Module.__init__() call"}
    for what, text in texts.items():
        with pytest.raises(AttributeError, match=text.replace("(", r"\(").replace(")", r"\)")):
            Early(what)


def test_train_eval_propagate(nets):
    a, b = nets
    a.eval()
    b.eval()
    assert [m.training for m in a.modules()] == [m.training for m in b.modules()]
    assert not any(m.training for m in a.modules())
    a.seq.train()
    b.seq.train()
    assert [m.training for m in a.modules()] == [m.training for m in b.modules()]
    assert a.train() is a and all(m.training for m in a.modules())


def test_hooks_order_and_removal():
    calls = []
    m = nn.Identity()

    def pre(tag, ret=None):
        def hook(mod, inp):
            calls.append((tag, inp))
            return ret
        return hook

    def post(tag, ret=None):
        def hook(mod, inp, out):
            calls.append((tag, inp, out))
            return ret
        return hook

    h1 = m.register_forward_pre_hook(pre("pre1"))
    h2 = m.register_forward_pre_hook(pre("pre2", ret=5))  # a single value becomes (5,)
    h3 = m.register_forward_hook(post("post1"))
    h4 = m.register_forward_hook(post("post2", ret="out"))
    g = nn.modules.module.register_module_forward_pre_hook(pre("global"))
    try:
        assert m(1) == "out"
    finally:
        g.remove()
    assert calls == [("global", (1,)), ("pre1", (1,)), ("pre2", (1,)), ("post1", (5,), 5),
                     ("post2", (5,), 5)]
    for h in (h1, h2, h3, h4):
        h.remove()
    h1.remove()  # removing twice is harmless
    calls.clear()
    assert m(7) == 7 and calls == []
    with m.register_forward_hook(post("ctx")):
        m(2)
    m(3)
    assert calls == [("ctx", (2,), 2)]


def test_hooks_order_matches_torch():
    order = {}
    for lib in (nt, torch):
        seen = []
        net = lib.nn.Sequential(lib.nn.Identity(), lib.nn.Sequential(lib.nn.Identity()))
        for name, mod in net.named_modules():
            mod.register_forward_pre_hook(lambda m, i, n=name: seen.append(("pre", n)))
            mod.register_forward_hook(lambda m, i, o, n=name: seen.append(("post", n)))
        net(lib.zeros(1))
        order[lib] = seen
    assert order[nt] == order[torch]


def test_to_and_float_double_keep_parameter_objects(nets):
    a, _ = nets
    params = list(a.parameters())
    ids = [id(p) for p in params]
    emb_ptr = a.emb.weight.data_ptr()
    assert a.double() is a
    assert [id(p) for p in a.parameters()] == ids
    assert all(p.dtype == nt.float64 for p in params)
    assert all(type(p) is nn.Parameter for p in a.parameters())
    assert a.block.running.dtype == nt.float64
    assert a.emb.weight.data_ptr() != emb_ptr
    a.to(nt.float32)
    assert all(p.dtype == nt.float32 for p in params)
    a.to(nt.zeros(1, dtype=nt.float64))
    assert all(p.dtype == nt.float64 for p in params)
    a.float()
    a.to("cpu")
    a.to(dtype=nt.float64, device="cpu")
    assert all(p.dtype == nt.float64 for p in params)
    a.half()
    assert a.seq[0].weight.dtype == nt.float16
    # integer buffers keep their dtype
    m = nn.Module()
    m.register_buffer("count", nt.zeros(2, dtype=nt.int64))
    m.double()
    assert m.count.dtype == nt.int64


def test_to_keeps_values_and_names():
    lin = nn.Linear(3, 2)
    with nt.no_grad():  # PyTorch renames a leaf that requires grad outside no_grad too
        lin.weight.rename_("out", "in")
    before = lin.weight.rename(None).tolist()
    lin.double()
    assert lin.weight.names == ("out", "in")
    after = lin.weight.rename(None).tolist()
    assert [v for row in after for v in row] == [v for row in before for v in row]


def test_load_state_dict_round_trip_and_errors(nets):
    a, b = nets
    src = Net.build(nt)
    result = a.load_state_dict(src.state_dict())
    assert repr(result) == "<All keys matched successfully>"
    for (k, x), (_, y) in zip(a.state_dict().items(), src.state_dict().items()):
        assert x.tolist() == y.tolist() and x.data_ptr() != y.data_ptr(), k

    def errors(lib, net, edit):
        sd = net.state_dict()
        edit(lib, sd)
        with pytest.raises(RuntimeError) as e:
            net.load_state_dict(sd)
        return str(e.value)

    edits = [
        lambda lib, sd: (sd.pop("seq.0.weight"), sd.pop("block.running")),
        lambda lib, sd: sd.update({"bogus": lib.zeros(1), "seq.bogus.x": lib.zeros(1)}),
        lambda lib, sd: sd.update({"scale": lib.zeros(3)}),
        lambda lib, sd: sd.update({"scale": 1.0}),
        lambda lib, sd: (sd.pop("emb.weight"), sd.update({"heads.0.extra": lib.zeros(1)}),
                         sd.update({"block.fc.bias": lib.zeros(7, 2)})),
    ]
    for edit in edits:
        assert errors(nt, a, edit) == errors(torch, b, edit)

    sd = a.state_dict()
    sd.pop("scale")
    sd["extra"] = nt.zeros(1)
    keys = a.load_state_dict(sd, strict=False)
    assert keys.missing_keys == ["scale"] and keys.unexpected_keys == ["extra"]
    sd_t = b.state_dict()
    sd_t.pop("scale")
    sd_t["extra"] = torch.zeros(1)
    assert repr(b.load_state_dict(sd_t, strict=False)) == repr(keys)


def test_load_state_dict_from_torch_values():
    t = torch.nn.Linear(3, 2)
    m = nn.Linear(3, 2)
    m.load_state_dict({k: from_torch(v.detach()) for k, v in t.state_dict().items()})
    assert_same(m.weight.detach(), t.weight.detach())
    assert_same(m.bias.detach(), t.bias.detach())


def test_apply_zero_grad_requires_grad_dir():
    seen = []
    net = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    tnet = torch.nn.Sequential(torch.nn.Linear(1, 1), torch.nn.Sequential(torch.nn.ReLU()))
    tseen = []
    tnet.apply(lambda m: tseen.append(type(m).__name__))
    assert seen == tseen
    net.zero_grad()
    net.zero_grad(set_to_none=True)
    assert all(p.grad is None for p in net.parameters())
    assert net.requires_grad_(False) is net
    assert not any(p.requires_grad for p in net.parameters())
    lin = nn.Linear(2, 2)
    lin.register_buffer("stat", None)
    names = dir(lin)
    assert {"weight", "bias", "stat", "forward", "training", "in_features"} <= set(names)
    assert names == sorted(names)
    assert not any(k.isdigit() for k in dir(net))


def test_get_submodule_parameter_buffer(nets):
    a, _ = nets
    assert a.get_submodule("seq.2.norm") is a.seq[2].norm
    assert a.get_submodule("") is a
    assert a.get_parameter("block.fc.weight") is a.block.fc.weight
    assert a.get_buffer("block.running") is a.block.running


def test_deepcopy_of_a_module(nets):
    a, _ = nets
    a.block.running.rename_("C")
    c = copy.deepcopy(a)
    assert repr(c) == repr(a)
    assert [k for k, _ in c.named_parameters()] == [k for k, _ in a.named_parameters()]
    for (k, p), (_, q) in zip(a.named_parameters(), c.named_parameters()):
        assert type(q) is nn.Parameter and q.data_ptr() != p.data_ptr(), k
        assert q.requires_grad == p.requires_grad
        assert_same(q.detach().rename(None), torch.tensor(p.detach().rename(None).tolist()))
    assert c.shared is c.block.fc  # the memo keeps what was shared shared
    assert c.block.running.names == ("C",)
    assert c.block.running.data_ptr() != a.block.running.data_ptr()
    assert type(c.block.running) is nt.Tensor


def test_tensor_deepcopy():
    t = nt.arange(6.0).view(2, 3).rename("A", "B")
    memo = {}
    u = copy.deepcopy(t, memo)
    assert u is not t and u.names == t.names and u.tolist() == t.tolist()
    assert copy.deepcopy(t, memo) is u
    pair = copy.deepcopy([t, t])
    assert pair[0] is pair[1]

    class Tagged(nt.Tensor):
        pass

    s = nt.Tensor._make_subclass(Tagged, nt.ones(2))
    s.tag = ["x"]
    d = copy.deepcopy(s)
    assert type(d) is Tagged and d.tag == ["x"] and d.tag is not s.tag


def test_parameter_of_integers_errors():
    with pytest.raises(RuntimeError) as want:
        torch.nn.Parameter(torch.zeros(2, dtype=torch.int64))
    with pytest.raises(RuntimeError) as got:
        nn.Parameter(nt.zeros(2, dtype=nt.int64))
    assert str(got.value) == str(want.value)
    p = nn.Parameter(nt.zeros(2, dtype=nt.int64), requires_grad=False)
    assert repr(p) == repr(torch.nn.Parameter(torch.zeros(2, dtype=torch.int64),
                                              requires_grad=False))


def test_load_state_dict_with_names():
    named = nn.Linear(3, 2)
    with nt.no_grad():
        named.weight.rename_("out", "in")
    plain = nn.Linear(3, 2)
    plain.load_state_dict(named.state_dict())  # copy_ unifies: the names come along
    assert plain.weight.names == ("out", "in") and plain.bias.names == (None,)
    named.load_state_dict(nn.Linear(3, 2).state_dict())
    assert named.weight.names == ("out", "in")
    other = nn.Linear(3, 2)
    with nt.no_grad():
        other.weight.rename_("o", "i")
    with pytest.raises(RuntimeError, match='While copying the parameter named "weight", whose '
                                           r"dimensions in the model are torch.Size\(\[2, 3\]\)"):
        other.load_state_dict(named.state_dict())
