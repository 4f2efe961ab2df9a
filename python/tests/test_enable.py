"""fastscan.enable(): torch's own cummax, cummin, cumsum and logcumsumexp run fastscan's kernels on
CUDA tensors. The registration is checked on any machine; on a GPU, torch's OpInfo samples of the
four ops (their inputs, and torch's own kernels as the reference, gradients included) hold with
fastscan enabled."""
import warnings

import pytest
import torch

import fastscan
from conftest import requires_cuda

OVERRIDDEN = ["aten::_cummax_helper", "aten::_cummin_helper", "aten::cumsum", "aten::_logcumsumexp"]


def cuda_kernel(op):
    """The line of torch's dispatch table naming op's CUDA kernel."""
    return [line for line in torch._C._dispatch_dump(op).splitlines() if line.startswith("CUDA")]


@pytest.fixture
def quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns that its CUDA kernels are overridden
        yield
    fastscan.disable()


@pytest.mark.parametrize("op", OVERRIDDEN)
def test_enable_registers_the_cuda_kernel_and_disable_restores_torch_s(op, quiet):
    assert not fastscan.is_enabled()
    before = cuda_kernel(op)
    assert before and "aten.cpp" not in before[0]
    fastscan.enable()
    fastscan.enable()  # (twice is once)
    assert fastscan.is_enabled() and "aten.cpp" in cuda_kernel(op)[0]
    fastscan.disable()
    assert not fastscan.is_enabled() and cuda_kernel(op) == before


def test_enabled_restores_the_previous_state(quiet):
    with fastscan.enabled():
        assert fastscan.is_enabled()
    assert not fastscan.is_enabled()
    fastscan.enable()
    with fastscan.enabled():
        pass
    assert fastscan.is_enabled()


def _opinfos():
    """The four ops' OpInfos, or one skipped case that says why there are none."""
    try:
        from torch.testing._internal.common_methods_invocations import op_db
    except Exception as e:  # noqa: BLE001  (torch's internal test modules need expecttest and more)
        return [pytest.param(None, marks=pytest.mark.skip(reason=f"torch's OpInfo database does not import: {e!r}"))]
    return [op for op in op_db if op.name in ("cummax", "cummin", "cumsum", "logcumsumexp") and not op.variant_test_name]


def _first(out):
    return out[0] if isinstance(out, tuple) else out


# 16-bit float sums: fastscan accumulates in float and rounds once, torch's scans round per step.
TOLERANCE = {torch.float16: {"rtol": 1e-2, "atol": 1e-2}, torch.bfloat16: {"rtol": 2e-2, "atol": 2e-2}}


@requires_cuda
@pytest.mark.parametrize("op", _opinfos(), ids=lambda op: op.name if op else "no-opinfo")
def test_opinfo_samples_with_fastscan_enabled(op, quiet):
    checked = 0
    for dtype in sorted(op.supported_dtypes("cuda"), key=str):
        tol = TOLERANCE.get(dtype, {})
        grad = op.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
        for sample in op.sample_inputs("cuda", dtype, requires_grad=grad):
            args, kwargs = sample.args, sample.kwargs
            expected = op(sample.input, *args, **kwargs)
            with fastscan.enabled():
                got = op(sample.input, *args, **kwargs)
            torch.testing.assert_close(got, expected, equal_nan=True, **tol,
                                       msg=lambda m: f"{op.name} {dtype} {sample}: {m}")
            checked += 1
            out = _first(expected)
            if not grad or not out.requires_grad:
                continue
            go = torch.randn_like(out)
            (want,) = torch.autograd.grad(out, sample.input, go)
            with fastscan.enabled():
                (have,) = torch.autograd.grad(_first(op(sample.input, *args, **kwargs)), sample.input, go)
            torch.testing.assert_close(have, want, equal_nan=True, **tol, msg=lambda m: f"{op.name} {dtype} grad: {m}")
    assert checked > 0
