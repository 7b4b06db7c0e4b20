"""Named gradients (docs/autograd.md): a gradient carries the names of its tensor; a gradient
given to backward or autograd.grad, returned by a hook or assigned to .grad whose names do not
match its tensor's is an error naming both. PyTorch 1.13 leaves gradients unnamed: its values are
the oracle, the names are our rule."""
import pytest
import torch

import ntensor as nt


def test_spec_autograd_example():
    # the spec's "Autograd support" example, with fixed values
    x = nt.tensor([0.5, -1.0, 2.0], names=("D",))
    weight = nt.tensor([1.0, 1.0, 1.0], names=("D",), requires_grad=True)
    loss = (x - weight).abs()
    grad_loss = nt.tensor([1.0, 2.0, 3.0])
    loss.backward(grad_loss)
    tw = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
    (torch.tensor([0.5, -1.0, 2.0]) - tw).abs().backward(torch.tensor([1.0, 2.0, 3.0]))
    assert weight.grad.names == ("D",)  # PyTorch: unnamed ("will be named in the future")
    assert weight.grad.rename(None).tolist() == tw.grad.tolist()
    weight.grad.zero_()
    grad_loss = grad_loss.refine_names("C")
    loss = (x - weight).abs()
    # PyTorch: "Ideally we'd check that the names of loss and grad_loss match but we don't yet."
    with pytest.raises(RuntimeError, match=r"\['C'\] do not match the tensor's names \['D'\]"):
        loss.backward(grad_loss)


def test_leaf_grad_carries_names():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad.names == ("N", "C")
    assert x.grad.rename(None).tolist() == [[2.0] * 3] * 2


def test_broadcast_grad_named_as_input():
    x = nt.ones(3, names=("C",), requires_grad=True)
    y = nt.ones(2, 3, names=("N", "C"))
    (x * y).sum().backward()
    assert x.grad.names == ("C",)
    assert x.grad.rename(None).tolist() == [2.0, 2.0, 2.0]


def test_reduce_by_name_and_align():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    y = nt.arange(6.0).reshape(3, 2).refine_names("C", "N")
    (x * y.align_as(x)).sum("C").sum().backward()
    assert x.grad.names == ("N", "C")
    assert x.grad.rename(None).tolist() == y.align_as(x).rename(None).tolist()


def test_rename_in_place_is_not_recorded():
    # PyTorch: rename_ changes metadata only, so a leaf that requires grad may be renamed in
    # place, a non-leaf keeps its grad_fn, and no version is bumped
    x = nt.ones(2, 3, requires_grad=True)
    x.rename_("N", "C")
    assert x.is_leaf and x.grad_fn is None and x.names == ("N", "C") and x._version == 0
    y = x * 2
    y.rename_(None)
    assert y.grad_fn.name() == "MulBackward0" and y._version == 0
    y.sum().backward()
    assert x.grad.names == ("N", "C")
    assert x.grad.rename(None).tolist() == [[2.0] * 3] * 2
    t = torch.ones(2, 3, requires_grad=True)
    t.rename_("N", "C")
    u = t * 2
    u.rename_(None)
    assert u.grad_fn.name() == y.grad_fn.name() and t.is_leaf


def test_autograd_grad_names():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    (g,) = nt.autograd.grad((x * x).sum(), x)
    assert g.names == ("N", "C")


def test_nonleaf_retained_grad_names():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    y = x * 2
    y.retain_grad()
    y.sum().backward()
    assert y.grad.names == ("N", "C")


def test_backward_gradient_wrong_names():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    with pytest.raises(RuntimeError) as e:
        (x * 2).backward(nt.ones(2, 3, names=("A", "C")))
    assert str(e.value) == ("backward: the gradient's names ['A', 'C'] do not match the tensor's "
                            "names ['N', 'C'] (dim 0: 'A' vs 'N')")


def test_backward_gradient_unnamed_or_partial_is_fine():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    (x * 2).backward(nt.ones(2, 3))
    (x * 2).backward(nt.ones(2, 3, names=("N", None)))
    assert x.grad.names == ("N", "C")
    assert x.grad.rename(None).tolist() == [[4.0] * 3] * 2


def test_grad_outputs_wrong_names():
    x = nt.ones(2, names=("N",), requires_grad=True)
    with pytest.raises(RuntimeError, match=r"\['M'\] do not match the tensor's names \['N'\]"):
        nt.autograd.grad(x * 2, x, grad_outputs=nt.ones(2, names=("M",)))


@pytest.mark.parametrize("leaf", [True, False])
def test_hook_wrong_names(leaf):
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    t = x if leaf else x * 2
    t.register_hook(lambda g: g.rename("A", "B"))
    with pytest.raises(RuntimeError) as e:
        (t * 2).sum().backward()
    assert str(e.value) == ("a hook's result: the gradient's names ['A', 'B'] do not match the "
                            "tensor's names ['N', 'C'] (dim 0: 'A' vs 'N')")


def test_hook_unnamed_result_is_named():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    x.register_hook(lambda g: g.rename(None) * 2)
    (x * 2).sum().backward()
    assert x.grad.names == ("N", "C")
    assert x.grad.rename(None).tolist() == [[4.0] * 3] * 2


def test_assign_grad_names():
    x = nt.ones(2, 3, names=("N", "C"), requires_grad=True)
    x.grad = nt.ones(2, 3)
    assert x.grad.names == ("N", "C")
    with pytest.raises(RuntimeError) as e:
        x.grad = nt.ones(2, 3, names=("A", "C"))
    assert str(e.value) == ("assigning .grad: the gradient's names ['A', 'C'] do not match the "
                            "tensor's names ['N', 'C'] (dim 0: 'A' vs 'N')")
