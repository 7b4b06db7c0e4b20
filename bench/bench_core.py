"""Benchmarks of the core issue: factories with names, the named-dimension API on small
tensors (per call, from Python), and dtype conversion and contiguous copy of 2^24 elements
(GB/s). Run: PYTHONPATH=build/python /usr/bin/python3 bench/bench_core.py"""
from common import Report, ntensor as nt, torch


def named_api(report):
    names = ("N", "C", "H", "W")
    a, b = nt.zeros(2, 3, 4, 5, names=names), torch.zeros(2, 3, 4, 5, names=names)
    u_nt, u_t = a.rename(None), b.rename(None)
    f_nt, f_t = a.flatten(["C", "H", "W"], "F"), b.flatten(["C", "H", "W"], "F")
    shape = (("C", 3), ("H", 4), ("W", 5))
    target = 0.5
    report.per_call("zeros(2,3,names=('N','C'))", lambda: nt.zeros(2, 3, names=("N", "C")),
                    lambda: torch.zeros(2, 3, names=("N", "C")), target)
    report.per_call("ones(2,3,names=('N','C'))", lambda: nt.ones(2, 3, names=("N", "C")),
                    lambda: torch.ones(2, 3, names=("N", "C")), target)
    report.per_call("full((2,3),1.5,names=('N','C'))",
                    lambda: nt.full((2, 3), 1.5, names=("N", "C")),
                    lambda: torch.full((2, 3), 1.5, names=("N", "C")), target)
    report.per_call("randn(2,3,names=('N','C'))", lambda: nt.randn(2, 3, names=("N", "C")),
                    lambda: torch.randn(2, 3, names=("N", "C")), target)
    report.per_call("x.names", lambda: a.names, lambda: b.names, target)
    report.per_call("rename(N='batch')", lambda: a.rename(N="batch"),
                    lambda: b.rename(N="batch"), target)
    report.per_call("rename(None)", lambda: a.rename(None), lambda: b.rename(None), target)
    report.per_call("refine_names('N','C','H','W')", lambda: u_nt.refine_names(*names),
                    lambda: u_t.refine_names(*names), target)
    report.per_call("refine_names(..., 'W')", lambda: u_nt.refine_names(..., "W"),
                    lambda: u_t.refine_names(..., "W"), target)
    report.per_call("align_to('W', ...)", lambda: a.align_to("W", ...),
                    lambda: b.align_to("W", ...), target)
    report.per_call("align_to('N','X','C','H','W')", lambda: a.align_to("N", "X", "C", "H", "W"),
                    lambda: b.align_to("N", "X", "C", "H", "W"), target)
    report.per_call("flatten(['C','H','W'], 'F')", lambda: a.flatten(["C", "H", "W"], "F"),
                    lambda: b.flatten(["C", "H", "W"], "F"), target)
    report.per_call("unflatten('F', (('C',3),('H',4),('W',5)))",
                    lambda: f_nt.unflatten("F", shape), lambda: f_t.unflatten("F", shape), target)


def copies(report):
    n = 1 << 24
    x_nt, x_t = nt.rand(n), torch.rand(n)
    pairs = [("float32 -> float16", nt.float16, torch.float16, 4 + 2),
             ("float32 -> float64", nt.float64, torch.float64, 4 + 8),
             ("float32 -> int32", nt.int32, torch.int32, 4 + 4),
             ("float32 -> bfloat16", nt.bfloat16, torch.bfloat16, 4 + 2)]
    for what, dn, dt, bytes_per in pairs:
        report.bandwidth(f"convert {what} (2^24)", lambda: x_nt.to(dn), lambda: x_t.to(dt),
                         n * bytes_per, 1.0)
    i_nt, i_t = x_nt.to(nt.int64), x_t.to(torch.int64)
    report.bandwidth("convert int64 -> float32 (2^24)", lambda: i_nt.to(nt.float32),
                     lambda: i_t.to(torch.float32), n * 12, 1.0)
    m_nt, m_t = nt.rand(4096, 4096), torch.rand(4096, 4096)
    report.bandwidth("clone (contiguous copy, 2^24 float32)", lambda: m_nt.clone(),
                     lambda: m_t.clone(), n * 8, 1.0)
    tn, tt = m_nt.t(), m_t.t()
    report.bandwidth("t().contiguous() (2^24 float32)", lambda: tn.contiguous(),
                     lambda: tt.contiguous(), n * 8, 1.0)


if __name__ == "__main__":
    r = Report("named-dimension API and factories, per call from Python")
    named_api(r)
    r.print()
    r = Report("dtype conversion and copies")
    copies(r)
    r.print()
