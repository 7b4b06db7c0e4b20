"""ntensor.nn.init: the initialisers of torch.nn.init, in place and under no_grad, each
returning its tensor: uniform_, normal_, trunc_normal_, constant_, ones_, zeros_,
xavier_uniform_, xavier_normal_, kaiming_uniform_, kaiming_normal_, with calculate_gain and
_calculate_fan_in_and_fan_out (fan_in = size(1) * receptive field, fan_out = size(0) *
receptive field, the receptive field being the product of the sizes past the second).

They are PyTorch's Python over the tensor's own in-place ops (uniform_, normal_, fill_,
zero_, erfinv_, mul_, add_, clamp_), so they draw from the generator ntensor.manual_seed
seeds. trunc_normal_ is PyTorch's inverse-CDF algorithm: uniform in [2l-1, 2u-1] (l and u the
normal CDF at the bounds), erfinv, scale by std*sqrt(2), shift by the mean, clamp to [a, b]."""
import math
import warnings

from ..autograd.grad_mode import no_grad

__all__ = ["calculate_gain", "uniform_", "normal_", "trunc_normal_", "constant_", "ones_",
           "zeros_", "xavier_uniform_", "xavier_normal_", "kaiming_uniform_",
           "kaiming_normal_"]


def _no_grad_uniform_(tensor, a, b):
    with no_grad():
        return tensor.uniform_(a, b)


def _no_grad_normal_(tensor, mean, std):
    with no_grad():
        return tensor.normal_(mean, std)


def _no_grad_trunc_normal_(tensor, mean, std, a, b):
    def norm_cdf(x):  # the standard normal cumulative distribution function
        return (1. + math.erf(x / math.sqrt(2.))) / 2.

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.",
                      stacklevel=2)
    with no_grad():
        # uniform in [2l-1, 2u-1], then the inverse CDF of the standard normal
        low = norm_cdf((a - mean) / std)
        up = norm_cdf((b - mean) / std)
        tensor.uniform_(2 * low - 1, 2 * up - 1)
        tensor.erfinv_()
        tensor.mul_(std * math.sqrt(2.))
        tensor.add_(mean)
        tensor.clamp_(min=a, max=b)  # rounding may leave a value just outside [a, b]
        return tensor


def _no_grad_fill_(tensor, val):
    with no_grad():
        return tensor.fill_(val)


def _no_grad_zero_(tensor):
    with no_grad():
        return tensor.zero_()


def calculate_gain(nonlinearity, param=None):
    r"""The recommended gain value for the given nonlinearity: 1 for linear, conv and
    sigmoid, 5/3 for tanh, sqrt(2) for relu, sqrt(2 / (1 + negative_slope^2)) for
    leaky_relu (param: the slope, 0.01 by default), 3/4 for selu."""
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                  "conv_transpose2d", "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    elif nonlinearity == "tanh":
        return 5.0 / 3
    elif nonlinearity == "relu":
        return math.sqrt(2.0)
    elif nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, int) or isinstance(param, float):
            negative_slope = param  # True/False are instances of int: checked first
        else:
            raise ValueError("negative_slope {} not a valid number".format(param))
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    elif nonlinearity == "selu":
        return 3.0 / 4  # found empirically (pytorch/pytorch#50664)
    else:
        raise ValueError("Unsupported nonlinearity {}".format(nonlinearity))


def uniform_(tensor, a=0., b=1.):
    r"""Fills tensor with values drawn from U(a, b)."""
    return _no_grad_uniform_(tensor, a, b)


def normal_(tensor, mean=0., std=1.):
    r"""Fills tensor with values drawn from N(mean, std^2)."""
    return _no_grad_normal_(tensor, mean, std)


def trunc_normal_(tensor, mean=0., std=1., a=-2., b=2.):
    r"""Fills tensor with values drawn from N(mean, std^2) truncated to [a, b] (works best
    with a <= mean <= b)."""
    return _no_grad_trunc_normal_(tensor, mean, std, a, b)


def constant_(tensor, val):
    r"""Fills tensor with the value val."""
    return _no_grad_fill_(tensor, val)


def ones_(tensor):
    r"""Fills tensor with the scalar value 1."""
    return _no_grad_fill_(tensor, 1.)


def zeros_(tensor):
    r"""Fills tensor with the scalar value 0."""
    return _no_grad_zero_(tensor)


def _calculate_fan_in_and_fan_out(tensor):
    dimensions = tensor.dim()
    if dimensions < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    num_input_fmaps = tensor.size(1)
    num_output_fmaps = tensor.size(0)
    receptive_field_size = 1
    if tensor.dim() > 2:
        for s in tensor.shape[2:]:
            receptive_field_size *= s
    fan_in = num_input_fmaps * receptive_field_size
    fan_out = num_output_fmaps * receptive_field_size
    return fan_in, fan_out


def xavier_uniform_(tensor, gain=1.):
    r"""Fills tensor from U(-a, a), a = gain * sqrt(6 / (fan_in + fan_out)) (Glorot and
    Bengio, 2010)."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std  # the uniform bounds from the standard deviation
    return _no_grad_uniform_(tensor, -a, a)


def xavier_normal_(tensor, gain=1.):
    r"""Fills tensor from N(0, std^2), std = gain * sqrt(2 / (fan_in + fan_out))."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return _no_grad_normal_(tensor, 0., std)


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    valid_modes = ["fan_in", "fan_out"]
    if mode not in valid_modes:
        raise ValueError("Mode {} not supported, please use one of {}".format(mode, valid_modes))
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    r"""Fills tensor from U(-bound, bound), bound = gain * sqrt(3 / fan) (He et al., 2015);
    fan is fan_in or fan_out (mode), gain calculate_gain(nonlinearity, a)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std  # the uniform bounds from the standard deviation
    with no_grad():
        return tensor.uniform_(-bound, bound)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu"):
    r"""Fills tensor from N(0, std^2), std = gain / sqrt(fan) (He et al., 2015)."""
    if 0 in tensor.shape:
        warnings.warn("Initializing zero-element tensors is a no-op")
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    with no_grad():
        return tensor.normal_(0, std)


def _make_deprecate(meth):
    new_name = meth.__name__
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        warnings.warn("nn.init.{} is now deprecated in favor of nn.init.{}."
                      .format(old_name, new_name), stacklevel=2)
        return meth(*args, **kwargs)

    deprecated_init.__doc__ = "{old_name}(...)\n\n.. warning::\n    This method is now " \
        "deprecated in favor of :func:`torch.nn.init.{new_name}`.\n\nSee :func:`~torch.nn.init." \
        "{new_name}` for details.".format(old_name=old_name, new_name=new_name)
    deprecated_init.__name__ = old_name
    return deprecated_init


uniform = _make_deprecate(uniform_)
normal = _make_deprecate(normal_)
constant = _make_deprecate(constant_)
xavier_uniform = _make_deprecate(xavier_uniform_)
xavier_normal = _make_deprecate(xavier_normal_)
kaiming_uniform = _make_deprecate(kaiming_uniform_)
kaiming_normal = _make_deprecate(kaiming_normal_)
