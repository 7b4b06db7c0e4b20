"""zero_grads: Module.zero_grad and Optimizer.zero_grad's one loop."""


def zero_grads(params, set_to_none):
    """Sets each parameter's grad to zero (cut from any graph), or to None with set_to_none."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if p.grad.grad_fn is not None:
            p.grad.detach_()
        else:
            p.grad.requires_grad_(False)
        p.grad.zero_()
