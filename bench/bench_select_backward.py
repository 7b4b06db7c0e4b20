"""Backward of the value-selecting ops and max pooling on a (256, 4096) float32 input: the
median time of y.backward(g) over a few runs (the forward not counted), in ms.

Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_select_backward.py"""
import statistics
import sys
import time

import ntensor as nt


def case(name, f, x):
    times = []
    for _ in range(5):
        a = x.detach().requires_grad_()
        y = f(a)
        g = nt.ones_like(y)
        t0 = time.perf_counter()
        y.backward(g)
        times.append(time.perf_counter() - t0)
    print(f"{name:28s} {statistics.median(times) * 1e3:10.2f} ms")
    sys.stdout.flush()


def main():
    x = nt.randn(256, 4096)
    cases = [
        ("max(dim=1).values", lambda a: a.max(1).values),
        ("min(dim=1).values", lambda a: a.min(1).values),
        ("median(dim=1).values", lambda a: a.median(1).values),
        ("mode(dim=1).values", lambda a: a.mode(1).values),
        ("kthvalue(100, dim=1).values", lambda a: a.kthvalue(100, 1).values),
        ("topk(64, dim=1).values", lambda a: a.topk(64, 1).values),
        ("topk(1024, dim=1).values", lambda a: a.topk(1024, 1).values),
        ("cummax(dim=1).values", lambda a: a.cummax(1).values),
        ("cummin(dim=1).values", lambda a: a.cummin(1).values),
        ("max_pool1d(k=2)", lambda a: nt.nn.functional.max_pool1d(a.unsqueeze(0), 2)),
        ("max_pool1d(k=8, s=1)", lambda a: nt.nn.functional.max_pool1d(a.unsqueeze(0), 8, 1)),
        ("max_pool2d(k=2)", lambda a: nt.nn.functional.max_pool2d(a.unsqueeze(0), 2)),
        ("max_pool2d(k=3, s=1)", lambda a: nt.nn.functional.max_pool2d(a.unsqueeze(0), 3, 1)),
    ]
    only = sys.argv[1:]
    for name, f in cases:
        if not only or any(o in name for o in only):
            case(name, f, x)


if __name__ == "__main__":
    main()
