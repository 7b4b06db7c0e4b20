"""ntensor.utils.hooks: RemovableHandle, the handle that nn.Module.register_forward_hook and
register_forward_pre_hook return (torch.utils.hooks.RemovableHandle): remove() takes the hook
out of the module's ordered dict of hooks; the handle is a context manager that removes it on
exit. Ids come from one counter, so hooks run in the order they were registered."""
import weakref
from collections import OrderedDict

__all__ = ["RemovableHandle"]


class RemovableHandle(object):
    """A handle which provides the capability to remove a hook."""

    next_id = 0

    def __init__(self, hooks_dict):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id)

    def __setstate__(self, state):
        if state[0] is None:
            self.hooks_dict_ref = weakref.ref(OrderedDict())  # a dead reference
        else:
            self.hooks_dict_ref = weakref.ref(state[0])
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)

    def __enter__(self):
        return self

    def __exit__(self, type, value, tb):
        self.remove()
