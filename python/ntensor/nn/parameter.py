"""ntensor.nn.parameter: Parameter, the Tensor subclass that nn.Module registers as a parameter
when it is assigned as an attribute (torch.nn.Parameter).

A Parameter aliases its data (Tensor._make_subclass: the same memory, sizes, dtype and names)
and requires grad unless told otherwise. Ops on it return plain Tensors, as PyTorch's do (its
__torch_function__ is disabled); it prints as "Parameter containing:" over the tensor's own
text (tensor(..., requires_grad=True))."""
from .. import _C
from .._C import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    r"""A kind of Tensor that is to be considered a module parameter.

    Parameters are Tensor subclasses that have a very special property when used with
    Modules: when they are assigned as Module attributes they are automatically added to the
    list of its parameters, and appear e.g. in parameters(). Assigning a Tensor has no such
    effect.

    Args:
        data (Tensor): parameter tensor (an empty one when None).
        requires_grad (bool, optional): if the parameter requires gradient. Default: True
    """

    # ops on a Parameter return plain Tensors, as PyTorch's (its __torch_function__ is this)
    __torch_function__ = _C._disabled_torch_function_impl

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            data = _C.empty(0)
        return Tensor._make_subclass(cls, data, requires_grad)

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __repr__(self):
        # PyTorch prints a Parameter (exactly) with the prefix "tensor(": the text of a plain
        # alias of the same memory, which requires grad as the Parameter does (a Parameter is
        # a leaf, so requires_grad=True is the only suffix it can have).
        plain = self.detach()
        if self.requires_grad:
            plain.requires_grad_(True)
        return "Parameter containing:\n" + repr(plain)

    def __reduce_ex__(self, proto):
        return (Parameter, (self.data, self.requires_grad))
