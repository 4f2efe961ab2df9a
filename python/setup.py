"""Builds fastscan's torch operators (fastscan._C) from the headers in <repo>/include.

Environment: TORCH_CUDA_ARCH_LIST (default 9.0), MAX_JOBS (parallel compiles, with ninja),
FASTSCAN_INCLUDE (the folder holding fastscan/, default ../include beside this file),
FASTSCAN_NATIVE_FP8=1 (fp8 feature kernels of their own; else fp8 is widened to float16 first).
"""
import os
import re
import subprocess
import sys
from pathlib import Path

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import toolchain  # noqa: E402  (beside this file)

INCLUDE = Path(os.environ.get("FASTSCAN_INCLUDE", HERE.parent / "include")).resolve()
# A vendored copy of fastscan elsewhere in the process cannot clash with this one.
NAMESPACE = "-DFASTSCAN_NAMESPACE=fastscan_torch"
# One kernel for cummax and cummin of a type (include/fastscan/cummax.cuh): half their compile.
SHARED_EXTREMES = "-DFASTSCAN_SHARED_EXTREME_KERNELS=1"


def version() -> str:
    header = INCLUDE / "fastscan" / "version.cuh"
    if not header.is_file():
        raise RuntimeError(f"fastscan headers not found: {header} (set FASTSCAN_INCLUDE to the folder holding fastscan/)")
    number = int(re.search(r"#define\s+FASTSCAN_VERSION\s+(\d+)", header.read_text()).group(1))
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def check_toolchain() -> None:
    """Stops with one clear line, before minutes of compiling, when torch and nvcc cannot work together."""
    nvcc = Path(CUDA_HOME or "", "bin", "nvcc")
    nvcc_version = subprocess.check_output([str(nvcc), "--version"], text=True) if CUDA_HOME and nvcc.is_file() else None
    reason = toolchain.problem(torch.__version__, torch.version.cuda, nvcc_version)
    if reason is not None:
        raise SystemExit(reason)
    note = toolchain.warning(torch.__version__)
    if note is not None:
        print(note)


NATIVE_FP8 = os.environ.get("FASTSCAN_NATIVE_FP8", "0") == "1"
FP8_FLAG = ["-DFASTSCAN_EXT_NATIVE_FP8"] if NATIVE_FP8 else []


# The longest compiles, started first so that the last ones to finish are short (ninja starts them
# in this order).
FIRST = ("cumsum_8bit", "extreme_8bit", "cumsum_float", "cummaxmin_backward", "segmented_cumsum", "bev", "autograd",
         "extreme", "logcumsumexp")


def sources():
    # Host files (torch headers, no device code) and one .cu per group of instantiations that share
    # kernels, so that MAX_JOBS compiles them in parallel.
    cuda = HERE / "csrc" / "cuda"
    cu = list(cuda.glob("*.cu")) + (list((cuda / "fp8").glob("*.cu")) if NATIVE_FP8 else [])
    files = cu + list((HERE / "csrc").glob("*.cpp"))
    rank = lambda p: next((i for i, prefix in enumerate(FIRST) if p.name.startswith(prefix)), len(FIRST))
    return [str(p.relative_to(HERE)) for p in sorted(files, key=lambda p: (rank(p), p.name))]


check_toolchain()
os.environ.setdefault("TORCH_CUDA_ARCH_LIST", "9.0")
# Parallel compiles: one per core unless MAX_JOBS says otherwise (torch's default is also the cores).
os.environ.setdefault("MAX_JOBS", str(os.cpu_count() or 1))
VERSION = version()
(HERE / "fastscan" / "_version.py").write_text(f'__version__ = "{VERSION}"\n')

setup(
    name="fastscan",
    version=VERSION,
    description="fastscan's cummax / cummin / cumsum / segmented scans as torch operators",
    packages=find_packages(include=["fastscan"]),
    python_requires=">=3.9",
    ext_modules=[
        CUDAExtension(
            name="fastscan._C",
            sources=sources(),
            include_dirs=[str(INCLUDE)],
            # No -std for the host files: torch's BuildExtension adds the standard its headers need
            # (C++17 for 2.11, C++20 for 2.15); the library's headers are C++17 and compile under both.
            extra_compile_args={
                # -g0: Python's own flags add -g, which doubles the compile of torch's headers.
                "cxx": ["-O3", "-g0", NAMESPACE, SHARED_EXTREMES] + FP8_FLAG,
                # The .cu files see fastscan's C++17 headers alone, never torch's (kernels.h): C++17
                # there whatever torch's own standard (C++20 compiles them 10 % slower).
                "nvcc": ["-O3", "-std=c++17", "--expt-relaxed-constexpr", NAMESPACE, SHARED_EXTREMES],
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    zip_safe=False,
)
