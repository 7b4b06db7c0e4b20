"""ntensor.utils: helpers shared by the package (hooks: RemovableHandle, as torch.utils.hooks)."""
from . import hooks  # noqa: F401
