"""The layers' ops (gelu, silu, layer_norm, linear) on a (32*128, 512) float32 batch, ntensor
against PyTorch 1.13, timed in *CPU time* of the calling thread on one thread (or of the process
with NT_BENCH_THREADS > 1): on a shared machine, wall-clock rows (bench_ops.py nn) measure
mostly the other jobs. Each row is the best of 7 rounds of 10 calls, the libraries alternating.
Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_nn.py"""
import time

from common import THREADS, ntensor as nt, torch

import ntensor.nn.functional as ntF
import torch.nn.functional as tF

CLOCK = time.thread_time if THREADS == 1 else time.process_time


def seconds(fn, reps=10):
    t0 = CLOCK()
    for _ in range(reps):
        fn()
    return (CLOCK() - t0) / reps


def main():
    n, d = 32 * 128, 512
    x_nt, x_t = nt.randn(n, d), torch.randn(n, d)
    w_nt, b_nt, w_t, b_t = nt.rand(d), nt.rand(d), torch.rand(d), torch.rand(d)
    m_nt, m_t = nt.rand(d, d), torch.rand(d, d)
    rows = [
        ("F.gelu(x)", lambda: ntF.gelu(x_nt), lambda: tF.gelu(x_t)),
        ("F.gelu(x, approximate='tanh')", lambda: ntF.gelu(x_nt, approximate="tanh"),
         lambda: tF.gelu(x_t, approximate="tanh")),
        ("F.silu(x)", lambda: ntF.silu(x_nt), lambda: tF.silu(x_t)),
        ("F.layer_norm(x, [512], w, b)", lambda: ntF.layer_norm(x_nt, [d], w_nt, b_nt),
         lambda: tF.layer_norm(x_t, [d], w_t, b_t)),
        ("F.linear(x, w (512, 512), b)", lambda: ntF.linear(x_nt, m_nt, b_nt),
         lambda: tF.linear(x_t, m_t, b_t)),
    ]
    print(f"== nn ops, (4096, 512) float32, threads={THREADS}, CPU time; ratio = ntensor / torch")
    for name, f, g in rows:
        a = b = float("inf")
        for _ in range(7):
            a, b = min(a, seconds(f)), min(b, seconds(g))
        print(f"{name:34} {a * 1e3:8.3f} ms {b * 1e3:8.3f} ms  ratio {a / b:.3f}")


if __name__ == "__main__":
    main()
