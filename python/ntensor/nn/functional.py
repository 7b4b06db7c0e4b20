"""ntensor.nn.functional: the functions the named-tensor API reference lists for
torch.nn.functional — relu, softmax, log_softmax, tanh, sigmoid and dropout.

Each is the C function itself (no Python wrapper in between): the C functions accept both
torch's and torch.nn.functional's signatures (e.g. relu(input, inplace=False),
softmax(input, dim=None, _stacklevel=3, dtype=None), dropout(input, p=0.5, training=True,
inplace=False))."""
from .._C import dropout, log_softmax, relu, sigmoid, softmax, tanh  # noqa: F401

__all__ = ["relu", "softmax", "log_softmax", "tanh", "sigmoid", "dropout"]
