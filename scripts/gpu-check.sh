#!/usr/bin/env bash
# The GPU check: builds fastscan, runs every [gpu] test, the example and the benchmark on a device.
#
#   scripts/gpu-check.sh build          configures and builds build/ for sm_90 (TARGETS="a b" for some
#                                       targets only) and copies Google Benchmark's shared library
#                                       beside the benchmark; with .deps/ (see deps) also on the GPU
#                                       machine, which has neither Catch2 nor Google Benchmark
#   scripts/gpu-check.sh pack DIR       the built binaries in DIR/gpu-binaries.txz (xz), to carry;
#   scripts/gpu-check.sh unpack DIR     on the GPU machine: unpacks them into the build folder
#   scripts/gpu-check.sh deps           on the development machine: copies Catch2 and Google
#                                       Benchmark (headers, CMake packages, library) into .deps/,
#                                       a prefix to carry to the GPU machine (git-ignored), and the
#                                       newest CCCL's headers (pip's cuda-cccl) for the CUB 3.6 rows
#   scripts/gpu-check.sh test           on the GPU machine: every [gpu] test, then the example
#   scripts/gpu-check.sh sanitize       memcheck, racecheck and synccheck (TOOLS="...") over the [gpu] tests
#                                       (the 2^31+ test excluded: it allocates 40 GB)
#   scripts/gpu-check.sh bench [REGEX]  the benchmark (JSON copy in $OUT when set)
#   scripts/gpu-check.sh segmented [REGEX]
#                                       the segmented benchmark (and its CUB 3.6 build, when made)
#                                       and the table of the segmented issue's targets
#   scripts/gpu-check.sh fuzz [PLAIN_S [TOOL_S]]
#                                       the shape fuzzer plain and under four sanitizer tools at
#                                       once (scripts/fuzz.sh; defaults 600 and 300 s)
#   scripts/gpu-check.sh fuzz-start [PLAIN_S [TOOL_S]]
#                                       the same, detached (setsid): it outlives the command that
#                                       starts it (a fuzz longer than one command may run); logs
#                                       in $FUZZ_DIR (default /tmp/fastscan-fuzz)
#   scripts/gpu-check.sh fuzz-wait [S]  waits up to S seconds (default 600) for it, then prints
#                                       its summary and copies the logs to $OUT
#   scripts/gpu-check.sh gate [REF]     the regression gate: the headline set against the last
#                                       release (scripts/ab.sh --against; a binary built where git
#                                       is, or carried: build-gate/), its table in $OUT/gate.md
#   scripts/gpu-check.sh all [REGEX]    test, then the gate, then bench
#   scripts/gpu-check.sh package        the torch package built in place, its pytest (GPU tests included)
#   scripts/gpu-check.sh probes [LOG2N] the speed probes (bench/probe_ws.cu, probe_cub36.cu, probe_lanes.cu)
#   scripts/gpu-check.sh sweep [--quick] the shape sweep (bench/sweep.py): every axis class, width and size
set -euo pipefail
cd "$(dirname "$0")/.."
build=${FASTSCAN_BUILD_DIR:-build}
out=${OUT:-$build/gpu-check}
mkdir -p "$out"

case "${1:-all}" in
  build)
    prefix=()
    [ -d .deps ] && prefix=(-DCMAKE_PREFIX_PATH="$PWD/.deps")
    [ -d .deps/cccl ] && prefix+=(-DFASTSCAN_BENCH_CCCL="$PWD/.deps/cccl")
    # SASS only (90-real): the binaries are half the size of CI's PTX + SASS, to carry to a GPU machine.
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90-real}" "${prefix[@]}"
    # shellcheck disable=SC2086  # TARGETS is a list
    cmake --build "$build" -j "$(nproc)" ${TARGETS:+--target $TARGETS}
    lib=$(ldconfig -p | awk '/libbenchmark\.so\.1debian/ {print $NF; exit}')
    [ -z "$lib" ] && [ -d .deps ] && lib=$(ls .deps/lib/*/libbenchmark.so.1debian 2>/dev/null | head -n 1)
    if [ -n "$lib" ] && [ -d "$build/bench" ]; then cp -L "$lib" "$build/bench/"; fi
    ;;
  pack)
    # The built binaries (tests, examples, benchmarks and probes, Google Benchmark's library) in one
    # xz archive, $2/gpu-binaries.txz, for a GPU machine that has none of the build's tools
    # (`unpack` there); a gate binary (build-gate/) travels beside it.
    dest=${2:?usage: $0 pack DIR}
    mkdir -p "$dest"
    find "$build/tests" "$build/examples" "$build/bench" -maxdepth 1 -type f \( -perm -u+x -o -name '*.so*' \) |
      tar -cf - -T - | xz -T0 -6 > "$dest/gpu-binaries.txz"
    du -h "$dest/gpu-binaries.txz"
    ;;
  unpack)
    tar -xJf "${2:?usage: $0 unpack DIR}/gpu-binaries.txz"
    ;;
  deps)
    rm -rf .deps
    for f in $(dpkg -L catch2 libbenchmark-dev libbenchmark1debian | grep -v /share/doc/); do
      if [ -f "$f" ] || [ -L "$f" ]; then mkdir -p ".deps/$(dirname "${f#/usr/}")"; cp -P "$f" ".deps/${f#/usr/}"; fi
    done
    tmp=$(mktemp -d)
    if pip download --no-deps cuda-cccl -d "$tmp" > /dev/null 2>&1; then
      (cd "$tmp" && python3 -m zipfile -e ./*.whl x) && mv "$tmp/x/cuda/cccl/headers/include" .deps/cccl
    fi
    rm -rf "$tmp"
    grep -qx '/.deps/' .git/info/exclude 2>/dev/null || echo '/.deps/' >> .git/info/exclude
    du -sh .deps
    ;;
  test)
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    "$build/tests/fastscan_tests" "[gpu]" 2>&1 | tee "$out/tests.log" | tail -n 40
    "$build/examples/doc_starts"
    if [ -x "$build/examples/bev_pool" ]; then "$build/examples/bev_pool"; fi
    if [ -x "$build/examples/context_parallel" ]; then NCCL_NVLS_ENABLE=0 "$build/examples/context_parallel"; fi
    ;;
  sanitize)
    # Every kernel and path (row and column kernels, look-back, exchange, block scans) on one type
    # per operator and the generic tests; the full type sweep would take hours under the tools.
    cases='[collective],[generic],[lookback]~[large],[validation]~[large],cummax and cummin reproduce the framework examples'
    cases+=',cummax and cummin match the framework rule on edge shapes - float'
    cases+=',cumsum into the same type - std::int32_t,cumsum into the same type - __half'
    cases+=',cumsum into the same type - std::uint8_t'  # (1-byte sums take whole units: their own path)
    cases+=',unsorted*'  # keyed problems, segment totals past the last row or column (small shapes)
    cases+=',[graph],[pointers],[stream]'  # every entry point: graphs, streams, threads, odd pointers ([progress] holds SMs: not under a tool)
    # Each test case of the subset a process of its own, as many at once as cores, so the subset
    # takes about its slowest case; logs in $out/sanitize-TOOL-N.log, exit codes beside them.
    # (On an H100 racecheck's slowest cases, the 100 graph replays and the capped grid, outlast
    # 350 s beside the other tools: TOOLS=racecheck in a call of its own.)
    specs=()
    IFS=, read -r -a tags <<< "$cases"
    for tag in "${tags[@]}"; do
      while IFS= read -r name; do
        [ -n "$name" ] && specs+=("$(printf '%s' "$name" | sed 's/[],[]/\\&/g')")  # (Catch2 escapes)
      done < <("$build/tests/fastscan_tests" --list-test-names-only "$tag" 2>/dev/null)
    done
    [ ${#specs[@]} -gt 0 ] || { echo "sanitize: no test cases listed by $build/tests/fastscan_tests" >&2; exit 2; }
    rm -f "$out"/sanitize-*.log "$out"/sanitize-*.rc
    work=()
    for tool in ${TOOLS:-memcheck racecheck synccheck}; do
      for i in "${!specs[@]}"; do work+=("$tool $i"); done
    done
    run_one() {  # TOOL INDEX
      local tool=$1 spec=${specs[$2]} skip=()
      # (racecheck follows no hand-off through mbarriers and bulk copies: ARCHITECTURE.md, pipelined rows)
      [ "$tool" = racecheck ] && skip=(--kernel-name-exclude kns=pipelined_rows_kernel)
      local rc=0
      compute-sanitizer --tool "$tool" "${skip[@]}" --error-exitcode 3 --print-limit 20 \
        "$build/tests/fastscan_tests" "$spec" > "$out/sanitize-$tool-$2.log" 2>&1 || rc=$?
      echo "$rc" > "$out/sanitize-$tool-$2.rc"
    }
    running=0
    for job in "${work[@]}"; do
      run_one $job &
      running=$((running + 1))
      if [ "$running" -ge "$(nproc)" ]; then wait -n || true; running=$((running - 1)); fi
    done
    wait || true
    status=0
    for job in "${work[@]}"; do
      set -- $job
      rc=$(cat "$out/sanitize-$1-$2.rc" 2>/dev/null || echo "none")
      [ "$rc" = 0 ] || status=1
      echo "$1 rc=$rc ${specs[$2]}: $(grep -E 'ERROR SUMMARY|test cases' "$out/sanitize-$1-$2.log" | tr '\n' ' ')"
    done
    exit $status
    ;;
  bench)
    "$build/bench/fastscan_bench" --benchmark_min_time=0.02 --benchmark_repetitions=3 \
      --benchmark_report_aggregates_only=true --benchmark_filter="${2:-.}" \
      --benchmark_out="$out/bench.json" --benchmark_out_format=json 2>&1 | tee "$out/bench.log" |
      grep -E "^device" || true
    python3 bench/summarize.py "$out/bench.json" | tee "$out/bench.md"
    # The split plot, where matplotlib is installed.
    python3 bench/plot_splits.py "$out/bench.json" "$out/splits.png" 2>/dev/null || echo "(no split plot: matplotlib missing or no split cases)"
    ;;
  segmented)
    runs=()
    for b in fastscan_bench_segmented fastscan_bench_segmented_cub36; do
      [ -x "$build/bench/$b" ] || continue
      "$build/bench/$b" --benchmark_min_time=0.02 --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
        --benchmark_filter="${2:-.}" --benchmark_out="$out/$b.json" --benchmark_out_format=json 2>&1 |
        tee "$out/$b.log" | grep -E "^device" || true
      runs+=("$out/$b.json")
    done
    python3 bench/summarize.py "${runs[0]}" > "$out/segmented.md"
    python3 bench/segmented_summary.py "${runs[@]}" | tee -a "$out/segmented.md"
    python3 bench/plot_segmented.py "${runs[0]}" "$out/segmented.png" "${runs[@]:1}" 2>/dev/null || echo "(no segmented plot: matplotlib missing)"
    ;;
  gate)
    set -o pipefail
    bash scripts/ab.sh --against ${2:+"$2"} | tee "$out/gate.md"
    ;;
  all)
    "$0" test
    "$0" gate
    "$0" bench "${2:-.}"
    ;;
  package)
    # The torch package against the machine's torch, built in place (16 cores: about a minute),
    # and its pytest with the GPU tests; the log in $out/package.log.
    (cd python && MAX_JOBS=${MAX_JOBS:-$(nproc)} python3 setup.py -q build_ext --inplace > "$out/package-build.log" 2>&1) ||
      { tail -n 30 "$out/package-build.log"; exit 1; }
    # torch's OpInfo samples (tests/test_enable.py) need expecttest: from .whl/ where pip has no network.
    python3 -c 'import expecttest' 2>/dev/null || python3 -m pip install -q --no-index --find-links .whl expecttest 2>/dev/null ||
      echo "(expecttest missing: the OpInfo tests will skip)"
    (cd python && python3 -m pytest tests -q -rs -p no:cacheprovider) 2>&1 | tee "$out/package.log" | tail -n 15
    ;;
  sweep)
    # The shape sweep (bench/sweep.py): worst cases, spreads and heat maps in $out/sweep (--quick:
    # 2^20 and 2^24 only).
    python3 bench/sweep.py run --probe "$build/bench/fastscan_probe" --out "$out/sweep" ${2:+"$2"}
    ;;
  probes)
    # The speed issue's experiments (bench/NOTES.md item 1), where built.
    for p in fastscan_probe_ws fastscan_probe_cub36 fastscan_probe_lanes; do
      if [ -x "$build/bench/$p" ]; then timeout 300 "$build/bench/$p" ${2:-} 2>&1 | tee "$out/$p.log"; fi
    done
    ;;
  fuzz)
    BUILD=$build OUT=$out bash scripts/fuzz.sh "${2:-600}" "${3:-300}"
    ;;
  fuzz-start)
    dir=${FUZZ_DIR:-/tmp/fastscan-fuzz}
    rm -rf "$dir" && mkdir -p "$dir"
    setsid nohup bash -c "BUILD=$build OUT=$dir bash scripts/fuzz.sh ${2:-600} ${3:-300} > $dir/summary.txt 2>&1; touch $dir/done" \
      < /dev/null > /dev/null 2>&1 &
    echo "fuzzer started, logs in $dir"
    ;;
  fuzz-wait)
    dir=${FUZZ_DIR:-/tmp/fastscan-fuzz}
    until=$(($(date +%s) + ${2:-600}))
    while [ ! -f "$dir/done" ] && [ "$(date +%s)" -lt "$until" ]; do sleep 5; done
    cat "$dir/summary.txt"
    cp "$dir"/*.log "$out/" 2>/dev/null || true
    [ -f "$dir/done" ] || { echo "fuzzer still running"; exit 1; }
    ! grep -q " [1-9][0-9]* failed\|no result" "$dir/summary.txt"
    ;;
  *)
    echo "usage: $0 build|pack DIR|unpack DIR|deps|test|sanitize|gate [REF]|bench [REGEX]|segmented [REGEX]|fuzz [S [S]]|fuzz-start [S [S]]|fuzz-wait [S]|all [REGEX]|package|probes [LOG2N]|sweep [--quick]" >&2
    exit 2
    ;;
esac
