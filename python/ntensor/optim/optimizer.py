"""Optimizer: the base class of ntensor.optim, PyTorch 1.13's torch.optim.Optimizer.

It keeps the parameter groups (each a dict of a parameter list and its options, the
constructor's defaults filled in), the per-parameter state (`state[p]`, a dict), and turns
both into PyTorch's state_dict format (parameters by index, state by index) and back.
Subclasses implement step() by collecting each group's tensors and calling one fused op.
"""
import contextlib
import functools
import warnings
from collections import abc as container_abcs
from collections import defaultdict
from itertools import chain

from .._C import Tensor
from ..utils.grads import zero_grads

__all__ = ["Optimizer", "required"]


class _RequiredParameter(object):
    """Singleton class representing a required parameter for an Optimizer."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _typename(o):
    """torch.typename: 'torch.FloatTensor' for a tensor, else the qualified type name."""
    if isinstance(o, Tensor):
        return o.type()
    module = ""
    if getattr(o, "__module__", None) not in (None, "builtins", "__builtin__"):
        module = o.__module__ + "."
    if hasattr(o, "__qualname__"):
        class_name = o.__qualname__
    elif hasattr(o, "__name__"):
        class_name = o.__name__
    else:
        class_name = o.__class__.__name__
    return module + class_name


def _grad_mode(enabled):
    """Gradient recording on or off for a block: ntensor.set_grad_enabled(enabled) (or its
    enable_grad / no_grad) where autograd exists, else nothing to switch."""
    import ntensor

    switch = getattr(ntensor, "set_grad_enabled", None)
    if switch is not None:
        return switch(enabled)
    mode = getattr(ntensor, "enable_grad" if enabled else "no_grad", None)
    return mode() if mode is not None else contextlib.nullcontext()


def _no_grad_step(step):
    """Runs an optimizer's step with gradient recording off (the fused ops record nothing;
    the closure, if any, switches it back on for itself)."""

    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with _grad_mode(False):
            return step(self, *args, **kwargs)

    return wrapper


def _copy_state(value, memo):
    """copy.deepcopy of a state dict: tensors cloned (a tensor met twice, cloned once)."""
    if isinstance(value, Tensor):
        if id(value) not in memo:
            memo[id(value)] = value.clone()
        return memo[id(value)]
    if isinstance(value, dict):
        return type(value)((k, _copy_state(v, memo)) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return type(value)(_copy_state(v, memo) for v in value)
    import copy

    return copy.deepcopy(value)


class Optimizer(object):
    r"""Base class for all optimizers.

    Args:
        params (iterable): an iterable of Tensors or dicts. Specifies what Tensors should
            be optimized.
        defaults (dict): a dict containing default values of optimization options (used
            when a parameter group doesn't specify them).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be "
                            "an iterable of Tensors or dicts, but got " + _typename(params))
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self.defaults.setdefault("differentiable", False)

    def __repr__(self):
        format_string = self.__class__.__name__ + " ("
        for i, group in enumerate(self.param_groups):
            format_string += "\n"
            format_string += "Parameter Group {0}\n".format(i)
            for key in sorted(group.keys()):
                if key != "params":
                    format_string += "    {0}: {1}\n".format(key, group[key])
        format_string += ")"
        return format_string

    def state_dict(self):
        r"""Returns the state of the optimizer as a dict with two entries: ``state`` (the
        per-parameter state, keyed by the parameter's index over all groups) and
        ``param_groups`` (each group's options, its parameters as indices)."""
        param_mappings = {}
        start_index = 0

        def pack_group(group):
            nonlocal start_index
            packed = {k: v for k, v in group.items() if k != "params"}
            param_mappings.update({id(p): i for i, p in enumerate(group["params"], start_index)
                                   if id(p) not in param_mappings})
            packed["params"] = [param_mappings[id(p)] for p in group["params"]]
            start_index += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(param_mappings[id(k)] if isinstance(k, Tensor) else k): v
                        for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict):
        r"""Loads the optimizer state (a dict from state_dict(): copied, its floating-point
        tensors cast to their parameter's dtype, except the step counters)."""
        state_dict = _copy_state(state_dict, {})
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of "
                             "parameter groups")
        param_lens = (len(g["params"]) for g in groups)
        saved_lens = (len(g["params"]) for g in saved_groups)
        if any(p_len != s_len for p_len, s_len in zip(param_lens, saved_lens)):
            raise ValueError("loaded state dict contains a parameter group "
                             "that doesn't match the size of optimizer's group")
        id_map = {old_id: p for old_id, p in
                  zip(chain.from_iterable((g["params"] for g in saved_groups)),
                      chain.from_iterable((g["params"] for g in groups)))}

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                # floating-point state follows the parameter's dtype; the step does not
                if key != "step" and param.is_floating_point():
                    value = value.to(param.dtype)
                return value
            elif isinstance(value, dict):
                return {k: cast(param, v, key=k) for k, v in value.items()}
            elif isinstance(value, container_abcs.Iterable):
                return type(value)(cast(param, v) for v in value)
            else:
                return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
            else:
                state[k] = v

        def update_group(group, new_group):
            new_group["params"] = group["params"]
            return new_group

        param_groups = [update_group(g, ng) for g, ng in zip(groups, saved_groups)]
        self.__setstate__({"state": state, "param_groups": param_groups})

    def zero_grad(self, set_to_none: bool = False):
        r"""Sets the gradients of all optimized Tensors to zero, or to None with
        ``set_to_none=True`` (then a step skips those parameters)."""
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    @staticmethod
    def _evaluate(closure):
        """The loss of `closure` (None without one), computed with grad mode on."""
        if closure is None:
            return None
        with _grad_mode(True):
            return closure()

    def step(self, closure):
        r"""Performs a single optimization step (parameter update)."""
        raise NotImplementedError

    def add_param_group(self, param_group):
        r"""Adds a param group to the Optimizer's `param_groups`: a dict with "params" and
        any options, the optimizer's defaults filling the others."""
        assert isinstance(param_group, dict), "param group must be a dict"

        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                            "the ordering of tensors in sets will change between runs. Please use a "
                            "list instead.")
        else:
            param_group["params"] = list(params)

        for param in param_group["params"]:
            if not isinstance(param, Tensor):
                raise TypeError("optimizer can only optimize Tensors, "
                                "but one of the params is " + _typename(param))
            if not self.defaults.get("differentiable", None) and not (
                    param.is_leaf or getattr(param, "retains_grad", False)):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError("parameter group didn't specify a value of required "
                                 "optimization parameter " + name)
            else:
                param_group.setdefault(name, default)

        params = param_group["params"]
        if len(params) != len(set(params)):
            warnings.warn("optimizer contains a parameter group with duplicate parameters; "
                          "in future, this will cause an error; "
                          "see github.com/pytorch/pytorch/issues/40967 for more information",
                          stacklevel=3)

        param_set = set()
        for group in self.param_groups:
            param_set.update(set(group["params"]))
        if not param_set.isdisjoint(set(param_group["params"])):
            raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)
