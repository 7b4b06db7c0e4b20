"""gradcheck and gradgradcheck: the analytical Jacobian (from autograd.grad, one row per output
element) against central finite differences (one column per input element), PyTorch's
arguments and its error text."""
from .. import _C

__all__ = ["gradcheck", "gradgradcheck", "GradcheckError"]


class GradcheckError(RuntimeError):
    """A Jacobian mismatch found by gradcheck."""


def _as_tuple(x):
    return (x,) if isinstance(x, _C.Tensor) else tuple(x)


def _differentiable(inputs):
    return [i for i, t in enumerate(inputs) if isinstance(t, _C.Tensor) and t.requires_grad]


def _outputs(func, inputs):
    return [o for o in _as_tuple(func(*inputs)) if isinstance(o, _C.Tensor)]


def _np():
    import numpy  # at first use: NumPy cannot load in a sub-interpreter
    return numpy


def _numerical(func, inputs, wrt, eps):
    """J[o][i]: (numel of output o) x (numel of input i), by central differences (func runs with
    grad mode as it is: gradgradcheck's function differentiates)."""
    np = _np()
    if True:  # noqa
        outs = _outputs(func, inputs)
        jac = [[np.zeros((o.numel(), inputs[i].numel())) for i in wrt] for o in outs]
        for col, i in enumerate(wrt):
            x = inputs[i].detach().numpy()  # shares the tensor's memory, strides included
            flat = [idx for idx in np.ndindex(*x.shape)] if x.ndim else [()]
            for j, idx in enumerate(flat):
                orig = x[idx].copy()
                x[idx] = orig - eps
                lo = [o.detach().numpy().astype(np.float64).ravel() for o in _outputs(func, inputs)]
                x[idx] = orig + eps
                hi = [o.detach().numpy().astype(np.float64).ravel() for o in _outputs(func, inputs)]
                x[idx] = orig
                for k in range(len(outs)):
                    jac[k][col][:, j] = (hi[k] - lo[k]) / (2 * eps)
    return jac


def _analytical(func, inputs, wrt):
    from . import grad
    np = _np()
    outs = _outputs(func, inputs)
    jac = [[np.zeros((o.numel(), inputs[i].numel())) for i in wrt] for o in outs]
    for k, o in enumerate(outs):
        if not o.requires_grad:
            continue
        for r in range(o.numel()):
            g = _C.zeros(o.numel(), dtype=o.dtype)
            g[r] = 1
            gs = grad(o, [inputs[i] for i in wrt], g.view(o.shape).rename(*o.names) if o.ndim
                      else g.view(o.shape), retain_graph=True, allow_unused=True)
            for col, gi in enumerate(gs):
                if gi is not None:
                    if gi.names != inputs[wrt[col]].names:
                        raise GradcheckError("gradient names %s do not match input %d's names %s"
                                             % (gi.names, wrt[col], inputs[wrt[col]].names))
                    jac[k][col][r, :] = gi.detach().numpy().astype(np.float64).ravel()
    return jac


def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              check_sparse_nnz=False, nondet_tol=0.0, check_undefined_grad=True,
              check_grad_dtypes=False, check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False):
    """True when func's analytical gradients match finite differences for every input that
    requires grad (inputs in float64 for a meaningful check); raises GradcheckError otherwise
    (or returns False when raise_exception is False)."""
    inputs = _as_tuple(inputs)
    wrt = _differentiable(inputs)
    if not wrt:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of the them have requires_grad=True.")
    num = _numerical(func, inputs, wrt, eps)
    ana = _analytical(func, inputs, wrt)
    for k in range(len(num)):
        for col, i in enumerate(wrt):
            if not _np().allclose(ana[k][col], num[k][col], rtol=rtol, atol=atol):
                if not raise_exception:
                    return False
                raise GradcheckError(
                    "Jacobian mismatch for output %d with respect to input %d,\n"
                    "numerical:%s\nanalytical:%s\n" % (k, i, num[k][col], ana[k][col]))
    return True


def gradgradcheck(func, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False):
    """gradcheck of the first derivatives (computed with create_graph) against their finite
    differences: checks second derivatives."""
    from . import grad
    inputs = _as_tuple(inputs)
    wrt = _differentiable(inputs)
    outs = _outputs(func, inputs)
    if grad_outputs is None:
        grad_outputs = []
        np = _np()
        for o in outs:
            g = _C.from_numpy(np.random.RandomState(0).standard_normal(tuple(o.shape)))
            grad_outputs.append(g.to(o.dtype).rename(*o.names) if o.ndim else g.to(o.dtype))
    grad_outputs = _as_tuple(grad_outputs)
    n = len(inputs)

    def first(*args):
        xs, gs = args[:n], args[n:]
        outs = [o for o in _outputs(func, xs) if o.requires_grad]
        res = grad(outs, [xs[i] for i in wrt], gs[:len(outs)], create_graph=True,
                   allow_unused=True)
        return tuple(r for r in res if r is not None)

    return gradcheck(first, tuple(inputs) + tuple(grad_outputs), eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception)
