"""ntensor.nn.modules: Module and the layers built on it, one file per family as in
torch.nn.modules (module, linear, activation, dropout, normalization, sparse, container)."""
from .module import Module
from .linear import Identity, Linear
from .activation import GELU, ReLU
from .dropout import Dropout
from .normalization import LayerNorm
from .sparse import Embedding
from .container import ModuleDict, ModuleList, Sequential

__all__ = ["Module", "Identity", "Linear", "ReLU", "GELU", "Dropout", "LayerNorm", "Embedding",
           "Sequential", "ModuleList", "ModuleDict"]
