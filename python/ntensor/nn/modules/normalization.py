"""ntensor.nn.modules.normalization: LayerNorm over the trailing normalized_shape dims
(F.layer_norm), with an elementwise affine weight (ones) and bias (zeros)."""
import numbers

import ntensor
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm"]


class LayerNorm(Module):
    r"""Applies Layer Normalization over a mini-batch of inputs:
    y = (x - E[x]) / sqrt(Var[x] + eps) * gamma + beta, the mean and the (biased) variance
    taken over the last len(normalized_shape) dims.

    Args:
        normalized_shape (int or list or Size): the shape of the trailing dims normalised
        eps: a value added to the denominator for numerical stability. Default: 1e-5
        elementwise_affine: whether the module has learnable per-element affine parameters
            (weight initialised to ones, bias to zeros). Default: True
    """
    __constants__ = ["normalized_shape", "eps", "elementwise_affine"]

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, device=None,
                 dtype=None):
        factory_kwargs = {"device": device, "dtype": dtype}
        super(LayerNorm, self).__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if self.elementwise_affine:
            self.weight = Parameter(ntensor.empty(self.normalized_shape, **factory_kwargs))
            self.bias = Parameter(ntensor.empty(self.normalized_shape, **factory_kwargs))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """Initialises the parameters again, as the constructor does."""
        if self.elementwise_affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def forward(self, input):
        """The module applied to input (call the module itself: hooks run then)."""
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        """The module's own settings, as its repr shows them."""
        return "{normalized_shape}, eps={eps}, " \
            "elementwise_affine={elementwise_affine}".format(**self.__dict__)
