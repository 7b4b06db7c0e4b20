"""bench_io.py — exchange and persistence figures (docs/io.md).

1. ntensor.save / ntensor.load of a 1 GiB float32 tensor against `cp` of the same file, in
   GB/s, on the same directory (default /tmp; argv[1] to choose). All three see the same
   page cache: the file is written, then read back warm, as cp reads it.
2. DLPack exchange of a 2^24-element float32 tensor both ways (PyTorch -> ntensor with
   ntensor.from_dlpack, ntensor -> PyTorch with torch.from_dlpack), in ns per exchange, beside
   a 16-element tensor: the same time means no copy.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/bench_io.py [dir]"""
import os
import statistics
import subprocess
import sys
import time
import timeit

import torch

import ntensor as nt


def best_of(fn, runs=3):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def files(folder):
    gib = 1 << 30
    x = nt.rand(gib // 4)
    path = os.path.join(folder, "bench_io.safetensors")
    copy = os.path.join(folder, "bench_io_copy.safetensors")
    try:
        t_save = best_of(lambda: nt.save({"x": x}, path))
        size = os.path.getsize(path)
        t_load = best_of(lambda: nt.load(path))
        t_cp = best_of(lambda: subprocess.run(["cp", path, copy], check=True))
    finally:
        for p in (path, copy):
            if os.path.exists(p):
                os.remove(p)
    for what, t in (("save", t_save), ("load", t_load), ("cp", t_cp)):
        print(f"{what:5s} {size / 2**30:.2f} GiB: {t:.3f} s, {size / t / 1e9:.2f} GB/s")


def dlpack():
    for n in (16, 1 << 24):
        t = torch.rand(n)
        x = nt.rand(n)
        runs = 20000
        to_nt = statistics.median(
            timeit.repeat(lambda: nt.from_dlpack(t), number=runs, repeat=5)) / runs
        to_torch = statistics.median(
            timeit.repeat(lambda: torch.from_dlpack(x), number=runs, repeat=5)) / runs
        print(f"DLPack {n:>9d} float32: torch -> ntensor {to_nt * 1e9:7.0f} ns, "
              f"ntensor -> torch {to_torch * 1e9:7.0f} ns")


if __name__ == "__main__":
    dlpack()
    files(sys.argv[1] if len(sys.argv) > 1 else "/tmp")
