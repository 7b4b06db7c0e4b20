"""Shared timing code for the Python benchmarks: ntensor and PyTorch timed in the same
process, on the same number of threads, reported as a ratio (ntensor time / torch time)."""
import os
import statistics
import sys
import time
import timeit
import warnings

_root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.environ.get("NT_PYTHONPATH", os.path.join(_root, "build", "python")))
warnings.filterwarnings("ignore", message=".*Named tensors.*")

import ntensor  # noqa: E402
import torch  # noqa: E402

THREADS = int(os.environ.get("NT_BENCH_THREADS", "2"))
torch.set_num_threads(THREADS)
ntensor.set_num_threads(THREADS)


def alternating_medians(rows, rounds, settle=0.1):
    """Seconds per call, the median over `rounds`, of each function of each row (a row: the
    calls compared, ntensor's first). Each round times one call of every function in turn, so
    all see the same host, each after a pause of `settle` seconds: after a call, the OpenBLAS
    that PyTorch uses keeps its threads spinning on sched_yield for about 2^28 cycles, and
    OpenMP's workers spin a while too; on 2 CPUs they would take the CPUs of whatever runs
    next. One untimed call of each warms caches and allocators first."""
    times = [[[] for _ in fns] for fns in rows]
    for fns in rows:
        for fn in fns:
            fn()
    for _ in range(rounds):
        for fns, spans in zip(rows, times):
            for fn, seconds in zip(fns, spans):
                time.sleep(settle)
                t0 = time.perf_counter()
                fn()
                seconds.append(time.perf_counter() - t0)
    return [[statistics.median(s) for s in spans] for spans in times]


def best_time(fn, min_total=0.2, repeats=5, names=None):
    """Seconds per call: the best of `repeats` runs, each looping for about `min_total`. `fn`
    is a callable, or a statement (a string) run with the globals `names`: timeit then runs
    the statement itself in its loop, without the cost of calling a Python function, which
    the statement of a per-call row would otherwise share with both libraries."""
    number = 1
    while True:
        t = timeit.timeit(fn, number=number, globals=names)
        if t >= min_total / 5 or number >= 1 << 24:
            break
        number *= 4
    return min(timeit.repeat(fn, number=number, repeat=repeats, globals=names)) / number


class Report:
    """Collects rows of (what, ntensor seconds, torch seconds, target ratio) and prints them."""

    def __init__(self, title):
        self.title = title
        self.rows = []

    def per_call(self, what, nt_fn, torch_fn, target, nt_names=None, torch_names=None):
        """A row of seconds per call; with statements, `nt_names` and `torch_names` are the
        globals each runs with (best_time)."""
        self.rows.append((what, best_time(nt_fn, names=nt_names),
                          best_time(torch_fn, names=torch_names), target, None))

    def bandwidth(self, what, nt_fn, torch_fn, nbytes, target):
        self.rows.append((what, best_time(nt_fn, 0.5), best_time(torch_fn, 0.5), target, nbytes))

    def gflops(self, what, nt_fn, torch_fn, flops, target):
        """A throughput row: the ratio is torch's time over ntensor's, so higher is better
        and the target is a minimum."""
        self.rows.append((what, best_time(nt_fn, 0.5), best_time(torch_fn, 0.5), target,
                          ("flops", flops)))

    def print(self):
        print(f"== {self.title} (threads={THREADS}; ratio = ntensor time / torch time, "
              "or for GF/s rows ntensor rate / torch rate)")
        print(f"{'benchmark':46} {'ntensor':>12} {'torch':>12} {'ratio':>7} {'target':>7}  ok")
        misses = 0
        for what, a, b, target, amount in self.rows:
            if isinstance(amount, tuple):  # GFLOP/s: ratio = ntensor's rate / torch's rate
                ratio = b / a
                ok = ratio >= target
                ta, tb = f"{amount[1] / a / 1e9:.1f} GF/s", f"{amount[1] / b / 1e9:.1f} GF/s"
            elif amount:
                ratio = a / b
                ok = ratio <= target
                ta, tb = f"{amount / a / 1e9:.2f} GB/s", f"{amount / b / 1e9:.2f} GB/s"
            else:
                ratio = a / b
                ok = ratio <= target
                ta, tb = f"{a * 1e9:.0f} ns", f"{b * 1e9:.0f} ns"
            misses += not ok
            print(f"{what:46} {ta:>12} {tb:>12} {ratio:7.3f} {target:7.2f}  {'yes' if ok else 'NO'}")
        print(f"{len(self.rows) - misses} of {len(self.rows)} within target")
        return misses
