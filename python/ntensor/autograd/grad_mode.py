"""Grad mode: no_grad, enable_grad, set_grad_enabled and inference_mode, as PyTorch's (context
managers and decorators; the flag is the C library's, per thread)."""
import functools
import inspect

from .. import _C

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled",
           "is_inference_mode_enabled"]

is_grad_enabled = _C.is_grad_enabled
is_inference_mode_enabled = _C.is_inference_mode_enabled


class _DecoratorContextManager:
    """A context manager that also decorates functions and generator functions (each call runs
    in a fresh copy of the context)."""

    def __call__(self, func):
        if inspect.isclass(func):
            raise RuntimeError("Cannot decorate classes; it is ambiguous")
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def generator(*args, **kwargs):
                gen = func(*args, **kwargs)
                try:
                    with self.clone():  # sending None starts the generator
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as e:  # noqa: BLE001 - passed on to the generator
                            with self.clone():
                                response = gen.throw(e)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as e:
                    return e.value
            return generator

        @functools.wraps(func)
        def decorated(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return decorated

    def clone(self):
        """A new context manager of the same kind and settings (for decorating functions)."""
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Turns recording off inside the block (or the decorated function)."""

    def __init__(self):
        self.prev = False

    def __enter__(self):
        self.prev = _C._set_grad_enabled(False)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)


class enable_grad(_DecoratorContextManager):
    """Turns recording on inside the block (or the decorated function)."""

    def __enter__(self):
        self.prev = _C._set_grad_enabled(True)

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)


class set_grad_enabled(_DecoratorContextManager):
    """set_grad_enabled(mode): sets recording at once (as a function call), inside the block (as
    a context manager) or inside the decorated function, and back after."""

    def __init__(self, mode):
        self.prev = _C.is_grad_enabled()
        _C._set_grad_enabled(bool(mode))
        self.mode = mode

    def __call__(self, func):
        _C._set_grad_enabled(self.prev)  # decorating sets nothing
        return super().__call__(func)

    def __enter__(self):
        _C._set_grad_enabled(bool(self.mode))

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev)

    def clone(self):
        """A new context manager of the same kind and settings (for decorating functions)."""
        return self.__class__(self.mode)


class inference_mode(_DecoratorContextManager):
    """inference_mode(mode=True): recording off (and the inference flag on) inside the block."""

    def __init__(self, mode=True):
        self.mode = mode

    def __enter__(self):
        self.prev_inference = _C._set_inference_mode(self.mode)
        self.prev_grad = _C._set_grad_enabled(not self.mode)  # PyTorch: grad mode = not mode

    def __exit__(self, exc_type, exc_value, traceback):
        _C._set_grad_enabled(self.prev_grad)
        _C._set_inference_mode(self.prev_inference)

    def clone(self):
        """A new context manager of the same kind and settings (for decorating functions)."""
        return self.__class__(self.mode)
