#!/usr/bin/env bash
# Whether a change leaves the kernels as they were, without a GPU: builds the gate's entry
# (bench/gate_entry.cu: every headline kernel) against REF's headers (default HEAD) and against the
# working tree, and compares the kernels' SASS as a set of instruction streams (names may differ:
# template arguments move with refactors). Identical streams cannot change a measurement; anything
# else goes through the gate on a GPU (scripts/ab.sh --against).
#   scripts/sass_same.sh [REF]
set -euo pipefail
cd "$(dirname "$0")/.."
ref=${1:-HEAD}
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
objdump=$(command -v cuobjdump || ls /usr/local/cuda/bin/cuobjdump 2>/dev/null ||
          python3 -c "import triton, pathlib; print(pathlib.Path(triton.__file__).parent / 'backends/nvidia/bin/cuobjdump')" 2>/dev/null || true)
[ -x "$objdump" ] || { echo "sass_same: no cuobjdump (CUDA toolkit, or pip's triton)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ref"
git archive "$ref" include | tar -x -C "$work/ref"
flags=(-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -DFASTSCAN_NAMESPACE=fastscan_new -DGATE_ENTRY=gate_new)
nvcc "${flags[@]}" -I"$work/ref/include" -c bench/gate_entry.cu -o "$work/ref.o" &
nvcc "${flags[@]}" -Iinclude -c bench/gate_entry.cu -o "$work/new.o"
wait
for x in ref new; do "$objdump" -sass "$work/$x.o" 2>/dev/null | sed 's#/\* *0x[0-9a-f]* *\*/##g' > "$work/$x.sass"; done
python3 - "$work/ref.sass" "$work/new.sass" "$ref" <<'PY'
import collections, hashlib, sys
def bodies(path):
    out, body = [], None
    for line in open(path):
        if "Function :" in line:
            if body is not None: out.append("\n".join(body))
            body = []
        elif body is not None:
            body.append(line.rstrip())
    if body is not None: out.append("\n".join(body))
    return collections.Counter(hashlib.sha1(b.encode()).hexdigest() for b in out)
a, b = bodies(sys.argv[1]), bodies(sys.argv[2])
same = sum((a & b).values())
print(f"sass_same: {sum(b.values())} kernels against {sum(a.values())} of {sys.argv[3]}: {same} identical, "
      f"{sum((b - a).values())} changed or new, {sum((a - b).values())} gone")
sys.exit(0 if a == b else 1)
PY
