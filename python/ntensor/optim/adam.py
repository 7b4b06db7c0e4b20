"""Adam and AdamW: PyTorch 1.13's torch.optim.Adam and torch.optim.AdamW (amsgrad,
maximize, L2 or decoupled weight decay), each group's update one call of the fused C op
ntensor._fused_adam_ or ntensor._fused_adamw_."""
from .. import _C
from .optimizer import Optimizer, _no_grad_step

__all__ = ["Adam", "AdamW"]


def _check_args(lr, betas, eps, weight_decay):
    if not 0.0 <= lr:
        raise ValueError("Invalid learning rate: {}".format(lr))
    if not 0.0 <= eps:
        raise ValueError("Invalid epsilon value: {}".format(eps))
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError("Invalid beta parameter at index 0: {}".format(betas[0]))
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError("Invalid beta parameter at index 1: {}".format(betas[1]))
    if not 0.0 <= weight_decay:
        raise ValueError("Invalid weight_decay value: {}".format(weight_decay))


class _AdamBase(Optimizer):
    """The step both share: lazy state (a float32 step counter, exp_avg, exp_avg_sq and
    with amsgrad max_exp_avg_sq, zeros like the parameter), then one fused call per group."""

    _fused = None  # the op: _C._fused_adam_ or _C._fused_adamw_
    _name = None

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
        state_values = list(self.state.values())
        step_is_tensor = (len(state_values) != 0) and isinstance(state_values[0]["step"],
                                                                   _C.Tensor)
        if not step_is_tensor:
            for s in state_values:
                s["step"] = _C.tensor(float(s["step"]))

    @_no_grad_step
    def step(self, closure=None):
        """Performs a single optimization step.

        Args:
            closure (Callable, optional): A closure that reevaluates the model
                and returns the loss.
        """
        loss = self._evaluate(closure)

        for group in self.param_groups:
            params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, state_steps = (
                [], [], [], [], [], [])
            amsgrad = group["amsgrad"]
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                params.append(p)
                grads.append(p.grad)
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = (_C.zeros((1,), dtype=_C.float)
                                     if self.defaults["capturable"] or self.defaults.get("fused")
                                     else _C.tensor(0.))
                    state["exp_avg"] = _C.zeros_like(p)
                    state["exp_avg_sq"] = _C.zeros_like(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _C.zeros_like(p)
                exp_avgs.append(state["exp_avg"])
                exp_avg_sqs.append(state["exp_avg_sq"])
                if amsgrad:
                    max_exp_avg_sqs.append(state["max_exp_avg_sq"])
                state_steps.append(state["step"])
            if not all(isinstance(t, _C.Tensor) for t in state_steps):
                raise RuntimeError("API has changed, `state_steps` argument must contain a list "
                                   "of singleton tensors")
            if params:
                type(self)._fused(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs,
                                  state_steps, lr=group["lr"], beta1=beta1, beta2=beta2,
                                  weight_decay=group["weight_decay"], eps=group["eps"],
                                  amsgrad=amsgrad, maximize=group["maximize"])

        return loss


class Adam(_AdamBase):
    r"""Implements the Adam algorithm, as torch.optim.Adam (PyTorch 1.13) with foreach=False:
    the same arguments, errors, state (``step`` a float32 0-dim tensor, ``exp_avg``,
    ``exp_avg_sq``, ``max_exp_avg_sq`` with amsgrad) and values. The step is always fused
    (one C call per group); ``fused`` and ``capturable`` are kept as options only."""

    _fused = _C._fused_adam_

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=0, amsgrad=False, *, foreach=None,
                 maximize=False, capturable=False,
                 differentiable=False, fused=False):
        _check_args(lr, betas, eps, weight_decay)
        if differentiable:
            raise NotImplementedError("Adam(differentiable=True): ntensor's optimizer steps are "
                                      "fused C ops that record no autograd graph")
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable,
                        differentiable=differentiable, fused=fused)
        super(Adam, self).__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)


class AdamW(_AdamBase):
    r"""Implements the AdamW algorithm (decoupled weight decay), as torch.optim.AdamW
    (PyTorch 1.13) with foreach=False: the same arguments, errors, state and values."""

    _fused = _C._fused_adamw_

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                 weight_decay=1e-2, amsgrad=False, *, maximize=False,
                 foreach=None, capturable=False):
        _check_args(lr, betas, eps, weight_decay)
        defaults = dict(lr=lr, betas=betas, eps=eps,
                        weight_decay=weight_decay, amsgrad=amsgrad,
                        foreach=foreach, maximize=maximize, capturable=capturable)
        super(AdamW, self).__init__(params, defaults)
