#!/usr/bin/env bash
# The whole test suite: builds (installing what is missing), runs the C tests with ctest
# and the Python tests with pytest against PyTorch 1.13, then both again in a build with
# AddressSanitizer + UndefinedBehaviorSanitizer.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
echo "== C tests"
ctest --test-dir build --output-on-failure

echo "== Python tests"
PYTHONPATH=build/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python

echo "== C tests under ASan/UBSan"
NT_BUILD_DIR=build-asan bash scripts/setup.sh -DNT_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure

echo "== Python tests under ASan/UBSan"
# The interpreter is not built with ASan, so the runtimes are preloaded; CPython keeps
# objects alive at exit, so leak detection is left to the C tests above.
LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)" \
  ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 \
  PYTHONPATH=build-asan/python /usr/bin/python3 -m pytest -q -p no:cacheprovider tests/python
