"""ntensor.nn.functional: the functions the named-tensor API reference lists for
torch.nn.functional — relu, threshold, softmax, log_softmax, tanh, sigmoid and dropout — max
pooling (max_pool1d/2d/3d, with return_indices, and their _with_indices forms), and the layers'
functions: linear, gelu, silu, layer_norm, embedding, nll_loss, cross_entropy and mse_loss.

As in PyTorch, these are thin Python over the C functions: relu(input, inplace=False) picks
torch.relu or torch.relu_, threshold(input, threshold, value, inplace=False) torch.threshold or
torch.threshold_; softmax and log_softmax are PyTorch's own Python (an omitted dim picks its
implicit dim with its deprecation warning, then Tensor.softmax runs); dropout(input, p=0.5,
training=True, inplace=False) is PyTorch's Python (its range check, then torch.dropout or
torch.dropout_), which also takes torch.dropout's `train`; the others are the C functions
themselves. The module-level ntensor.softmax, ntensor.log_softmax and ntensor.dropout are these
functions too.

The layers' functions are PyTorch's Python over C ops (ops.def's neural-network rows): linear
and gelu are the C functions themselves (torch._C._nn's); silu, layer_norm and embedding check
and forward their arguments as PyTorch does; the losses map `reduction=` strings as PyTorch's
_Reduction does (its errors and deprecation warnings) and call nll_loss_nd; cross_entropy is
log_softmax over the class dim then nll_loss_nd (with label_smoothing and probability targets
as PyTorch's cross_entropy_loss composes them), mse_loss a composite of existing ops."""
import warnings

from .. import _C
from .._C import gelu, linear, one_hot, pad, sigmoid, tanh  # noqa: F401

__all__ = ["relu", "threshold", "softmax", "log_softmax", "tanh", "sigmoid", "dropout",
           "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
           "max_pool2d_with_indices", "max_pool3d_with_indices", "linear", "gelu", "silu",
           "layer_norm", "embedding", "nll_loss", "cross_entropy", "mse_loss", "one_hot", "pad"]


_UNSET = object()


def dropout(input, p=0.5, training=_UNSET, inplace=False, *, train=_UNSET):
    """dropout(input, p=0.5, training=True, inplace=False) -> Tensor: F.dropout; torch.dropout's
    (input, p, train) too, `train` a keyword alias of `training`."""
    if train is not _UNSET:
        if training is not _UNSET:
            raise TypeError("dropout() got multiple values for argument 'training'")
        training = train
    elif training is _UNSET:
        training = True
    if p < 0.0 or p > 1.0:
        raise ValueError("dropout probability has to be between 0 and 1, but got {}".format(p))
    return _C.dropout_(input, p, training) if inplace else _C.dropout(input, p, training)


def relu(input, inplace=False):
    """relu(input, inplace=False) -> Tensor: max(input, 0) elementwise, names kept; in place
    (the input itself returned) when inplace is true."""
    return _C.relu_(input) if inplace else _C.relu(input)


# Max pooling, as torch.nn.functional writes it: F.max_pool2d(..., return_indices=False)
# chooses between torch.max_pool2d (values) and max_pool2d_with_indices ((values, indices));
# a stride of None becomes [] (the kernel size).


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(values, indices) of 1-d max pooling over the last dim."""
    if stride is None:
        stride = []
    return _C.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(values, indices) of 2-d max pooling over the last two dims."""
    if stride is None:
        stride = []
    return _C.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=False):
    """(values, indices) of 3-d max pooling over the last three dims."""
    if stride is None:
        stride = []
    return _C.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling over the last dim; (values, indices) when return_indices."""
    if return_indices:
        return max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _C.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling over the last two dims; (values, indices) when return_indices."""
    if return_indices:
        return max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _C.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling over the last three dims; (values, indices) when return_indices."""
    if return_indices:
        return max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    if stride is None:
        stride = []
    return _C.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def _get_softmax_dim(name, ndim, stacklevel):
    warnings.warn("Implicit dimension choice for {} has been deprecated. Change the call to "
                  "include dim=X as an argument.".format(name), stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    """softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor: exp(x) / sum(exp(x))
    along dim (an index or a name), names kept; dtype converts the input first."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.softmax(dim)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    """log_softmax(input, dim=None, _stacklevel=3, dtype=None) -> Tensor: log(softmax(x))
    along dim, computed stably, names kept."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    if dtype is None:
        return input.log_softmax(dim)
    return input.log_softmax(dim, dtype=dtype)


softmax = _C._dim_call("softmax", softmax)
log_softmax = _C._dim_call("log_softmax", log_softmax)


def threshold(input, threshold, value, inplace=False):
    """threshold(input, threshold, value, inplace=False) -> Tensor: input where it is greater
    than threshold, else value; names kept; in place when inplace is true."""
    if inplace:
        return _C.threshold_(input, threshold, value)
    return _C.threshold(input, threshold, value)


# ---------------------------------------------------------------- layers' functions


def silu(input, inplace=False):
    """silu(input, inplace=False) -> Tensor: input * sigmoid(input), names kept; written into
    input (and input returned) when inplace is true."""
    if inplace:
        return input.copy_(_C.silu(input))
    return _C.silu(input)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05) -> Tensor: the
    trailing dims of sizes normalized_shape normalised to mean 0 and variance 1, then scaled by
    weight and shifted by bias; names kept."""
    return _C.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, sparse=False) -> Tensor: the rows of weight (num_embeddings,
    embedding_dim) at the integer indices `input` (any shape), shape input.shape +
    (embedding_dim,); names: input's, then weight's last. max_norm is not supported."""
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    else:
        padding_idx = -1
    if max_norm is not None:
        raise NotImplementedError("embedding(): max_norm (renormalising rows in place) is not "
                                  "supported by ntensor")
    return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


# PyTorch's torch.nn._reduction: reduction strings to the C enum, and the legacy
# size_average / reduce arguments to a string.


def _reduction_enum(reduction):
    if reduction == "none":
        return 0
    if reduction == "mean":
        return 1
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated, please use reduction='mean' "
                      "instead.")
        return 1
    if reduction == "sum":
        return 2
    raise ValueError("{} is not a valid value for reduction".format(reduction))


def _legacy_reduction(size_average, reduce):
    if size_average is None:
        size_average = True
    if reduce is None:
        reduce = True
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn("size_average and reduce args will be deprecated, please use reduction='{}' "
                  "instead.".format(ret))
    return ret


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
    reduction='mean') -> Tensor: the negative log likelihood of log-probabilities input (N, C),
    (C) or (N, C, d1, ...) at class indices target; reduction 'none' keeps target's shape and
    names."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    return _C.nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


def _class_shape(input, weight):
    """weight (C) viewed to broadcast along input's class dim."""
    shape = [1] * input.dim()
    shape[1 if input.dim() > 1 else 0] = weight.size(0)
    return weight.view(shape)


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100,
    reduce=None, reduction='mean', label_smoothing=0.0) -> Tensor: nll_loss of
    log_softmax(input) over the class dim (1, or 0 for a 1-d input); target holds class indices,
    or class probabilities (a floating target of input's shape)."""
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _reduction_enum(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError("label_smoothing must be between 0.0 and 1.0. Got: %g"
                           % label_smoothing)
    class_dim = 0 if input.dim() == 1 else 1
    logp = input.log_softmax(class_dim)
    n_classes = logp.size(class_dim)
    if target.is_floating_point():
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target if weight is None else logp * target * _class_shape(input, weight)
        if red == 0:
            return -prod.sum(class_dim)
        if red == 2:
            return -prod.sum()
        if input.numel() == 0:
            return -prod.sum().fill_(float("nan"))
        return -prod.sum() / (input.numel() / n_classes)
    loss = _C.nll_loss_nd(logp, target, weight, red, ignore_index)
    if label_smoothing <= 0:
        return loss
    ignore = target == ignore_index
    if weight is None:
        smooth = -logp.sum(class_dim)
    else:
        smooth = -(logp * _class_shape(input, weight)).sum(class_dim)
    smooth = smooth.masked_fill(ignore, 0.0)
    if red == 1:
        if weight is None:
            ret = smooth.sum() / ignore.logical_not().sum()
        else:
            kept = target.masked_select(ignore.logical_not()).flatten()
            ret = smooth.sum() / _C.embedding(weight.view(-1, 1), kept).sum()
    elif red == 2:
        ret = smooth.sum()
    else:
        ret = smooth
    return (1 - label_smoothing) * loss + ret * (label_smoothing / n_classes)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """mse_loss(input, target, size_average=None, reduce=None, reduction='mean') -> Tensor: the
    squared differences of input and target (broadcast, with PyTorch's warning when their sizes
    differ), their mean, sum or themselves; names unified."""
    if target.size() != input.size():
        warnings.warn("Using a target size ({}) that is different to the input size ({}). This "
                      "will likely lead to incorrect results due to broadcasting. Please ensure "
                      "they have the same size.".format(target.size(), input.size()),
                      stacklevel=2)
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce)
    red = _reduction_enum(reduction)
    diff = input - target
    sq = diff * diff
    if red == 0:
        return sq
    return sq.mean() if red == 1 else sq.sum()
