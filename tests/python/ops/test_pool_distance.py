"""Max pooling (torch.max_pool1d/2d/3d, the _with_indices forms, F.max_pool*d with
return_indices), cdist and pdist against PyTorch 1.13: values and indices exactly (pooling
picks elements), distances within the rounding bound of their sums against a float64
reference, shapes, dtypes, names, and every error text."""
import math
import warnings

import pytest
import torch
import torch.nn.functional as TF

import ntensor as nt
import ntensor.nn.functional as F
from helpers import assert_close_dtype, assert_same, assert_same_error, from_torch

warnings.filterwarnings("ignore")

def conv(t):
    """from_torch, keeping the shape of an empty tensor."""
    if t.numel():
        return from_torch(t)
    return nt.zeros(tuple(t.shape), dtype=getattr(nt, str(t.dtype).split(".")[1]))


TORCH_WI = {1: torch.max_pool1d_with_indices, 2: torch._C._nn.max_pool2d_with_indices,
            3: torch._C._nn.max_pool3d_with_indices}


def rand_input(shape, dtype, gen, special=True):
    """Small integers (many ties), with NaN and -inf sprinkled in."""
    t = torch.randint(-4, 5, shape, generator=gen).to(torch.float64)
    if special and t.numel() > 4:
        flat = t.view(-1)
        idx = torch.randperm(t.numel(), generator=gen)
        flat[idx[: t.numel() // 17]] = float("nan")
        flat[idx[t.numel() // 17: t.numel() // 9]] = float("-inf")
    return t.to(dtype)


# (kernel_size, stride, padding, dilation, ceil_mode)
CONFIGS = [(2, None, 0, 1, False), (3, 1, 1, 1, False), (3, 2, 1, 2, True), (2, 3, 0, 1, True),
           (3, 2, 0, 1, True), (1, 1, 0, 3, False), (4, 2, 2, 1, True)]
SHAPES = {1: [(2, 3, 9), (3, 10)], 2: [(2, 3, 7, 8), (3, 9, 6)], 3: [(2, 2, 5, 6, 7), (2, 6, 5, 7)]}


def per_dim(v, d, i):
    return v if isinstance(v, int) else v[i]


@pytest.mark.parametrize("d", [1, 2, 3])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16], ids=str)
@pytest.mark.parametrize("cfg", range(len(CONFIGS)))
def test_max_pool_values_and_indices(d, dtype, cfg):
    if d == 3 and dtype == torch.bfloat16:
        pytest.skip("3-d max pooling has no bfloat16 kernel (an error, tested below)")
    k, s, p, dil, ceil = CONFIGS[cfg]
    gen = torch.Generator().manual_seed(100 * d + cfg)
    for shape in SHAPES[d]:
        t = rand_input(shape, dtype, gen)
        for layout in ("contiguous", "transposed"):
            tt = t if layout == "contiguous" else t.transpose(-1, -2).contiguous().transpose(-1, -2)
            x = from_torch(t) if layout == "contiguous" else \
                from_torch(t.transpose(-1, -2).contiguous()).transpose(-1, -2)
            args = (k, [] if s is None else s, p, dil, ceil)
            tv = getattr(torch, f"max_pool{d}d")(tt, *args)
            assert_same(getattr(nt, f"max_pool{d}d")(x, *args), tv)
            ti = TORCH_WI[d](tt, *args)
            ni = getattr(nt, f"max_pool{d}d_with_indices")(x, *args)
            assert isinstance(ni, tuple) and len(ni) == 2
            assert_same(ni[0], ti[0])
            assert_same(ni[1], ti[1])
            fv, fi = getattr(F, f"max_pool{d}d")(x, k, s, p, dil, ceil, return_indices=True)
            tfv, tfi = getattr(TF, f"max_pool{d}d")(tt, k, s, p, dil, ceil, return_indices=True)
            assert_same(fv, tfv)
            assert_same(fi, tfi)
            assert_same(getattr(F, f"max_pool{d}d")(x, k, s, p, dil, ceil),
                        getattr(TF, f"max_pool{d}d")(tt, k, s, p, dil, ceil))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_max_pool_keyword_arguments_and_tuples(d):
    t = rand_input(SHAPES[d][0], torch.float32, torch.Generator().manual_seed(7))
    x = from_torch(t)
    kw = dict(kernel_size=(3,) * d, stride=(2,) * d, padding=[1] * d, dilation=(1,) * d,
              ceil_mode=True)
    assert_same(getattr(nt, f"max_pool{d}d")(x, **kw), getattr(torch, f"max_pool{d}d")(t, **kw))
    assert_same(getattr(F, f"max_pool{d}d")(input=x, **kw),
                getattr(TF, f"max_pool{d}d")(input=t, **kw))


@pytest.mark.parametrize("d", [1, 2, 3])
def test_max_pool_keeps_every_name(d):
    names = ("N", "C", "T", "H", "W")[-(d + 2):]
    t = rand_input(SHAPES[d][0], torch.float32, torch.Generator().manual_seed(3))
    x = from_torch(t).refine_names(*names)
    tn = t.refine_names(*names)
    v = getattr(nt, f"max_pool{d}d")(x, 2)
    assert v.names == getattr(torch, f"max_pool{d}d")(tn, 2).names == names
    vi = getattr(F, f"max_pool{d}d")(x, 2, return_indices=True)
    ti = getattr(TF, f"max_pool{d}d")(tn, 2, return_indices=True)
    assert vi[0].names == ti[0].names and vi[1].names == ti[1].names
    partial = (None,) + names[1:]
    assert getattr(nt, f"max_pool{d}d")(from_torch(t).refine_names(*partial), 2).names == partial


def test_max_pool_empty_batch():
    for d in (1, 2, 3):
        t = torch.zeros(*([0, 3] + [6] * d))
        x = nt.zeros(*([0, 3] + [6] * d))
        assert_same(getattr(nt, f"max_pool{d}d")(x, 2), getattr(torch, f"max_pool{d}d")(t, 2))
        ti = TORCH_WI[d](t, 2)
        ni = getattr(nt, f"max_pool{d}d_with_indices")(x, 2)
        assert_same(ni[0], ti[0])
        assert_same(ni[1], ti[1])


def test_max_pool_with_indices_out():
    t = rand_input((2, 3, 7, 8), torch.float32, torch.Generator().manual_seed(5))
    x = from_torch(t)
    for ov_shape, oi_shape in [((2, 3, 3, 4), (2, 3, 3, 4)), ((0,), (0,))]:
        ov, oi = nt.zeros(ov_shape), nt.zeros(oi_shape, dtype=nt.int64)
        r = nt.max_pool2d_with_indices(x, 2, out=(ov, oi))
        tv, ti = torch._C._nn.max_pool2d_with_indices(t, 2)
        assert r[0] is ov and r[1] is oi
        assert_same(ov, tv)
        assert_same(oi, ti)
    assert_same_error(lambda: nt.max_pool2d_with_indices(x, 2, out=(nt.zeros(0).double(),
                                                                     nt.zeros(0).long())),
                      lambda: torch._C._nn.max_pool2d_with_indices(
                          t, 2, out=(torch.zeros(0).double(), torch.zeros(0).long())))


def _pool_error_cases():
    cases = []
    for d in (1, 2, 3):
        good = [2, 3] + [7] * d
        for which in ("plain", "wi"):
            base = [
                ("unbatched", [3] + [7] * d, (2,)), ("low rank", [7] * d, (2,)),
                ("high rank", [2, 2, 3] + [7] * d, (2,)),
                ("zero chan", [2, 0] + [7] * d, (2,)),
                ("zero spatial", [2, 3, 0] + [7] * (d - 1), (2,)),
                ("k list wrong", good, ([2] * (d + 1),)), ("k empty", good, ([],)),
                ("k0", good, (0,)), ("k-1", good, (-1,)), ("s0", good, (2, 0)),
                ("s-1", good, (2, -1)), ("s wrong", good, (2, [1] * (d + 1))),
                ("p-1", good, (2, 1, -1)), ("p big", good, (2, 1, 2)),
                ("p wrong", good, (2, 1, [0] * (d + 1))), ("d0", good, (2, 1, 0, 0)),
                ("d wrong", good, (2, 1, 0, [1] * (d + 1))), ("too small", good, (8,)),
                ("too small2", good, (3, 1, 0, 4)),
            ]
            for label, shape, args in base:
                cases.append((d, which, label, shape, torch.float32, args))
            for dt in (torch.int64, torch.bool, torch.float16, torch.bfloat16):
                cases.append((d, which, str(dt), good, dt, (2,)))
    return cases


@pytest.mark.parametrize("case", _pool_error_cases(), ids=lambda c: f"{c[0]}d-{c[1]}-{c[2]}")
def test_max_pool_errors(case):
    d, which, label, shape, dtype, args = case
    t = torch.zeros(shape, dtype=dtype)
    x = nt.zeros(shape, dtype=getattr(nt, str(dtype).split(".")[1]))
    nfn = getattr(nt, f"max_pool{d}d" if which == "plain" else f"max_pool{d}d_with_indices")
    tfn = getattr(torch, f"max_pool{d}d") if which == "plain" else TORCH_WI[d]
    try:
        tfn(t, *args)
    except RuntimeError:
        assert_same_error(lambda: nfn(x, *args), lambda: tfn(t, *args))
    else:
        r = nfn(x, *args)
        want = tfn(t, *args)
        if isinstance(want, tuple):
            assert_same(r[0], want[0])
            assert_same(r[1], want[1])
        else:
            assert_same(r, want)


def test_max_pool_argument_errors():
    x, t = nt.zeros(2, 3, 7, 7), torch.zeros(2, 3, 7, 7)
    for call in ["m.max_pool2d(1, 2)", "m.max_pool2d(x)", "m.max_pool2d(x, 2.5)",
                 "m.max_pool2d(x, 2, ceil_mode=2)", "m.max_pool1d_with_indices(x, 'a')"]:
        assert_same_error(lambda: eval(call, {"m": nt, "x": x}),
                          lambda: eval(call, {"m": torch, "x": t}))


# ---------------------------------------------------------------- cdist, pdist

P_VALUES = [0.0, 1.0, 2.0, 3.5, 0.5, math.inf]


def check_distance(x, t, ref, m):
    """ntensor's x against torch's t: within the bound of m summed terms and a final root,
    or within it of the float64 reference (PyTorch's p = 2 through the matmul identity
    loses digits for close points)."""
    assert_close_dtype(x, t, n_terms=m + 4, ulps=4, ref=ref)


@pytest.mark.parametrize("p", P_VALUES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("shapes", [((4, 3), (5, 3)), ((2, 4, 6), (2, 3, 6)),
                                    ((3, 1, 5, 4), (2, 7, 4)), ((30, 5), (27, 5)),
                                    ((2, 40, 8), (1, 26, 8)), ((3, 0), (4, 0)), ((0, 3), (2, 3)),
                                    ((2, 3), (0, 2, 3))], ids=str)
def test_cdist_values(p, dtype, shapes):
    gen = torch.Generator().manual_seed(11)
    a64 = torch.randn(shapes[0], generator=gen, dtype=torch.float64)
    b64 = torch.randn(shapes[1], generator=gen, dtype=torch.float64)
    if a64.numel() and b64.numel() and a64.shape[-1]:
        b64.view(-1, b64.shape[-1])[0] = a64.view(-1, a64.shape[-1])[0]  # a zero distance
    a, b = a64.to(dtype), b64.to(dtype)
    ref = torch.cdist(a.double(), b.double(), p=p, compute_mode="donot_use_mm_for_euclid_dist")
    for mode in ["use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                 "donot_use_mm_for_euclid_dist"]:
        x = nt.cdist(conv(a), conv(b), p=p, compute_mode=mode)
        t = torch.cdist(a, b, p=p, compute_mode=mode)
        check_distance(x, t, ref.to(dtype), a.shape[-1])


def test_cdist_strided_inputs_and_defaults():
    gen = torch.Generator().manual_seed(2)
    a = torch.randn(4, 6, generator=gen).t()
    b = torch.randn(3, 5, 4, generator=gen)[:, ::2]
    x = nt.cdist(conv(a.contiguous()).t().contiguous().t(), conv(b.contiguous()))
    check_distance(x, torch.cdist(a, b), torch.cdist(a.double(), b.double()).float(), 6)
    x = nt._C.cdist(conv(a.contiguous()), conv(b.contiguous()), 1.0, None)
    check_distance(x, torch.cdist(a.contiguous(), b, 1.0), None, 6)


def test_cdist_names():
    a, b = torch.randn(2, 3, 4), torch.randn(2, 5, 4)
    for na, nb in [(("N", "P", "M"), None), (None, ("N", "R", "M")),
                   (("N", "P", "M"), ("N", "R", "M")),
                   ((None, "P", "M"), ("N", None, "M"))]:
        ta = a.refine_names(*na) if na else a
        tb = b.refine_names(*nb) if nb else b
        xa = conv(a).refine_names(*na) if na else conv(a)
        xb = conv(b).refine_names(*nb) if nb else conv(b)
        assert nt.cdist(xa, xb).names == torch.cdist(ta, tb).names
    for na, nb in [(("N", "H", "W"), ("N", "H", "W")), (("A", "P", "M"), ("B", "R", "M")),
                   (("A", "P", "M"), (None, "A", "M"))]:
        assert_same_error(lambda: nt.cdist(conv(a).refine_names(*na),
                                           conv(b).refine_names(*nb)),
                          lambda: torch.cdist(a.refine_names(*na), b.refine_names(*nb)))


def test_cdist_errors():
    x = torch.randn(3, 4, 5)
    cases = [
        lambda m, c: m.cdist(c(x[0, 0]), c(x[0])), lambda m, c: m.cdist(c(x[0]), c(x[0, 0])),
        lambda m, c: m.cdist(c(x[0]), c(x[0, :, :3])),
        lambda m, c: m.cdist(c(x[0].long()), c(x[0])),
        lambda m, c: m.cdist(c(x[0]), c(x[0].int())), lambda m, c: m.cdist(c(x[0].bool()), c(x[0])),
        lambda m, c: m.cdist(c(x[0].half()), c(x[0].half())),
        lambda m, c: m.cdist(c(x[0].bfloat16()), c(x[0].bfloat16())),
        lambda m, c: m.cdist(c(x[0]), c(x[0].double())),
        lambda m, c: m.cdist(c(x[0]), c(x[0]), p=-1),
        lambda m, c: m.cdist(c(x[0]), c(x[0]), compute_mode="x"),
        lambda m, c: m._C.cdist(c(x[0]), c(x[0]), 2, 3) if m is nt
        else m._C._VariableFunctions.cdist(c(x[0]), c(x[0]), 2, 3),
        lambda m, c: m.cdist(c(x), c(torch.randn(2, 4, 5))),
        lambda m, c: m.cdist(1, c(x)),
    ]
    for case in cases:
        assert_same_error(lambda: case(nt, from_torch), lambda: case(torch, lambda t: t))


@pytest.mark.parametrize("p", P_VALUES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
@pytest.mark.parametrize("shape", [(5, 3), (1, 4), (0, 3), (4, 0), (30, 7)], ids=str)
def test_pdist_values(p, dtype, shape):
    t64 = torch.randn(shape, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
    if shape[0] > 2:
        t64[2] = t64[0]
    t = t64.to(dtype)
    x = nt.pdist(conv(t), p)
    check_distance(x, torch.pdist(t, p), torch.pdist(t.double(), p).to(dtype), shape[1])
    check_distance(nt.pdist(conv(t).t().contiguous().t(), p=p), torch.pdist(t, p=p),
                   torch.pdist(t.double(), p).to(dtype), shape[1])


def test_pdist_names_and_errors():
    t = torch.randn(4, 3)
    # PyTorch 1.13 refuses named inputs; ntensor supports them, its result is unnamed
    r = nt.pdist(conv(t).refine_names("N", "D"))
    assert r.names == (None,)
    assert_close_dtype(r, torch.pdist(t), n_terms=7, ulps=4)
    for case in [lambda m, c: m.pdist(c(t[0])), lambda m, c: m.pdist(c(t[None])),
                 lambda m, c: m.pdist(c(t.long())), lambda m, c: m.pdist(c(t), -1),
                 lambda m, c: m.pdist(c(t.bfloat16())), lambda m, c: m.pdist(c(t.half())),
                 lambda m, c: m.pdist(1)]:
        assert_same_error(lambda: case(nt, from_torch), lambda: case(torch, lambda q: q))
