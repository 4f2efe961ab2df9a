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
# cuobjdump and the nvdisasm it runs: the toolkit's, else NVIDIA's PyPI wheels unpacked once into
# .deps/sass-tools (git-ignored; the development machine's toolkit has neither).
tools=$PWD/.deps/sass-tools/nvidia/cu13/bin
for tool in cuobjdump nvdisasm; do
  if ! command -v "$tool" >/dev/null && [ ! -x "$tools/$tool" ]; then
    tmp=$(mktemp -d)
    pip download -q --no-deps "nvidia-cuda-$tool" -d "$tmp" >/dev/null 2>&1 &&
      python3 -m zipfile -e "$tmp"/*.whl .deps/sass-tools && chmod +x "$tools/$tool"
    rm -rf "$tmp"
  fi
done
export PATH=$PATH:$tools
objdump=$(command -v cuobjdump || true)
[ -x "$objdump" ] && command -v nvdisasm >/dev/null ||
  { echo "sass_same: no cuobjdump and nvdisasm (CUDA toolkit, or pip download nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/ref"
git archive "$ref" include | tar -x -C "$work/ref"
flags=(-std=c++17 -O3 -arch=sm_90 --expt-relaxed-constexpr -DFASTSCAN_NAMESPACE=fastscan_new -DGATE_ENTRY=gate_new)
nvcc "${flags[@]}" -I"$work/ref/include" -c bench/gate_entry.cu -o "$work/ref.o" &
nvcc "${flags[@]}" -Iinclude -c bench/gate_entry.cu -o "$work/new.o"
wait
for x in ref new; do "$objdump" -sass "$work/$x.o" | sed 's#/\* *0x[0-9a-f]* *\*/##g' > "$work/$x.sass"; done
python3 - "$work/ref.sass" "$work/new.sass" "$ref" <<'PY'
import collections, hashlib, re, subprocess, sys
def bodies(path):  # kernel name -> hash of its instruction stream
    out, name, body = {}, None, []
    for line in open(path):
        m = re.search(r"Function : (\S+)", line)
        if m or name is None:
            if name is not None: out[name] = hashlib.sha1("\n".join(body).encode()).hexdigest()
            name, body = (m.group(1) if m else None), []
        else:
            body.append(line.rstrip())
    if name is not None: out[name] = hashlib.sha1("\n".join(body).encode()).hexdigest()
    return out
ref, new = bodies(sys.argv[1]), bodies(sys.argv[2])
a, b = collections.Counter(ref.values()), collections.Counter(new.values())
same = sum((a & b).values())
print(f"sass_same: {sum(b.values())} kernels against {sum(a.values())} of {sys.argv[3]}: {same} identical, "
      f"{sum((b - a).values())} changed or new, {sum((a - b).values())} gone")
changed = [n for n, h in new.items() if h not in a]
if changed:
    names = subprocess.run(["c++filt"], input="\n".join(changed), capture_output=True, text=True).stdout.split("\n")
    for n in names[:20]:
        if n: print("  changed:", n[:160])
sys.exit(0 if a == b else 1)
PY
