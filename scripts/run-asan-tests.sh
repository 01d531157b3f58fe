#!/usr/bin/env bash
# Builds the `asan` preset (AddressSanitizer + UndefinedBehaviorSanitizer, Debug at -O1) into build-asan/ and runs
# the whole CTest suite under it, GUI suites included (under the same xvfb-run as `make test`). Any sanitizer
# report fails the test it happens in: ASan and UBSan abort (the preset builds with -fno-sanitize-recover), and
# LeakSanitizer makes the process exit non-zero. Used by `make test-asan` (and so by `make test`).
#
#   ASAN_BUILD   build folder (default build-asan, the preset's)
#   JOBS         parallel builds and tests (default 2)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${ASAN_BUILD:-build-asan}
jobs=${JOBS:-2}

start=$(date +%s)
if [ "$build" = build-asan ]; then
  cmake --preset asan >/dev/null
else
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-g -O1" "-DCMAKE_C_FLAGS_DEBUG=-g -O1" \
    -DSPYGLASS_SANITIZE=ON -DSPYGLASS_BUILD_BENCHMARKS=OFF >/dev/null
fi
cmake --build "$build" -j"$jobs"
built=$(date +%s)
echo "run-asan-tests: built in $(( built - start )) s"

# detect_leaks: on (the default on x86_64 Linux, stated so nobody turns it off by accident).
# LSan suppressions: only for leaks inside system libraries we do not build (see the file for each one and why).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$root/scripts/lsan-suppressions.txt:print_suppressions=0}

xvfb-run -a -s "-screen 0 1600x1000x24" ctest --test-dir "$build" --output-on-failure --no-tests=error -j"$jobs"
echo "run-asan-tests: tests ran in $(( $(date +%s) - built )) s ($(( $(date +%s) - start )) s with the build)"
