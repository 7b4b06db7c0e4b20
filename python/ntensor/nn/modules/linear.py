"""ntensor.nn.modules.linear: Identity and Linear (y = x A^T + b, F.linear), with PyTorch's
initialisation: the weight kaiming_uniform_(a=sqrt(5)), that is U(-1/sqrt(in), 1/sqrt(in)),
and the bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)). The input's leading names flow through; the
last dim of the result is unnamed (F.linear's name rule)."""
import math

import ntensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["Identity", "Linear"]


class Identity(Module):
    r"""A placeholder identity operator that is argument-insensitive."""

    def __init__(self, *args, **kwargs):
        super(Identity, self).__init__()

    def forward(self, input):
        """The module applied to input (call the module itself: hooks run then)."""
        return input


class Linear(Module):
    r"""Applies a linear transformation to the incoming data: y = x A^T + b.

    Args:
        in_features: size of each input sample
        out_features: size of each output sample
        bias: if False, the layer will not learn an additive bias. Default: True
    Attributes:
        weight: the learnable weights of shape (out_features, in_features)
        bias: the learnable bias of shape (out_features)
    """
    __constants__ = ["in_features", "out_features"]

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super(Linear, self).__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(ntensor.empty((out_features, in_features), **factory_kwargs))
        if bias:
            self.bias = Parameter(ntensor.empty(out_features, **factory_kwargs))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Initialises the parameters again, as the constructor does."""
        # kaiming_uniform_(a=sqrt(5)): U(-1/sqrt(in_features), 1/sqrt(in_features))
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        """The module applied to input (call the module itself: hooks run then)."""
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self):
        """The module's own settings, as its repr shows them."""
        return "in_features={}, out_features={}, bias={}".format(
            self.in_features, self.out_features, self.bias is not None)
