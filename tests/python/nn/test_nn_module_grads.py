"""ntensor.nn with autograd: parameters are leaves that require grad, initialisers and
conversions record nothing, gradients reach the parameters through the layers (against
torch.nn with the same weights), zero_grad clears or zeroes them, to() converts them with
their parameters, and Tensor.data assignment keeps requires_grad."""
import pytest
import torch

import ntensor as nt
from ntensor import nn
from ntensor.nn import functional as F
from ntensor.nn import init

from helpers import assert_close_dtype, from_torch


def test_parameters_are_leaves_that_require_grad():
    lin = nn.Linear(3, 2)
    for p in lin.parameters():
        assert p.requires_grad and p.is_leaf and p.grad_fn is None and p.grad is None
    # the initialisers ran under no_grad: in place on a leaf that requires grad
    for fn in (init.uniform_, init.normal_, init.trunc_normal_, init.xavier_normal_,
               init.kaiming_uniform_, init.zeros_, init.ones_):
        assert fn(lin.weight) is lin.weight
        assert lin.weight.is_leaf and lin.weight.grad_fn is None
    assert not nn.Parameter(nt.ones(1), requires_grad=False).requires_grad


def _pair(in_f=4, out_f=3, dtype=torch.float64):
    torch.manual_seed(0)
    t = torch.nn.Sequential(torch.nn.Linear(in_f, 5), torch.nn.ReLU(), torch.nn.Linear(5, out_f))
    t = t.to(dtype)
    m = nn.Sequential(nn.Linear(in_f, 5), nn.ReLU(), nn.Linear(5, out_f)).double()
    m.load_state_dict({k: from_torch(v.detach()) for k, v in t.state_dict().items()})
    return m, t


def _differentiable(fn):
    """Whether autograd records fn (its derivative row exists): an op without one raises
    NotImplementedError when an input requires grad."""
    try:
        fn()
        return True
    except (NotImplementedError, AttributeError):
        return False


LINEAR_GRAD = _differentiable(lambda: F.linear(nt.ones(1, 2), nn.Parameter(nt.ones(3, 2))))


@pytest.mark.skipif(not LINEAR_GRAD, reason="F.linear has no derivative yet")
def test_gradients_reach_the_parameters():
    m, t = _pair()
    x = torch.randn(6, 4, dtype=torch.float64)
    t(x).pow(2).sum().backward()
    m(from_torch(x)).pow(2).sum().backward()
    for (k, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
        assert p.grad is not None, k
        assert_close_dtype(p.grad, q.grad, n_terms=20, scale=q.grad.abs() + 1)
    m.zero_grad()
    assert all(p.grad is not None and not p.grad.abs().sum().item() for p in m.parameters())
    m.zero_grad(set_to_none=True)
    assert all(p.grad is None for p in m.parameters())


def test_zero_grad_and_to_convert_gradients():
    lin = nn.Linear(2, 2)
    for p in lin.parameters():
        p.grad = nt.ones_like(p)
    w = lin.weight
    lin.double()
    assert lin.weight is w and w.dtype == nt.float64 and w.grad.dtype == nt.float64
    assert w.requires_grad and w.is_leaf
    lin.zero_grad()
    assert w.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
    lin.zero_grad(set_to_none=True)
    assert w.grad is None
    assert lin.requires_grad_(False) is lin and not w.requires_grad
    lin.requires_grad_()
    assert w.requires_grad


def test_data_assignment_keeps_requires_grad():
    p = nn.Parameter(nt.ones(2))
    p.data = nt.zeros(3, dtype=nt.float64)
    assert p.requires_grad and p.dtype == nt.float64 and p.shape == (3,)
    q = torch.nn.Parameter(torch.ones(2))
    with pytest.raises(RuntimeError) as want:
        q.data = torch.zeros(2, dtype=torch.int64)
    with pytest.raises(RuntimeError) as got:
        p.data = nt.zeros(2, dtype=nt.int64)
    assert str(got.value) == str(want.value)
    p.requires_grad_(False)
    p.data = nt.zeros(2, dtype=nt.int64)
    assert p.dtype == nt.int64


def test_state_dict_values_are_detached():
    lin = nn.Linear(2, 2)
    sd = lin.state_dict()
    assert not sd["weight"].requires_grad and sd["weight"].data_ptr() == lin.weight.data_ptr()
    assert lin.state_dict(keep_vars=True)["weight"] is lin.weight
    lin.load_state_dict({k: v * 2 for k, v in sd.items()})
    assert lin.weight.is_leaf and lin.weight.requires_grad and lin.weight.grad_fn is None


class Tiny:
    """Embedding -> LayerNorm -> Linear -> GELU -> Dropout -> Linear in either library."""

    @staticmethod
    def build(lib):
        class Model(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.emb = lib.nn.Embedding(11, 6, padding_idx=0)
                self.norm = lib.nn.LayerNorm(6)
                self.body = lib.nn.Sequential(lib.nn.Linear(6, 8), lib.nn.GELU(),
                                              lib.nn.Dropout(0.2), lib.nn.Linear(8, 3))

            def forward(self, idx):
                return self.body(self.norm(self.emb(idx)))

        return Model().double()


@pytest.mark.skipif(not LINEAR_GRAD, reason="F.linear has no derivative yet")
def test_model_gradients_match_torch():
    torch.manual_seed(3)
    t = Tiny.build(torch)
    with torch.no_grad():
        t.norm.weight.normal_()
        t.norm.bias.normal_()
    m = Tiny.build(nt)
    m.load_state_dict({k: from_torch(v.detach()) for k, v in t.state_dict().items()})
    m.eval()
    t.eval()  # dropout off: the same function in both
    idx = torch.tensor([[1, 0, 5, 10], [3, 3, 0, 7]])
    t(idx).pow(2).sum().backward()
    m(from_torch(idx)).pow(2).sum().backward()
    for (k, p), (_, q) in zip(m.named_parameters(), t.named_parameters()):
        assert p.grad is not None and p.grad.names == (None,) * p.dim(), k
        assert_close_dtype(p.grad, q.grad, n_terms=64, scale=q.grad.abs() + 1)
