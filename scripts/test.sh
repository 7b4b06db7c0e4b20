#!/usr/bin/env bash
# The whole test suite: builds (installing what is missing), runs the C tests with ctest,
# the C tests again under AddressSanitizer + UndefinedBehaviorSanitizer, then the Python
# tests with pytest against PyTorch 1.13.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "== C tests"
ctest --test-dir build --output-on-failure

echo "== C tests under ASan/UBSan"
NT_BUILD_DIR=build-asan bash scripts/setup.sh -DNT_SANITIZE=ON -DNT_BUILD_PYTHON=OFF \
  -DCMAKE_BUILD_TYPE=Debug
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure

echo "== Python tests"
PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
