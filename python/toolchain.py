"""Whether the installed torch and CUDA toolkit can build fastscan's extension (setup.py asks this
before compiling anything; tests/test_cpu_side.py checks each answer)."""
import re
from typing import Optional, Tuple

# The torch versions CI builds and tests the package against (python/README.md, "Supported").
TESTED_TORCH = ((2, 11), (2, 15))
MIN_CUDA = (12, 0)  # the library's own floor: nvcc's C++17 and C++20 and the cuda_fp8.h types


def release(text: str) -> Tuple[int, int]:
    """(major, minor) of "2.15.0+cu132", "13.2" or "release 13.0, V13.0.88"."""
    found = re.search(r"(\d+)\.(\d+)", text)
    if found is None:
        raise ValueError(f"no version in {text!r}")
    return int(found.group(1)), int(found.group(2))


def problem(torch_version: str, torch_cuda: Optional[str], nvcc_version: Optional[str]) -> Optional[str]:
    """The one-line reason the build cannot work, or None. nvcc_version: `nvcc --version`'s text
    (None: no nvcc found)."""
    if torch_cuda is None:
        return (f"fastscan: torch {torch_version} is a build without CUDA; the package needs a CUDA build of torch "
                "(the default Linux wheels: pip install torch)")
    if nvcc_version is None:
        return "fastscan: nvcc not found; install the CUDA toolkit and set CUDA_HOME (or put nvcc on PATH)"
    found = re.search(r"release (\d+\.\d+)", nvcc_version)
    toolkit = release(found.group(1) if found else nvcc_version)
    built_for = release(torch_cuda)
    if toolkit < MIN_CUDA:
        return (f"fastscan: nvcc {toolkit[0]}.{toolkit[1]} is older than CUDA {MIN_CUDA[0]}.{MIN_CUDA[1]}, the oldest "
                "toolkit fastscan supports")
    if toolkit[0] != built_for[0]:
        return (f"fastscan: torch {torch_version} is built for CUDA {torch_cuda}, but nvcc is CUDA "
                f"{toolkit[0]}.{toolkit[1]}; an extension needs the same major version: install the CUDA "
                f"{built_for[0]} toolkit, or the torch wheel built for CUDA {toolkit[0]}")
    return None


def warning(torch_version: str) -> Optional[str]:
    """A note for a torch outside the tested range (it may still work), or None."""
    low, high = TESTED_TORCH
    if low <= release(torch_version) <= high:
        return None
    return (f"fastscan: warning: torch {torch_version} is outside the tested {low[0]}.{low[1]} - "
            f"{high[0]}.{high[1]}")
