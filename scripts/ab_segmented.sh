#!/usr/bin/env bash
# A/B timing of header variants on the segmented benchmark, in one process run each:
#
#   scripts/ab_segmented.sh DIR [DIR ...] -- REGEX
#
# Each DIR holds an include/ tree (a copy of include/ with one change; `.` for this checkout).
# bench/segmented.cu is compiled against each (in parallel; a minute each on one core; Google
# Benchmark from the system or from .deps/, see gpu-check.sh deps). Then, ROUNDS times (default 2),
# every variant runs the benchmark rows matching REGEX (Google Benchmark's filter) in turn; the
# table shows each row's best median over the rounds, variant by variant, and the change of the
# last variant against the first. Binaries already in $OUT are reused; ROUNDS=0 only compiles.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#dirs[@]} -gt 0 ] && [ $# -eq 1 ] || { echo "usage: $0 DIR [DIR ...] -- REGEX" >&2; exit 2; }
out=${OUT:-$(mktemp -d)}
deps=()
[ -d .deps/include ] && deps=(-I.deps/include -L"$(dirname "$(ls .deps/lib/*/libbenchmark.so* | head -n 1)")")
for i in "${!dirs[@]}"; do
  [ -x "$out/segmented$i" ] && continue
  (nvcc -std=c++17 -O3 -DNDEBUG -arch=sm_90 -I"${dirs[$i]}/include" "${deps[@]}" bench/segmented.cu -lbenchmark \
    -Xlinker -rpath,'$ORIGIN' -o "$out/segmented$i" > "$out/segmented$i.log" 2>&1 ||
    echo "compile failed: ${dirs[$i]} (see $out/segmented$i.log)") &
done
wait
lib=$(ldconfig -p | awk '/libbenchmark\.so\.1debian/ {print $NF; exit}')
[ -z "$lib" ] && [ -d .deps ] && lib=$(ls .deps/lib/*/libbenchmark.so.1debian 2>/dev/null | head -n 1)
[ -n "$lib" ] && cp -L "$lib" "$out/" 2>/dev/null || true
[ "${ROUNDS:-2}" = 0 ] && exit 0
for r in $(seq "${ROUNDS:-2}"); do
  for i in "${!dirs[@]}"; do
    "$out/segmented$i" --benchmark_min_time=0.05 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
      --benchmark_filter="$1" 2>&1 | awk -v v="${dirs[$i]}" '/_median/ {print v, $1, $2}'
  done
done | tee "$out/ab.log" | python3 -c '
import sys
best, cases, variants = {}, [], []
for line in sys.stdin:
    v, case, t = line.split()
    case = case.removesuffix("/manual_time_median")
    if v not in variants: variants.append(v)
    if case not in cases: cases.append(case)
    best[v, case] = min(float(t), best.get((v, case), float(t)))
a, b = variants[0], variants[-1]
print("| case | " + " | ".join(variants) + " | change |")
print("|---" * (len(variants) + 2) + "|")
for c in cases:
    row = " | ".join("%.1f" % best[v, c] if (v, c) in best else "-" for v in variants)
    ch = "%+.1f %%" % (100.0 * (best[b, c] / best[a, c] - 1)) if (a, c) in best and (b, c) in best else "-"
    print("| " + c + " | " + row + " | " + ch + " |")
'
