#!/bin/bash
# The shape fuzzer (tests/gpu/test_fuzz.cu: random shapes, types and data of every entry point
# against the host reference) for a fixed time, plain and under compute-sanitizer's tools at once
# (each tool with smaller cases), on a built tree. Prints each run's seed and "N passed, M failed"
# (Catch2's assertions); exits non-zero if any run failed.
#   scripts/fuzz.sh [PLAIN_SECONDS [TOOL_SECONDS]]          defaults 600 and 300
# Env: BUILD (default build), OUT (logs, default $BUILD/fuzz), SEED (default: each run's clock),
#      TOOLS (default "memcheck racecheck synccheck initcheck"), MAX_NUMEL / TOOL_MAX_NUMEL.
set -u
cd "$(dirname "$0")/.."
build=${BUILD:-build}
out=${OUT:-$build/fuzz}
bin="$build/tests/fastscan_tests"
plain=${1:-600}
tool_seconds=${2:-300}
mkdir -p "$out"

# run NAME SECONDS MAX_NUMEL [COMMAND PREFIX...]
run() {
  local name=$1 seconds=$2 most=$3
  shift 3
  FASTSCAN_FUZZ_SECONDS=$seconds FASTSCAN_FUZZ_MAX_NUMEL=$most ${SEED:+FASTSCAN_FUZZ_SEED=$SEED} \
    "$@" "$bin" "[fuzz]" > "$out/fuzz-$name.log" 2>&1
}

# summary NAME: the seed line, then "N passed, M failed" from Catch2's totals.
summary() {
  local log="$out/fuzz-$1.log"
  local seed counts
  seed=$(grep -m1 -o 'seed [0-9]*' "$log" || echo "seed ?")
  counts=$(awk '/All tests passed \(/ { gsub(/\(/, ""); print $4 " passed, 0 failed"; exit }
                /^assertions:/ { print $4 " passed, " $7 " failed"; exit }' "$log")
  echo "$1: $seed, ${counts:-no result} ($(grep -m1 -o '[0-9]* cases' "$log" || echo '? cases'); $(tail -n 1 "$log" | grep -o 'ERROR SUMMARY.*' || true))"
}

pids=()
names=(plain)
run plain "$plain" "${MAX_NUMEL:-4194304}" &
pids+=($!)
for tool in ${TOOLS-memcheck racecheck synccheck initcheck}; do
  run "$tool" "$tool_seconds" "${TOOL_MAX_NUMEL:-65536}" compute-sanitizer --tool "$tool" --error-exitcode 3 --print-limit 20 &
  pids+=($!)
  names+=("$tool")
done
status=0
for i in "${!pids[@]}"; do
  wait "${pids[$i]}" || status=1
  summary "${names[$i]}"
done
exit $status
