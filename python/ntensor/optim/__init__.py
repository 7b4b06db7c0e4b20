"""ntensor.optim: torch.optim's SGD, Adam and AdamW (PyTorch 1.13's API and values).

Each step runs one fused C op per parameter group (ntensor._fused_sgd_, _fused_adam_,
_fused_adamw_): the update of every parameter, and its state, is computed in C with PyTorch's
single-tensor formulas, so the values match torch.optim (foreach=False) to the bit in float32
and float64. The Python here only keeps the groups and the state, as torch.optim does.
"""
from .optimizer import Optimizer  # noqa: F401
from .sgd import SGD  # noqa: F401
from .adam import Adam, AdamW  # noqa: F401

__all__ = ["Optimizer", "SGD", "Adam", "AdamW"]
