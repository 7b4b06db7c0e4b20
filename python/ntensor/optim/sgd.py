"""SGD: PyTorch 1.13's torch.optim.SGD (momentum, dampening, Nesterov, weight decay,
maximize), each group's update one call of the fused C op ntensor._fused_sgd_."""
from .. import _C
from .optimizer import Optimizer, _no_grad_step, required

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Implements stochastic gradient descent (optionally with momentum), as
    torch.optim.SGD (PyTorch 1.13) with foreach=False: the same arguments, errors, state
    (``state[p]['momentum_buffer']``, None without momentum) and values."""

    def __init__(self, params, lr=required, momentum=0, dampening=0,
                 weight_decay=0, nesterov=False, *, maximize=False, foreach=None,
                 differentiable=False):
        if lr is not required and lr < 0.0:
            raise ValueError("Invalid learning rate: {}".format(lr))
        if momentum < 0.0:
            raise ValueError("Invalid momentum value: {}".format(momentum))
        if weight_decay < 0.0:
            raise ValueError("Invalid weight_decay value: {}".format(weight_decay))
        if differentiable:
            raise NotImplementedError("SGD(differentiable=True): ntensor's optimizer steps are "
                                      "fused C ops that record no autograd graph")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov,
                        maximize=maximize, foreach=foreach,
                        differentiable=differentiable)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super(SGD, self).__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)

    @_no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        loss = self._evaluate(closure)

        for group in self.param_groups:
            momentum = group["momentum"]
            # parameters with a momentum buffer (or none needed), and those that get one now
            # (a copy of their first d_p: PyTorch's buffer-is-None case)
            old, new, kept = ([], [], []), ([], [], []), []
            for p in group["params"]:
                if p.grad is None:
                    continue
                buf = self.state[p].get("momentum_buffer")
                if momentum == 0:  # the buffer is neither read nor written
                    old[0].append(p)
                    old[1].append(p.grad)
                    kept.append(buf)
                elif buf is None:
                    new[0].append(p)
                    new[1].append(p.grad)
                    new[2].append(_C.empty_like(p.grad))
                else:
                    old[0].append(p)
                    old[1].append(p.grad)
                    old[2].append(buf)
            options = dict(weight_decay=group["weight_decay"], momentum=momentum, lr=group["lr"],
                           dampening=group["dampening"], nesterov=group["nesterov"],
                           maximize=group["maximize"])
            for (params, grads, bufs), first in ((old, False), (new, True)):
                if params:
                    _C._fused_sgd_(params, grads, bufs, is_first_step=first, **options)
                for p, buf in zip(params, bufs if momentum != 0 else kept):
                    self.state[p]["momentum_buffer"] = buf

        return loss
