"""ntensor.autograd: reverse-mode differentiation over the C library's graph.

backward and grad are PyTorch's (their arguments and errors); the engine, the backward formulas
and the gradients' names are the C library's (ntensor/autograd.h). Gradients carry the names of
the tensors they belong to: a gradient given to backward, or returned by a hook, whose names do
not match its tensor's is an error naming both.
"""
from .. import _C
from .grad_mode import (enable_grad, inference_mode, is_grad_enabled,  # noqa: F401
                        is_inference_mode_enabled, no_grad, set_grad_enabled)
from .gradcheck import GradcheckError, gradcheck, gradgradcheck  # noqa: F401

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "inference_mode",
           "gradcheck", "gradgradcheck", "GradcheckError"]


def _tensors(x):
    if isinstance(x, _C.Tensor):
        return (x,)
    return tuple(x)


def _grads(grads, n):
    """The gradients as a tuple (None for each output when not given); a count that differs
    from the outputs' is the C library's error ("got 2 tensors and 1 gradients")."""
    if grads is None:
        return (None,) * n
    if isinstance(grads, _C.Tensor):
        return (grads,)
    return tuple(grads)


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, grad_variables=None,
             inputs=None):
    """Accumulates the gradients of `tensors` (weighted by grad_tensors) into the leaves' grad
    (only into `inputs` when given)."""
    if grad_variables is not None:
        grad_tensors = grad_variables
    tensors = _tensors(tensors)
    if inputs is not None:
        inputs = _tensors(inputs)
        if not inputs:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
    if retain_graph is None:
        retain_graph = create_graph
    _C._run_backward(tensors, _grads(grad_tensors, len(tensors)), bool(retain_graph),
                     bool(create_graph), inputs or (), False, True)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=False, is_grads_batched=False):
    """The gradients of `outputs` with respect to each of `inputs`, as a tuple (None for an unused
    input when allow_unused)."""
    if is_grads_batched:
        raise NotImplementedError("is_grads_batched=True is not supported")
    outputs = _tensors(outputs)
    inputs = _tensors(inputs)
    if not inputs:
        raise ValueError("grad requires non-empty inputs.")
    if retain_graph is None:
        retain_graph = create_graph
    return _C._run_backward(outputs, _grads(grad_outputs, len(outputs)), bool(retain_graph),
                            bool(create_graph), inputs, bool(allow_unused), False)
