"""ntensor_build — the PEP 517 build backend of ntensor (pyproject.toml's `backend-path`).

It drives the project's own CMake build, so that the library's source lists live in one
place (CMakeLists.txt), and packs the result as a PEP 427 wheel: the files of python/ntensor,
the extension ntensor._C (which links the library statically, so the wheel needs nothing from
the build tree), and a .dist-info with METADATA, WHEEL, the licence and RECORD. Standard
library only: nothing is downloaded, so `pip install --no-build-isolation .` works offline
with Debian's cmake, ninja-build, gcc and python3-dev (docs/install.md).

Settings (environment, or pip's --config-settings KEY=VALUE):
  NTENSOR_BUILD_DIR / build-dir   an existing CMake build to reuse (configured with
                                  CMAKE_BUILD_TYPE=Release for the released speed); by default
                                  the library is built from scratch in a temporary folder
  NTENSOR_BUILD_JOBS / jobs       parallel compile jobs (default: the number of CPUs)
  NTENSOR_CMAKE_ARGS / cmake-args extra arguments for the configure step (split on spaces)

The version is the one of CMakeLists.txt's `project(ntensor VERSION x.y.z)`, the project's
single source of it; the other metadata comes from pyproject.toml's [project] table.
"""
import base64
import hashlib
import io
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    tomllib = None

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "ntensor"
# Fixed timestamps in the archives, so that two builds of the same tree give the same bytes
# (SOURCE_DATE_EPOCH, the reproducible-builds convention, overrides it).
ZIP_EPOCH = (1980, 1, 1, 0, 0, 0)


def _log(msg):
    print(f"ntensor_build: {msg}", file=sys.stderr, flush=True)


def _setting(config_settings, key, env):
    value = (config_settings or {}).get(key)
    if value is None:
        value = os.environ.get(env)
    return value or None


# ------------------------------------------------------------------ metadata

def version():
    """The version of CMakeLists.txt's project() line."""
    with open(os.path.join(ROOT, "CMakeLists.txt"), encoding="utf-8") as f:
        text = f.read()
    m = re.search(r"^project\(\s*ntensor\s+VERSION\s+([0-9]+(?:\.[0-9]+)*)", text, re.M)
    if not m:
        raise RuntimeError("CMakeLists.txt has no `project(ntensor VERSION x.y.z ...)` line")
    return m.group(1)


def _project():
    if tomllib is None:
        raise RuntimeError("ntensor_build needs Python 3.11 or newer (tomllib)")
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)["project"]


def _metadata():
    """METADATA (core metadata 2.1) from pyproject.toml's [project] and the version."""
    p = _project()
    lines = ["Metadata-Version: 2.1", f"Name: {p['name']}", f"Version: {version()}"]
    if "description" in p:
        lines.append(f"Summary: {p['description']}")
    for a in p.get("authors", []):
        if "name" in a:
            lines.append(f"Author: {a['name']}")
    if "license" in p:
        lines.append(f"License: {p['license'].get('text', '')}")
    lines.append("License-File: LICENSE")
    lines += [f"Classifier: {c}" for c in p.get("classifiers", [])]
    if "requires-python" in p:
        lines.append(f"Requires-Python: {p['requires-python']}")
    lines += [f"Requires-Dist: {d}" for d in p.get("dependencies", [])]
    for extra, deps in p.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f'Requires-Dist: {d}; extra == "{extra}"' for d in deps]
    body = ""
    readme = p.get("readme")
    if isinstance(readme, str):  # the long description, after the headers
        with open(os.path.join(ROOT, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
        kind = "text/markdown" if readme.endswith(".md") else "text/plain"
        lines.append(f"Description-Content-Type: {kind}")
    return "\n".join(lines) + "\n" + body


def _dist_info():
    return f"{PACKAGE}-{version()}.dist-info"


def _tag():
    """The wheel tag of the running interpreter: cp311-cp311-linux_x86_64 on Debian 12."""
    impl = f"cp{sys.version_info.major}{sys.version_info.minor}"
    abi = impl + getattr(sys, "abiflags", "")
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"{impl}-{abi}-{plat}"


def _wheel_file():
    return ("Wheel-Version: 1.0\nGenerator: ntensor_build\nRoot-Is-Purelib: false\n"
            f"Tag: {_tag()}\n")


def _dist_info_files():
    """{archive path: bytes} of the .dist-info, without RECORD."""
    d = _dist_info()
    with open(os.path.join(ROOT, "LICENSE"), "rb") as f:
        licence = f.read()
    return {f"{d}/METADATA": _metadata().encode(), f"{d}/WHEEL": _wheel_file().encode(),
            f"{d}/LICENSE": licence, f"{d}/top_level.txt": f"{PACKAGE}\n".encode()}


# ------------------------------------------------------------------ the CMake build

def _run(cmd):
    _log(" ".join(cmd))
    subprocess.run(cmd, check=True, stdout=sys.stderr)


def _configure(build, config_settings):
    cmd = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
           "-DNT_BUILD_PYTHON=ON", "-DNT_BUILD_TESTS=OFF",
           f"-DPython3_EXECUTABLE={sys.executable}"]
    if shutil.which("ninja"):
        cmd += ["-G", "Ninja"]
    extra = _setting(config_settings, "cmake-args", "NTENSOR_CMAKE_ARGS")
    if extra:
        cmd += extra.split()
    _run(cmd)


def _build(build, config_settings):
    jobs = _setting(config_settings, "jobs", "NTENSOR_BUILD_JOBS") or str(os.cpu_count() or 1)
    _run(["cmake", "--build", build, "--target", "ntensor_python", "ntensor_python_files",
          "-j", jobs])


def _check_reused(build):
    cache = os.path.join(build, "CMakeCache.txt")
    if not os.path.exists(cache):
        raise RuntimeError(f"NTENSOR_BUILD_DIR={build} is not a configured CMake build "
                           "(no CMakeCache.txt)")
    with open(cache, encoding="utf-8", errors="replace") as f:
        m = re.search(r"^CMAKE_BUILD_TYPE:\w+=(.*)$", f.read(), re.M)
    if not m or m.group(1) != "Release":
        _log(f"warning: {build} is a {m.group(1) if m else 'default'} build, not Release")


def _package_files(build):
    """{archive path: source file} of the package: every file of python/ntensor (the
    sources are authoritative for the .py files), plus what only the build makes (the
    extension, and any generated file that is not a .py)."""
    files = {}
    src = os.path.join(ROOT, "python", PACKAGE)
    out = os.path.join(build, "python", PACKAGE)
    for base, only_built in ((src, False), (out, True)):
        for dirpath, dirnames, filenames in os.walk(base):
            dirnames[:] = sorted(d for d in dirnames if d != "__pycache__")
            for name in sorted(filenames):
                if name.endswith((".pyc", ".pyo")) or (only_built and name.endswith(".py")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, base).replace(os.sep, "/")
                files.setdefault(f"{PACKAGE}/{rel}", path)
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    if f"{PACKAGE}/_C{suffix}" not in files:
        raise RuntimeError(f"{out} holds no _C{suffix}: the build is for another Python "
                           f"than {sys.executable}, or it failed")
    return files


# ------------------------------------------------------------------ archives

def _zip_info(name, mode):
    info = zipfile.ZipInfo(name, date_time=_epoch())
    info.external_attr = (0o100000 | mode) << 16
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _epoch():
    sde = os.environ.get("SOURCE_DATE_EPOCH")
    if sde:
        return time.gmtime(max(int(sde), 315532800))[:6]
    return ZIP_EPOCH


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _write_wheel(wheel_directory, package_files):
    name = f"{PACKAGE}-{version()}-{_tag()}.whl"
    path = os.path.join(wheel_directory, name)
    record = []
    with zipfile.ZipFile(path, "w") as z:
        for arcname, src in sorted(package_files.items()):
            with open(src, "rb") as f:
                data = f.read()
            mode = 0o755 if os.access(src, os.X_OK) and arcname.endswith(".so") else 0o644
            z.writestr(_zip_info(arcname, mode), data)
            record.append(_record_line(arcname, data))
        for arcname, data in _dist_info_files().items():
            z.writestr(_zip_info(arcname, 0o644), data)
            record.append(_record_line(arcname, data))
        record_name = f"{_dist_info()}/RECORD"
        record.append(f"{record_name},,")
        z.writestr(_zip_info(record_name, 0o644), "\n".join(record) + "\n")
    return name


# ------------------------------------------------------------------ PEP 517 hooks

def get_requires_for_build_wheel(config_settings=None):
    return []  # cmake, ninja, gcc and the libraries are Debian packages (scripts/setup.sh)


def get_requires_for_build_sdist(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = _dist_info()
    for arcname, data in _dist_info_files().items():
        path = os.path.join(metadata_directory, arcname)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
    return d


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    reuse = _setting(config_settings, "build-dir", "NTENSOR_BUILD_DIR")
    t0 = time.monotonic()
    if reuse:
        build = os.path.abspath(reuse)
        _check_reused(build)
        _build(build, config_settings)
        name = _write_wheel(wheel_directory, _package_files(build))
    else:
        build = tempfile.mkdtemp(prefix="ntensor-build-")
        try:
            _configure(build, config_settings)
            _build(build, config_settings)
            name = _write_wheel(wheel_directory, _package_files(build))
        finally:
            shutil.rmtree(build, ignore_errors=True)
    _log(f"{name} in {time.monotonic() - t0:.0f} s")
    return name


def build_sdist(sdist_directory, config_settings=None):
    """A source archive of the tree (without build folders, hidden files and caches), with
    PKG-INFO at its top, from which build_wheel works as from the checkout."""
    top = f"{PACKAGE}-{version()}"
    name = f"{top}.tar.gz"
    mtime = int(os.environ.get("SOURCE_DATE_EPOCH", "315532800"))

    def add_bytes(tar, arcname, data, mode=0o644):
        info = tarfile.TarInfo(f"{top}/{arcname}")
        info.size, info.mtime, info.mode = len(data), mtime, mode
        tar.addfile(info, io.BytesIO(data))

    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as tar:
        add_bytes(tar, "PKG-INFO", _metadata().encode())
        for dirpath, dirnames, filenames in os.walk(ROOT):
            rel_dir = os.path.relpath(dirpath, ROOT)
            dirnames[:] = sorted(
                d for d in dirnames if not d.startswith(".") and d != "__pycache__" and
                not (rel_dir == "." and d.startswith("build") and d != "build_backend"))
            for fname in sorted(filenames):
                if fname.startswith(".") and fname not in (".clang-format", ".gitignore"):
                    continue
                if fname.endswith((".pyc", ".pyo")):
                    continue
                path = os.path.join(dirpath, fname)
                with open(path, "rb") as f:
                    data = f.read()
                add_bytes(tar, os.path.relpath(path, ROOT).replace(os.sep, "/"), data,
                          0o755 if os.access(path, os.X_OK) else 0o644)
    return name
