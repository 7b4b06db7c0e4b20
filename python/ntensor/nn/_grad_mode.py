"""ntensor.nn._grad_mode: no_grad() for the Python of ntensor.nn (init's fills, Module._apply,
load_state_dict's copies): ntensor.no_grad when the autograd core provides it, else a context
that does nothing (before autograd exists nothing records, so there is nothing to turn off)."""
import contextlib

import ntensor


def no_grad():
    """A context in which ops record no autograd history."""
    factory = getattr(ntensor, "no_grad", None)
    return factory() if factory is not None else contextlib.nullcontext()
