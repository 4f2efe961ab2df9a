#!/usr/bin/env bash
# A/B timing of header trees in one process run:
#
#   scripts/ab.sh --against [REF]      the regression gate: REF's include/ against the working tree's
#   scripts/ab.sh DIR [DIR ...] -- OP TYPE OUTER LEN INNER [OP TYPE OUTER LEN INNER ...]
#   scripts/ab.sh DIR [DIR ...] -- --bench LIST_FILE [REGEX]
#
# --against: REF defaults to the last commit that changed include/fastscan/version.cuh (the last
# release). bench/gate_entry.cu is compiled once against REF's headers (git archive) and once
# against the working tree's, each under its own namespace, and linked with bench/gate.cu into
# build-gate/fastscan_gate, which times the headline set (bench/gate_cases.hpp) interleaved over 3
# rounds, CUB's InclusiveSum beside the 1-D sums, and prints a table and the worst row in %. A
# binary already in build-gate/ whose new tree matches the working tree by content (build-gate/
# new-tree: include/ and the gate's sources), against the REF asked for (or any, without one), runs
# as it is: one built here and carried to a GPU machine, whose copy of the tree may have no git
# history; GATE_BUILD_ONLY=1 builds without running. A headline row more
# than 2 % slower than the release is a regression. GATE_DIR (default build-gate) keeps one
# reference's objects and binary apart from another's; a REF from before the segmented scans
# (cb21ed2) times the scans only.
#
# DIR mode: each DIR holds an include/ tree (a copy of include/ with one change; `.` for this checkout).
# bench/probe.cu is compiled against each, one binary per type the cases use (-DPROBE_TYPE_<T>),
# all compiles in parallel (one type of one tree is a minute on one core). Then, ROUNDS times
# (default 2), every variant runs every case in turn, one process per variant and type; the table
# shows each case's best median over the rounds, variant by variant, and the change of the last
# variant against the first. Binaries already in $OUT are reused; ROUNDS=0 only compiles. --bench takes the cases from `fastscan_bench --benchmark_list_tests`
# output (bench/probe_cases.py): every fastscan case of the benchmark the probe can run.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--against" ]; then
  gate=${GATE_DIR:-build-gate}
  shift
  ref_arg=""
  if [ $# -gt 0 ] && [ "${1#-}" = "$1" ]; then ref_arg=$1; shift; fi
  # The new tree by content (include/ and the gate's sources), so a binary built here runs as it is
  # on a GPU machine whose copy of the tree has little or no git history, and commits that leave
  # these files alone keep it.
  new_tree=$(find include bench/gate.cu bench/gate_entry.cu bench/gate_cases.hpp -type f -print0 | LC_ALL=C sort -z |
             xargs -0 sha1sum | sha1sum | cut -c1-16)
  carried_ref=$(cut -d' ' -f1 "$gate/ref-label" 2>/dev/null || true)
  if ! { [ -x "$gate/fastscan_gate" ] && [ "$(cat "$gate/new-tree" 2>/dev/null)" = "$new_tree" ] &&
         { [ -z "$ref_arg" ] || [ "${carried_ref#"$ref_arg"}" != "$carried_ref" ] || [ "${ref_arg#"$carried_ref"}" != "$ref_arg" ]; }; }; then
    git rev-parse --git-dir >/dev/null 2>&1 || { echo "no gate binary of this tree in $gate, and no git to build one" >&2; exit 2; }
    ref=${ref_arg:-$(git log -1 --format=%h -- include/fastscan/version.cuh)}
    ref=$(git rev-parse --short "$ref")
    version=$( (git show "$ref:include/fastscan/version.cuh" 2>/dev/null || true) | sed -n 's/^#define FASTSCAN_VERSION \([0-9]*\)$/\1/p')
    label="$ref (version ${version:-none})"
    new_label="$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- include bench || echo +changes)"
    if [ "$(cat "$gate/ref-label" 2>/dev/null)" != "$label" ] || [ ! -f "$gate/ref.o" ]; then
      rm -rf "$gate/ref" "$gate/ref.o" && mkdir -p "$gate/ref"
      git archive "$ref" include | tar -x -C "$gate/ref"
    fi
    echo "$label" >"$gate/ref-label"
    echo "$new_label" >"$gate/new-label"
    echo "$new_tree" >"$gate/new-tree"
    command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
    flags=(-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr)
    ref_pid=""
    if [ ! -f "$gate/ref.o" ]; then  # (the reference's object is kept while the reference stays)
      nvcc "${flags[@]}" -I"$gate/ref/include" -DFASTSCAN_NAMESPACE=fastscan_ref -DGATE_ENTRY=gate_ref \
        -c bench/gate_entry.cu -o "$gate/ref.o" &
      ref_pid=$!
    fi
    nvcc "${flags[@]}" -Iinclude -DFASTSCAN_NAMESPACE=fastscan_new -DGATE_ENTRY=gate_new \
      -c bench/gate_entry.cu -o "$gate/new.o" &
    new_pid=$!
    nvcc "${flags[@]}" -c bench/gate.cu -o "$gate/gate.o"
    wait $new_pid && { [ -z "$ref_pid" ] || wait $ref_pid; }
    nvcc -arch=sm_90 "$gate/gate.o" "$gate/ref.o" "$gate/new.o" -o "$gate/fastscan_gate"
  fi
  [ -x "$gate/fastscan_gate" ] || { echo "no $gate/fastscan_gate: build it where git is (scripts/ab.sh --against)" >&2; exit 2; }
  [ "${GATE_BUILD_ONLY:-0}" = 1 ] && { echo "built $gate/fastscan_gate: $(cat $gate/ref-label) against $(cat $gate/new-label)"; exit 0; }
  "$gate/fastscan_gate" "$(cat $gate/ref-label)" "$(cat $gate/new-label)" "$@"
  exit
fi
dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ $# -gt 0 ] && shift
if [ "${1:-}" = "--bench" ]; then
  set -- $(python3 bench/probe_cases.py "$2" "${3:-}")
fi
[ ${#dirs[@]} -gt 0 ] && [ $# -ge 5 ] || { echo "usage: $0 DIR [DIR ...] -- OP TYPE OUTER LEN INNER [...]" >&2; exit 2; }
out=${OUT:-$(mktemp -d)}
cases=("$@")
types=$(for ((c = 1; c < ${#cases[@]}; c += 5)); do echo "${cases[$c]}"; done | sort -u)
for i in "${!dirs[@]}"; do
  for t in $types; do
    [ -x "$out/probe$i-$t" ] && continue
    (nvcc -std=c++17 -O3 -arch=sm_90 -DPROBE_TYPE_${t^^} -I"${dirs[$i]}/include" bench/probe.cu -o "$out/probe$i-$t" \
      > "$out/probe$i-$t.log" 2>&1 || echo "compile failed: ${dirs[$i]} $t (see $out/probe$i-$t.log)") &
  done
done
wait
[ "${ROUNDS:-2}" = 0 ] && exit 0
for r in $(seq "${ROUNDS:-2}"); do
  for t in $types; do
    args=()
    for ((c = 0; c < ${#cases[@]}; c += 5)); do
      [ "${cases[$((c + 1))]}" = "$t" ] && args+=("${cases[@]:$c:5}")
    done
    for i in "${!dirs[@]}"; do
      "$out/probe$i-$t" "${args[@]}" | sed "s|^|${dirs[$i]} |"
    done
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
a, b = variants[0], variants[-1]
print("| case | " + " | ".join(variants) + " | change |")
print("|---" * (len(variants) + 2) + "|")
worst = None
for c in cases:
    row = " | ".join("%.1f" % best[v, c] if (v, c) in best else "-" for v in variants)
    ch = 100.0 * (best[b, c] / best[a, c] - 1) if (a, c) in best and (b, c) in best else None
    if ch is not None and (worst is None or ch > worst[0]): worst = (ch, c)
    print("| " + c + " | " + row + " | " + ("%+.1f %%" % ch if ch is not None else "-") + " |")
if worst: print("\nworst change, %s against %s: %+.1f %% (%s)" % (b, a, worst[0], worst[1]))
'
