"""Autograd's per-call overhead from Python on 8x8 float32 tensors with requires_grad=True,
against PyTorch 1.13 in the same process (bench/common.py: best of repeated runs, ratio =
ntensor time / torch time, target 0.5).

Rows: one op with its backward, `(a * b).sum().backward()`; and chains of K ops (mul, add,
tanh, matmul, ...) then one backward of their sum, per op (the time divided by K).
Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_autograd.py"""
from common import Report, ntensor as nt, torch

K = 16


def leaves(lib):
    g = torch.Generator().manual_seed(0)
    ts = [torch.rand(8, 8, generator=g) for _ in range(3)]
    if lib is torch:
        return [t.clone().requires_grad_() for t in ts]
    return [nt.tensor(t.tolist()).requires_grad_() for t in ts]


def one_op(a, b, w):
    (a * b).sum().backward()


def chain(op):
    def run(a, b, w):
        x = a
        for _ in range(K):
            x = op(x, b, w)
        x.sum().backward()
    return run


CHAINS = {
    "mul": lambda x, b, w: x * b,
    "add": lambda x, b, w: x + b,
    "tanh": lambda x, b, w: x.tanh(),
    "matmul": lambda x, b, w: x @ w,
    "mixed (mul, add, tanh, matmul)": None,
}


def mixed(a, b, w):
    x = a
    for _ in range(K // 4):
        x = ((x * b) + a).tanh() @ w
    x.sum().backward()


def main():
    r = Report("autograd per call, 8x8 float32, requires_grad=True (ntensor vs torch 1.13)")
    na, ta = leaves(nt), leaves(torch)
    r.per_call("(a * b).sum().backward()", lambda: one_op(*na), lambda: one_op(*ta), 0.5)
    for what, op in CHAINS.items():
        fn = mixed if op is None else chain(op)
        r.per_call(f"{what} x{K} + sum().backward(), per op",
                   lambda: fn(*na), lambda: fn(*ta), 0.5)
    # per op: divide the chains' times by K (the one-op row stays per call)
    r.rows = [r.rows[0]] + [(w, a / K, b / K, t, x) for w, a, b, t, x in r.rows[1:]]
    return r.print()


if __name__ == "__main__":
    main()
