"""assert_close and make_tensor: a port of torch.testing's (torch/testing/_comparison.py and
_creation.py of PyTorch 1.13), written on ntensor's own ops, with the same defaults, checks and
error texts, plus the dims' names: a tensor pair whose names differ is an AssertionError
("The values for attribute 'names' do not match: ('N', None) != ('N', 'C').") unless
check_names=False.

A comparison walks the inputs into pairs (sequences by index, mappings by key), makes each pair
from the first kind that accepts it (None, bool, number, tensor-like), compares them in order
and raises the first failure, with "The failure occurred for item [i][key]" when nested."""
import cmath
import collections.abc
import contextlib
import math

from .. import _C

try:
    import numpy as np
except ImportError:  # pragma: no cover - NumPy is optional
    np = None

__all__ = ["assert_close", "make_tensor"]


class _ErrorMeta(Exception):
    """A failure found while comparing: the exception type and message to raise, and the path
    of the pair (its id) inside the inputs."""

    def __init__(self, type, msg, *, id=()):
        super().__init__(msg)
        self.type, self.msg, self.id = type, msg, id

    def to_error(self, msg=None):
        if not isinstance(msg, str):
            generated = self.msg
            if self.id:
                generated += "\n\nThe failure occurred for item " + "".join(
                    str([item]) for item in self.id)
            msg = msg(generated) if callable(msg) else generated
        return self.type(msg)


# {dtype: (rtol, atol)}, torch.testing's table; other dtypes compare exactly
_DTYPE_PRECISIONS = {
    _C.float16: (0.001, 1e-5),
    _C.bfloat16: (0.016, 1e-5),
    _C.float32: (1.3e-6, 1e-5),
    _C.float64: (1e-7, 1e-7),
}


def _default_tolerances(*dtypes):
    rtols, atols = zip(*[_DTYPE_PRECISIONS.get(d, (0.0, 0.0)) for d in dtypes])
    return max(rtols), max(atols)


def _get_tolerances(*dtypes, rtol, atol, id=()):
    if (rtol is None) ^ (atol is None):
        raise _ErrorMeta(
            ValueError,
            f"Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}.",
            id=id,
        )
    if rtol is not None:
        return rtol, atol
    return _default_tolerances(*dtypes)


def _mismatch_msg(*, default_identifier, identifier=None, extra=None, abs_diff,
                  abs_diff_idx=None, atol, rel_diff, rel_diff_idx=None, rtol):
    equality = rtol == 0 and atol == 0

    def diff_msg(type, diff, idx, tol):
        msg = (f"{type.title()} difference: {diff}" if idx is None
               else f"Greatest {type} difference: {diff} at index {idx}")
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"

    if identifier is None:
        identifier = default_identifier
    elif callable(identifier):
        identifier = identifier(default_identifier)
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_diff_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_diff_idx, rtol)
    return msg.strip()


def _scalar_mismatch_msg(actual, expected, *, rtol, atol, identifier=None):
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_msg(default_identifier="Scalars", identifier=identifier, abs_diff=abs_diff,
                         atol=atol, rel_diff=rel_diff, rtol=rtol)


def _tensor_mismatch_msg(actual, expected, mismatches, *, rtol, atol, identifier=None):
    shape = tuple(mismatches.shape)

    def unravel(flat):
        index = []
        for size in shape[::-1]:
            flat, mod = divmod(flat, size)
            index.append(mod)
        return tuple(index[::-1])

    total = int(mismatches.sum().item())
    numel = mismatches.numel()
    extra = f"Mismatched elements: {total} / {numel} ({total / numel:.1%})"
    a, b = actual.flatten(), expected.flatten()
    matches = ~mismatches.flatten()
    abs_diff = (a - b).abs()
    abs_diff[matches] = 0
    max_abs, max_abs_idx = abs_diff.max(0)
    rel_diff = abs_diff / b.abs()
    rel_diff[matches] = 0
    max_rel, max_rel_idx = rel_diff.max(0)
    return _mismatch_msg(default_identifier="Tensor-likes", identifier=identifier, extra=extra,
                         abs_diff=max_abs.item(), abs_diff_idx=unravel(int(max_abs_idx)),
                         atol=atol, rel_diff=max_rel.item(),
                         rel_diff_idx=unravel(int(max_rel_idx)), rtol=rtol)


class _Unsupported(Exception):
    """A pair kind cannot take the inputs: the next kind is tried."""


class _Pair:
    def __init__(self, actual, expected, *, id=(), **unused):
        self.actual, self.expected, self.id = actual, expected, id

    def _error(self, type, msg):
        return _ErrorMeta(type, msg, id=self.id)


class _NonePair(_Pair):
    def __init__(self, actual, expected, **options):
        if not (actual is None or expected is None):
            raise _Unsupported()
        super().__init__(actual, expected, **options)

    def compare(self):
        if not (self.actual is None and self.expected is None):
            raise self._error(AssertionError,
                              f"None mismatch: {self.actual} is not {self.expected}")


class _BooleanPair(_Pair):
    def __init__(self, actual, expected, *, id=(), **options):
        types = (bool, np.bool_) if np is not None else (bool,)
        if not (isinstance(actual, types) and isinstance(expected, types)):
            raise _Unsupported()
        super().__init__(bool(actual), bool(expected), id=id, **options)

    def compare(self):
        if self.actual is not self.expected:
            raise self._error(AssertionError,
                              f"Booleans mismatch: {self.actual} is not {self.expected}")


class _NumberPair(_Pair):
    _TYPE_TO_DTYPE = {int: _C.int64, float: _C.float64, complex: _C.float64}

    def __init__(self, actual, expected, *, id=(), rtol=None, atol=None, equal_nan=False,
                 check_dtype=False, **options):
        types = (int, float, complex) + ((np.number,) if np is not None else ())
        if not (isinstance(actual, types) and isinstance(expected, types)):
            raise _Unsupported()
        actual, expected = [x.item() if np is not None and isinstance(x, np.number) else x
                            for x in (actual, expected)]
        super().__init__(actual, expected, id=id, **options)
        self.rtol, self.atol = _get_tolerances(
            *[self._TYPE_TO_DTYPE[type(x)] for x in (actual, expected)], rtol=rtol, atol=atol,
            id=id)
        self.equal_nan, self.check_dtype = equal_nan, check_dtype

    def compare(self):
        if self.check_dtype and type(self.actual) is not type(self.expected):
            raise self._error(AssertionError, f"The (d)types do not match: "
                              f"{type(self.actual)} != {type(self.expected)}.")
        if self.actual == self.expected:
            return
        if self.equal_nan and cmath.isnan(self.actual) and cmath.isnan(self.expected):
            return
        abs_diff = abs(self.actual - self.expected)
        if cmath.isfinite(abs_diff) and abs_diff <= self.atol + self.rtol * abs(self.expected):
            return
        raise self._error(AssertionError, _scalar_mismatch_msg(
            self.actual, self.expected, rtol=self.rtol, atol=self.atol))


class _TensorLikePair(_Pair):
    def __init__(self, actual, expected, *, id=(), allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, check_names=True, **options):
        related = isinstance(actual, type(expected)) or isinstance(expected, type(actual))
        if not related or (not allow_subclasses and type(actual) is not type(expected)):
            raise _Unsupported()
        actual, expected = [self._to_tensor(x) for x in (actual, expected)]
        super().__init__(actual, expected, id=id, **options)
        self.rtol, self.atol = _get_tolerances(actual.dtype, expected.dtype, rtol=rtol,
                                               atol=atol, id=self.id)
        self.equal_nan = equal_nan
        self.check_device, self.check_dtype = check_device, check_dtype
        self.check_layout, self.check_stride = check_layout, check_stride
        self.check_names = check_names

    @staticmethod
    def _to_tensor(x):
        if isinstance(x, _C.Tensor):
            return x
        try:
            return _C.as_tensor(x)
        except Exception:
            raise _Unsupported() from None

    def compare(self):
        actual, expected = self.actual, self.expected
        self._compare_attributes(actual, expected)
        actual, expected = self._equalize(actual, expected)
        self._compare_values(actual, expected)

    def _compare_attributes(self, actual, expected):
        def mismatch(name, a, b):
            raise self._error(AssertionError, f"The values for attribute '{name}' do not "
                              f"match: {a} != {b}.")

        if actual.shape != expected.shape:
            mismatch("shape", actual.shape, expected.shape)
        if self.check_names and actual.names != expected.names:
            mismatch("names", actual.names, expected.names)
        if self.check_stride and actual.stride() != expected.stride():
            mismatch("stride()", actual.stride(), expected.stride())
        if self.check_device and actual.device != expected.device:
            mismatch("device", actual.device, expected.device)
        if self.check_dtype and actual.dtype != expected.dtype:
            mismatch("dtype", actual.dtype, expected.dtype)

    @staticmethod
    def _equalize(actual, expected):
        # names are compared above (or not at all): the values compare position by position
        actual, expected = actual.rename(None), expected.rename(None)
        if actual.dtype != expected.dtype:
            dtype = _C.promote_types(actual.dtype, expected.dtype)
            actual, expected = actual.to(dtype), expected.to(dtype)
        return actual, expected

    def _compare_values(self, actual, expected):
        # the highest precision of the dtype's kind (bool counts as integral)
        dtype = _C.float64 if actual.dtype.is_floating_point else _C.int64
        actual, expected = actual.to(dtype), expected.to(dtype)
        rtol, atol = self.rtol, self.atol
        matches = _C.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=self.equal_nan)
        if bool(matches.all()):
            return
        if actual.dim() == 0:
            msg = _scalar_mismatch_msg(actual.item(), expected.item(), rtol=rtol, atol=atol)
        else:
            msg = _tensor_mismatch_msg(actual, expected, ~matches, rtol=rtol, atol=atol)
        raise self._error(AssertionError, msg)


def _originate_pairs(actual, expected, *, pair_types, id=(), **options):
    seq, mapping = collections.abc.Sequence, collections.abc.Mapping
    if (isinstance(actual, seq) and not isinstance(actual, str) and isinstance(expected, seq)
            and not isinstance(expected, str)):
        if len(actual) != len(expected):
            raise _ErrorMeta(AssertionError, f"The length of the sequences mismatch: "
                             f"{len(actual)} != {len(expected)}", id=id)
        pairs = []
        for idx in range(len(actual)):
            pairs.extend(_originate_pairs(actual[idx], expected[idx], pair_types=pair_types,
                                          id=(*id, idx), **options))
        return pairs
    if isinstance(actual, mapping) and isinstance(expected, mapping):
        actual_keys, expected_keys = set(actual.keys()), set(expected.keys())
        if actual_keys != expected_keys:
            raise _ErrorMeta(
                AssertionError,
                f"The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(expected_keys - actual_keys)}\n"
                f"Additional keys in the actual mapping: {sorted(actual_keys - expected_keys)}",
                id=id)
        keys = actual_keys
        with contextlib.suppress(Exception):
            keys = sorted(keys)
        pairs = []
        for key in keys:
            pairs.extend(_originate_pairs(actual[key], expected[key], pair_types=pair_types,
                                          id=(*id, key), **options))
        return pairs
    for pair_type in pair_types:
        try:
            return [pair_type(actual, expected, id=id, **options)]
        except _Unsupported:
            continue
    raise _ErrorMeta(TypeError, f"No comparison pair was able to handle inputs of type "
                     f"{type(actual)} and {type(expected)}.", id=id)


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, check_names=True, msg=None):
    r"""Asserts that ``actual`` and ``expected`` are close (torch.testing.assert_close).

    Tensors (and tensor-likes: anything ntensor.as_tensor takes) are close when they have the
    same shape, the same names (``check_names``), device (``check_device``), dtype
    (``check_dtype``; otherwise both are promoted) and stride (``check_stride``), and
    ``|actual - expected| <= atol + rtol * |expected|`` elementwise; infinities must be equal,
    NaNs match only with ``equal_nan``. Numbers, booleans and None compare as in PyTorch;
    sequences and mappings compare item by item.

    Default tolerances (rtol, atol) by dtype: float16 (1e-3, 1e-5), bfloat16 (1.6e-2, 1e-5),
    float32 (1.3e-6, 1e-5), float64 (1e-7, 1e-7); other dtypes must be equal. Give both rtol
    and atol or neither (ValueError).

    ``msg`` (a str, or a callable taking the generated message) replaces the message of the
    AssertionError. Raises AssertionError when not close, TypeError for inputs no pair takes.
    """
    __tracebackhide__ = True
    options = dict(allow_subclasses=allow_subclasses, rtol=rtol, atol=atol, equal_nan=equal_nan,
                   check_device=check_device, check_dtype=check_dtype,
                   check_layout=check_layout, check_stride=check_stride,
                   check_names=check_names)
    try:
        pairs = _originate_pairs(actual, expected, pair_types=(
            _NonePair, _BooleanPair, _NumberPair, _TensorLikePair), **options)
    except _ErrorMeta as error:
        raise error.to_error() from None
    for pair in pairs:
        try:
            pair.compare()
        except _ErrorMeta as error:
            raise error.to_error(msg) from None


def make_tensor(*shape, dtype, device=None, low=None, high=None, requires_grad=False,
                noncontiguous=False, exclude_zero=False, names=None):
    r"""A tensor of ``shape`` filled with random values of ``dtype`` in [low, high)
    (torch.testing.make_tensor).

    Defaults as PyTorch's: bool in {False, True}; integers in [-9, 10) (uint8 [0, 10));
    floats in [-9, 9). ``noncontiguous`` gives a strided view of a larger tensor with the same
    values; ``exclude_zero`` replaces zeros by 1 (integers) or the dtype's smallest normal
    (floats); ``names`` names the dims.
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = tuple(shape[0])
    if dtype is _C.bool:
        result = _C.randint(0, 2, shape, dtype=_C.int64).to(_C.bool)
    elif dtype in (_C.uint8, _C.int8, _C.int16, _C.int32, _C.int64):
        info = {_C.uint8: (0, 255), _C.int8: (-128, 127), _C.int16: (-32768, 32767),
                _C.int32: (-2**31, 2**31 - 1), _C.int64: (-2**63, 2**63 - 1)}[dtype]
        lo = max(info[0], math.ceil(low) if low is not None else (-9 if info[0] < 0 else 0))
        hi = min(info[1], math.ceil(high) if high is not None else 10)
        if lo >= hi:
            raise ValueError(f"make_tensor: low ({lo}) must be smaller than high ({hi})")
        result = _C.randint(lo, hi, shape, dtype=dtype)
    elif dtype.is_floating_point:
        lo = -9.0 if low is None else float(low)
        hi = 9.0 if high is None else float(high)
        if lo > hi:
            raise ValueError(f"make_tensor: low ({lo}) must not be greater than high ({hi})")
        result = (_C.rand(shape, dtype=_C.float64) * (hi - lo) + lo).to(dtype)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        f"torch.testing.make_tensor(). To request support, file an issue at: "
                        f"https://github.com/pytorch/pytorch/issues")
    if exclude_zero:  # PyTorch's replacement: 1, or the dtype's smallest normal (finfo.tiny)
        tiny = {_C.float16: 2.0 ** -14, _C.bfloat16: 2.0 ** -126, _C.float32: 2.0 ** -126,
                _C.float64: 2.0 ** -1022}.get(dtype, 1)
        result = _C.where(result == 0, _C.full_like(result, tiny), result)
    if noncontiguous and result.numel() > 1:
        result = _C.repeat_interleave(result, 2, dim=-1)[..., ::2]
    if names is not None:
        result = result.refine_names(*names)
    if requires_grad:
        result.requires_grad_(True)
    return result
