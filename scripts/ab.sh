#!/usr/bin/env bash
# A/B timing of header variants in one process run each, on the GPU machine:
#
#   scripts/ab.sh DIR [DIR ...] -- OP TYPE OUTER LEN INNER [OP TYPE OUTER LEN INNER ...]
#
# Each DIR holds an include/ tree (a copy of include/ with one change; `.` for this checkout).
# bench/probe.cu is compiled against each with nvcc (in parallel; PROBE_TYPES="-DPROBE_TYPE_I64 ..."
# limits the types compiled), then every variant runs every case, ROUNDS times (default 2) in turn,
# and the table shows each case's best median over the rounds, variant by variant.
set -euo pipefail
cd "$(dirname "$0")/.."
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ $# -gt 0 ] && shift
[ ${#dirs[@]} -gt 0 ] && [ $# -ge 5 ] || { echo "usage: $0 DIR [DIR ...] -- OP TYPE OUTER LEN INNER [...]" >&2; exit 2; }
out=${OUT:-$(mktemp -d)}
for i in "${!dirs[@]}"; do
  (nvcc -std=c++17 -O3 -arch=sm_90 ${PROBE_TYPES:-} -I"${dirs[$i]}/include" bench/probe.cu -o "$out/probe$i" \
    > "$out/probe$i.log" 2>&1 || echo "compile failed: ${dirs[$i]} (see $out/probe$i.log)") &
done
wait
for r in $(seq "${ROUNDS:-2}"); do
  for i in "${!dirs[@]}"; do
    "$out/probe$i" "$@" | sed "s|^|${dirs[$i]} |"
  done
done | tee "$out/ab.log" | python3 -c '
import sys, re
best, cases, variants = {}, [], []
for line in sys.stdin:
    m = re.match(r"(\S+) (\S+ \S+ \[[^\]]+\]) ([\d.]+) us", line)
    if not m: continue
    v, c, t = m.group(1), m.group(2), float(m.group(3))
    if v not in variants: variants.append(v)
    if c not in cases: cases.append(c)
    best[v, c] = min(t, best.get((v, c), t))
print("| case | " + " | ".join(variants) + " |")
print("|---" * (len(variants) + 1) + "|")
for c in cases:
    print("| " + c + " | " + " | ".join("%.1f" % best[v, c] if (v, c) in best else "-" for v in variants) + " |")
'
