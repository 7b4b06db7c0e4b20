"""ntensor.nn.functional: the functions the named-tensor API reference lists for
torch.nn.functional — relu, threshold, softmax, log_softmax, tanh, sigmoid and dropout — and max
pooling (max_pool1d/2d/3d, with return_indices, and their _with_indices forms).

As in PyTorch, these are thin Python over the C functions: relu(input, inplace=False) picks
torch.relu or torch.relu_, threshold(input, threshold, value, inplace=False) torch.threshold or
torch.threshold_; softmax and log_softmax are PyTorch's own Python (an omitted dim picks its
implicit dim with its deprecation warning, then Tensor.softmax runs); dropout(input, p=0.5,
training=True, inplace=False) is PyTorch's Python (its range check, then torch.dropout or
torch.dropout_), which also takes torch.dropout's `train`; the others are the C functions
themselves. The module-level ntensor.softmax, ntensor.log_softmax and ntensor.dropout are these
functions too."""
import warnings

from .. import _C
from .._C import sigmoid, tanh  # noqa: F401

__all__ = ["relu", "threshold", "softmax", "log_softmax", "tanh", "sigmoid", "dropout",
           "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices"]


_UNSET = object()


def dropout(input, p=0.5, training=_UNSET, inplace=False, *, train=_UNSET):
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor: F.dropout; torch.dropout's
    (input, p, train) too, `train` a keyword alias of `training`."""
    if train is not _UNSET:
        if training is not _UNSET:
            raise TypeError("dropout() got multiple values for argument 'training'")
        training = train
    elif training is _UNSET:
        training = True
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    return _C.dropout_(input, p, training) if inplace else _C.dropout(input, p, training)


def relu(input, inplace=False):
    """relu(input, inplace=False) -> Tensor: max(input, 0) elementwise, names kept; in place
    (the input itself returned) when inplace is true."""
    return _C.relu_(input) if inplace else _C.relu(input)


# Max pooling, as torch.nn.functional writes it: F.max_pool2d(..., return_indices=False)
# chooses between torch.max_pool2d (values) and max_pool2d_with_indices ((values, indices));
# a stride of None becomes [] (the kernel size).


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(values, indices) of 1-d max pooling over the last dim."""
    if stride is None:
        stride = []
    return _C.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(values, indices) of 2-d max pooling over the last two dims."""
    if stride is None:
        stride = []
    return _C.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(values, indices) of 3-d max pooling over the last three dims."""
    if stride is None:
        stride = []
    return _C.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over the last dim; (values, indices) when return_indices."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _C.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over the last two dims; (values, indices) when return_indices."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _C.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling over the last three dims; (values, indices) when return_indices."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _C.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call to "
                  "include dim=X as an argument.".format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor: exp(x) / sum(exp(x))
    along dim (an index or a name), names kept; dtype converts the input first."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.softmax(dim)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log_softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor: log(softmax(x))
    along dim, computed stably, names kept."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.log_softmax(dim)
    return input.log_softmax(dim, dtype=dtype)


softmax = _C._dim_call("softmax", softmax)
log_softmax = _C._dim_call("log_softmax", log_softmax)


def threshold(input, threshold, value, inplace=False):
    """threshold(input, threshold, value, inplace=False) -> Tensor: input where it is greater
    than threshold, else value; names kept; in place when inplace is true."""
    if inplace:
        return _C.threshold_(input, threshold, value)
    return _C.threshold(input, threshold, value)
