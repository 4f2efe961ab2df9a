"""Builds fastscan's torch operators (fastscan._C) from the headers in <repo>/include.

Environment: TORCH_CUDA_ARCH_LIST (default 9.0), MAX_JOBS (parallel compiles, with ninja),
FASTSCAN_INCLUDE (the folder holding fastscan/, default ../include beside this file),
FASTSCAN_NATIVE_FP8=1 (fp8 feature kernels of their own; else fp8 is widened to float16 first).
"""
import os
import re
from pathlib import Path

import subprocess

import torch
from setuptools import find_packages, setup
from torch.utils.cpp_extension import CUDA_HOME, BuildExtension, CUDAExtension

HERE = Path(__file__).resolve().parent
INCLUDE = Path(os.environ.get("FASTSCAN_INCLUDE", HERE.parent / "include")).resolve()
# A vendored copy of fastscan elsewhere in the process cannot clash with this one.
NAMESPACE = "-DFASTSCAN_NAMESPACE=fastscan_torch"


def version() -> str:
    header = INCLUDE / "fastscan" / "version.cuh"
    if not header.is_file():
        raise RuntimeError(f"fastscan headers not found: {header} (set FASTSCAN_INCLUDE to the folder holding fastscan/)")
    number = int(re.search(r"#define\s+FASTSCAN_VERSION\s+(\d+)", header.read_text()).group(1))
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


# The torch versions CI builds and tests the package against (README, "Supported versions").
TESTED_TORCH = ((2, 11), (2, 15))
MIN_CUDA = (12, 0)  # the library's own floor (C++17 device code, the cuda_fp8.h types)


def release(text: str):
    return tuple(int(n) for n in re.match(r"(\d+)\.(\d+)", text).groups())


def check_toolchain() -> None:
    """Stops with one clear line, before minutes of compiling, when torch and nvcc cannot work together."""
    if torch.version.cuda is None:
        raise SystemExit(f"fastscan: torch {torch.__version__} is a build without CUDA; the package needs a CUDA build "
                         "of torch (the default wheels: pip install torch)")
    nvcc = Path(CUDA_HOME or "", "bin", "nvcc")
    if not CUDA_HOME or not nvcc.is_file():
        raise SystemExit("fastscan: nvcc not found; install the CUDA toolkit and set CUDA_HOME (or put nvcc on PATH)")
    found = re.search(r"release (\d+\.\d+)", subprocess.check_output([str(nvcc), "--version"], text=True))
    toolkit, built_for = release(found.group(1)), release(torch.version.cuda)
    if toolkit < MIN_CUDA:
        raise SystemExit(f"fastscan: nvcc {found.group(1)} at {CUDA_HOME} is older than CUDA "
                         f"{MIN_CUDA[0]}.{MIN_CUDA[1]}, the oldest toolkit fastscan supports")
    if toolkit[0] != built_for[0]:
        raise SystemExit(f"fastscan: torch {torch.__version__} is built for CUDA {torch.version.cuda}, but nvcc at "
                         f"{CUDA_HOME} is CUDA {found.group(1)}; extensions need the same major version: install the "
                         f"CUDA {built_for[0]} toolkit or the torch wheel built for CUDA {toolkit[0]}")
    if not TESTED_TORCH[0] <= release(torch.__version__) <= TESTED_TORCH[1]:
        print(f"fastscan: warning: torch {torch.__version__} is outside the tested {TESTED_TORCH[0][0]}."
              f"{TESTED_TORCH[0][1]} - {TESTED_TORCH[1][0]}.{TESTED_TORCH[1][1]}")


NATIVE_FP8 = os.environ.get("FASTSCAN_NATIVE_FP8", "0") == "1"
FP8_FLAG = ["-DFASTSCAN_EXT_NATIVE_FP8"] if NATIVE_FP8 else []


def sources():
    # Host files (torch headers, no device code) and one .cu per group of instantiations, so
    # that MAX_JOBS compiles them in parallel; the slowest (segmented) first, as ninja starts them
    # in this order.
    cuda = HERE / "csrc" / "cuda"
    cu = list(cuda.glob("*.cu")) + (list((cuda / "fp8").glob("*.cu")) if NATIVE_FP8 else [])
    cu.sort(key=lambda p: (not p.name.startswith(("segment", "bev", "logcumsumexp")), p.name))
    cpp = sorted((HERE / "csrc").glob("*.cpp"))
    return [str(p.relative_to(HERE)) for p in cu + cpp]


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
            # No -std: torch's BuildExtension adds the standard its headers need (C++17 for 2.11,
            # C++20 for 2.15); the library's headers are C++17 and compile under both.
            extra_compile_args={
                "cxx": ["-O3", NAMESPACE] + FP8_FLAG,
                "nvcc": ["-O3", "--expt-relaxed-constexpr", NAMESPACE],
            },
        )
    ],
    cmdclass={"build_ext": BuildExtension},
    zip_safe=False,
)
