#!/usr/bin/env bash
# Fresh machine to running example: installs what is missing (scripts/deps.sh; as root on a bare
# machine), builds the example and the benchmark for sm_90 (CUDA_ARCHS for other GPUs) into build/,
# and runs the example, which says so when no GPU is here. Everything else (tests, header checks,
# the segmented benchmark) builds with `cmake --build build`; the tests run with scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" >/dev/null
cmake --build build -j "$(nproc)" --target doc_starts fastscan_bench
./build/examples/doc_starts
echo "quickstart: the example and the benchmark built, the example ran, in ${SECONDS} s on $(nproc) cores" \
  "(the benchmark: ./build/bench/fastscan_bench on a GPU)"
