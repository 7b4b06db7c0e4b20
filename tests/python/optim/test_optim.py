"""ntensor.optim against torch.optim (PyTorch 1.13, foreach=False): SGD, Adam and AdamW with
every option over several steps on identical parameters and gradients (float32 and float64
to the bit), parameter groups, parameters without a gradient skipped, zero_grad in both
modes, state_dict in PyTorch's format and its round trip, the argument errors, and a small
training loop through backward."""
import itertools
import warnings

import numpy as np
import pytest
import torch

import ntensor as nt
from helpers import from_torch, to_torch


def make_param(t):
    return t.requires_grad_()


SHAPES = [(3, 4), (5,), (2, 3, 2), ()]


class Pair:
    """The same parameters in torch and ntensor, and the two optimizers over them."""

    def __init__(self, name, kwargs, dtype=torch.float32, groups=None, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.dtype = dtype
        data = [torch.randn(s, generator=g, dtype=dtype) for s in SHAPES]
        self.tp = [d.clone().requires_grad_() for d in data]
        self.np = [make_param(from_torch(d)) for d in data]
        self.gen = g
        self.topt = getattr(torch.optim, name)(self._spec(self.tp, groups), **kwargs)
        self.nopt = getattr(nt.optim, name)(self._spec(self.np, groups), **kwargs)

    @staticmethod
    def _spec(params, groups):
        if groups is None:
            return params
        return [dict(g, params=[params[i] for i in g["params"]]) for g in groups]

    def set_grads(self, skip=()):
        for i, (a, b) in enumerate(zip(self.tp, self.np)):
            if i in skip:
                a.grad, b.grad = None, None
                continue
            grad = torch.randn(a.shape, generator=self.gen, dtype=self.dtype)
            a.grad, b.grad = grad, from_torch(grad)

    def step(self, skip=()):
        self.set_grads(skip)
        self.topt.step()
        self.nopt.step()
        self.check()

    def check(self):
        for a, b in zip(self.tp, self.np):
            assert_bits(b, a.detach())
        check_state(self.nopt, self.topt, self.np, self.tp)


def assert_bits(x, t):
    """x matches torch's t: dtype and shape exactly, values within a few ulps of the dtype per
    step taken (bit-identical on the machines measured, but torch's kernels vary by CPU)."""
    assert x.dtype == from_torch(t).dtype and tuple(x.shape) == tuple(t.shape)
    a, b = np.array(x.tolist(), dtype=np.float64), np.array(t.tolist(), dtype=np.float64)
    eps = float(torch.finfo(t.dtype).eps) if t.dtype.is_floating_point else 0.0
    scale = np.abs(b[np.isfinite(b)]).max(initial=1.0)
    assert np.allclose(a, b, rtol=64 * eps, atol=64 * eps * scale, equal_nan=True), \
        np.abs(a - b).max()


def check_state(nopt, topt, nps, tps):
    assert len(nopt.state) == len(topt.state)
    for b, a in zip(nps, tps):
        assert (b in nopt.state) == (a in topt.state)
        if a not in topt.state:
            continue
        sn, st = nopt.state[b], topt.state[a]
        assert sorted(sn) == sorted(st)
        for key in st:
            if st[key] is None:
                assert sn[key] is None
            else:
                assert_bits(sn[key], st[key])


SGD_OPTIONS = [dict(lr=0.1, momentum=m, dampening=d, weight_decay=w, nesterov=n, maximize=x)
               for m, d, w, n, x in itertools.product([0, 0.9], [0, 0.25], [0, 0.01],
                                                      [False, True], [False, True])
               if not n or (m > 0 and d == 0)]
ADAM_OPTIONS = [dict(lr=0.01, betas=(0.8, 0.9), eps=1e-7, weight_decay=w, amsgrad=a, maximize=x)
                for w, a, x in itertools.product([0, 0.05], [False, True], [False, True])]


def _ids(options):
    return ["-".join(f"{k}={v}" for k, v in o.items() if k != "lr") for o in options]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("options", SGD_OPTIONS, ids=_ids(SGD_OPTIONS))
def test_sgd_matches_torch(options, dtype):
    pair = Pair("SGD", options, dtype)
    for step in range(4):
        pair.step(skip={1} if step == 1 else ())  # a parameter without a grad is skipped


@pytest.mark.parametrize("name", ["Adam", "AdamW"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("options", ADAM_OPTIONS, ids=_ids(ADAM_OPTIONS))
def test_adam_matches_torch(name, options, dtype):
    pair = Pair(name, options, dtype)
    for step in range(4):
        pair.step(skip={2} if step < 2 else ())  # the state appears at its first grad


@pytest.mark.parametrize("name,options", [("SGD", dict(lr=0.1, momentum=0.9)),
                                          ("Adam", dict(lr=0.01)), ("AdamW", dict(amsgrad=True))])
def test_param_groups_take_their_own_options(name, options):
    groups = [dict(params=[0, 2]), dict(params=[1, 3], lr=0.5, weight_decay=0.1)]
    pair = Pair(name, options, groups=groups)
    assert [sorted(g) for g in pair.nopt.param_groups] == [sorted(g) for g in pair.topt.param_groups]
    for step in range(3):
        pair.step()
    pair.nopt.param_groups[0]["lr"] = pair.topt.param_groups[0]["lr"] = 0.003
    pair.step()


def test_default_groups_and_repr_match_torch():
    for name, kwargs in [("SGD", dict(lr=0.1)), ("Adam", {}), ("AdamW", dict(betas=(0.5, 0.6)))]:
        pair = Pair(name, kwargs)
        tg, ng = pair.topt.param_groups[0], pair.nopt.param_groups[0]
        assert {k: v for k, v in ng.items() if k != "params"} == \
            {k: v for k, v in tg.items() if k != "params"}
        assert pair.nopt.defaults == pair.topt.defaults
        assert repr(pair.nopt) == repr(pair.topt)


@pytest.mark.parametrize("set_to_none", [False, True])
def test_zero_grad(set_to_none):
    pair = Pair("SGD", dict(lr=0.1, momentum=0.9))
    pair.step()
    pair.set_grads(skip={0})
    pair.topt.zero_grad(set_to_none=set_to_none)
    pair.nopt.zero_grad(set_to_none=set_to_none)
    for a, b in zip(pair.tp, pair.np):
        if a.grad is None:
            assert b.grad is None
        else:
            assert_bits(b.grad, a.grad)
    # a step with zero grads still moves (momentum, no weight decay here); with None it skips
    pair.topt.step()
    pair.nopt.step()
    pair.check()


def test_zero_grad_default_keeps_tensors():
    """PyTorch 1.13's default: zero_grad() zeroes the gradients in place."""
    pair = Pair("Adam", {})
    pair.step()
    grads = [p.grad for p in pair.np]
    pair.nopt.zero_grad()
    assert all(p.grad is g and g.tolist() == torch.zeros(g.shape).tolist()
               for p, g in zip(pair.np, grads))


@pytest.mark.parametrize("name,options", [("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)),
                                          ("SGD", dict(lr=0.1)),
                                          ("Adam", dict(amsgrad=True, weight_decay=0.1)),
                                          ("AdamW", dict(lr=0.02))])
def test_state_dict_round_trip(name, options):
    groups = [dict(params=[0, 1]), dict(params=[2, 3], lr=0.05)]
    pair = Pair(name, options, groups=groups)
    pair.step(skip={3})
    pair.step()
    sd_t, sd_n = pair.topt.state_dict(), pair.nopt.state_dict()
    assert sd_n["param_groups"] == sd_t["param_groups"]
    assert sorted(sd_n["state"]) == sorted(sd_t["state"])
    for i in sd_t["state"]:
        assert sorted(sd_n["state"][i]) == sorted(sd_t["state"][i])
        for k, v in sd_t["state"][i].items():
            if v is None:
                assert sd_n["state"][i][k] is None
            else:
                assert_bits(sd_n["state"][i][k], v)
    if name != "SGD":
        step = sd_n["state"][0]["step"]
        assert step.dtype == nt.float32 and step.shape == () and step.item() == 2.0
    # into a fresh optimizer over the same parameters: a copy, then the same steps as torch
    fresh = getattr(nt.optim, name)(Pair._spec(pair.np, groups), **options)
    fresh.load_state_dict(sd_n)
    assert fresh.state_dict()["param_groups"] == sd_t["param_groups"]
    state0 = fresh.state[pair.np[0]]
    assert all(state0[k] is not sd_n["state"][0][k] for k in state0 if state0[k] is not None)
    pair.nopt = fresh
    pair.step()
    pair.step()


def test_load_state_dict_from_float64_casts_to_the_param_dtype():
    pair = Pair("Adam", {})
    pair.step()
    sd = pair.nopt.state_dict()
    for s in sd["state"].values():
        s["exp_avg"] = s["exp_avg"].to(nt.float64)
    pair.nopt.load_state_dict(sd)
    assert all(s["exp_avg"].dtype == nt.float32 for s in pair.nopt.state.values())
    assert all(s["step"].dtype == nt.float32 for s in pair.nopt.state.values())


def test_load_state_dict_errors_match_torch():
    a, b = Pair("SGD", dict(lr=0.1)), Pair("SGD", dict(lr=0.1), groups=[dict(params=[0]),
                                                                      dict(params=[1, 2, 3])])
    for src, dst in [(b, a), (a, b)]:
        with pytest.raises(ValueError) as ti:
            dst.topt.load_state_dict(src.topt.state_dict())
        with pytest.raises(ValueError) as ni:
            dst.nopt.load_state_dict(src.nopt.state_dict())
        assert str(ni.value) == str(ti.value)
    c = Pair("SGD", dict(lr=0.1), groups=[dict(params=[0, 1]), dict(params=[2, 3])])
    with pytest.raises(ValueError) as ti:
        c.topt.load_state_dict(b.topt.state_dict())
    with pytest.raises(ValueError) as ni:
        c.nopt.load_state_dict(b.nopt.state_dict())
    assert str(ni.value) == str(ti.value)


def _raises_like(fn_t, fn_n):
    with pytest.raises(Exception) as ti:
        fn_t()
    with pytest.raises(Exception) as ni:
        fn_n()
    assert type(ni.value) is type(ti.value) and str(ni.value) == str(ti.value)


@pytest.mark.parametrize("name,kwargs", [
    ("SGD", dict(lr=-0.1)), ("SGD", dict(lr=0.1, momentum=-1)),
    ("SGD", dict(lr=0.1, weight_decay=-1)), ("SGD", dict(lr=0.1, nesterov=True)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True)), ("SGD", {}),
    ("Adam", dict(lr=-1)), ("Adam", dict(eps=-1)), ("Adam", dict(betas=(1.0, 0.9))),
    ("Adam", dict(betas=(0.9, -0.1))), ("Adam", dict(weight_decay=-0.5)),
    ("AdamW", dict(betas=(0.9, 1.0))), ("AdamW", dict(lr=-2)),
])
def test_argument_errors_match_torch(name, kwargs):
    tp, np_ = [torch.zeros(2, requires_grad=True)], [nt.zeros(2)]
    _raises_like(lambda: getattr(torch.optim, name)(tp, **kwargs),
                 lambda: getattr(nt.optim, name)(np_, **kwargs))


def test_param_errors_match_torch():
    for make_t, make_n in [
        (lambda: torch.zeros(2), lambda: nt.zeros(2)),        # a tensor, not an iterable
        (lambda: [], lambda: []),                              # empty
        (lambda: [torch.zeros(2), 3], lambda: [nt.zeros(2), 3]),
        (lambda: [dict(params={torch.zeros(2)})], lambda: [dict(params={nt.zeros(2)})]),  # a set
    ]:
        _raises_like(lambda: torch.optim.SGD(make_t(), lr=0.1), lambda: nt.optim.SGD(make_n(), lr=0.1))
    # the same parameter in two groups; a group without the required lr
    t, n = torch.zeros(2, requires_grad=True), nt.zeros(2)
    _raises_like(lambda: torch.optim.SGD([dict(params=[t]), dict(params=[t])], lr=0.1),
                 lambda: nt.optim.SGD([dict(params=[n]), dict(params=[n])], lr=0.1))
    _raises_like(lambda: torch.optim.SGD([dict(params=[t])]),
                 lambda: nt.optim.SGD([dict(params=[n])]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        nt.optim.SGD([n, n], lr=0.1)
    assert any("duplicate parameters" in str(w.message) for w in caught)


def test_add_param_group_later():
    pair = Pair("Adam", dict(lr=0.01), groups=[dict(params=[0, 1])])
    pair.topt.add_param_group(dict(params=[pair.tp[2], pair.tp[3]], lr=0.1))
    pair.nopt.add_param_group(dict(params=[pair.np[2], pair.np[3]], lr=0.1))
    pair.step()
    pair.step()


def test_closure_and_step_result():
    pair = Pair("SGD", dict(lr=0.1))
    pair.set_grads()
    assert pair.nopt.step(lambda: 3.5) == 3.5
    assert pair.nopt.step() is None


def test_named_params_keep_their_names():
    p = make_param(nt.ones(2, 3, names=("N", "C")))
    opt = nt.optim.Adam([p], lr=0.1)
    p.grad = nt.ones(2, 3, names=("N", "C"))
    opt.step()
    assert p.names == ("N", "C") and opt.state[p]["exp_avg"].names == ("N", "C")
    with pytest.raises(RuntimeError, match=r"names \['N', 'D'\] do not match the tensor's "
                       r"names \['N', 'C'\]"):
        p.grad = nt.ones(2, 3, names=("N", "D"))  # (the fused op checks too: test_fused_optim)


def test_low_precision_params_step_in_float32():
    for dtype in (nt.bfloat16, nt.float16):
        p = make_param(nt.ones(4, dtype=dtype))
        opt = nt.optim.AdamW([p], lr=0.1)
        p.grad = nt.full((4,), 0.5, dtype=dtype)
        opt.step()
        assert p.dtype == dtype
        assert opt.state[p]["exp_avg"].dtype == dtype
        # step 1: p * (1 - lr * wd) - lr * sign(g)
        assert abs(p.float().tolist()[0] - (0.999 - 0.1)) < 1e-2


@pytest.mark.parametrize("name,options", [("SGD", dict(lr=0.05, momentum=0.9)),
                                          ("Adam", dict(lr=0.05, amsgrad=True)),
                                          ("AdamW", dict(lr=0.05))])
def test_training_loop_through_backward(name, options):
    """zero_grad, a loss, backward, step: as torch, to float32 rounding (the gradients come
    from each library's own matmul and mean)."""
    g = torch.Generator().manual_seed(1)
    w0, b0 = torch.randn(3, 4, generator=g), torch.randn(4, generator=g)
    x, y = torch.randn(8, 3, generator=g), torch.randn(8, 4, generator=g)
    tw, tb = w0.clone().requires_grad_(), b0.clone().requires_grad_()
    nw, nb = from_torch(w0).requires_grad_(), from_torch(b0).requires_grad_()
    nx, ny = from_torch(x), from_torch(y)
    topt = getattr(torch.optim, name)([tw, tb], **options)
    nopt = getattr(nt.optim, name)([nw, nb], **options)
    for step in range(5):
        for opt, w, b, xs, ys in [(topt, tw, tb, x, y), (nopt, nw, nb, nx, ny)]:
            opt.zero_grad(set_to_none=step % 2 == 0)
            loss = ((xs.matmul(w) + b - ys) ** 2).mean()
            loss.backward()
            opt.step()
        assert nw.requires_grad and nw.grad_fn is None and nw.is_leaf
        for a, t in [(nw, tw), (nb, tb)]:
            np.testing.assert_allclose(np.array(a.tolist()), np.array(t.tolist()), rtol=1e-5,
                                       atol=1e-6)


def test_sgd_buffers_new_and_old_in_one_group():
    """A parameter's first gradient arrives later: its buffer starts (a copy of d_p) while the
    others' run on, in one step; momentum set to 0 later keeps the buffers untouched."""
    pair = Pair("SGD", dict(lr=0.1, momentum=0.9, dampening=0.1, weight_decay=0.01))
    pair.step(skip={0, 3})
    pair.step(skip={3})
    pair.step()
    for opt in (pair.topt, pair.nopt):
        opt.param_groups[0]["momentum"] = 0
    pair.step()
