#!/usr/bin/env bash
# Compile time and code size of each public entry point, one translation unit each, as a framework
# would build it (an object file with host and device code); no GPU needed:
#
#   scripts/code-size.sh [--only NAME] [INCLUDE_DIR]
#
# INCLUDE_DIR: the tree holding fastscan/scan.cuh (default: this checkout's include/).
# --only NAME: run only the rows whose entry point contains NAME (e.g. --only cummax, --only '__half').
# Environment: ARCH (default sm_90), NVCC (default: nvcc on PATH, else /usr/local/cuda/bin/nvcc),
# NVCC_FLAGS (added to the command line), KEEP=1 keeps the temporary directory (TUs, logs, cubins).
#
# Each TU is a tiny .cu that includes <fastscan/scan.cuh> and defines one non-template function calling
# one entry point with one type set. It is compiled, one at a time, with
#   nvcc -std=c++17 -O3 -arch=$ARCH -c tu.cu --keep
# and the table shows: the wall time of that command; the size of the .o; the size of the device ELF
# (the sm_XX cubin nvcc embeds, kept by --keep: what `cuobjdump -xelf` would extract) and of its SASS
# (.text sections); and the number of __global__ kernels in it (cubin symbols marked as entries,
# what `cuobjdump -symbols` lists as STO_ENTRY). MB are 10^6 bytes. A TU that does not compile
# (an overload that does not exist in these headers) shows n/a.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)

only=""
inc=""
while [ $# -gt 0 ]; do
  case "$1" in
    --only) [ $# -ge 2 ] || { echo "--only needs a NAME" >&2; exit 2; }; only=$2; shift 2 ;;
    --only=*) only=${1#--only=}; shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option: $1 (usage: $0 [--only NAME] [INCLUDE_DIR])" >&2; exit 2 ;;
    *) [ -z "$inc" ] || { echo "one INCLUDE_DIR only" >&2; exit 2; }; inc=$1; shift ;;
  esac
done
inc=$(cd "${inc:-$repo/include}" && pwd)
[ -f "$inc/fastscan/scan.cuh" ] || { echo "no fastscan/scan.cuh under $inc" >&2; exit 2; }
arch=${ARCH:-sm_90}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
[ -x "$nvcc" ] || { echo "nvcc not found (set NVCC)" >&2; exit 2; }
command -v python3 > /dev/null || { echo "python3 is needed to read the cubins" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/fastscan-code-size.XXXXXX")
if [ "${KEEP:-0}" = 1 ]; then
  echo "keeping $work" >&2
else
  trap 'rm -rf "$work"' EXIT
fi

# ---- The translation units: NAME, then the body of the .cu after the include. ----
names=()
bodies=()
add() { names+=("$1"); bodies+=("$2"); }

add "cummax<float, int64_t>" '
cudaError_t fastscan_code_size_entry(void* d_temp, std::size_t& temp_bytes, const float* in, float* values,
                                     std::int64_t* indices, fastscan::Shape3 shape, cudaStream_t stream,
                                     fastscan::Tie tie) {
  return fastscan::cummax<float, std::int64_t>(d_temp, temp_bytes, in, values, indices, shape, stream, tie);
}'

add "cummax<float, int64_t, Tie::last>" '
cudaError_t fastscan_code_size_entry(void* d_temp, std::size_t& temp_bytes, const float* in, float* values,
                                     std::int64_t* indices, fastscan::Shape3 shape, cudaStream_t stream) {
  return fastscan::cummax<float, std::int64_t, fastscan::Tie::last>(d_temp, temp_bytes, in, values, indices,
                                                                    shape, stream);
}'

add "cummax<int64_t, int64_t>" '
cudaError_t fastscan_code_size_entry(void* d_temp, std::size_t& temp_bytes, const std::int64_t* in,
                                     std::int64_t* values, std::int64_t* indices, fastscan::Shape3 shape,
                                     cudaStream_t stream, fastscan::Tie tie) {
  return fastscan::cummax<std::int64_t, std::int64_t>(d_temp, temp_bytes, in, values, indices, shape, stream, tie);
}'

add "cumsum<float>" '
cudaError_t fastscan_code_size_entry(void* d_temp, std::size_t& temp_bytes, const float* in, float* out,
                                     fastscan::Shape3 shape, cudaStream_t stream) {
  return fastscan::cumsum<float>(d_temp, temp_bytes, in, out, shape, stream);
}'

add "cumsum<int32_t, int64_t>" '
cudaError_t fastscan_code_size_entry(void* d_temp, std::size_t& temp_bytes, const std::int32_t* in,
                                     std::int64_t* out, fastscan::Shape3 shape, cudaStream_t stream) {
  return fastscan::cumsum<std::int32_t, std::int64_t>(d_temp, temp_bytes, in, out, shape, stream);
}'

add "cumsum<__half>" '
cudaError_t fastscan_code_size_entry(void* d_temp, std::size_t& temp_bytes, const __half* in, __half* out,
                                     fastscan::Shape3 shape, cudaStream_t stream) {
  return fastscan::cumsum<__half>(d_temp, temp_bytes, in, out, shape, stream);
}'

# The operator lives in a named namespace so that the kernels instantiated on it keep external linkage.
add "inclusive_scan<const float*, float*, user max>" '
namespace code_size_ops {
struct max_op {
  __host__ __device__ float operator()(float a, float b) const { return a < b ? b : a; }
};
}  // namespace code_size_ops

cudaError_t fastscan_code_size_entry(void* d_temp, std::size_t& temp_bytes, const float* in, float* out,
                                     fastscan::Shape3 shape, cudaStream_t stream) {
  return fastscan::inclusive_scan(d_temp, temp_bytes, in, out, code_size_ops::max_op{}, shape, stream);
}'

# ---- Reading a cubin: "KERNELS CUBIN_BYTES SASS_BYTES". ----
cubin_stats() {
  python3 - "$1" << 'EOF'
import os, struct, sys
path = sys.argv[1]
data = open(path, "rb").read()
assert data[:4] == b"\x7fELF" and data[4] == 2, "expected a 64-bit ELF: " + path
end = "<" if data[5] == 1 else ">"
shoff, = struct.unpack_from(end + "Q", data, 0x28)
shentsize, shnum, shstrndx = struct.unpack_from(end + "HHH", data, 0x3A)
secs = [struct.unpack_from(end + "IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
def name(strtab, off):
    base = secs[strtab][4]
    stop = data.index(b"\0", base + off)
    return data[base + off:stop].decode()
sass = kernels = 0
for s in secs:
    sh_name, sh_type, _, _, off, size, link, _, _, entsize = s
    if name(shstrndx, sh_name).startswith(".text.") and sh_type != 8:  # 8: SHT_NOBITS
        sass += size
    if sh_type == 2:  # SHT_SYMTAB
        for i in range(size // entsize):
            _, info, other, _, _, _ = struct.unpack_from(end + "IBBHQQ", data, off + i * entsize)
            # STT_FUNC with STO_CUDA_ENTRY (0x10): a __global__ kernel
            if info & 0xF == 2 and other & 0x10:
                kernels += 1
print(kernels, os.path.getsize(path), sass)
EOF
}

mb() { awk -v b="$1" 'BEGIN { printf "%.2f", b / 1e6 }'; }

selected=()
for i in "${!names[@]}"; do
  [ -z "$only" ] || [[ "${names[$i]}" == *"$only"* ]] && selected+=("$i")
done
[ ${#selected[@]} -gt 0 ] || { echo "no entry point matches --only '$only'" >&2; exit 2; }

nvcc_version=$("$nvcc" --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
rev=$(git -C "$inc" rev-parse --short HEAD 2>/dev/null || echo "?")
dirty=$(git -C "$inc" status --porcelain -- . 2>/dev/null | head -1)
echo "Code size per entry point: nvcc $nvcc_version, \`-std=c++17 -O3 -arch=$arch -c\`${NVCC_FLAGS:+ $NVCC_FLAGS}," \
  "headers $inc (git $rev${dirty:+, modified}). MB = 10^6 bytes; cubin = the $arch device ELF in the .o," \
  "SASS = its .text sections."
echo
echo "| entry point | compile s | .o MB | cubin MB | SASS MB | kernels |"
echo "|---|---:|---:|---:|---:|---:|"

total_start=$(date +%s.%N)
for i in "${selected[@]}"; do
  nm=${names[$i]}
  dir="$work/tu$i"
  mkdir -p "$dir/keep"
  { echo "// $nm"; echo "#include <fastscan/scan.cuh>"; echo "${bodies[$i]}"; } > "$dir/tu.cu"
  echo "compiling $nm ..." >&2
  t0=$(date +%s.%N)
  # shellcheck disable=SC2086  # NVCC_FLAGS is a list of flags
  if (cd "$dir" && "$nvcc" -std=c++17 -O3 -arch="$arch" ${NVCC_FLAGS:-} -I"$inc" -c tu.cu -o tu.o \
        --keep --keep-dir keep > log.txt 2>&1); then
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
    obj=$(stat -c %s "$dir/tu.o")
    cubin="$dir/keep/tu.$arch.cubin"
    if [ -f "$cubin" ]; then
      read -r kernels cubin_bytes sass_bytes < <(cubin_stats "$cubin")
      echo "| $nm | $secs | $(mb "$obj") | $(mb "$cubin_bytes") | $(mb "$sass_bytes") | $kernels |"
    else
      echo "no $arch cubin kept for $nm (is ARCH a real architecture?)" >&2
      echo "| $nm | $secs | $(mb "$obj") | n/a | n/a | n/a |"
    fi
  else
    echo "  $nm does not compile; first error:" >&2
    (grep -m1 -i "error" "$dir/log.txt" || head -3 "$dir/log.txt") | sed 's/^/    /' >&2
    echo "| $nm | n/a | n/a | n/a | n/a | n/a |"
  fi
done
total_end=$(date +%s.%N)
echo
awk -v a="$total_start" -v b="$total_end" -v n="${#selected[@]}" \
  'BEGIN { printf "%d translation units, one at a time: %.0f s in all.\n", n, b - a }'
