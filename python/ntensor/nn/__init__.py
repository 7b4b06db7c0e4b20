"""ntensor.nn: the neural-network functions that named tensors support (nn.functional)."""
from . import functional  # noqa: F401
