#!/usr/bin/env bash
# Installs what ntensor needs on Debian 12 (as root, only what is missing) and builds it in
# build/ (or $NT_BUILD_DIR). Extra arguments go to the cmake configure step.
set -euo pipefail
cd "$(dirname "$0")/.."

# (python3-venv, python3-pip: `pip install .` in a virtual environment; libgfortran-12-dev:
# `pkg-config --static --libs ntensor` names -lgfortran, from OpenBLAS's .pc file)
packages=(build-essential cmake ninja-build pkg-config python3-dev python3-numpy python3-pytest
          python3-hypothesis python3-torch python3-mypy libopenblas-dev libsleef-dev libdnnl-dev
          libomp-dev libcjson-dev libdlpack-dev python3-venv python3-pip libgfortran-12-dev
          doxygen)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

build=${NT_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" >/dev/null
cmake --build "$build" -j 2
