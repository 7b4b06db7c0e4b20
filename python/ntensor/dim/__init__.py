"""ntensor.dim: first-class dimensions (functorch.dim's API over the C library's dims).

    from ntensor.dim import dims
    i, j, k = dims()            # names guessed from the assignment, else d0, d1, d2
    r = (A[i, k] * B[k, j]).sum(k).order(i, j)

The semantics (binding, implicit batching, order, dims as tensors) live in C (src/dims/);
this package makes dims and guesses their names.
"""
import dis

from .._C import Dim, DimensionBindError, Tensor  # noqa: F401
from .. import _C

__all__ = ["Dim", "DimensionBindError", "cat", "dims", "softmax", "stack", "Tensor"]

_STORE = {"STORE_FAST", "STORE_NAME", "STORE_GLOBAL", "STORE_DEREF"}


def _read_names(frame, n):
    """The names of the variables the caller's current call result is stored into, from its
    bytecode (public APIs only: frame.f_lasti and dis). None where they cannot be read."""
    try:
        code, lasti = frame.f_code, frame.f_lasti
        instrs = [x for x in dis.get_instructions(code) if x.offset > lasti]
        # skip the CACHE entries and the PRECALL/CALL tail that may follow f_lasti
        k = 0
        while k < len(instrs) and instrs[k].opname in ("CACHE", "PRECALL", "CALL",
                                                         "CALL_FUNCTION", "CALL_FUNCTION_KW",
                                                         "CALL_METHOD", "CALL_KW"):
            k += 1
        if k >= len(instrs):
            return None
        first = instrs[k]
        if first.opname == "UNPACK_SEQUENCE":
            count = first.arg
            stores = instrs[k + 1:k + 1 + count]
            if (n is None or count == n) and len(stores) == count and all(
                    s.opname in _STORE for s in stores):
                return tuple(s.argval for s in stores)
            return None
        if first.opname in _STORE and (n is None or n == 1):
            return (first.argval,)
    except Exception:  # never raise: the fallback names are fine
        return None
    return None


# dims(n=None, sizes=None), dims('i j k'): new first-class dims; one dim is returned as
# itself, several as a tuple. In C (python/src/dims.c) for its per-call cost: it decodes each
# call site once, with _read_names below (a tuple of names, or None).
dims = _C._dims
_C._dims_setup(_read_names)


def softmax(input, dim, dtype=None):
    """softmax over `dim` (an int or a first-class dim), as functorch.dim.softmax."""
    return input.softmax(dim, dtype=dtype)


def _with_dim(t, dim):
    """t with `dim` among its dims: t itself, or t repeated along it (a stride-0 view)."""
    if any(d is dim for d in getattr(t, "dims", ())):  # `in` would compare dims as tensors
        return t
    return t[None].expand(dim.size, *t.shape)[dim]


def stack(tensors, new_dim, dim=0):
    """functorch.dim.stack: the tensors stacked along `dim` (a positional index, or a
    first-class dim, which each tensor gets if it lacks it), the stacking dim being the new
    first-class dim `new_dim` (bound to len(tensors))."""
    from .. import stack as _stack
    if isinstance(dim, int):
        return _stack(tensors, dim).index(dim, new_dim)
    ordered = [_with_dim(t, dim).order(dim) for t in tensors]
    return _stack(ordered, 0).index((0, 1), (new_dim, dim))


def cat(tensors, dim, new_dim):
    """functorch.dim.cat: the tensors joined along the first-class dim `dim`, the result's
    joined dim being the new first-class dim `new_dim` (len(tensors) * dim.size)."""
    n = Dim("n")
    return stack(tensors, n, dim).index([n, dim], new_dim)


# a * b of two tensors with dims and no positional dims, not yet computed (made in C,
# python/src/delayed.c): its .sum(dims) is one matrix product (nt_dims_dot, functorch.dim's
# delayed_mul_tensor); any other use computes the product first, forwarded from here.
_DelayedMul = _C._DelayedMul


def _forward(name):
    def op(self, *args):
        return getattr(self._now(), name)(*args)
    op.__name__ = name
    return op


for _name in ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__",
              "__truediv__", "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__",
              "__pow__", "__rpow__", "__neg__", "__pos__", "__abs__", "__lt__", "__le__",
              "__gt__", "__ge__", "__eq__", "__ne__", "__matmul__", "__rmatmul__",
              "__and__", "__or__", "__xor__", "__invert__", "__float__", "__int__",
              "__repr__", "__getitem__", "__bool__"):
    setattr(_DelayedMul, _name, _forward(_name))
_DelayedMul.__getattr__ = lambda self, name: getattr(self._now(), name)
_DelayedMul.__hash__ = None
