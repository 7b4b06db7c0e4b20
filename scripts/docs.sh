#!/usr/bin/env bash
# Builds the API reference: the C API with Doxygen (docs/Doxyfile, from the /** */ comments of
# include/) into build/docs/c/html, and the Python API with pydoc (scripts/docs_python.py, from
# the docstrings) into build/docs/python. Installs doxygen when it is missing (Debian 12, as
# root or with sudo) and builds the Python module first when build/ has none.
#   bash scripts/docs.sh            both references
#   bash scripts/docs.sh --check    the C reference alone, failing on any Doxygen warning (an
#                                   undocumented public function, type or macro): the docs
#                                   stage of scripts/test.sh
# NT_BUILD_DIR (default build) is the build whose Python module is documented; NT_DOCS_DIR
# (default build/docs) receives the pages.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v doxygen >/dev/null; then
  echo "docs: installing doxygen"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends doxygen
fi

# Doxygen documents a header's functions only when the header itself is documented: each
# must open with a /** @file comment, or its declarations would escape the check.
undocumented=$(grep -L '@file' include/ntensor.h include/ntensor/*.h include/ntensor/ops.def || true)
if [ -n "$undocumented" ]; then
  echo "docs: no /** @file comment (Doxygen would skip every declaration) in:" $undocumented >&2
  exit 1
fi

out=${NT_DOCS_DIR:-build/docs}
mkdir -p "$out/c"
# Doxyfile's WARN_AS_ERROR = FAIL_ON_WARNINGS: every warning is printed and fails the run.
{ cat docs/Doxyfile; echo "OUTPUT_DIRECTORY = $out/c"; } | doxygen -
echo "docs: C reference in $out/c/html/index.html"
[ "${1:-}" = "--check" ] && exit 0

build=${NT_BUILD_DIR:-build}
if ! compgen -G "$build/python/ntensor/_C*.so" >/dev/null; then
  NT_BUILD_DIR=$build bash scripts/setup.sh
fi
PYTHONPATH="$build/python" /usr/bin/python3 scripts/docs_python.py "$out/python"
echo "docs: Python reference in $out/python/index.html"
