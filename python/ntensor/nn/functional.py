"""ntensor.nn.functional: the functions the named-tensor API reference lists for
torch.nn.functional — relu, threshold, softmax, log_softmax, tanh, sigmoid and dropout.

As in PyTorch, these are thin Python over the C functions: relu(input, inplace=False) picks
torch.relu or torch.relu_, threshold(input, threshold, value, inplace=False) torch.threshold or
torch.threshold_; the others are the C functions themselves, which accept
torch.nn.functional's signatures (softmax(input, dim=None, _stacklevel=3, dtype=None),
dropout(input, p=0.5, training=True, inplace=False))."""
from .. import _C
from .._C import dropout, log_softmax, sigmoid, softmax, tanh  # noqa: F401

__all__ = ["relu", "threshold", "softmax", "log_softmax", "tanh", "sigmoid", "dropout"]


def relu(input, inplace=False):
    """relu(input, inplace=False) -> Tensor: max(input, 0) elementwise, names kept; in place
    (the input itself returned) when inplace is true."""
    return _C.relu_(input) if inplace else _C.relu(input)


def threshold(input, threshold, value, inplace=False):
    """threshold(input, threshold, value, inplace=False) -> Tensor: input where it is greater
    than threshold, else value; names kept; in place when inplace is true."""
    if inplace:
        return _C.threshold_(input, threshold, value)
    return _C.threshold(input, threshold, value)
