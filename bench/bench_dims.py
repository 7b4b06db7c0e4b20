"""First-class dims per call against functorch.dim (PyTorch 1.13) in the same process, 2
threads: dims(3), binding A[i, k], a split binding, order, the mm pattern
(A[i,k]*B[k,j]).sum(k).order(i,j), (i <= j).order(i, j) and the spec's triu on 8x8 float32
tensors (target: at most 0.5x functorch.dim's time), each timed as a statement by timeit (and
again through a lambda, for comparison with earlier figures); and the mm pattern on 1024x1024
float32 against our own mm (target: at most 1.02x), the two called alternately and compared by
their medians (one best-of block after the other drifted by 5% with the host). Run:
PYTHONPATH=build/python /usr/bin/python3 bench/bench_dims.py
"""
import sys

from common import Report, alternating_medians, ntensor as nt, torch

from functorch import dim as fdim  # noqa: E402  (patches torch; imported after common)
from ntensor import dim as ndim  # noqa: E402


STATEMENTS = {
    "dims(3)": "dims(3)",
    "bind A[i, k]": "A[i, k]",
    "split bind A[(p, q), k]": "A[(p, q), k]",
    "order A[i, k].order(k, i)": "Ab.order(k, i)",
    "mm (A[i,k]*B[k,j]).sum(k).order(i,j)": "mm()",
    "(i <= j).order(i, j)": "(s <= t).order(s, t)",
    "triu where(i <= j, A[i, j], 0)": "triu()",
}


def names(lib, dims, A, B):
    """The globals the statements of one library run with."""
    i, j, k = dims(3)
    p, q = dims(2)
    q.size = 2
    s, t = dims(2, sizes=[8, 8])

    def mm():
        ii, jj, kk = dims(3)
        return (A[ii, kk] * B[kk, jj]).sum(kk).order(ii, jj)

    def triu():
        ii, jj = dims(2)
        x = A[ii, jj]
        return lib.where(ii <= jj, x, 0).order(ii, jj)
    return dict(dims=dims, A=A, B=B, Ab=A[i, k], i=i, j=j, k=k, p=p, q=q, s=s, t=t, mm=mm,
                triu=triu)


def main():
    a = torch.rand(8, 8)
    b = torch.rand(8, 8)
    ours = names(nt, lambda n, sizes=None: ndim.dims(n, sizes=sizes), nt.tensor(a.tolist()),
                 nt.tensor(b.tolist()))
    theirs = names(torch, lambda n, sizes=None: fdim.dims(n, sizes=sizes), a, b)
    report = Report("first-class dims vs functorch.dim, 8x8 float32, per call (timeit of the "
                    "statement)")
    for name, stmt in STATEMENTS.items():
        report.per_call(name, stmt, stmt, 0.5, ours, theirs)
    misses = report.print()
    # The same statements called through a lambda each, as this benchmark timed them before:
    # the Python call, the same for both, is then inside every figure.
    report = Report("the same, each statement called through a Python lambda (not a target)")
    for name, stmt in STATEMENTS.items():
        report.per_call(name, eval("lambda: " + stmt, ours), eval("lambda: " + stmt, theirs),
                        0.5)
    report.print()

    big_a, big_b = nt.rand(1024, 1024), nt.rand(1024, 1024)
    i, j, k = ndim.dims(3)
    [[pattern, plain]] = alternating_medians(
        [[lambda: (big_a[i, k] * big_b[k, j]).sum(k).order(i, j), lambda: nt.mm(big_a, big_b)]],
        rounds=60, settle=0.02)
    ratio = pattern / plain
    print(f"mm pattern 1024x1024 float32: {pattern * 1e3:.2f} ms, mm {plain * 1e3:.2f} ms, "
          f"ratio {ratio:.3f} (target <= 1.02) {'yes' if ratio <= 1.02 else 'NO'}")
    return misses + (ratio > 1.02)


if __name__ == "__main__":
    sys.exit(1 if main() else 0)
