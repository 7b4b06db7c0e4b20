"""ntensor.testing: assert_close and make_tensor, as torch.testing's (PyTorch 1.13).

assert_close compares tensors, numbers, booleans and None, and sequences and mappings of them
recursively, with torch.testing.assert_close's defaults, checks and messages; it also compares
the dims' names (check_names=True), which PyTorch does not."""
from ._comparison import assert_close, make_tensor  # noqa: F401

__all__ = ["assert_close", "make_tensor"]
