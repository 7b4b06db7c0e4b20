"""Helpers of the first-class dims tests: functorch.dim (PyTorch 1.13) as the oracle, run in a
forked child, and comparisons of values."""
import os
import pickle

import numpy as np
import torch

import ntensor as nt
from ntensor import dim as ndim

# functorch.dim patches torch.Tensor (its __getitem__ at the C level) for the whole process
# when imported, and the other test files compare against PyTorch's own: every functorch.dim
# computation here runs in a forked child that imports it, and sends back its result.


def theirs(fn):
    """fn(functorch.dim) computed in a forked child: its (pickled) result, or the exception
    raised as ("!", type name, text)."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        os.close(r)
        try:
            # one thread: the parent's OpenMP workers do not exist in a forked child, and a
            # parallel region would wait for them forever
            torch.set_num_threads(1)
            from functorch import dim as fdim
            out = fn(fdim)
        except BaseException as e:  # noqa: BLE001
            out = ("!", type(e).__name__, str(e))
        with os.fdopen(w, "wb") as f:
            pickle.dump(out, f)
        os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    return pickle.loads(data)


def values(t):
    return np.asarray(t.tolist(), dtype=np.float64)


def both(shape, seed=0, dtype=np.float32):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return nt.tensor(a), torch.tensor(a)


def same(ours, theirs, exact=False):
    a = values(ours)
    b = values(theirs)
    assert a.shape == b.shape
    if exact:
        assert (a == b).all()
    else:
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


def run(fn, *shapes):
    """fn(lib, dims, *tensors) with ntensor and with torch + functorch.dim, compared."""
    ours = [both(s, seed=k) for k, s in enumerate(shapes)]
    r = fn(nt, lambda n, sizes=None: ndim.dims(n, sizes=sizes), *[o[0] for o in ours])
    t = theirs(lambda fdim: values(fn(torch, lambda n, sizes=None: fdim.dims(n, sizes=sizes),
                                      *[o[1] for o in ours])))
    same(r, torch.tensor(t))


def run_arrays(fn, *arrays):
    """run() on given NumPy arrays (integer ones too)."""
    ours = fn(nt, lambda n, sizes=None: ndim.dims(n, sizes=sizes), *map(nt.tensor, arrays))
    t = theirs(lambda fdim: values(fn(torch, lambda n, sizes=None: fdim.dims(n, sizes=sizes),
                                      *map(torch.tensor, arrays))))
    same(ours, torch.tensor(t))



def errors(fn):
    """The exception type name and text of fn() under both libraries."""
    try:
        fn(nt, lambda n, sizes=None: ndim.dims(n, sizes=sizes))
        ours = None
    except Exception as e:  # noqa: BLE001
        ours = (type(e).__name__, str(e))

    def oracle(fdim):
        fn(torch, fdim.dims)
    t = theirs(oracle)
    return ours, (t[1:] if t is not None else None)
