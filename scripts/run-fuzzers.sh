#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang and runs each for a bounded time, failing on any crash, sanitizer
# report (ASan, UBSan), leak, timeout of one input, or runaway memory. Used by `make fuzz` (and so by `make test`).
#
#   FUZZ_SECONDS   run time per target (default 60)
#   FUZZ_TARGETS   which targets (default: all five)
#   FUZZ_BUILD     build folder (default build-fuzz; the corpus that grows there is reused by later runs)
#   JOBS           parallel builds and fuzzers (default 2)
#
# Seeds come from the repository (tests/data, resources/examples, the bad-input corpus, fuzz/seeds) plus every
# committed regression input (fuzz/regressions/<target>/): a crash found once is replayed on every run.
# A new finding is written to $FUZZ_BUILD/artifacts/<target>/; reproduce it with
#   $FUZZ_BUILD/fuzz_<target> $FUZZ_BUILD/artifacts/<target>/crash-...
# then fix it and commit the input under fuzz/regressions/<target>/ (tests/hardening replays those too).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=${FUZZ_BUILD:-build-fuzz}
seconds=${FUZZ_SECONDS:-60}
jobs=${JOBS:-2}
targets=(${FUZZ_TARGETS:-qasm onnx_binary onnx_text bundle hamiltonian})

start=$(date +%s)
cmake -S fuzz -B "$build" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$jobs"
echo "run-fuzzers: built in $(( $(date +%s) - start )) s"

# The seed files of a target, by globs relative to the repository.
seed_globs() {
  case "$1" in
    qasm)        echo "resources/examples/*.qasm tests/data/qasmbench/small/*/*.qasm tests/data/qasmbench/qelib1.inc tests/data/bad/*.qasm" ;;
    onnx_binary) echo "resources/examples/*.onnx tests/data/model/pytorch/*.onnx tests/data/bad/*.onnx" ;;
    onnx_text)   echo "resources/examples/*.onnxtxt tests/data/spyre/models/*.onnxtxt tests/data/bad/*.onnxtxt" ;;
    bundle)      echo "fuzz/seeds/bundle/* tests/data/bad/*.bundle" ;;
    hamiltonian) echo "tests/data/quantum/*.ham tests/data/bad/*.ham" ;;
  esac
}

run_one() {
  local t=$1 dir="$build/work/$1"
  rm -rf "$dir/seeds" "$build/artifacts/$t"
  mkdir -p "$dir/seeds" "$dir/corpus" "$build/artifacts/$t"
  local n=0
  for g in $(seed_globs "$t") "fuzz/regressions/$t/*"; do
    for f in $g; do
      [ -f "$f" ] || continue
      cp "$f" "$dir/seeds/$n-$(basename "$f")"
      n=$((n + 1))
    done
  done
  # Committed regressions first, one run each: a fixed bug must stay fixed.
  if compgen -G "fuzz/regressions/$t/*" >/dev/null; then
    "$build/fuzz_$t" -runs=1 -timeout=30 -rss_limit_mb=2048 fuzz/regressions/"$t"/* >"$dir/regressions.log" 2>&1 || {
      echo "run-fuzzers: $t: a committed regression input fails again:"; tail -40 "$dir/regressions.log"; return 1; }
  fi
  # -timeout: one input may take at most 30 s (a hang, not a slow input on a busy machine). -rss_limit_mb also caps
  # single allocations (malloc_limit_mb defaults to it): an input that makes a parser allocate gigabytes is a finding.
  "$build/fuzz_$t" "$dir/corpus" "$dir/seeds" \
    -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$build/artifacts/$t/" >"$dir/fuzz.log" 2>&1 || {
      echo "run-fuzzers: $t: FAILED (input saved in $build/artifacts/$t/):"; tail -60 "$dir/fuzz.log"; return 1; }
  echo "run-fuzzers: $t: $n seeds, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$dir/fuzz.log" | grep -o '[0-9]*$') inputs in ${seconds} s, no finding"
}

# Leaks are findings too (libFuzzer's -detect_leaks is on under ASan); UBSan stops at the first report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

status=0
pids=()
names=()
for t in "${targets[@]}"; do
  run_one "$t" &
  pids+=($!)
  names+=("$t")
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
    names=("${names[@]:1}")
  fi
done
for p in "${pids[@]}"; do wait "$p" || status=1; done
echo "run-fuzzers: ${#targets[@]} targets in $(( $(date +%s) - start )) s total: $([ $status -eq 0 ] && echo ok || echo FAILED)"
exit $status
