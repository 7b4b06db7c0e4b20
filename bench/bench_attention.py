"""Multi-head attention (the named-tensor tutorial's MultiHeadAttention) against PyTorch 1.13 in
the same process, same parameters, same threads: N=32, T=128, D=512, 8 heads, float32.

Rows: forward under no_grad, and forward + backward (sum of the output), each for ntensor's
named form (the tutorial's code: refine_names, unflatten, align_to, div_, matmul,
masked_fill_, softmax, dropout p=0, matmul, align_to, flatten, out linear) and its plain form
(view/transpose, as PyTorch runs it: torch refuses the named batched form). The linears are
written with plain tensors, x.matmul(w.t()) + b, the weights leaf tensors.

How it measures: alternating rounds, each call after a pause of SETTLE seconds, medians
(common.alternating_medians says why). Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_attention.py [rounds]
"""
import math
import sys

from common import THREADS, alternating_medians, ntensor as nt, torch

import ntensor.nn.functional as ntF
import torch.nn.functional as tF

N, T, D, H = 32, 128, 512, 8
DH = D // H
SCALE = math.sqrt(DH)
SETTLE = 0.1  # seconds: longer than OpenBLAS's 2^28-cycle spin at 3 GHz or more


def parameters(seed=0):
    """The q, k, v and out linears' weights (xavier normal) and biases, the input and the mask,
    as float32 torch tensors."""
    g = torch.Generator().manual_seed(seed)
    std = math.sqrt(2.0 / (D + D))
    ws = [torch.randn(D, D, generator=g) * std for _ in range(4)]
    bs = [(torch.rand(D, generator=g) - 0.5) / math.sqrt(D) for _ in range(4)]
    x = torch.randn(N, T, D, generator=g)
    mask = (torch.rand(N, T, generator=g) > 0.1).float()
    return ws, bs, x, mask


def leaves(lib, tensors, grad):
    out = []
    for t in tensors:
        v = lib.tensor(t.numpy()) if lib is nt else t.clone()
        v.requires_grad_(grad)
        out.append(v)
    return out


def linear(x, w, b):
    return x.matmul(w.t()) + b


def named_attention(p, query, mask):
    """The tutorial's forward, self-attention (key = value = query)."""
    wq, wk, wv, wo, bq, bk, bv, bo = p
    query = query.refine_names(..., "T", "D")
    mask = mask.refine_names(..., "T")

    def prepare_head(tensor):
        tensor = tensor.refine_names(..., "T", "D")
        return (tensor.unflatten("D", [("H", H), ("D_head", DH)])
                .align_to(..., "H", "T", "D_head"))

    k = prepare_head(linear(query, wk, bk)).rename(T="T_key")
    v = prepare_head(linear(query, wv, bv)).rename(T="T_key")
    q = prepare_head(linear(query, wq, bq))
    dot_prod = q.div_(SCALE).matmul(k.align_to(..., "D_head", "T_key"))
    dot_prod.refine_names(..., "H", "T", "T_key")
    attn_mask = (mask == 0).align_as(dot_prod)
    dot_prod.masked_fill_(attn_mask, -float(1e20))
    attn_weights = ntF.dropout(ntF.softmax(dot_prod / SCALE, dim="T_key"), p=0.0, training=True)
    attentioned = (attn_weights.matmul(v).refine_names(..., "H", "T", "D_head")
                   .align_to(..., "T", "H", "D_head")
                   .flatten(["H", "D_head"], "D"))
    return linear(attentioned, wo, bo).refine_names(..., "T", "D")


def plain_attention(F, p, query, mask):
    """The same computation with view/transpose (ParlAI's form), unnamed; for either library."""
    wq, wk, wv, wo, bq, bk, bv, bo = p
    n, t, d = query.shape

    def prepare_head(tensor):
        return tensor.view(n, t, H, DH).transpose(1, 2)

    k = prepare_head(linear(query, wk, bk))
    v = prepare_head(linear(query, wv, bv))
    q = prepare_head(linear(query, wq, bq))
    dot_prod = q.div_(SCALE).matmul(k.transpose(-2, -1))
    attn_mask = (mask == 0).view(n, 1, t, 1).expand_as(dot_prod)
    dot_prod.masked_fill_(attn_mask, -float(1e20))
    attn_weights = F.dropout(F.softmax(dot_prod / SCALE, dim=-1), p=0.0, training=True)
    attentioned = attn_weights.matmul(v).transpose(1, 2).reshape(n, t, d)
    return linear(attentioned, wo, bo)


def setup():
    ws, bs, x, mask = parameters()
    tp = leaves(torch, ws + bs, True)
    npar = leaves(nt, ws + bs, True)
    tx, tmask = x.clone(), mask.clone()
    nx, nmask = nt.tensor(x.numpy()), nt.tensor(mask.numpy())
    nxn = nx.refine_names("N", "T", "D")
    nmaskn = nmask.refine_names("N", "T")
    return tp, npar, (tx, tmask), (nx, nmask), (nxn, nmaskn)


def check(tp, npar, targs, nargs, nnargs):
    """Both ntensor forms agree with torch (forward and parameter gradients)."""
    for p in tp + npar:
        p.grad = None
    out_t = plain_attention(tF, tp, *targs)
    out_t.sum().backward()
    for fn, args in ((lambda p, q, m: plain_attention(ntF, p, q, m), nargs),
                     (named_attention, nnargs)):
        for p in npar:
            p.grad = None
        out = fn(npar, *args)
        out.sum().backward()
        err = (torch.from_numpy(out.rename(None).numpy()) - out_t.detach()).abs().max().item()
        assert err < 1e-3, err
        for a, b in zip(npar, tp):
            e = (torch.from_numpy(a.grad.numpy()) - b.grad).abs().max().item()
            assert e < 1e-3 * max(1.0, b.grad.abs().max().item()), e


def main(rounds):
    tp, npar, targs, nargs, nnargs = setup()
    check(tp, npar, targs, nargs, nnargs)

    def fwd(lib, fn, p, args):
        def run():
            with lib.no_grad():
                fn(p, *args)
        return run

    def fwd_bwd(fn, p, args):
        def run():
            for w in p:
                w.grad = None
            fn(p, *args).sum().backward()
        return run

    nt_plain = lambda p, q, m: plain_attention(ntF, p, q, m)  # noqa: E731
    t_plain = lambda p, q, m: plain_attention(tF, p, q, m)  # noqa: E731
    rows = [
        ("forward, no_grad, named", fwd(nt, named_attention, npar, nnargs),
         fwd(torch, t_plain, tp, targs)),
        ("forward, no_grad, plain", fwd(nt, nt_plain, npar, nargs),
         fwd(torch, t_plain, tp, targs)),
        ("forward + backward, named", fwd_bwd(named_attention, npar, nnargs),
         fwd_bwd(t_plain, tp, targs)),
        ("forward + backward, plain", fwd_bwd(nt_plain, npar, nargs),
         fwd_bwd(t_plain, tp, targs)),
    ]
    medians = alternating_medians([row[1:] for row in rows], rounds, SETTLE)
    print(f"== multi-head attention N={N} T={T} D={D} heads={H} float32 (threads={THREADS}; "
          f"medians of {rounds} alternating rounds; ratio = ntensor time / torch time)")
    print(f"{'benchmark':30} {'ntensor':>10} {'torch':>10} {'ratio':>7} {'target':>7}  ok")
    misses = 0
    for (what, _, _), (a, b) in zip(rows, medians):
        ok = a / b <= 0.5
        misses += not ok
        print(f"{what:30} {a * 1e3:8.2f}ms {b * 1e3:8.2f}ms {a / b:7.3f} {0.5:7.2f}  "
              f"{'yes' if ok else 'NO'}")
    print(f"{len(rows) - misses} of {len(rows)} within target")
    return misses


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 15)
