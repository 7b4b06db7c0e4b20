"""The torchdim README's multi-head attention (first_class_dims.md, "Composing matrix products,
reshaping, and batching") with ntensor.dim, against PyTorch 1.13 in the same process on the
same threads: q, k, v of N=32, T=128, D=512 float32, 8 heads, dropout p=0.1 in training
mode. Rows: forward under no_grad, and forward + backward (the output's sum; q, k, v require
grad). The reference is PyTorch's own form of the computation (view/transpose, matmul,
softmax, dropout, transpose/reshape: ParlAI's attention); the same README code run by
functorch.dim on torch is printed beside it for information. Target: at most 0.5x PyTorch.

It measures as bench_attention.py does: alternating rounds, each call after a pause of SETTLE
seconds, medians (common.alternating_medians says why). Run:
PYTHONPATH=build/python /usr/bin/python3 bench/bench_dims_attention.py [rounds]
"""
import sys

from common import THREADS, alternating_medians, ntensor as nt, torch

from functorch import dim as fdim  # noqa: E402  (patches torch; imported after common)
from ntensor import dim as ndim  # noqa: E402

N, T, D, H = 32, 128, 512, 8
P = 0.1
SETTLE = 0.1


def multiheadattention(lib, dims, q, k, v, num_attention_heads, dropout_prob):
    """The README's function, verbatim but for the library and dims() passed in."""
    batch, query_sequence, key_sequence, heads, features = dims(5)
    heads.size = num_attention_heads

    # binding dimensions, and unflattening the heads from the feature dimension
    q = q[batch, query_sequence, [heads, features]]
    k = k[batch, key_sequence, [heads, features]]
    v = v[batch, key_sequence, [heads, features]]

    # einsum-style operators to calculate scores,
    attention_scores = (q * k).sum(features) * (features.size ** -0.5)

    # use first-class dim to specify dimension for softmax
    attention_probs = dims.softmax(attention_scores, dim=key_sequence)

    # dropout work pointwise, following Rule #1
    attention_probs = lib.nn.functional.dropout(attention_probs, p=dropout_prob)

    # another matrix product
    context_layer = (attention_probs * v).sum(key_sequence)

    # flatten heads back into features
    return context_layer.order(batch, query_sequence, [heads, features])


def plain_torch(q, k, v, heads, dropout_prob):
    """PyTorch's form: heads split by view/transpose, two matmuls."""
    n, t, d = q.shape
    dh = d // heads

    def split(x):
        return x.view(n, t, heads, dh).transpose(1, 2)
    scores = split(q).matmul(split(k).transpose(-2, -1)) * (dh ** -0.5)
    probs = torch.nn.functional.dropout(torch.softmax(scores, dim=-1), p=dropout_prob)
    return probs.matmul(split(v)).transpose(1, 2).reshape(n, t, d)


class Dims:
    """dims(n) and softmax of one first-class-dims library."""

    def __init__(self, module):
        self.module = module

    def __call__(self, n):
        return self.module.dims(n)

    def softmax(self, x, dim):
        return self.module.softmax(x, dim=dim)


def inputs(lib, grad):
    g = torch.Generator().manual_seed(0)
    ts = [torch.randn(N, T, D, generator=g) for _ in range(3)]
    out = [lib.tensor(t.numpy()) if lib is nt else t.clone() for t in ts]
    for t in out:
        t.requires_grad_(grad)
    return out


def check():
    """Without dropout, ntensor.dim's result and gradients equal PyTorch's."""
    qn, kn, vn = inputs(nt, True)
    qt, kt, vt = inputs(torch, True)
    out_n = multiheadattention(nt, Dims(ndim), qn, kn, vn, H, 0.0)
    out_t = plain_torch(qt, kt, vt, H, 0.0)
    out_n.sum().backward()
    out_t.sum().backward()
    err = (torch.from_numpy(out_n.detach().numpy()) - out_t.detach()).abs().max().item()
    assert err < 1e-4, err
    for a, b in ((qn, qt), (kn, kt), (vn, vt)):
        e = (torch.from_numpy(a.grad.numpy()) - b.grad).abs().max().item()
        assert e < 1e-3 * max(1.0, b.grad.abs().max().item()), e


def main(rounds):
    check()

    def fwd(lib, fn, args):
        def run():
            with lib.no_grad():
                fn(*args)
        return run

    def fwd_bwd(fn, args):
        def run():
            for t in args[:3]:
                t.grad = None
            fn(*args).sum().backward()
        return run

    ours = lambda q, k, v: multiheadattention(nt, Dims(ndim), q, k, v, H, P)  # noqa: E731
    theirs = lambda q, k, v: multiheadattention(torch, Dims(fdim), q, k, v, H, P)  # noqa: E731
    plain = lambda q, k, v: plain_torch(q, k, v, H, P)  # noqa: E731
    rows = []
    for what, grad in (("forward, no_grad", False), ("forward + backward", True)):
        n_args, t_args = inputs(nt, grad), inputs(torch, grad)
        make = (lambda lib, f, a: fwd(lib, f, a)) if not grad else (lambda lib, f, a: fwd_bwd(f, a))
        rows.append((what, make(nt, ours, n_args), make(torch, plain, t_args),
                     make(torch, theirs, t_args)))
    medians = alternating_medians([row[1:] for row in rows], rounds, SETTLE)
    print(f"== torchdim README multi-head attention, N={N} T={T} D={D} heads={H} float32, "
          f"dropout {P} (threads={THREADS}; medians of {rounds} alternating rounds; ratio = "
          f"ntensor.dim time / PyTorch time)")
    print(f"{'benchmark':22} {'ntensor.dim':>12} {'PyTorch':>10} {'ratio':>7} {'target':>7}  ok"
          f"  {'functorch.dim':>14} {'ratio':>7}")
    misses = 0
    for (what, *_), (a, b, c) in zip(rows, medians):
        ok = a / b <= 0.5
        misses += not ok
        print(f"{what:22} {a * 1e3:10.2f}ms {b * 1e3:8.2f}ms {a / b:7.3f} {0.5:7.2f}  "
              f"{'yes' if ok else 'NO':3} {c * 1e3:12.2f}ms {a / c:7.3f}")
    print(f"{len(rows) - misses} of {len(rows)} within target")
    return misses


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 11)
