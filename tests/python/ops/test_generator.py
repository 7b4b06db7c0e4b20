"""ntensor.Generator and the seed functions against PyTorch 1.13's: get_state / set_state
(our own 24-byte layout, include/ntensor/generator.h) restore the sequence, manual_seed
returns the generator, generator= makes an op draw from the given generator and leaves the
default one untouched, and bad states raise PyTorch's exception types."""
import pytest
import torch

import ntensor as nt

DRAWS = {
    "rand": lambda lib, g: lib.rand(3, 4, generator=g),
    "randn": lambda lib, g: lib.randn(5, generator=g),
    "randint": lambda lib, g: lib.randint(0, 100, (6,), generator=g),
    "randperm": lambda lib, g: lib.randperm(7, generator=g),
    "uniform_": lambda lib, g: lib.empty(4).uniform_(-1, 1, generator=g),
    "normal_": lambda lib, g: lib.empty(4).normal_(generator=g),
    "bernoulli": lambda lib, g: lib.bernoulli(lib.full((5,), 0.5), generator=g),
    "multinomial-free random_": lambda lib, g: lib.empty(3).random_(0, 10, generator=g),
}


@pytest.mark.parametrize("case", DRAWS)
def test_state_round_trip(case):
    g = nt.Generator().manual_seed(123)
    state = g.get_state()
    first = DRAWS[case](nt, g)
    second = DRAWS[case](nt, g)
    assert g.set_state(state) is g
    assert DRAWS[case](nt, g).tolist() == first.tolist()
    assert DRAWS[case](nt, g).tolist() == second.tolist()


@pytest.mark.parametrize("case", DRAWS)
def test_generator_argument_leaves_the_default_alone(case):
    nt.manual_seed(7)
    expected = nt.rand(3).tolist()
    nt.manual_seed(7)
    g = nt.Generator().manual_seed(7)
    DRAWS[case](nt, g)
    assert nt.rand(3).tolist() == expected  # the default generator did not move
    a = DRAWS[case](nt, nt.Generator().manual_seed(99))
    b = DRAWS[case](nt, nt.Generator().manual_seed(99))
    assert a.tolist() == b.tolist()


def test_default_generator_state_functions():
    nt.manual_seed(3)
    state = nt.get_rng_state()
    assert state.dtype == nt.uint8 and state.shape == (24,)
    a = nt.randn(4)
    nt.set_rng_state(state)
    assert nt.randn(4).tolist() == a.tolist()
    assert nt.default_generator.get_state().tolist() == nt.get_rng_state().tolist()
    assert bytes(state[:4].tolist()) == b"NTRG"


def test_seeds_as_torch():
    for lib in (nt, torch):
        g = lib.Generator()
        assert g.initial_seed() == 67280421310721
        assert g.manual_seed(5) is g and g.initial_seed() == 5
        assert lib.manual_seed(11) is lib.default_generator
        assert lib.initial_seed() == 11
        assert g.manual_seed(-1).initial_seed() == 2 ** 64 - 1
        s = lib.seed()
        assert isinstance(s, int) and lib.initial_seed() == s
        assert str(g.device) == "cpu"
    assert nt.Generator(device="cpu").initial_seed() == 67280421310721


BAD_STATES = {
    "wrong size": lambda lib: lib.zeros(10, dtype=lib.uint8),
    "wrong dtype": lambda lib: lib.zeros(24),
    "not a tensor": lambda lib: [1, 2],
}


@pytest.mark.parametrize("case", BAD_STATES)
def test_bad_states_raise_torch_types(case):
    for lib in (nt, torch):
        with pytest.raises(Exception) as info:
            lib.Generator().set_state(BAD_STATES[case](lib))
        kind = type(info.value)
        if lib is torch:
            assert kind is nt_kind
        nt_kind = kind
    with pytest.raises(RuntimeError, match="NTRG"):
        nt.Generator().set_state(nt.zeros(24, dtype=nt.uint8))
    with pytest.raises(TypeError, match="ByteTensor"):
        nt.Generator().set_state(nt.zeros(24))
    g = nt.Generator()
    state = g.get_state()
    with pytest.raises(RuntimeError):
        g.set_state(nt.zeros(24, dtype=nt.uint8))
    assert g.get_state().tolist() == state.tolist()  # unchanged by a refused state


def test_generator_of_the_wrong_type_is_a_signature_error():
    with pytest.raises(TypeError, match="invalid combination"):
        nt.rand(2, generator=3)
