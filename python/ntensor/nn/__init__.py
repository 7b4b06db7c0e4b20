"""ntensor.nn: neural-network building blocks with PyTorch 1.13's API (torch.nn): Parameter,
Module and the layers in modules/ (Linear, ReLU, GELU, Dropout, LayerNorm, Embedding,
Sequential, ModuleList, ModuleDict, Identity), nn.init, and nn.functional (the functions, in
C). They are thin Python over the C core; named tensors flow through them."""
from . import functional  # noqa: F401
from . import init  # noqa: F401
from .parameter import Parameter  # noqa: F401
from .modules import *  # noqa: F401,F403
from .modules import __all__ as _modules_all

__all__ = ["functional", "init", "Parameter"] + list(_modules_all)
