"""ntensor.functional: the module functions PyTorch writes in Python (torch/functional.py)
over its C functions; here cdist, whose compute_mode is a string in Python and an int in C,
split, which calls Tensor.split, and einsum, which takes its operands as varargs or a list."""
from . import _C

__all__ = ["cdist", "einsum", "split"]

_COMPUTE_MODES = {
    "use_mm_for_euclid_dist_if_necessary": None,
    "use_mm_for_euclid_dist": 1,
    "donot_use_mm_for_euclid_dist": 2,
}


def cdist(x1, x2, p=2., compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """cdist(x1, x2, p=2.0, compute_mode='use_mm_for_euclid_dist_if_necessary') -> Tensor:
    the p-norm distances between the rows of x1 (B..., P, M) and x2 (B..., R, M), as
    (B..., P, R). compute_mode is PyTorch's; ntensor always computes the distances
    directly."""
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return _C.cdist(x1, x2, p, _COMPUTE_MODES[compute_mode])


def split(tensor, split_size_or_sections, dim=0):
    """split(tensor, split_size_or_sections, dim=0) -> tuple of Tensors: views of equal chunks
    (an int) or of the given sizes (a list), as tensor.split."""
    return tensor.split(split_size_or_sections, dim)


def einsum(*args):
    """einsum(equation, *operands) -> Tensor: torch.einsum ('ij,jk->ik', a, b; the operands
    also as one list), and ntensor's named form ('N C, C D -> N D', a, b), in which the labels
    are the operands' dim names (see ntensor's docs/decisions_ops_everyday.md)."""
    if len(args) < 2:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    return _C.einsum(equation, list(operands))
