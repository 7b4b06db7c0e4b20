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


def _same_level(a, b):
    return a is b if isinstance(a, Dim) or isinstance(b, Dim) else a == b


def _laid_out(tensors):
    """The tensors' levels (Tensor._levels) in order of first appearance, as functorch.dim's
    stack joins them, and each tensor as an ordinary one laid out as those levels: a dim it
    lacks repeated (a stride-0 view), a positional dim it lacks of size one."""
    levels = []
    for t in tensors:
        for level in t._levels:
            if not any(_same_level(level, m) for m in levels):
                levels.append(level)
    ndim = sum(isinstance(level, int) for level in levels)
    fc = [level for level in levels if isinstance(level, Dim)]
    perm = [next(n for n, d in enumerate(fc) if d is level) if isinstance(level, Dim)
            else len(fc) + ndim + level for level in levels]
    parts = []
    for t in tensors:
        for d in fc:
            t = _with_dim(t, d)
        t = t[(None,) * (ndim - t.ndim)] if t.ndim < ndim else t
        parts.append(t.order(*fc).permute(*perm) if fc else t)
    return levels, parts


def _level_at(levels, dim):
    """Where `dim` (a dim, or a positional index) is among the levels."""
    ndim = sum(isinstance(level, int) for level in levels)
    key = dim if isinstance(dim, Dim) else (dim - ndim if dim >= 0 else dim)
    at = next((n for n, level in enumerate(levels) if _same_level(level, key)), None)
    if at is None:
        raise TypeError(f"Dimension {dim} does not exist in inputs")
    return at


def _bound(levels):
    return [level if isinstance(level, Dim) else slice(None) for level in levels]


def stack(tensors, new_dim, dim=0):
    """functorch.dim.stack: the tensors stacked along `dim` (a positional index, or a
    first-class dim, which each tensor gets if it lacks it), the stacking dim being the new
    first-class dim `new_dim` (bound to len(tensors)). As functorch's, the result's levels are
    the tensors' in order of first appearance, new_dim where `dim` was."""
    from .. import stack as _stack
    levels, parts = _laid_out(tensors)
    at = _level_at(levels, dim)
    index = _bound(levels)
    index.insert(at, new_dim)
    return _stack(parts, at)[tuple(index)]


def cat(tensors, dim, new_dim):
    """functorch.dim.cat: the tensors joined along the first-class dim `dim`, the result's
    joined dim being the new first-class dim `new_dim` (len(tensors) * dim.size), where `dim`
    was among the tensors' levels."""
    from .. import cat as _cat
    levels, parts = _laid_out(tensors)
    at = _level_at(levels, dim)
    index = _bound(levels)
    index[at] = new_dim
    return _cat(parts, at)[tuple(index)]


def _level_of(levels, ndim, d):
    """The level a dim argument of Tensor.index names (functorch's TypeErrors when none)."""
    if isinstance(d, Dim):
        if not any(level is d for level in levels):
            raise TypeError(f"dimension {d!r} not in tensor")
        return d
    key = d - ndim if d >= 0 else d
    if key not in [level for level in levels if isinstance(level, int)]:
        raise TypeError(f"dimension {d} not in tensor of {ndim} dimensions")
    return key


def _merged(t, levels, first, rest):
    """t (an ordinary tensor laid out as levels) with the levels `rest` moved behind `first`
    and flattened into it; and its levels, `rest` gone."""
    moved = [level for level in levels if not any(_same_level(level, r) for r in rest)]
    at = next(n for n, level in enumerate(moved) if _same_level(level, first))
    moved[at + 1:at + 1] = rest
    perm = [next(n for n, level in enumerate(levels) if _same_level(level, m)) for m in moved]
    t = t.permute(*perm)
    return t.flatten(at, at + len(rest)), moved[:at + 1] + moved[at + 1 + len(rest):]


def _index(t, dims, indices):
    """Tensor.index(dims, indices), functorch.dim's: each level named in dims (a dim or a
    positional index; a list or tuple of them one group, flattened where its first is)
    indexed in its place by its entry of indices, the other levels kept in theirs. dims and
    indices pair up when both are lists or tuples. Index tensors with positional dims index
    a second time, once the rest is bound."""
    both = isinstance(dims, (tuple, list)) and isinstance(indices, (tuple, list))
    if both and len(dims) != len(indices):
        raise TypeError(f"dims ({len(dims)}) and indices ({len(indices)}) must have the same "
                        "length")
    pairs = list(zip(dims, indices)) if both else [(dims, indices)]
    levels, (plain,) = _laid_out([t])
    keys = []
    for d, value in pairs:
        group = list(d) if isinstance(d, (tuple, list)) else [d]
        named = [_level_of(levels, t.ndim, g) for g in group]
        if len(named) > 1:
            plain, levels = _merged(plain, levels, named[0], named[1:])
        keys.append((named[0], value))

    def value_of(level):
        return next((v for k, v in keys if _same_level(k, level)), None)

    def gathers(v):
        return isinstance(v, Tensor) and v.ndim > 0

    def entry(level):
        value = value_of(level)
        if value is not None and not gathers(value):
            return value
        return level if isinstance(level, Dim) and value is None else slice(None)
    bound = plain[tuple(entry(level) for level in levels)]
    # the positional dims left, in order: those an index tensor gathers index now
    second = [value_of(level) for level in levels if isinstance(entry(level), slice)]
    if not any(gathers(v) for v in second if v is not None):
        return bound
    return bound[tuple(v if v is not None and gathers(v) else slice(None) for v in second)]


_C._index_setup(_index)


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
