#!/usr/bin/env bash
# Fuzzes the C API: builds the libFuzzer harnesses of tests/fuzz with clang (coverage,
# AddressSanitizer with LeakSanitizer, UndefinedBehaviorSanitizer; warnings are errors) in
# build-fuzz/ (or $NT_BUILD_DIR), then runs each for $NT_FUZZ_SECONDS seconds (default 60),
# starting from a copy of its seed corpus (tests/fuzz/corpus/<harness>/) so that the
# repository's corpus does not grow. Prints each harness's number of executions; exits
# non-zero when a harness found a crash, a leak, undefined behaviour or a broken contract,
# and keeps the input that caused it in $NT_BUILD_DIR/fuzz-artifacts/ (run the harness on it
# with NT_FUZZ_TRACE=1 set to see the calls it makes). Extra arguments go to every harness
# (e.g. -max_len=4096).
set -euo pipefail
cd "$(dirname "$0")/.."

# clang and its libFuzzer runtime, llvm-symbolizer for readable stacks; the rest of what
# ntensor needs comes with setup.sh below.
packages=(clang libclang-rt-14-dev llvm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fuzz: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

export NT_BUILD_DIR=${NT_BUILD_DIR:-build-fuzz}
bash scripts/setup.sh -DCMAKE_C_COMPILER=clang -DNT_FUZZ=ON -DNT_WERROR=ON \
  -DNT_BUILD_PYTHON=OFF -DNT_BUILD_TESTS=OFF

seconds=${NT_FUZZ_SECONDS:-60}
artifacts="$NT_BUILD_DIR/fuzz-artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}

failed=()
for source in tests/fuzz/fuzz_*.c; do
  harness=$(basename "$source" .c)
  mkdir -p "$work/$harness"
  cp tests/fuzz/corpus/"$harness"/* "$work/$harness"/ 2>/dev/null || true
  log="$work/$harness.log"
  status=ok
  "$NT_BUILD_DIR/tests/fuzz/$harness" "$work/$harness" -max_total_time="$seconds" -timeout=10 \
    -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$artifacts/$harness-" "$@" \
    >"$log" 2>&1 || status=FAILED
  executions=$({ grep -o 'stat::number_of_executed_units: [0-9]*' "$log" || true; } |
                 awk '{s += $2} END {print s + 0}')
  echo "$harness: $executions executions in ${seconds}s, $status"
  if [ "$status" != ok ]; then
    failed+=("$harness")
    # the end of the sanitizer's or the harness's report, without libFuzzer's progress
    # lines; the whole log is kept beside the input
    cp "$log" "$artifacts/$harness.log"
    grep -v -e '^#[0-9]' -e 'NEW_FUNC' -e '^INFO:' "$log" | tail -n 60 >&2
  fi
done

if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs and logs in $artifacts/" >&2
  exit 1
fi
echo "fuzz: no findings"
