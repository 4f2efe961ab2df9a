"""setup.py's toolchain check (python/toolchain.py): each combination that cannot build says why in
one line before any compile; the ones that can pass."""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import toolchain  # noqa: E402  (python/toolchain.py, a build-time helper, not in the package)

NVCC_13_0 = "Cuda compilation tools, release 13.0, V13.0.88"
NVCC_12_4 = "Cuda compilation tools, release 12.4, V12.4.131"
NVCC_11_8 = "Cuda compilation tools, release 11.8, V11.8.89"


@pytest.mark.parametrize("torch_version, torch_cuda, nvcc", [
    ("2.11.0+cu130", "13.0", NVCC_13_0),
    ("2.15.0", "13.2", NVCC_13_0),  # the wheels' 13.2 built with nvcc 13.0: a minor mismatch works
])
def test_tested_combinations_build(torch_version, torch_cuda, nvcc):
    assert toolchain.problem(torch_version, torch_cuda, nvcc) is None
    assert toolchain.warning(torch_version) is None


@pytest.mark.parametrize("torch_version, torch_cuda, nvcc, words", [
    ("2.15.0+cpu", None, NVCC_13_0, "without CUDA"),
    ("2.15.0", "13.2", None, "nvcc not found"),
    ("2.15.0", "13.2", NVCC_12_4, "built for CUDA 13.2, but nvcc is CUDA 12.4"),
    ("2.11.0", "12.8", NVCC_13_0, "built for CUDA 12.8, but nvcc is CUDA 13.0"),
    ("2.11.0", "11.8", NVCC_11_8, "older than CUDA 12.0"),
])
def test_unworkable_combinations_say_why(torch_version, torch_cuda, nvcc, words):
    reason = toolchain.problem(torch_version, torch_cuda, nvcc)
    assert reason is not None and words in reason and "\n" not in reason


@pytest.mark.parametrize("version, outside", [("2.10.1", True), ("2.11.0", False), ("2.13.1+cu130", False),
                                              ("2.15.0", False), ("2.16.0", True)])
def test_versions_outside_the_tested_range_are_named(version, outside):
    assert (toolchain.warning(version) is not None) == outside
