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
