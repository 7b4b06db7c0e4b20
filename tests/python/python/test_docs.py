"""Docstrings and signatures: every public function, class and method of ntensor, Tensor, nn,
nn.functional, optim, autograd, dim and testing has a docstring; inspect.signature works on
every function and method of the C module (one signature where an entry's overloads share one,
else (*args, **kwargs); PyTorch 1.13 raises ValueError for all of them), and
python/src/op_docs.def is what scripts/gen_op_docs.py makes now."""
import inspect
import os
import subprocess
import sys

import pytest

import ntensor as nt
import ntensor.autograd
import ntensor.dim
import ntensor.nn.functional as F
import ntensor.nn.init
import ntensor.testing

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))


def public_members(obj):
    for name in dir(obj):
        if name.startswith("_"):
            continue
        value = getattr(obj, name)
        if inspect.ismodule(value) or not callable(value):
            continue
        if isinstance(value, type) and issubclass(value, BaseException):
            continue  # exception classes (DimensionBindError) are documented by their module
        yield name, value


def classes_of(module):
    return [v for _, v in public_members(module) if isinstance(v, type)]


NAMESPACES = {
    "ntensor": nt,
    "Tensor": nt.Tensor,
    "nn": nt.nn,
    "nn.functional": F,
    "nn.init": ntensor.nn.init,
    "optim": nt.optim,
    "autograd": ntensor.autograd,
    "dim": ntensor.dim,
    "testing": ntensor.testing,
    "Generator": nt.Generator,
}


@pytest.mark.parametrize("where", NAMESPACES)
def test_every_public_callable_has_a_docstring(where):
    space = NAMESPACES[where]
    owners = [space] + (classes_of(space) if inspect.ismodule(space) else [])
    missing = []
    for owner in owners:
        for name, value in public_members(owner):
            if not (getattr(value, "__doc__", None) or "").strip():
                missing.append(f"{getattr(owner, '__name__', owner)}.{name}")
    assert missing == []


def entries():
    for name, value in public_members(nt._C):
        if not isinstance(value, type):
            yield "ntensor." + name, value
    for name in dir(nt.Tensor):
        value = getattr(nt.Tensor, name)
        if not name.startswith("__") and callable(value) and inspect.isroutine(value):
            yield "Tensor." + name, value


def test_inspect_signature_works_everywhere():
    failed = []
    for where, value in entries():
        try:
            inspect.signature(value)
        except (ValueError, TypeError) as e:
            failed.append(f"{where}: {e}")
    assert failed == []


SIGNATURES = {
    "abs": (nt.abs, "(input, *, out=None)"),
    "Tensor.abs": (nt.Tensor.abs, "(self, /)"),
    "Tensor.abs_": (nt.Tensor.abs_, "(self, /)"),
    "exp": (nt.exp, "(input, *, out=None)"),
    "Tensor.exp": (nt.Tensor.exp, "(self, /)"),
    "Tensor.new_zeros": (nt.Tensor.new_zeros, None),
    "cat": (nt.cat, "(*args, **kwargs)"),
    "add (one visible overload)": (nt.add, "(input, other, *, alpha=1, out=None)"),
    "max (overloaded)": (nt.max, "(*args, **kwargs)"),
    "Tensor.sum (overloaded)": (nt.Tensor.sum, "(self, /, *args, **kwargs)"),
    "manual_seed": (nt.manual_seed, "(seed, /)"),
    "Generator.get_state": (nt.Generator.get_state, "(self, /)"),
    "Generator.set_state": (nt.Generator.set_state, "(self, new_state, /)"),
    "as_subclass": (nt.Tensor.as_subclass, "(self, cls, /)"),
    "assert_close": (nt.testing.assert_close, None),
}


@pytest.mark.parametrize("case", SIGNATURES)
def test_sample_signatures(case):
    fn, text = SIGNATURES[case]
    sig = inspect.signature(fn)
    if text is not None:
        assert str(sig) == text
    assert fn.__doc__.strip()


def test_bound_signature_binds_like_the_call():
    sig = inspect.signature(nt.Tensor.clamp_min)
    assert "self" in sig.parameters
    bound = inspect.signature(nt.ones(2).exp)
    assert str(bound) == "()"


def test_docstrings_carry_summary_and_overloads():
    doc = nt.add.__doc__
    assert doc.startswith("Adds other, scaled by alpha, to input.")
    assert "add(input, other, *, alpha=1, out=None)" in doc
    assert "Tensor.sum(" in nt.Tensor.sum.__doc__
    assert nt.Tensor.abs_.__doc__.startswith("In-place version of")


def test_op_docs_table_is_current():
    script = os.path.join(ROOT, "scripts", "gen_op_docs.py")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(nt.__file__)))
    rc = subprocess.run([sys.executable, script, "--check"], env=env).returncode
    assert rc == 0, "python/src/op_docs.def is stale: run scripts/gen_op_docs.py"
