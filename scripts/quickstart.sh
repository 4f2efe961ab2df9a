#!/usr/bin/env bash
# Fresh machine to running example: installs the dependencies (Debian/Ubuntu, as root), builds every
# target for sm_90 into build/, and runs the document-start example (it says so when no GPU is here).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq cmake ninja-build catch2 libbenchmark-dev >/dev/null
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}"
cmake --build build -j "$(nproc)"
./build/examples/doc_starts
