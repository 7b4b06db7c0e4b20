"""ntensor.nn.modules.dropout: Dropout, F.dropout in training mode and the identity in
evaluation mode (module.eval())."""
from .. import functional as F
from .module import Module

__all__ = ["Dropout"]


class _DropoutNd(Module):
    __constants__ = ["p", "inplace"]

    def __init__(self, p=0.5, inplace=False):
        super(_DropoutNd, self).__init__()
        if p < 0 or p > 1:
            raise ValueError("dropout probability has to be between 0 and 1, "
                             "but got {}".format(p))
        self.p = p
        self.inplace = inplace

    def extra_repr(self):
        """The module's own settings, as its repr shows them."""
        return "p={}, inplace={}".format(self.p, self.inplace)


class Dropout(_DropoutNd):
    r"""During training, randomly zeroes some of the elements of the input tensor with
    probability p (Bernoulli samples) and scales the others by 1/(1-p); in evaluation mode
    it computes the identity.

    Args:
        p: probability of an element to be zeroed. Default: 0.5
        inplace: If set to True, will do this operation in-place. Default: False
    """

    def forward(self, input):
        """The module applied to input (call the module itself: hooks run then)."""
        return F.dropout(input, self.p, self.training, self.inplace)
