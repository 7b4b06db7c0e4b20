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


class OracleDied(RuntimeError):
    pass


class Oracle:
    """functorch.dim in one forked child for many calls (a fork costs half a second, the import
    of functorch.dim in it): oracle(fn, *args) runs fn(functorch.dim, *args) there and returns
    its (pickled) result, or ("!", type name, text). fn must be a module-level function (it
    is sent by name) and args picklable. A child that dies (functorch.dim aborts on some
    inputs) raises OracleDied; restart() makes another."""

    def __init__(self):
        self._start()

    def restart(self):
        self.close()
        self._start()

    def _start(self):
        req_r, self.req_w = os.pipe()
        self.res_r, res_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: serve calls until the parent closes the pipe
            os.close(self.req_w)
            os.close(self.res_r)
            torch.set_num_threads(1)  # see theirs()
            from functorch import dim as fdim
            with os.fdopen(req_r, "rb") as requests, os.fdopen(res_w, "wb") as results:
                while True:
                    try:
                        fn, args = pickle.load(requests)
                    except EOFError:
                        os._exit(0)
                    try:
                        out = fn(fdim, *args)
                    except BaseException as e:  # noqa: BLE001
                        out = ("!", type(e).__name__, str(e))
                    pickle.dump(out, results)
                    results.flush()
        os.close(req_r)
        os.close(res_w)
        self.requests = os.fdopen(self.req_w, "wb")
        self.results = os.fdopen(self.res_r, "rb")

    def __call__(self, fn, *args):
        pickle.dump((fn, args), self.requests)
        self.requests.flush()
        try:
            return pickle.load(self.results)
        except EOFError:
            raise OracleDied(f"functorch.dim's process died running {fn.__name__}{args}")

    def close(self):
        self.requests.close()
        self.results.close()
        os.waitpid(self.pid, 0)
