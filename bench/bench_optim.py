"""Benchmarks of ntensor.optim: one optimizer step over 10 parameters of 512x512 float32
(2.6M elements), ntensor's fused C step against torch.optim's default (foreach=False on the
CPU in PyTorch 1.13), and its foreach=True form, in the same process.
Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_optim.py"""
from common import Report, ntensor as nt, torch


def params_pair(n=10, shape=(512, 512)):
    data = [torch.randn(shape) for _ in range(n)]
    tp = [d.clone().requires_grad_() for d in data]
    np_ = [nt.from_numpy(d.numpy().copy()).requires_grad_() for d in data]
    for a, b in zip(tp, np_):
        g = torch.randn(shape) * 1e-3
        a.grad = g
        b.grad = nt.from_numpy(g.numpy().copy())
    return tp, np_


def steps(report):
    tp, np_ = params_pair()
    cases = [("SGD(lr=0.01)", dict(lr=0.01)),
             ("SGD(lr=0.01, momentum=0.9, nesterov=True)", dict(lr=0.01, momentum=0.9,
                                                               nesterov=True)),
             ("Adam()", {}), ("Adam(amsgrad=True, weight_decay=0.01)",
                              dict(amsgrad=True, weight_decay=0.01)),
             ("AdamW()", {})]
    for what, kwargs in cases:
        name = what.split("(")[0]
        o_nt = getattr(nt.optim, name)(np_, **kwargs)
        o_t = getattr(torch.optim, name)(tp, **kwargs)
        o_f = getattr(torch.optim, name)(tp, foreach=True, **kwargs)
        report.per_call(f"{what} step, 10 x 512x512 f32", o_nt.step, o_t.step, 1.0)
        report.per_call(f"  ... vs torch foreach=True", o_nt.step, o_f.step, 1.0)


if __name__ == "__main__":
    r = Report("optimizer steps (ratio: ntensor / torch.optim per step)")
    steps(r)
    r.print()
