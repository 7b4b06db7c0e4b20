"""Bool tensors whose bytes are not 0 or 1 (memory from NumPy, a buffer or empty()): every
op reads a non-zero byte as True, as NumPy and PyTorch do, and writes 0 or 1. Reading such
a byte as C's _Bool would be undefined behaviour, which the sanitizer build of this suite
turns into an abort."""
import numpy as np
import pytest

import ntensor as nt

BYTES = [0, 2, 190, 1, 255, 0, 128, 3]
TRUTH = [b != 0 for b in BYTES]


def odd_bools():
    """A bool tensor over the bytes of BYTES (shared with a NumPy array, not copied)."""
    return nt.from_numpy(np.frombuffer(bytearray(BYTES), dtype=np.bool_))


def plain_bools():
    return nt.tensor(TRUTH)


UNARY = [
    lambda t: t.tolist(),
    lambda t: [t[i].item() for i in range(len(BYTES))],
    lambda t: repr(t),
    lambda t: t.int().tolist(),
    lambda t: t.float().tolist(),
    lambda t: t.to(nt.float16).tolist(),
    lambda t: t.to(nt.bfloat16).tolist(),
    lambda t: t.to(nt.uint8).tolist(),
    lambda t: t.clone().to(nt.int64).tolist(),
    lambda t: (~t).tolist(),
    lambda t: t.logical_not().tolist(),
    lambda t: t.sign().tolist(),
    lambda t: t.exp().tolist(),
    lambda t: t.sum().item(),
    lambda t: t.sum(0).item(),
    lambda t: t.prod().item(),
    lambda t: t.any().item(),
    lambda t: t.all().item(),
    lambda t: t.max().item(),
    lambda t: t.min().item(),
    lambda t: t.amax().item(),
    lambda t: t.cumsum(0).tolist(),
    lambda t: t.cumprod(0).tolist(),
    lambda t: t.mean(dtype=nt.float32).item(),
    lambda t: (t == plain_bools()).tolist(),
    lambda t: (t != nt.ones(len(BYTES), dtype=nt.bool)).tolist(),
    lambda t: (t & plain_bools()).tolist(),
    lambda t: (t | nt.zeros(len(BYTES), dtype=nt.bool)).tolist(),
    lambda t: (t ^ plain_bools()).tolist(),
    lambda t: t.logical_and(plain_bools()).tolist(),
    lambda t: t.logical_xor(nt.zeros(len(BYTES), dtype=nt.bool)).tolist(),
    lambda t: (t + t).tolist(),
    lambda t: (t * t).tolist(),
    lambda t: (t + 1).tolist(),
    lambda t: (t < nt.ones(len(BYTES), dtype=nt.bool)).tolist(),
    lambda t: nt.maximum(t, nt.zeros(len(BYTES), dtype=nt.bool)).tolist(),
    lambda t: nt.where(t, 1, 0).tolist(),
    lambda t: nt.where(t, nt.arange(8), -nt.arange(8)).tolist(),
    lambda t: nt.arange(8)[t].tolist(),
    lambda t: nt.arange(8).masked_fill(t, -1).tolist(),
    lambda t: nt.arange(8).masked_select(t).tolist(),
    lambda t: nt.isclose(t, plain_bools()).tolist(),
    lambda t: nt.cat([t, t]).tolist(),
    lambda t: t.reshape(2, 4).t().contiguous().tolist(),
]


@pytest.mark.parametrize("i", range(len(UNARY)))
def test_nonzero_bytes_read_as_true(i):
    """Each op gives on odd bool bytes what it gives on the canonical tensor."""
    fn = UNARY[i]
    assert fn(odd_bools()) == fn(plain_bools())


def test_results_are_canonical():
    """Bool results hold the bytes 0 and 1 only, whatever their inputs held."""
    t = odd_bools()
    for r in [~t, t.logical_not(), t & plain_bools(), t == plain_bools(), t + t]:
        assert set(np.frombuffer(bytes(r.contiguous().numpy().tobytes()), np.uint8)) <= {0, 1}


def test_empty_bool_is_readable():
    """empty() leaves whatever bytes were there: reading them is safe."""
    t = nt.empty(1000, dtype=nt.bool)
    assert all(v in (True, False) for v in t.tolist())
    assert 0 <= t.sum().item() <= 1000
