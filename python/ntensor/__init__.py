"""ntensor: tensors with named dimensions, in C, with PyTorch's named-tensor API.

Use it as `import ntensor as torch`: the functions, methods and printed text follow
PyTorch 1.13's named-tensor subset.
"""
from ._C import *  # noqa: F401,F403
from ._C import Size, Tensor, dtype  # noqa: F401
from ._C import __version__  # noqa: F401  (CMakeLists.txt's project version, from C)
from ._C import _fused_adam_, _fused_adamw_, _fused_sgd_  # noqa: F401  (ntensor.optim's steps)
from ._device import device  # noqa: F401  (a Python class, as simple as it is)
from .functional import cdist, einsum, split  # noqa: E402,F401  (Python in PyTorch too)
from . import nn  # noqa: E402,F401  (torch.nn.functional is reachable as an attribute)
from . import optim  # noqa: E402,F401  (torch.optim: SGD, Adam, AdamW over fused C steps)
# torch.softmax and torch.log_softmax take nn.functional's signature here (implicit dim)
from .nn.functional import log_softmax, softmax  # noqa: E402,F401
# ntensor.dropout is F.dropout, which also takes torch.dropout's (input, p, train)
from .nn.functional import dropout  # noqa: E402,F401
from . import autograd  # noqa: E402,F401
from .autograd.grad_mode import (enable_grad, inference_mode, no_grad,  # noqa: E402,F401
                                 set_grad_enabled)
from . import testing  # noqa: E402,F401  (torch.testing: assert_close, make_tensor)
