"""The fused optimizer steps as ops (ntensor._fused_sgd_, _fused_adam_, _fused_adamw_),
called directly: every option against torch.optim's single-tensor functions (PyTorch 1.13,
foreach=False) on the same values, float32 and float64 to the bit, float16 and bfloat16
(computed in float32, rounded once) within a few of their ulps; strided and large (threaded)
parameters; names; the errors, after which nothing has changed."""
import itertools

import numpy as np
import pytest
import torch
from torch.optim import _functional as TF

import ntensor as nt
from helpers import TO_NT_DTYPE, from_torch, to_torch

SHAPES = [(3, 4), (7,), (2, 1, 5), ()]


def _nt(ts):
    return [from_torch(t) for t in ts]


def _same(xs, ts, dtype):
    for x, t in zip(xs, ts):
        a = np.array(x.tolist(), dtype=np.float64)
        b = np.array(t.float().tolist() if t.dtype == torch.bfloat16 else t.tolist(),
                     dtype=np.float64)
        if dtype in (torch.float32, torch.float64):  # a few ulps: torch's kernels vary by CPU
            eps = np.finfo(np.float32 if dtype == torch.float32 else np.float64).eps
            assert np.allclose(a, b, rtol=16 * eps, atol=16 * eps * np.abs(b).max(),
                               equal_nan=True), np.abs(a - b).max()
        else:  # PyTorch rounds after each op, the fused step once: a few ulps of the dtype
            ulp = 2.0 ** (-7 if dtype == torch.bfloat16 else -10)
            assert np.allclose(a, b, rtol=4 * ulp, atol=4 * ulp * np.abs(b).max()), \
                np.abs(a - b).max()


def _data(dtype, shapes=SHAPES, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=g).to(dtype) for s in shapes]


SGD_CASES = [dict(momentum=m, dampening=d, weight_decay=w, nesterov=n, maximize=x)
             for m, d, w, n, x in itertools.product([0.0, 0.9], [0.0, 0.3], [0.0, 0.05],
                                                    [False, True], [False, True])
             if not n or (m > 0 and d == 0)]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", SGD_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_fused_sgd_matches_torch(dtype, case):
    params = _data(dtype)
    mine = _nt(params)
    bufs_t = [None] * len(params)
    bufs = []
    for step in range(3):
        grads = _data(dtype, seed=step + 1)
        TF.sgd(params, [g.clone() for g in grads], bufs_t, lr=0.1, foreach=False, **case)
        first = step == 0
        if first:
            bufs = [nt.empty_like(p) for p in mine] if case["momentum"] else []
        nt._fused_sgd_(mine, _nt(grads), bufs, lr=0.1, is_first_step=first, **case)
        _same(mine, params, dtype)
        if case["momentum"]:
            _same(bufs, bufs_t, dtype)


ADAM_CASES = [dict(amsgrad=a, weight_decay=w, maximize=x)
              for a, w, x in itertools.product([False, True], [0.0, 0.1], [False, True])]


@pytest.mark.parametrize("decoupled", [False, True], ids=["adam", "adamw"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("case", ADAM_CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_fused_adam_matches_torch(decoupled, dtype, case):
    # PyTorch has no float16 addcmul on the CPU: its float32 step on the same values
    ref = torch.float32 if dtype == torch.float16 else dtype
    params = [p.to(ref) for p in _data(dtype)]
    n = len(params)
    ea, eas, mx = ([torch.zeros_like(p) for p in params] for _ in range(3))
    steps_t = [torch.tensor(0.0) for _ in params]
    mine = [from_torch(p.to(dtype)) for p in params]
    m, v, vmax = ([nt.zeros_like(p) for p in mine] for _ in range(3))
    steps = [nt.tensor(0.0) for _ in mine]
    fn_t = TF.adamw if decoupled else TF.adam
    fn = nt._fused_adamw_ if decoupled else nt._fused_adam_
    hyper = dict(lr=0.01, beta1=0.8, beta2=0.95, eps=1e-6, weight_decay=case["weight_decay"],
                 maximize=case["maximize"])
    for step in range(3):
        grads = _data(dtype, seed=step + 1)
        fn_t(params, [g.to(ref) for g in grads], ea, eas, mx if case["amsgrad"] else [], steps_t,
             foreach=False, amsgrad=case["amsgrad"], **hyper)
        fn(mine, _nt(grads), m, v, vmax if case["amsgrad"] else [], steps,
           amsgrad=case["amsgrad"], **hyper)
        _same(mine, params, dtype)
        _same(m, ea, dtype)
        _same(v, eas, dtype)
        if case["amsgrad"]:
            _same(vmax, mx, dtype)
        assert [s.item() for s in steps] == [step + 1.0] * n
        assert all(s.dtype == nt.float32 and s.shape == () for s in steps)


def test_large_params_run_threaded_and_match():
    """Over the parallel grain (32768 elements): the same bits as torch."""
    params = _data(torch.float32, shapes=[(300, 400), (70001,)])
    mine = _nt(params)
    ea, eas = [torch.zeros_like(p) for p in params], [torch.zeros_like(p) for p in params]
    steps_t = [torch.tensor(0.0) for _ in params]
    m, v = [nt.zeros_like(p) for p in mine], [nt.zeros_like(p) for p in mine]
    steps = [nt.tensor(0.0) for _ in mine]
    for step in range(2):
        grads = _data(torch.float32, shapes=[(300, 400), (70001,)], seed=step + 5)
        TF.adam(params, grads, ea, eas, [], steps_t, foreach=False, amsgrad=False, lr=1e-3,
                beta1=0.9, beta2=0.999, eps=1e-8, weight_decay=0.0, maximize=False)
        nt._fused_adam_(mine, _nt(grads), m, v, [], steps, lr=1e-3, beta1=0.9, beta2=0.999,
                        weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
        _same(mine, params, torch.float32)


def test_many_mid_sized_params_split_by_parameter():
    """A group of many small contiguous parameters runs across threads by parameter, beside a
    large one (across threads by element) and a strided one (the iterator): torch's bits."""
    shapes = [(50, 100)] * 24 + [(300, 200), (7, 9)]
    params = _data(torch.float32, shapes=shapes)
    params[-1] = params[-1].t()  # strided (9, 7)
    mine = _nt(params[:-1]) + [from_torch(params[-1].t()).t()]
    bufs_t = [None] * len(params)
    bufs = [nt.empty_like(p) for p in mine]
    for step in range(3):
        grads = [g if g.shape == p.shape else g.t()
                 for g, p in zip(_data(torch.float32, shapes=shapes, seed=step + 9), params)]
        TF.sgd(params, grads, bufs_t, lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.01,
               nesterov=False, maximize=False, foreach=False)
        nt._fused_sgd_(mine, _nt(grads), bufs, lr=0.1, momentum=0.9, dampening=0.0,
                       weight_decay=0.01, nesterov=False, maximize=False, is_first_step=step == 0)
        _same(mine, params, torch.float32)
        _same(bufs, bufs_t, torch.float32)


def test_strided_params_and_state():
    """A transposed parameter with a transposed grad and state: the iterator's path gives
    what a contiguous copy gives, and writes through the view."""
    base = torch.randn(4, 6, dtype=torch.float64)
    p_t = base.clone().t()
    grads = torch.randn(6, 4, dtype=torch.float64)
    bufs_t = [None]
    mine_base = from_torch(base)
    p = mine_base.t()
    buf = nt.zeros(4, 6, dtype=nt.float64).t()
    for step in range(2):
        TF.sgd([p_t], [grads], bufs_t, lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.01,
               nesterov=True, maximize=False, foreach=False)
        nt._fused_sgd_([p], [from_torch(grads).t().contiguous().t()], [buf], lr=0.1, momentum=0.9,
                       dampening=0.0, weight_decay=0.01, nesterov=True, maximize=False,
                       is_first_step=step == 0)
    _same([p], [p_t], torch.float64)
    _same([buf], bufs_t, torch.float64)
    _same([mine_base], [p_t.t()], torch.float64)


def test_names_kept_and_checked():
    p = nt.ones(2, 3, names=("N", "C"))
    nt._fused_sgd_([p], [nt.ones(2, 3, names=("N", None))], [], lr=0.5, momentum=0.0,
                   dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False,
                   is_first_step=False)
    assert p.names == ("N", "C")
    assert p.rename(None).tolist() == [[0.5] * 3] * 2
    with pytest.raises(RuntimeError, match=r"^_fused_sgd_\(\): grads\[0\] has names \['N', 'D'\] "
                       r"but its parameter self\[0\] has \['N', 'C'\]$"):
        nt._fused_sgd_([p], [nt.ones(2, 3, names=("N", "D"))], [], lr=0.5, momentum=0.0,
                       dampening=0.0, weight_decay=0.0, nesterov=False, maximize=False,
                       is_first_step=False)
    m = nt.zeros(2, 3, names=("N", "C"))
    nt._fused_adam_([p], [nt.ones(2, 3)], [m], [nt.zeros_like(m)], [], [nt.tensor(0.0)],
                    lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.0, eps=1e-8, amsgrad=False,
                    maximize=False)
    assert m.names == ("N", "C") and p.names == ("N", "C")


def _sgd(params, grads, bufs, **kw):
    opts = dict(lr=0.1, momentum=0.9, dampening=0.0, weight_decay=0.0, nesterov=False,
                maximize=False, is_first_step=False)
    opts.update(kw)
    nt._fused_sgd_(params, grads, bufs, **opts)


def test_errors_leave_everything_unchanged():
    p, q = nt.ones(3), nt.ones(3)
    g = nt.ones(3)
    buf = nt.zeros(3)
    cases = [
        (([p, q], [g], [buf, buf]), RuntimeError,
         "_fused_sgd_(): Tensor lists must have the same number of tensors, got 2 (self) and 1 "
         "(grads)"),
        (([p, q], [g, nt.ones(4)], [buf, nt.zeros(3)]), RuntimeError,
         "_fused_sgd_(): grads[1] has size [4] but its parameter self[1] has size [3]"),
        (([p, q], [g, nt.ones(3, dtype=nt.float64)], [buf, nt.zeros(3)]), RuntimeError,
         "_fused_sgd_(): grads[1] has dtype Double but its parameter self[1] has dtype Float"),
        (([p], [g], [p]), RuntimeError,
         "_fused_sgd_(): self[0] and momentum_buffer_list[0] share memory"),
        (([nt.ones(3, dtype=nt.int64)], [nt.ones(3, dtype=nt.int64)], [nt.ones(3, dtype=nt.int64)]),
         RuntimeError,
         "_fused_sgd_(): expected floating-point parameters, but self[0] has dtype Long"),
        (([nt.ones(3).expand(2, 3)], [nt.ones(2, 3)], [nt.zeros(2, 3)]), RuntimeError,
         "unsupported operation: more than one element of the written-to tensor refers to a "
         "single memory location. Please clone() the tensor before performing the operation."),
    ]
    for args, exc, text in cases:
        with pytest.raises(exc) as info:
            _sgd(*args)
        assert str(info.value) == text
        assert p.tolist() == [1.0] * 3 and q.tolist() == [1.0] * 3 and buf.tolist() == [0.0] * 3
    steps = [nt.tensor(0.0), nt.tensor(0.0)]
    with pytest.raises(RuntimeError, match=r"state_steps\[1\] must be a floating-point tensor of "
                       r"one element \(PyTorch's float32 step count\), got Long of 1 elements"):
        nt._fused_adam_([p, q], [g, g], [nt.zeros(3), nt.zeros(3)], [nt.zeros(3), nt.zeros(3)],
                        [], [steps[0], nt.tensor(0)], lr=0.1, beta1=0.9, beta2=0.99,
                        weight_decay=0.0, eps=1e-8, amsgrad=False, maximize=False)
    assert steps[0].item() == 0.0 and p.tolist() == [1.0] * 3
    with pytest.raises(TypeError):
        nt._fused_adam_([p], [g], [buf], [buf], [], [nt.tensor(0.0)], lr=0.1, beta1=0.9)


def test_empty_lists_do_nothing():
    nt._fused_adam_([], [], [], [], [], [], lr=0.1, beta1=0.9, beta2=0.99, weight_decay=0.0,
                    eps=1e-8, amsgrad=False, maximize=False)
    _sgd([], [], [])


def test_c_signatures_mirror_pytorch():
    """_fused_adam_ takes PyTorch 1.13's (CUDA-only there) Python signature."""
    with pytest.raises(TypeError) as info:
        nt._fused_adam_()
    with pytest.raises(TypeError) as info_t:
        torch._fused_adam_()
    assert str(info.value) == str(info_t.value)
