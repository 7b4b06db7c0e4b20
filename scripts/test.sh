#!/usr/bin/env bash
# The whole test suite, on a fresh Debian 12 machine as root (installing what is missing):
#   1. build with gcc (warnings are errors), then the C tests (ctest) and the Python tests
#      (pytest, PyTorch 1.13 as the oracle) with 1 and with 2 threads, and the installation
#      (tests/install/run.sh: cmake --install, a C program built with pkg-config and with
#      find_package against the shared and the static library, pip install and pip wheel);
#   2. the same C and Python tests in a build with AddressSanitizer + UndefinedBehaviorSanitizer;
#   3. a clang build (warnings are errors) with the libFuzzer harnesses of tests/fuzz, each run
#      for NT_FUZZ_SECONDS (default 60) on its seed corpus (scripts/fuzz.sh);
#   4. every C source and header follows .clang-format (scripts/format.sh);
#   5. every public function, type and macro of include/ has its Doxygen comment (scripts/docs.sh
#      --check: Doxygen with its warnings as errors).
# Every stage runs even when an earlier one failed (a stage whose build failed is reported as
# such); a summary line per stage closes the output, and the exit status is non-zero if any
# stage failed. NT_STAGES="c python" (names from the summary) runs a subset.
set -uo pipefail
cd "$(dirname "$0")/.."

declare -a summary=()
failed=0

# stage NAME COMMAND...: runs the command, records PASS/FAIL and its duration, and returns
# the command's status (0 for a stage NT_STAGES leaves out).
stage() {
    local name=$1 t0=$SECONDS rc=0
    shift
    if [ -n "${NT_STAGES:-}" ] && [[ " $NT_STAGES " != *" $name "* ]]; then return 0; fi
    echo
    echo "== $name"
    "$@" || rc=$?
    if [ $rc -eq 0 ]; then
        summary+=("PASS  $name ($((SECONDS - t0)) s)")
    else
        summary+=("FAIL  $name ($((SECONDS - t0)) s, exit $rc)")
        failed=1
    fi
    return $rc
}

# skip NAME WHY: a stage that cannot run because what it needs failed.
skip() {
    if [ -n "${NT_STAGES:-}" ] && [[ " $NT_STAGES " != *" $1 "* ]]; then return 0; fi
    summary+=("FAIL  $1 (not run: $2)")
    failed=1
}

pytest_in() { # pytest_in BUILD_DIR [env...]: the Python suite against BUILD_DIR's module
    local build=$1
    shift
    env "$@" PYTHONPATH="$build/python" /usr/bin/python3 -m pytest -q -p no:cacheprovider \
        tests/python
}

asan_env=(LD_PRELOAD="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"
          ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1)

# 1. gcc, optimised
if stage build bash scripts/setup.sh -DNT_WERROR=ON; then
    stage c ctest --test-dir build --output-on-failure
    stage python-1-thread pytest_in build OMP_NUM_THREADS=1
    stage python-2-threads pytest_in build OMP_NUM_THREADS=2
    stage install bash tests/install/run.sh build
else
    for s in c python-1-thread python-2-threads install; do skip $s "build failed"; done
fi

# 2. gcc with ASan + UBSan. The interpreter is not built with ASan, so the runtimes are
# preloaded; CPython keeps objects alive at exit, so leak detection is left to the C tests.
if stage build-asan env NT_BUILD_DIR=build-asan bash scripts/setup.sh -DNT_SANITIZE=ON \
    -DCMAKE_BUILD_TYPE=Debug -DNT_WERROR=ON; then
    stage c-asan env ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        ctest --test-dir build-asan --output-on-failure
    stage python-asan pytest_in build-asan "${asan_env[@]}"
else
    for s in c-asan python-asan; do skip $s "build-asan failed"; done
fi

# 3. clang, with the fuzzers
stage fuzz bash scripts/fuzz.sh

# 4. every C file as .clang-format says
stage format bash scripts/format.sh

# 5. the C API reference builds without a warning (nothing public undocumented)
stage docs bash scripts/docs.sh --check

echo
echo "== summary"
printf '%s\n' "${summary[@]}"
exit $failed
