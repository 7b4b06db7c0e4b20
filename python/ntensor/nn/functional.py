"""ntensor.nn.functional: the functions the named-tensor API reference lists for
torch.nn.functional — relu, softmax, log_softmax, tanh, sigmoid and dropout — and max
pooling (max_pool1d/2d/3d, with return_indices, and their _with_indices forms).

As in PyTorch, these are thin Python over the C functions: relu(input, inplace=False) picks
torch.relu or torch.relu_; the others are the C functions themselves, which accept
torch.nn.functional's signatures (softmax(input, dim=None, _stacklevel=3, dtype=None),
dropout(input, p=0.5, training=True, inplace=False))."""
from .. import _C
from .._C import dropout, log_softmax, sigmoid, softmax, tanh  # noqa: F401

__all__ = ["relu", "softmax", "log_softmax", "tanh", "sigmoid", "dropout", "max_pool1d",
           "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices"]


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
