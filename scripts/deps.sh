#!/usr/bin/env bash
# What the README's two commands need, installing only what is missing: CMake, Ninja, Catch2 (v2)
# and Google Benchmark from Debian's packages (as root), nvcc on the PATH, and with `python` the
# torch package's build and test modules for $PYTHON (default python3; torch $TORCH_VERSION,
# default 2.11.0, when it has none).
set -euo pipefail
missing=()
for pkg in cmake ninja-build catch2 libbenchmark-dev; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "deps: missing ${missing[*]}: run this as root, or apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${missing[@]}" >/dev/null
fi
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "deps: no nvcc (the CUDA toolkit, 12.0 or newer)" >&2; exit 1; }
if [ "${1:-}" = python ]; then
  py=${PYTHON:-python3}
  "$py" -c "import torch" 2>/dev/null || "$py" -m pip install -q "torch==${TORCH_VERSION:-2.11.0}"
  for module in ninja pytest expecttest setuptools wheel numpy; do
    "$py" -c "import $module" 2>/dev/null || "$py" -m pip install -q "$module"
  done
fi
