"""The operators, their schemas and kernels are registered (no GPU needed)."""
import re
from pathlib import Path

import pytest
import torch

import fastscan
from conftest import OPS

SCHEMAS = {
    "cummax": "fastscan::cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    "cummin": "fastscan::cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)",
    "cumsum": "fastscan::cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor",
    "logcumsumexp": "fastscan::logcumsumexp(Tensor self, int dim) -> Tensor",
    "segment_sum": "fastscan::segment_sum(Tensor feats, Tensor keys, int? max_segments=None) -> "
                   "(Tensor sums, Tensor unique_keys, Tensor num_segments)",
    "bev_pool": "fastscan::bev_pool(Tensor feats, Tensor keys, int num_cells) -> Tensor",
}
DIFFERENTIABLE = ["cummax", "cummin", "cumsum", "logcumsumexp", "segment_sum", "segmented_cumsum", "voxel_sum",
                  "bev_pool"]


@pytest.mark.parametrize("name", OPS)
def test_operator_exists(name):
    op = getattr(torch.ops.fastscan, name).default
    assert isinstance(op, torch._ops.OpOverload)
    assert torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "CUDA")
    assert torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "CPU")  # the clear rejection
    assert torch._C._dispatch_has_kernel_for_dispatch_key(op.name(), "Meta")  # the fake kernel


def test_the_registry_is_the_list_of_operators_and_each_has_a_fake_kernel():
    registered = sorted(n.split("::")[1] for n in torch._C._dispatch_get_all_op_names() if n.startswith("fastscan::"))
    assert registered == sorted(OPS)
    without_fake = [n for n in registered if not torch._C._dispatch_has_kernel_for_dispatch_key(f"fastscan::{n}", "Meta")]
    assert without_fake == []


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_schema(name):
    assert str(getattr(torch.ops.fastscan, name).default._schema) == SCHEMAS[name]


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_autograd_kernel(name):
    assert torch._C._dispatch_has_kernel_for_dispatch_key(f"fastscan::{name}", "Autograd")


@pytest.mark.parametrize("name", [n for n in OPS if not n.startswith("_")])
def test_pt2_compliant(name):
    assert torch.Tag.pt2_compliant_tag in getattr(torch.ops.fastscan, name).default.tags


def test_version_matches_header():
    header = Path(__file__).resolve().parents[2] / "include" / "fastscan" / "version.cuh"
    number = int(re.search(r"#define\s+FASTSCAN_VERSION\s+(\d+)", header.read_text()).group(1))
    assert fastscan.__version__ == f"{number // 10000}.{number // 100 % 100}.{number % 100}"
    assert number == 500
