"""First-class dims per call against functorch.dim (PyTorch 1.13) in the same process, 2
threads: dims(3), binding A[i, k], a split binding, order, the mm pattern
(A[i,k]*B[k,j]).sum(k).order(i,j), (i <= j).order(i, j) and the spec's triu on 8x8 float32
tensors (target: at most 0.5x functorch.dim's time); and the mm pattern on 1024x1024 float32
against our own mm (target: at most 1.02x). Run:
PYTHONPATH=build/python /usr/bin/python3 bench/bench_dims.py
"""
import sys

from common import Report, best_time, ntensor as nt, torch

from functorch import dim as fdim  # noqa: E402  (patches torch; imported after common)
from ntensor import dim as ndim  # noqa: E402


def rows(lib, dims, A, B):
    """name -> a call of this library."""
    i, j, k = dims(3)
    p, q = dims(2)
    q.size = 2
    Ab = A[i, k]
    s, t = dims(2, sizes=[8, 8])

    def mm():
        ii, jj, kk = dims(3)
        return (A[ii, kk] * B[kk, jj]).sum(kk).order(ii, jj)

    def triu():
        ii, jj = dims(2)
        x = A[ii, jj]
        return lib.where(ii <= jj, x, 0).order(ii, jj)
    return {
        "dims(3)": lambda: dims(3),
        "bind A[i, k]": lambda: A[i, k],
        "split bind A[(p, q), k]": lambda: A[(p, q), k],
        "order A[i, k].order(k, i)": lambda: Ab.order(k, i),
        "mm (A[i,k]*B[k,j]).sum(k).order(i,j)": mm,
        "(i <= j).order(i, j)": lambda: (s <= t).order(s, t),
        "triu where(i <= j, A[i, j], 0)": triu,
    }


def main():
    a = torch.rand(8, 8)
    b = torch.rand(8, 8)
    ours = rows(nt, lambda n, sizes=None: ndim.dims(n, sizes=sizes), nt.tensor(a.tolist()),
                nt.tensor(b.tolist()))
    theirs = rows(torch, lambda n, sizes=None: fdim.dims(n, sizes=sizes), a, b)
    report = Report("first-class dims vs functorch.dim, 8x8 float32, per call")
    for name in ours:
        report.per_call(name, ours[name], theirs[name], 0.5)
    misses = report.print()

    big_a, big_b = nt.rand(1024, 1024), nt.rand(1024, 1024)
    i, j, k = ndim.dims(3)
    pattern = best_time(lambda: (big_a[i, k] * big_b[k, j]).sum(k).order(i, j), 1.0)
    plain = best_time(lambda: nt.mm(big_a, big_b), 1.0)
    ratio = pattern / plain
    print(f"mm pattern 1024x1024 float32: {pattern * 1e3:.2f} ms, mm {plain * 1e3:.2f} ms, "
          f"ratio {ratio:.3f} (target <= 1.02) {'yes' if ratio <= 1.02 else 'NO'}")
    return misses + (ratio > 1.02)


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
