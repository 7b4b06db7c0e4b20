"""ntensor.nn.modules.activation: ReLU and GELU, modules over F.relu and F.gelu."""
from .. import functional as F
from .module import Module

__all__ = ["ReLU", "GELU"]


class ReLU(Module):
    r"""Applies the rectified linear unit function element-wise: max(0, x).

    Args:
        inplace: can optionally do the operation in-place. Default: False
    """
    __constants__ = ["inplace"]

    def __init__(self, inplace=False):
        super(ReLU, self).__init__()
        self.inplace = inplace

    def forward(self, input):
        """The module applied to input (call the module itself: hooks run then)."""
        return F.relu(input, inplace=self.inplace)

    def extra_repr(self):
        """The module's own settings, as its repr shows them."""
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    r"""Applies the Gaussian Error Linear Units function: x * Phi(x), Phi the standard
    normal CDF; with approximate='tanh', 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).

    Args:
        approximate (str, optional): the gelu approximation to use: 'none' | 'tanh'.
    """
    __constants__ = ["approximate"]

    def __init__(self, approximate="none"):
        super(GELU, self).__init__()
        self.approximate = approximate

    def forward(self, input):
        """The module applied to input (call the module itself: hooks run then)."""
        return F.gelu(input, approximate=self.approximate)

    def extra_repr(self):
        """The module's own settings, as its repr shows them."""
        return "approximate={}".format(repr(self.approximate))
