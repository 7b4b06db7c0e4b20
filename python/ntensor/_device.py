"""ntensor.device: where a tensor lives, the object that `tensor.device` returns and that
device= arguments accept. ntensor runs on the CPU only; the other device types parse, so that
code written for PyTorch runs until it asks for one, and then fails the way a CPU-only PyTorch
fails (check, called by the C extension for every device= argument other than "cpu").

Unlike torch.device, a device compares equal to its string form (device('cpu') == 'cpu').
This module imports nothing of ntensor: the extension imports it while it initialises."""
# PyTorch's device types, in the order of its error message
_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "ort", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "privateuseone")

_ABSENT = object()  # device(): no type given


class device:
    """device(type, index=None): where a tensor lives (always the CPU here)."""

    __slots__ = ("_type", "_index")

    def __new__(cls, type=_ABSENT, index=None):  # noqa: A002 - PyTorch's parameter names
        if index is None:  # PyTorch's overloads: device(torch.device) and device(str, int)
            if isinstance(type, device):
                return type
            if isinstance(type, int) and not isinstance(type, bool):  # device(0): CUDA's
                type, index = "cuda", type
            elif not isinstance(type, str):
                got = "" if type is _ABSENT else _type_name(type)
                raise TypeError(_INVALID.format(got, f"\n      didn't match because some of "
                                                f"the arguments have invalid types: (!{got}!)"
                                                if got else ""))
        elif not isinstance(type, str):
            raise TypeError("Device(): argument 'type' (position 1) must be str, not "
                            + _type_name(type))
        elif not isinstance(index, int) or isinstance(index, bool):
            raise TypeError("Device(): argument 'index' (position 2) must be int, not "
                            + _type_name(index))
        name, colon, text = type.partition(":")
        if name not in _TYPES:
            raise RuntimeError("Expected one of " + ", ".join(_TYPES)
                               + " device type at start of device string: " + type)
        if colon:
            if not (text.isascii() and text.isdigit()):
                raise RuntimeError(f"Invalid device string: '{type}'")
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index "
                                   "was passed explicitly: " + type)
            index = int(text)
        elif index is not None:
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self = object.__new__(cls)
        object.__setattr__(self, "_type", name)
        object.__setattr__(self, "_index", index)
        return self

    def __setattr__(self, name, value):
        raise AttributeError(f"'device' object attribute '{name}' is read-only")

    @property
    def type(self):
        """The device type ('cpu')."""
        return self._type

    @property
    def index(self):
        """The device index, or None."""
        return self._index

    def __repr__(self):
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self):
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other):
        if isinstance(other, (device, str)):
            return str(self) == str(other)
        return NotImplemented

    def __hash__(self):  # equal to its string, so hashed like it
        return hash(str(self))

    def __reduce__(self):
        return (device, (self._type, self._index))


device.__module__ = "ntensor"


def _type_name(o):
    return "torch.device" if isinstance(o, device) else type(o).__name__


# PyTorch's text for a call that fits neither overload
_INVALID = ("Device() received an invalid combination of arguments - got ({}), but expected "
            "one of:\n * (torch.device device){}\n * (str type, int index)\n")


def check(o):
    """A device= argument other than None and "cpu": a cpu device passes; CUDA raises
    PyTorch's "Torch not compiled with CUDA enabled", other types a RuntimeError, and a bad
    string or type PyTorch's error for it."""
    if not isinstance(o, (device, str, int)) or isinstance(o, bool):
        raise TypeError("device must be str or ntensor.device, not " + _type_name(o))
    d = device(o)
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if d.type != "cpu":
        raise RuntimeError(f"ntensor runs on the cpu only, not on {d}")
