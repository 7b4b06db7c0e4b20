"""ntensor.__version__ is the project version of CMakeLists.txt's project() line (the one
source: the C module reads NT_VERSION_STRING, generated from it)."""
import os
import re

import ntensor

_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))


def project_version():
    with open(os.path.join(_root, "CMakeLists.txt")) as f:
        text = f.read()
    m = re.search(r"^project\(\s*ntensor\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", text, re.M)
    assert m, "no project(ntensor VERSION x.y.z) line in CMakeLists.txt"
    return m.group(1)


def test_version_is_project_version():
    assert ntensor.__version__ == project_version()
    assert ntensor._C.__version__ == ntensor.__version__


def test_version_is_a_plain_string():
    assert isinstance(ntensor.__version__, str)
    assert re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", ntensor.__version__)


def test_wheel_version_is_project_version():
    # the build backend (build_backend/ntensor_build.py) names the wheel with this version
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "ntensor_build", os.path.join(_root, "build_backend", "ntensor_build.py"))
    backend = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(backend)
    assert backend.version() == project_version() == ntensor.__version__
    assert f"Version: {ntensor.__version__}\n" in backend._metadata()
