#!/usr/bin/env bash
# tests/install/run.sh [BUILD_DIR] — installs ntensor the ways a user does and uses it:
#   1. `cmake --install` into a temporary prefix, then tests/install/consumer.c built and run
#      four ways: pkg-config against the shared library, `pkg-config --static` against
#      libntensor.a, and CMake's find_package(ntensor) with ntensor::ntensor and with
#      ntensor::ntensor_static;
#   2. `pip install --no-build-isolation .` and `pip wheel` in a virtual environment made with
#      --system-site-packages (offline: --no-index), then ntensor imported from another folder.
# BUILD_DIR is an existing build (scripts/test.sh passes its Release build/), installed as it
# is and reused by the wheel (NTENSOR_BUILD_DIR); without it the library is built from scratch
# in the temporary folder. NT_INSTALL_PIP_FROM_SCRATCH=1 makes pip build from scratch too (the
# backend's default; minutes). Everything lives under one mktemp folder, removed at exit.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ntensor-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
generator=()
if command -v ninja >/dev/null; then generator=(-G Ninja); fi

build=${1:-}
if [ -z "$build" ]; then
    build=$tmp/build
    echo "install: building the library in $build"
    cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DNT_BUILD_TESTS=OFF \
        >/dev/null
    cmake --build "$build" -j "$(nproc)" >/dev/null
fi
build=$(cd "$build" && pwd)
version=$(sed -n 's/^project(ntensor VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)

fail() {
    echo "install: FAIL: $*" >&2
    exit 1
}

# needs BINARY YES|NO: whether BINARY loads libntensor.so (a static link must not)
needs_shared() {
    local has=NO
    if readelf -d "$1" | grep -q 'NEEDED.*libntensor\.so'; then has=YES; fi
    [ "$has" = "$2" ] || fail "$1: needs libntensor.so: $has, expected $2"
}

# ---------------------------------------------------------------- 1. C: pkg-config and CMake
prefix=$tmp/prefix
cmake --install "$build" --prefix "$prefix" >/dev/null
for f in include/ntensor.h include/ntensor/version.h lib/libntensor.a lib/pkgconfig/ntensor.pc \
    lib/cmake/ntensor/ntensorConfig.cmake lib/cmake/ntensor/ntensorConfigVersion.cmake \
    lib/cmake/ntensor/ntensorTargets.cmake; do
    [ -e "$prefix/$f" ] || fail "cmake --install put no $f in the prefix"
done
grep -q "#define NT_VERSION_STRING \"$version\"" "$prefix/include/ntensor/version.h" ||
    fail "the installed version.h does not say $version"
# (a Release build's objects carry GCC's LTO code for the Python module; the installed archive
# must not, or every program linked with it would run an LTO link of the whole library)
if objdump -h "$prefix/lib/libntensor.a" | grep -q '\.gnu\.lto_'; then
    fail "the installed libntensor.a holds LTO sections"
fi

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
[ "$(pkg-config --modversion ntensor)" = "$version" ] || fail "ntensor.pc's version is not $version"
libdir=$(pkg-config --variable=libdir ntensor)
cflags=(-std=c11 -Wall -Wextra -Werror $(pkg-config --cflags ntensor))

# (a) pkg-config, shared
cc "${cflags[@]}" -o "$tmp/consumer_pc" tests/install/consumer.c $(pkg-config --libs ntensor) -lm \
    -Wl,-rpath,"$libdir"
needs_shared "$tmp/consumer_pc" YES
"$tmp/consumer_pc"

# (b) pkg-config --static, against libntensor.a: -lntensor would pick the .so beside it, so
# the archive is named (GNU ld's -l:); the private dependencies come from --static
static_libs=$(pkg-config --static --libs ntensor | sed 's/-lntensor\b/-l:libntensor.a/')
cc "${cflags[@]}" -o "$tmp/consumer_pc_static" tests/install/consumer.c $static_libs
needs_shared "$tmp/consumer_pc_static" NO
"$tmp/consumer_pc_static"

# (c), (d) CMake: find_package(ntensor), ntensor::ntensor and ntensor::ntensor_static
cmake -S tests/install -B "$tmp/consumer" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" \
    >/dev/null
cmake --build "$tmp/consumer" >/dev/null
needs_shared "$tmp/consumer/consumer" YES
needs_shared "$tmp/consumer/consumer_static" NO
"$tmp/consumer/consumer"
"$tmp/consumer/consumer_static"

# ---------------------------------------------------------------- 2. Python: pip
venv=$tmp/venv
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 # (nothing written to $HOME, nothing asked)
/usr/bin/python3 -m venv --system-site-packages "$venv"
pip_env=(NTENSOR_BUILD_DIR="$build")
if [ "${NT_INSTALL_PIP_FROM_SCRATCH:-0}" = 1 ]; then pip_env=(); fi
env "${pip_env[@]}" "$venv/bin/pip" install -q --no-build-isolation --no-index . ||
    fail "pip install ."
env "${pip_env[@]}" "$venv/bin/pip" wheel -q --no-build-isolation --no-index --no-deps \
    -w "$tmp/wheels" . || fail "pip wheel ."

# the wheel: named for this interpreter, and its RECORD lists every file with its sha256
"$venv/bin/python" - "$tmp/wheels" "$version" <<'EOF'
import base64, glob, hashlib, sys, sysconfig, zipfile
wheels, version = sys.argv[1], sys.argv[2]
(path,) = glob.glob(f"{wheels}/ntensor-{version}-cp*.whl")
with zipfile.ZipFile(path) as z:
    names = set(z.namelist())
    record = z.read(f"ntensor-{version}.dist-info/RECORD").decode().split()
    listed = set()
    for line in record:
        name, digest, size = line.rsplit(",", 2)
        listed.add(name)
        if name.endswith("/RECORD"):
            continue
        data = z.read(name)
        want = "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        assert digest == want and int(size) == len(data), f"RECORD is wrong for {name}"
    assert listed == names, f"RECORD and the archive differ: {sorted(listed ^ names)}"
    assert "ntensor/_C" + sysconfig.get_config_var("EXT_SUFFIX") in names
    assert "ntensor/nn/__init__.py" in names and "ntensor/optim/__init__.py" in names
print(f"install: {path.rsplit('/', 1)[1]}: {len(names)} files, RECORD checked")
EOF

# the installed package, imported from elsewhere: the venv's copy, complete, needing nothing
# of the build tree
cd "$tmp"
"$venv/bin/python" - "$venv" "$version" "$root" "$build" <<'EOF'
import os, subprocess, sys
venv, version, root, build = sys.argv[1:]
import ntensor, ntensor.nn, ntensor.nn.functional, ntensor.optim, ntensor.dim, ntensor.autograd
import ntensor.nn.functional as F
assert ntensor.__file__.startswith(os.path.realpath(venv)) or ntensor.__file__.startswith(venv), ntensor.__file__
assert ntensor.__version__ == version, (ntensor.__version__, version)
x = ntensor.ones(2, 3, names=("N", "C"))
y = F.softmax(x @ ntensor.ones(3, 4, names=("C", "D")), dim="D").exp()
assert y.names == ("N", "D") and abs(float(y.sum()) - 8 * 2.718281828 ** 0.25) < 1e-4
so = ntensor._C.__file__
deps = subprocess.run(["ldd", so], capture_output=True, text=True, check=True).stdout
assert "not found" not in deps and root not in deps and build not in deps, deps
dyn = subprocess.run(["readelf", "-d", so], capture_output=True, text=True, check=True).stdout
assert root not in dyn and build not in dyn, "the module points into the build tree"
print(f"install: ntensor {ntensor.__version__} imported from {os.path.dirname(ntensor.__file__)}")
EOF
cd "$root"
"$venv/bin/pip" uninstall -q -y ntensor
echo "install: all passed (pkg-config shared and static, CMake shared and static, pip install, pip wheel)"
