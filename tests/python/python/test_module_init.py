"""The extension module initialised more than once in a process: imported again under another
name, and imported in a sub-interpreter. Each runs in a fresh interpreter process, because a
double initialisation used to crash only at exit (a static object freed)."""
import os
import subprocess
import sys

import ntensor

PYTHONPATH = os.path.dirname(os.path.dirname(os.path.abspath(ntensor.__file__)))


def run(code):
    """Runs `code` in a new interpreter with this ntensor on its path; returns its stdout."""
    env = dict(os.environ, PYTHONPATH=PYTHONPATH)
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    return r.stdout


def test_second_import_under_another_name():
    out = run(
        "import glob, importlib.util, os, ntensor\n"
        "so = glob.glob(os.path.join(os.path.dirname(ntensor.__file__), '_C*.so'))[0]\n"
        "spec = importlib.util.spec_from_file_location('other._C', so)\n"
        "m = importlib.util.module_from_spec(spec)\n"
        "spec.loader.exec_module(m)\n"
        "x = m.ones(2, 3, names=('N', 'C'))\n"
        "print((x + ntensor.ones(3)).sum('C').tolist(), m.Tensor is ntensor.Tensor,\n"
        "      m.float32 is ntensor.float32)\n")
    assert out.split() == ["[6.0,", "6.0]", "True", "True"]


def test_sub_interpreter():
    out = run(
        "import _xxsubinterpreters as interpreters\n"
        "import ntensor\n"
        "interp = interpreters.create()\n"
        f"interpreters.run_string(interp, '''import sys; sys.path.insert(0, {PYTHONPATH!r})\n"
        "import ntensor\n"
        "x = ntensor.randn(3, 4, names=('N', 'C'))\n"
        "print(x.sum('C').names, (ntensor.ones(2) + 1).tolist())''')\n"
        "interpreters.destroy(interp)\n"
        "print(ntensor.zeros(1).tolist())\n")
    assert out.splitlines() == ["('N',) [2.0, 2.0]", "[0.0]"]
