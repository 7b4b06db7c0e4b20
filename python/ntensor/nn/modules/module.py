"""ntensor.nn.modules.module: Module, the base class of every layer (torch.nn.Module, 1.13).

A Module keeps its state in three ordered dicts that attribute access reads and writes:
_parameters (Parameters), _buffers (plain tensors, persistent or not) and _modules (child
modules). Assigning a Parameter or a Module as an attribute registers it, deleting the
attribute unregisters it; everything else is an ordinary attribute. The walks over the tree
(named_parameters, named_buffers, named_modules, state_dict) visit the dicts in insertion
order, depth first, and yield a shared object once. Calling a module runs the forward
pre-hooks, forward, then the forward hooks, in the order they were registered (the global
ones first). to(dtype), float() and double() convert floating parameters in place: the
Parameter objects stay the same (an optimizer holding them sees the new data), their data is
replaced (Tensor.data = ...), as PyTorch's _apply does.

The behaviour, the error texts and the printed text are PyTorch's; this file follows its
torch/nn/modules/module.py, without what needs TorchScript, CUDA or backward hooks."""
import itertools
import warnings
from collections import OrderedDict, namedtuple
from collections.abc import Mapping

import ntensor
from ..parameter import Parameter
from ...autograd.grad_mode import no_grad
from ...utils.grads import zero_grads
from ...utils.hooks import RemovableHandle

__all__ = ["register_module_forward_pre_hook", "register_module_forward_hook", "Module"]


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super(_IncompatibleKeys, self).__repr__()

    __str__ = __repr__


def _typename(o):
    """torch.typename: a tensor's type() ('torch.FloatTensor'), else module.qualname."""
    if isinstance(o, ntensor.Tensor):
        return o.type()
    module = ""
    class_name = ""
    if (hasattr(o, "__module__") and o.__module__ != "builtins" and o.__module__ != "__builtin__"
            and o.__module__ is not None):
        module = o.__module__ + "."
    if hasattr(o, "__qualname__"):
        class_name = o.__qualname__
    elif hasattr(o, "__name__"):
        class_name = o.__name__
    else:
        class_name = o.__class__.__name__
    return module + class_name


def _addindent(s_, numSpaces):
    s = s_.split("\n")
    if len(s) == 1:  # single-line text stays as it is
        return s_
    first = s.pop(0)
    s = [(numSpaces * " ") + line for line in s]
    return first + "\n" + "\n".join(s)


# Hooks common to all modules, run before the module's own (debugging and profiling).
_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()

_EXTRA_STATE_KEY_SUFFIX = "_extra_state"


def register_module_forward_pre_hook(hook):
    """Registers hook(module, input) -> None or new input, run before every module's forward.
    Returns a RemovableHandle."""
    handle = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[handle.id] = hook
    return handle


def register_module_forward_hook(hook):
    """Registers hook(module, input, output) -> None or new output, run after every module's
    forward. Returns a RemovableHandle."""
    handle = RemovableHandle(_global_forward_hooks)
    _global_forward_hooks[handle.id] = hook
    return handle


def _forward_unimplemented(self, *input):
    """Defines the computation performed at every call; every subclass overrides it."""
    raise NotImplementedError(
        f"Module [{type(self).__name__}] is missing the required \"forward\" function")


def _parse_to(*args, **kwargs):
    """Module.to's arguments, as Tensor.to reads them (its signatures and errors): the dtype
    asked for, or None. Two probes of different dtypes come back in one dtype exactly when a
    dtype (or a tensor's) was given."""
    a = ntensor.empty(0, dtype=ntensor.float32).to(*args, **kwargs)
    b = ntensor.empty(0, dtype=ntensor.int64).to(*args, **kwargs)
    return a.dtype if a.dtype == b.dtype else None


class Module:
    r"""Base class for all neural network modules.

    Your models should also subclass this class. Modules can also contain other Modules,
    allowing to nest them in a tree structure. You can assign the submodules as regular
    attributes; submodules assigned in this way are registered, and have their parameters
    converted too when you call to(), etc. As per the example above, an __init__() call to
    the parent class must be made before assignment on the child.

    training (bool): whether this module is in training or evaluation mode.
    """

    dump_patches = False
    _version = 1
    training: bool

    def __init__(self):
        # object.__setattr__, not self.x = x: Module.__setattr__ reads these dicts
        super().__setattr__("training", True)
        super().__setattr__("_parameters", OrderedDict())
        super().__setattr__("_buffers", OrderedDict())
        super().__setattr__("_non_persistent_buffers_set", set())
        super().__setattr__("_backward_hooks", OrderedDict())
        super().__setattr__("_is_full_backward_hook", None)
        super().__setattr__("_forward_hooks", OrderedDict())
        super().__setattr__("_forward_pre_hooks", OrderedDict())
        super().__setattr__("_state_dict_hooks", OrderedDict())
        super().__setattr__("_load_state_dict_pre_hooks", OrderedDict())
        super().__setattr__("_load_state_dict_post_hooks", OrderedDict())
        super().__setattr__("_modules", OrderedDict())

    forward = _forward_unimplemented

    # ------------------------------------------------------------------ registration

    def register_buffer(self, name, tensor, persistent=True):
        r"""Adds a buffer to the module: state that is not a parameter (e.g. running means).
        Persistent buffers are part of state_dict(); a None buffer is skipped by to() and
        state_dict()."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError("buffer name should be a string. Got {}".format(_typename(name)))
        elif "." in name:
            raise KeyError("buffer name can't contain \".\"")
        elif name == "":
            raise KeyError("buffer name can't be empty string \"\"")
        elif hasattr(self, name) and name not in self._buffers:
            raise KeyError("attribute '{}' already exists".format(name))
        elif tensor is not None and not isinstance(tensor, ntensor.Tensor):
            raise TypeError("cannot assign '{}' object to buffer '{}' "
                            "(torch Tensor or None required)".format(_typename(tensor), name))
        else:
            self._buffers[name] = tensor
            if persistent:
                self._non_persistent_buffers_set.discard(name)
            else:
                self._non_persistent_buffers_set.add(name)

    def register_parameter(self, name, param):
        r"""Adds a parameter (a Parameter, or None) to the module under `name`."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        elif not isinstance(name, str):
            raise TypeError("parameter name should be a string. Got {}".format(_typename(name)))
        elif "." in name:
            raise KeyError("parameter name can't contain \".\"")
        elif name == "":
            raise KeyError("parameter name can't be empty string \"\"")
        elif hasattr(self, name) and name not in self._parameters:
            raise KeyError("attribute '{}' already exists".format(name))

        if param is None:
            self._parameters[name] = None
        elif not isinstance(param, Parameter):
            raise TypeError("cannot assign '{}' object to parameter '{}' "
                            "(torch.nn.Parameter or None required)".format(_typename(param), name))
        elif param.grad_fn:
            raise ValueError(
                "Cannot assign non-leaf Tensor to parameter '{0}'. Model "
                "parameters must be created explicitly. To express '{0}' "
                "as a function of another Tensor, compute the value in "
                "the forward() method.".format(name))
        else:
            self._parameters[name] = param

    def add_module(self, name, module):
        r"""Adds a child module (a Module, or None) under `name`."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError("{} is not a Module subclass".format(_typename(module)))
        elif not isinstance(name, str):
            raise TypeError("module name should be a string. Got {}".format(_typename(name)))
        elif hasattr(self, name) and name not in self._modules:
            raise KeyError("attribute '{}' already exists".format(name))
        elif "." in name:
            raise KeyError("module name can't contain \".\", got: {}".format(name))
        elif name == "":
            raise KeyError("module name can't be empty string \"\"")
        self._modules[name] = module

    def register_module(self, name, module):
        r"""Alias for add_module."""
        self.add_module(name, module)

    def get_submodule(self, target):
        """The submodule at the dotted path `target` ('' is the module itself)."""
        if target == "":
            return self
        atoms = target.split(".")
        mod = self
        for item in atoms:
            if not hasattr(mod, item):
                raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at the dotted path `target`."""
        module_path, _, param_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, param_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + param_name + "`")
        param = getattr(mod, param_name)
        if not isinstance(param, Parameter):
            raise AttributeError("`" + param_name + "` is not an nn.Parameter")
        return param

    def get_buffer(self, target):
        """The buffer at the dotted path `target`."""
        module_path, _, buffer_name = target.rpartition(".")
        mod = self.get_submodule(module_path)
        if not hasattr(mod, buffer_name):
            raise AttributeError(mod._get_name() + " has no attribute `" + buffer_name + "`")
        buffer = getattr(mod, buffer_name)
        if buffer_name not in mod._buffers:
            raise AttributeError("`" + buffer_name + "` is not a buffer")
        return buffer

    def get_extra_state(self):
        """The extra state a module that overrides this method saves in its state_dict."""
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called. "
            "Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug.")

    def set_extra_state(self, state):
        """Restores what get_extra_state returned (for modules that override both)."""
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called. "
            "Please file an issue at "
            "https://github.com/pytorch/pytorch/issues/new?template=bug-report.yml "
            "to report this bug.")

    # ------------------------------------------------------------------ conversion

    def _apply(self, fn):
        """Applies fn to every parameter, gradient and buffer of the tree. A parameter keeps its
        object: its data is replaced by fn's result (as is its gradient's)."""
        for module in self.children():
            module._apply(fn)

        for key, param in self._parameters.items():
            if param is None:
                continue
            # parameters are graph leaves: their conversion records no history
            with no_grad():
                param_applied = fn(param)
            if param_applied is not param:
                param.data = param_applied
            if param.grad is not None:
                with no_grad():
                    grad_applied = fn(param.grad)
                if grad_applied is not param.grad:
                    param.grad.data = grad_applied

        for key, buf in self._buffers.items():
            if buf is not None:
                self._buffers[key] = fn(buf)
        return self

    def apply(self, fn):
        r"""Applies fn recursively to every submodule (as children() returns them), then to
        self (e.g. to initialise parameters). Returns self."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def cpu(self):
        r"""Moves all parameters and buffers to the CPU (they are there). Returns self."""
        return self._apply(lambda t: t.cpu())

    def type(self, dst_type):
        r"""Casts all parameters and buffers to dst_type. Returns self."""
        return self._apply(lambda t: t.type(dst_type))

    def float(self):
        r"""Casts all floating point parameters and buffers to float32. Returns self."""
        return self._apply(lambda t: t.float() if t.is_floating_point() else t)

    def double(self):
        r"""Casts all floating point parameters and buffers to float64. Returns self."""
        return self._apply(lambda t: t.double() if t.is_floating_point() else t)

    def half(self):
        r"""Casts all floating point parameters and buffers to float16. Returns self."""
        return self._apply(lambda t: t.half() if t.is_floating_point() else t)

    def bfloat16(self):
        r"""Casts all floating point parameters and buffers to bfloat16. Returns self."""
        return self._apply(lambda t: t.bfloat16() if t.is_floating_point() else t)

    def to(self, *args, **kwargs):
        r"""Moves and/or casts the parameters and buffers: to(device=None, dtype=None,
        non_blocking=False), to(dtype, non_blocking=False), to(tensor, non_blocking=False).
        Only floating point parameters and buffers take the dtype. Modifies the module in
        place and returns it."""
        dtype = _parse_to(*args, **kwargs)
        if dtype is not None:
            if not (dtype.is_floating_point or getattr(dtype, "is_complex", False)):
                raise TypeError("nn.Module.to only accepts floating point or complex "
                                "dtypes, but got desired dtype={}".format(dtype))

        def convert(t):
            if dtype is not None and t.is_floating_point():
                return t.to(dtype)
            return t

        return self._apply(convert)

    # ------------------------------------------------------------------ hooks and calls

    def register_forward_pre_hook(self, hook):
        r"""Registers hook(module, input) -> None or modified input, called before forward()
        with the positional arguments (a tuple); a single value returned becomes a 1-tuple.
        Returns a RemovableHandle."""
        handle = RemovableHandle(self._forward_pre_hooks)
        self._forward_pre_hooks[handle.id] = hook
        return handle

    def register_forward_hook(self, hook):
        r"""Registers hook(module, input, output) -> None or modified output, called after
        forward(). Returns a RemovableHandle."""
        handle = RemovableHandle(self._forward_hooks)
        self._forward_hooks[handle.id] = hook
        return handle

    def _call_impl(self, *input, **kwargs):
        forward_call = self.forward
        if not (self._forward_hooks or self._forward_pre_hooks or _global_forward_hooks
                or _global_forward_pre_hooks):
            return forward_call(*input, **kwargs)
        if _global_forward_pre_hooks or self._forward_pre_hooks:
            for hook in (*_global_forward_pre_hooks.values(), *self._forward_pre_hooks.values()):
                result = hook(self, input)
                if result is not None:
                    if not isinstance(result, tuple):
                        result = (result,)
                    input = result
        result = forward_call(*input, **kwargs)
        if _global_forward_hooks or self._forward_hooks:
            for hook in (*_global_forward_hooks.values(), *self._forward_hooks.values()):
                hook_result = hook(self, input, result)
                if hook_result is not None:
                    result = hook_result
        return result

    __call__ = _call_impl

    # ------------------------------------------------------------------ attributes

    def __setstate__(self, state):
        self.__dict__.update(state)
        for name in ("_forward_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                     "_load_state_dict_post_hooks"):
            if name not in self.__dict__:
                self.__dict__[name] = OrderedDict()
        if "_non_persistent_buffers_set" not in self.__dict__:
            self._non_persistent_buffers_set = set()
        if "_is_full_backward_hook" not in self.__dict__:
            self._is_full_backward_hook = None

    def __getattr__(self, name):
        if "_parameters" in self.__dict__:
            _parameters = self.__dict__["_parameters"]
            if name in _parameters:
                return _parameters[name]
        if "_buffers" in self.__dict__:
            _buffers = self.__dict__["_buffers"]
            if name in _buffers:
                return _buffers[name]
        if "_modules" in self.__dict__:
            modules = self.__dict__["_modules"]
            if name in modules:
                return modules[name]
        raise AttributeError("'{}' object has no attribute '{}'".format(
            type(self).__name__, name))

    def __setattr__(self, name, value):
        def remove_from(*dicts_or_sets):
            for d in dicts_or_sets:
                if name in d:
                    if isinstance(d, dict):
                        del d[name]
                    else:
                        d.discard(name)

        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(self.__dict__, self._buffers, self._modules,
                        self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError("cannot assign '{}' as parameter '{}' "
                                "(torch.nn.Parameter or None expected)"
                                .format(_typename(value), name))
            self.register_parameter(name, value)
        else:
            modules = self.__dict__.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(self.__dict__, self._parameters, self._buffers,
                            self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError("cannot assign '{}' as child module '{}' "
                                    "(torch.nn.Module or None expected)"
                                    .format(_typename(value), name))
                modules[name] = value
            else:
                buffers = self.__dict__.get("_buffers")
                if buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, ntensor.Tensor):
                        raise TypeError("cannot assign '{}' as buffer '{}' "
                                        "(torch.Tensor or None expected)"
                                        .format(_typename(value), name))
                    buffers[name] = value
                else:
                    super().__setattr__(name, value)

    def __delattr__(self, name):
        if name in self._parameters:
            del self._parameters[name]
        elif name in self._buffers:
            del self._buffers[name]
            self._non_persistent_buffers_set.discard(name)
        elif name in self._modules:
            del self._modules[name]
        else:
            super().__delattr__(name)

    # ------------------------------------------------------------------ state dicts

    def _register_state_dict_hook(self, hook):
        handle = RemovableHandle(self._state_dict_hooks)
        self._state_dict_hooks[handle.id] = hook
        return handle

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Saves this module's own parameters and persistent buffers (not its children's)."""
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()
        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "get_extra_state",
                   Module.get_extra_state) is not Module.get_extra_state:
            destination[extra_state_key] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        r"""An OrderedDict of the whole state of the module: parameters and persistent
        buffers (None ones left out), keyed by their dotted names. The tensors are detached
        aliases of the parameters (the parameters themselves with keep_vars=True)."""
        if len(args) > 0:
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
            warnings.warn(
                "Positional args are being deprecated, use kwargs instead. Refer to "
                "https://pytorch.org/docs/master/generated/torch.nn.Module.html"
                "#torch.nn.Module.state_dict"
                " for details.")

        if destination is None:
            destination = OrderedDict()
            destination._metadata = OrderedDict()

        local_metadata = dict(version=self._version)
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata

        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".",
                                  keep_vars=keep_vars)
        for hook in self._state_dict_hooks.values():
            hook_result = hook(self, destination, prefix, local_metadata)
            if hook_result is not None:
                destination = hook_result
        return destination

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        handle = RemovableHandle(self._load_state_dict_pre_hooks)
        if with_module:
            module = self

            def bound(*args, **kwargs):
                return hook(module, *args, **kwargs)
            self._load_state_dict_pre_hooks[handle.id] = bound
        else:
            self._load_state_dict_pre_hooks[handle.id] = hook
        return handle

    def register_load_state_dict_post_hook(self, hook):
        r"""Registers hook(module, incompatible_keys) -> None, run after load_state_dict;
        it may edit the lists of missing and unexpected keys in place."""
        handle = RemovableHandle(self._load_state_dict_post_hooks)
        self._load_state_dict_post_hooks[handle.id] = hook
        return handle

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict,
                              missing_keys, unexpected_keys, error_msgs):
        """Copies this module's own parameters and buffers from state_dict (not its
        children's), recording missing and unexpected keys and errors."""
        for hook in self._load_state_dict_pre_hooks.values():
            hook(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                 error_msgs)

        persistent_buffers = {k: v for k, v in self._buffers.items()
                              if k not in self._non_persistent_buffers_set}
        local_name_params = itertools.chain(self._parameters.items(), persistent_buffers.items())
        local_state = {k: v for k, v in local_name_params if v is not None}

        for name, param in local_state.items():
            key = prefix + name
            if key in state_dict:
                input_param = state_dict[key]
                if not isinstance(input_param, ntensor.Tensor):
                    error_msgs.append('While copying the parameter named "{}", '
                                      'expected torch.Tensor or Tensor-like object from '
                                      'checkpoint but received {}'
                                      .format(key, type(input_param)))
                    continue
                # loading a 1-dim tensor from 0.3.* into a 0-dim one
                if len(param.shape) == 0 and len(input_param.shape) == 1:
                    input_param = input_param[0]
                if input_param.shape != param.shape:
                    error_msgs.append('size mismatch for {}: copying a param with shape {} from '
                                      'checkpoint, the shape in current model is {}.'
                                      .format(key, input_param.shape, param.shape))
                    continue
                try:
                    with no_grad():
                        param.copy_(input_param)
                except Exception as ex:
                    error_msgs.append('While copying the parameter named "{}", '
                                      'whose dimensions in the model are {} and '
                                      'whose dimensions in the checkpoint are {}, '
                                      'an exception occurred : {}.'
                                      .format(key, param.size(), input_param.size(), ex.args))
            elif strict:
                missing_keys.append(key)

        extra_state_key = prefix + _EXTRA_STATE_KEY_SUFFIX
        if getattr(self.__class__, "set_extra_state",
                   Module.set_extra_state) is not Module.set_extra_state:
            if extra_state_key in state_dict:
                self.set_extra_state(state_dict[extra_state_key])
            elif strict:
                missing_keys.append(extra_state_key)
        elif strict and (extra_state_key in state_dict):
            unexpected_keys.append(extra_state_key)

        if strict:
            for key in state_dict.keys():
                if key.startswith(prefix) and key != extra_state_key:
                    input_name = key[len(prefix):]
                    input_name = input_name.split(".", 1)[0]  # the param/buffer/child's name
                    if input_name not in self._modules and input_name not in local_state:
                        unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True):
        r"""Copies parameters and buffers from state_dict into this module and its
        descendants. With strict, the keys must match state_dict()'s exactly: missing and
        unexpected keys raise RuntimeError, as do size mismatches. Returns a named tuple
        (missing_keys, unexpected_keys)."""
        if not isinstance(state_dict, Mapping):
            raise TypeError("Expected state_dict to be dict-like, got {}.".format(type(state_dict)))

        missing_keys = []
        unexpected_keys = []
        error_msgs = []

        # a copy, which _load_from_state_dict may modify
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = OrderedDict(state_dict)
        if metadata is not None:
            state_dict._metadata = metadata

        def load(module, local_state_dict, prefix=""):
            local_metadata = {} if metadata is None else metadata.get(prefix[:-1], {})
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True,
                                         missing_keys, unexpected_keys, error_msgs)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    child_state_dict = {k: v for k, v in local_state_dict.items()
                                        if k.startswith(child_prefix)}
                    load(child, child_state_dict, child_prefix)

            # the hooks may modify missing_keys and unexpected_keys
            incompatible_keys = _IncompatibleKeys(missing_keys, unexpected_keys)
            for hook in module._load_state_dict_post_hooks.values():
                out = hook(module, incompatible_keys)
                assert out is None, (
                    "Hooks registered with ``register_load_state_dict_post_hook`` are not"
                    "expected to return new values, if incompatible_keys need to be modified,"
                    "it should be done inplace.")

        load(self, state_dict)

        if strict:
            if len(unexpected_keys) > 0:
                error_msgs.insert(0, 'Unexpected key(s) in state_dict: {}. '.format(
                    ", ".join('"{}"'.format(k) for k in unexpected_keys)))
            if len(missing_keys) > 0:
                error_msgs.insert(0, 'Missing key(s) in state_dict: {}. '.format(
                    ", ".join('"{}"'.format(k) for k in missing_keys)))

        if len(error_msgs) > 0:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                self.__class__.__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ------------------------------------------------------------------ walks

    def _named_members(self, get_members_fn, prefix="", recurse=True):
        """(name, member) for the members of the tree, each object once."""
        memo = set()
        modules = self.named_modules(prefix=prefix) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            members = get_members_fn(module)
            for k, v in members:
                if v is None or v in memo:
                    continue
                memo.add(v)
                name = module_prefix + ("." if module_prefix else "") + k
                yield name, v

    def parameters(self, recurse=True):
        r"""An iterator over the parameters (of submodules too when recurse), each once."""
        for name, param in self.named_parameters(recurse=recurse):
            yield param

    def named_parameters(self, prefix="", recurse=True):
        r"""An iterator over (dotted name, parameter), each parameter once."""
        gen = self._named_members(lambda module: module._parameters.items(),
                                  prefix=prefix, recurse=recurse)
        for elem in gen:
            yield elem

    def buffers(self, recurse=True):
        r"""An iterator over the buffers (of submodules too when recurse), each once."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    def named_buffers(self, prefix="", recurse=True):
        r"""An iterator over (dotted name, buffer), each buffer once."""
        gen = self._named_members(lambda module: module._buffers.items(),
                                  prefix=prefix, recurse=recurse)
        for elem in gen:
            yield elem

    def children(self):
        r"""An iterator over the immediate child modules."""
        for name, module in self.named_children():
            yield module

    def named_children(self):
        r"""An iterator over (name, child module), each child once."""
        memo = set()
        for name, module in self._modules.items():
            if module is not None and module not in memo:
                memo.add(module)
                yield name, module

    def modules(self):
        r"""An iterator over all modules of the tree, self first, each once."""
        for _, module in self.named_modules():
            yield module

    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        r"""An iterator over (dotted name, module) for the whole tree, depth first, self
        first (named prefix); a module reached twice is yielded once unless
        remove_duplicate is False."""
        if memo is None:
            memo = set()
        if self not in memo:
            if remove_duplicate:
                memo.add(self)
            yield prefix, self
            for name, module in self._modules.items():
                if module is None:
                    continue
                submodule_prefix = prefix + ("." if prefix else "") + name
                for m in module.named_modules(memo, submodule_prefix, remove_duplicate):
                    yield m

    # ------------------------------------------------------------------ modes and gradients

    def train(self, mode=True):
        r"""Sets the module and its descendants in training mode (evaluation mode when mode
        is False). Returns self."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self):
        r"""Sets the module in evaluation mode: train(False). Returns self."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        r"""Sets requires_grad of every parameter in place. Returns self."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=False):
        r"""Sets the gradients of all parameters to zero (to None with set_to_none)."""
        zero_grads(self.parameters(), set_to_none)

    # ------------------------------------------------------------------ printing

    def _get_name(self):
        return self.__class__.__name__

    def extra_repr(self):
        r"""The module's own line in its repr (its arguments); modules override it. Single-line
        and multi-line strings are both acceptable."""
        return ""

    def __repr__(self):
        # the extra repr is treated like the children: one item per line
        extra_lines = []
        extra_repr = self.extra_repr()
        if extra_repr:  # an empty string would split into ['']
            extra_lines = extra_repr.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            mod_str = repr(module)
            mod_str = _addindent(mod_str, 2)
            child_lines.append("(" + key + "): " + mod_str)
        lines = extra_lines + child_lines

        main_str = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:  # a one-line module
                main_str += extra_lines[0]
            else:
                main_str += "\n  " + "\n  ".join(lines) + "\n"
        main_str += ")"
        return main_str

    def __dir__(self):
        module_attrs = dir(self.__class__)
        attrs = list(self.__dict__.keys())
        parameters = list(self._parameters.keys())
        modules = list(self._modules.keys())
        buffers = list(self._buffers.keys())
        keys = module_attrs + attrs + parameters + modules + buffers
        keys = [key for key in keys if not key[0].isdigit()]  # not legal Python names
        return sorted(keys)
