"""The type stubs (python/ntensor/__init__.pyi, _C.pyi, py.typed): generated from the op table
by scripts/gen_stubs.py and current (regenerated into a temporary folder and compared), valid
Python (ast), installed next to the package in the build, and covering every generated entry;
mypy checks a small program against them when Debian's python3-mypy is installed."""
import ast
import importlib.util
import os
import subprocess
import sys

import pytest

import ntensor as nt

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
SOURCE = os.path.join(ROOT, "python", "ntensor")
SCRIPT = os.path.join(ROOT, "scripts", "gen_stubs.py")
STUBS = ("__init__.pyi", "_C.pyi")


def env():
    return dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(nt.__file__)))


def test_stubs_are_current(tmp_path):
    subprocess.run([sys.executable, SCRIPT, "--out", str(tmp_path)], env=env(), check=True)
    for name in STUBS:
        with open(os.path.join(SOURCE, name)) as f, open(tmp_path / name) as g:
            assert f.read() == g.read(), f"{name} is stale: run scripts/gen_stubs.py"
    assert os.path.exists(os.path.join(SOURCE, "py.typed"))


@pytest.mark.parametrize("name", STUBS)
def test_stubs_parse_and_sit_next_to_the_package(name):
    with open(os.path.join(SOURCE, name)) as f:
        ast.parse(f.read())
    built = os.path.dirname(nt.__file__)
    assert os.path.exists(os.path.join(built, name)) and os.path.exists(
        os.path.join(built, "py.typed"))


def test_stubs_cover_the_generated_entries():
    with open(os.path.join(SOURCE, "_C.pyi")) as f:
        tree = ast.parse(f.read())
    top = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    tensor = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Tensor")
    methods = {n.name for n in tensor.body if isinstance(n, ast.FunctionDef)}
    for name, kind, _ in nt._C._binding_table():
        assert name in (methods if kind in ("method", "inplace") else top), name
    add = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "add"]
    assert ast.unparse(add[0].args) == ("input: Tensor, other: Union[Tensor, Number], *, "
                                         "alpha: Number=..., out: Optional[Tensor]=...")


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="python3-mypy is not installed (scripts/setup.sh installs it)")
def test_mypy_accepts_calls_and_rejects_mistakes(tmp_path):
    good = tmp_path / "good.py"
    good.write_text("import ntensor as nt\n"
                    "x = nt.zeros(2, 3, names=('N', 'C'))\n"
                    "y: nt.Tensor = nt.add(x, 1, alpha=2).sum('C')\n"
                    "z = x.abs().exp_() @ x.T\n"
                    "g = nt.Generator().manual_seed(3)\n"
                    "r = nt.rand(2, 3, generator=g).view(6).refine_names('N')\n"
                    "v = x.max(0)[0] + 1\n"
                    "p = nt.nn.Parameter(nt.ones(2))\n"
                    "nt.testing.assert_close(x, x)\n")
    bad = tmp_path / "bad.py"
    bad.write_text("import ntensor as nt\nnt.exp(nt.zeros(2), bogus=1)\n")
    run = [sys.executable, "-m", "mypy", "--no-incremental", "--ignore-missing-imports"]
    assert subprocess.run(run + [str(good)], env=env()).returncode == 0
    assert subprocess.run(run + [str(bad)], env=env(), capture_output=True).returncode != 0
