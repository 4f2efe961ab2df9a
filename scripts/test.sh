#!/usr/bin/env bash
# Every test this machine can run, from nothing: installs what is missing (scripts/deps.sh python),
# builds and runs the C++ host tests (ctest -L host: the solver, operators, key encoder, validation),
# builds the torch package for $PYTHON (default python3) from python/ (incremental: its build folder
# is kept) and runs its pytest suite, whose GPU tests are skipped with "needs a CUDA GPU" where there
# is none. On a machine with a GPU it also builds and runs the [gpu] suite (scripts/gpu-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/deps.sh python
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
py=${PYTHON:-python3}
build=${FASTSCAN_BUILD_DIR:-build}
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS:-90}" >/dev/null
cmake --build "$build" -j "$(nproc)" --target fastscan_host_tests
ctest --test-dir "$build" -L host --output-on-failure
start=$SECONDS
(cd python && TORCH_CUDA_ARCH_LIST="${TORCH_CUDA_ARCH_LIST:-9.0}" "$py" -m pip install -q --no-build-isolation --no-deps .)
echo "test: the torch package ($("$py" -c 'import torch; print("torch", torch.__version__)')) built in $((SECONDS - start)) s"
"$py" -m pytest python/tests -q -rs -p no:cacheprovider
if nvidia-smi -L >/dev/null 2>&1; then
  FASTSCAN_BUILD_DIR=$build CUDA_ARCHS=${CUDA_ARCHS:-90} TARGETS="fastscan_tests doc_starts" bash scripts/gpu-check.sh build
  FASTSCAN_BUILD_DIR=$build bash scripts/gpu-check.sh test
  gpu="and the [gpu] suite "
fi
echo "test: host tests, pytest ${gpu:-}passed in ${SECONDS} s on $(nproc) cores"
