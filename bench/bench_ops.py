"""Benchmarks of the operator issue, each against PyTorch 1.13 in the same process on the
same number of threads (2 by default), with the issue's target ratio.
Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_ops.py [group ...]
Groups: pointwise reduce linalg misc nn percall index (all by default)."""
import sys

from common import THREADS, Report, ntensor as nt, torch

import ntensor.nn.functional as ntF
import torch.nn.functional as tF

N24 = 1 << 24


def pointwise(report):
    x_nt, y_nt = nt.rand(N24), nt.rand(N24)
    x_t, y_t = torch.rand(N24), torch.rand(N24)
    # bytes moved: two inputs read, one output written
    report.bandwidth("x + y (2^24 float32)", lambda: x_nt + y_nt, lambda: x_t + y_t,
                     N24 * 12, 0.5)
    report.bandwidth("x * y (2^24 float32)", lambda: x_nt * y_nt, lambda: x_t * y_t,
                     N24 * 12, 0.5)
    for name in ("exp", "tanh", "sigmoid"):
        report.bandwidth(f"{name}(x) (2^24 float32)", getattr(x_nt, name), getattr(x_t, name),
                         N24 * 8, 0.33)


def reduce(report):
    x_nt = nt.rand(4096, 4096, names=("N", "C"))
    x_t = torch.rand(4096, 4096, names=("N", "C"))
    # torch 1.13's multi-threaded full sum fails on named tensors: both run unnamed here
    u_nt, u_t = x_nt.rename(None), x_t.rename(None)
    report.bandwidth("sum() 4096x4096", lambda: u_nt.sum(), lambda: u_t.sum(), N24 * 4, 1.0)
    report.bandwidth("sum('C') 4096x4096", lambda: x_nt.sum("C"), lambda: x_t.sum("C"),
                     N24 * 4, 1.0)
    report.bandwidth("sum('N') 4096x4096", lambda: x_nt.sum("N"), lambda: x_t.sum("N"),
                     N24 * 4, 0.8)
    report.bandwidth("softmax(x, dim='C') 4096x4096", lambda: ntF.softmax(x_nt, dim="C"),
                     lambda: tF.softmax(x_t, dim="C"), N24 * 8, 0.33)


def fp32_peak():
    """GFLOP/s of the register-resident FMA loop on the benchmarks' threads (bench_peak.c,
    built as build/bench/bench_peak), or None when it is not built."""
    import os
    import re
    import subprocess
    exe = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "build",
                       "bench", "bench_peak")
    if not os.path.exists(exe):
        return None
    out = subprocess.run([exe], capture_output=True, text=True,
                         env=dict(os.environ, NT_BENCH_THREADS=str(THREADS))).stdout
    rates = re.findall(rf"threads={THREADS}: ([0-9.]+) GFLOP/s", out)
    return float(rates[-1]) if rates else None


def linalg(report):
    for n in (1024, 2048):
        a_nt, b_nt = nt.rand(n, n), nt.rand(n, n)
        a_t, b_t = torch.rand(n, n), torch.rand(n, n)
        report.gflops(f"mm {n}x{n} float32", lambda: a_nt.mm(b_nt), lambda: a_t.mm(b_t),
                      2 * n ** 3, 0.95)
    a_nt, b_nt = nt.rand(64, 256, 256), nt.rand(64, 256, 256)
    a_t, b_t = torch.rand(64, 256, 256), torch.rand(64, 256, 256)
    report.gflops("bmm (64, 256, 256) float32", lambda: a_nt.bmm(b_nt), lambda: a_t.bmm(b_t),
                  2 * 64 * 256 ** 3, 1.0)
    peak = fp32_peak()
    if peak:
        print(f"fp32 FMA peak ({THREADS} threads, bench_peak): {peak:.1f} GFLOP/s; ntensor's "
              "products at % of it (target 85%):")
        for what, a, _, _, amount in report.rows:
            if isinstance(amount, tuple):
                print(f"  {what:40} {amount[1] / a / 1e9:7.1f} GF/s  {100 * amount[1] / a / 1e9 / peak:5.1f}%")


def misc(report):
    x_nt = nt.rand(4096, 4096, names=("N", "C"))
    x_t = torch.rand(4096, 4096, names=("N", "C"))
    report.bandwidth("transpose('N','C').contiguous() 4096x4096",
                     lambda: x_nt.transpose("N", "C").contiguous(),
                     lambda: x_t.transpose("N", "C").contiguous(), N24 * 8, 0.33)
    m_nt = nt.rand(4096, 4096) > 0.5
    m_t = torch.rand(4096, 4096) > 0.5
    u_nt, u_t = x_nt.rename(None), x_t.rename(None)
    report.bandwidth("masked_fill(mask, 0.) 4096x4096", lambda: u_nt.masked_fill(m_nt, 0.0),
                     lambda: u_t.masked_fill(m_t, 0.0), N24 * 9, 0.33)
    report.bandwidth("masked_fill_(mask, 0.) 4096x4096", lambda: u_nt.masked_fill_(m_nt, 0.0),
                     lambda: u_t.masked_fill_(m_t, 0.0), N24 * 9, 0.33)


def nn(report):
    """The layers' ops on a (32*128, 512) float32 batch: bytes moved are one read and one write
    (layer_norm's weight and bias are negligible); linear is a 4096x512 @ 512x512 GEMM."""
    n, d = 32 * 128, 512
    x_nt, x_t = nt.rand(n, d), torch.rand(n, d)
    for approximate in ("none", "tanh"):
        report.bandwidth(f"F.gelu(x, '{approximate}') ({n}, {d})",
                         lambda: ntF.gelu(x_nt, approximate=approximate),
                         lambda: tF.gelu(x_t, approximate=approximate), n * d * 8, 1.0)
    w_nt, b_nt, w_t, b_t = nt.rand(d), nt.rand(d), torch.rand(d), torch.rand(d)
    report.bandwidth(f"F.layer_norm(x, [{d}], w, b) ({n}, {d})",
                     lambda: ntF.layer_norm(x_nt, [d], w_nt, b_nt),
                     lambda: tF.layer_norm(x_t, [d], w_t, b_t), n * d * 8, 1.0)
    m_nt, m_t = nt.rand(d, d), torch.rand(d, d)
    report.gflops(f"F.linear(x, w, b) ({n}, {d}) x ({d}, {d})",
                  lambda: ntF.linear(x_nt, m_nt, b_nt), lambda: tF.linear(x_t, m_t, b_t),
                  2 * n * d * d, 0.9)


def percall(report):
    x_nt, y_nt = nt.rand(8, 8, names=("N", "C")), nt.rand(8, 8, names=("N", "C"))
    x_t, y_t = torch.rand(8, 8, names=("N", "C")), torch.rand(8, 8, names=("N", "C"))
    w_nt, w_t = nt.rand(8, 8, names=("C", "D")), torch.rand(8, 8, names=("C", "D"))
    report.per_call("x + y (8x8 named)", lambda: x_nt + y_nt, lambda: x_t + y_t, 0.5)
    report.per_call("x.sum('C') (8x8 named)", lambda: x_nt.sum("C"), lambda: x_t.sum("C"), 0.5)
    report.per_call("x.abs() (8x8 named)", lambda: x_nt.abs(), lambda: x_t.abs(), 0.5)
    report.per_call("x @ y (8x8 named)", lambda: x_nt @ w_nt, lambda: x_t @ w_t, 0.5)
    report.per_call("F.softmax(x, dim='C') (8x8 named)", lambda: ntF.softmax(x_nt, dim="C"),
                    lambda: tF.softmax(x_t, dim="C"), 0.5)
    report.per_call("x.transpose('N','C') (8x8 named)", lambda: x_nt.transpose("N", "C"),
                    lambda: x_t.transpose("N", "C"), 0.5)


def index(report):
    """t[...] and t[...] = v per call (8x8 float32), then the same while autograd is in use
    (a tensor requires grad: the indexed ones do not, so nothing is recorded)."""
    u_nt, u_t = nt.rand(8, 8), torch.rand(8, 8)
    i_nt, i_t = nt.tensor([0, 2, 5]), torch.tensor([0, 2, 5])
    m_nt = nt.rand(8, 8) > 0.5
    m_t = torch.from_numpy(m_nt.numpy())
    v_nt, v_t = nt.rand(3, 8), torch.rand(3, 8)
    cases = [
        ("x[0]", lambda x, i, m, v: x[0]),
        ("x[1:5:2]", lambda x, i, m, v: x[1:5:2]),
        ("x[:, 0]", lambda x, i, m, v: x[:, 0]),
        ("x[None, ..., 1]", lambda x, i, m, v: x[None, ..., 1]),
        ("x[idx]", lambda x, i, m, v: x[i]),
        ("x[mask]", lambda x, i, m, v: x[m]),
        ("x[0] = 1.0", lambda x, i, m, v: x.__setitem__(0, 1.0)),
        ("x[idx] = v", lambda x, i, m, v: x.__setitem__(i, v)),
    ]
    for live in (False, True):
        keep = (nt.ones(1, requires_grad=True), torch.ones(1, requires_grad=True)) if live else ()
        for what, f in cases:
            report.per_call(f"{what} (8x8{', autograd live' if live else ''})",
                            lambda f=f: f(u_nt, i_nt, m_nt, v_nt),
                            lambda f=f: f(u_t, i_t, m_t, v_t), 1.0)
        del keep


GROUPS = {"pointwise": pointwise, "reduce": reduce, "linalg": linalg, "misc": misc, "nn": nn,
          "percall": percall, "index": index}

if __name__ == "__main__":
    misses = 0
    for name in sys.argv[1:] or list(GROUPS):
        r = Report(f"{name} (ntensor vs torch 1.13)")
        GROUPS[name](r)
        misses += r.print()
    print(f"== {misses} benchmark(s) missed their target")
