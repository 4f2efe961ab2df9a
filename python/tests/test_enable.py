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


# torch's logcumsumexp backward subtracts two exponentials of logcumsumexp results: a rounding of
# the forward (fastscan's or torch's) comes out of the difference many times larger, so its float32
# gradients are judged against float64 as 16-bit results are, allowing this many times torch's error.
CANCELLING_GRADS = {"logcumsumexp": 4}


def _as_close_as_torch(got, expected, reference, dtype, msg, slack=1):
    """got against torch's result within the dtype's tolerance; or, where a float64 reference is given
    (16-bit floats, which the two round differently, and gradients whose formula cancels), no further
    from it than torch's own result, times `slack`, within the tolerance."""
    tol = TOLERANCE.get(dtype, {})
    try:
        torch.testing.assert_close(got, expected, equal_nan=True, **tol, msg=msg)
    except AssertionError:
        if reference is None or isinstance(got, tuple):
            raise
        ref = reference.to(torch.float64)
        ours = (got.to(torch.float64) - ref).abs()
        theirs = (expected.to(torch.float64) - ref).abs()
        assert torch.equal(ours.isnan(), theirs.isnan()), msg("NaNs where torch's own result has none, or none where it has")
        # Rounded in another order, single elements may land either side: the whole tensor's worst error
        # must be no worse than torch's (within the tolerance).
        worst, torch_worst = ours.nan_to_num(0).max().item(), theirs.nan_to_num(0).max().item()
        atol = tol.get("atol", 1e-5)
        assert worst <= slack * torch_worst + atol, msg(f"worst error against float64 {worst:.3g}, torch's own {torch_worst:.3g}")


def _in_float64(op, sample, args, kwargs, go=None):
    """op's output (go None) or its input gradient for go, computed by torch in float64 (a floating
    dtype= the sample names is dropped); None for other inputs."""
    if not sample.input.is_floating_point() or not kwargs.get("dtype", sample.input.dtype).is_floating_point:
        return None
    x = sample.input.detach().to(torch.float64).requires_grad_(go is not None)
    out = _first(op(x, *args, **{k: v for k, v in kwargs.items() if k != "dtype"}))
    return out if go is None else torch.autograd.grad(out, x, go.to(torch.float64))[0]


@requires_cuda
@pytest.mark.parametrize("op", _opinfos(), ids=lambda op: op.name if op else "no-opinfo")
def test_opinfo_samples_with_fastscan_enabled(op, quiet):
    checked = 0
    for dtype in sorted(op.supported_dtypes("cuda"), key=str):
        grad = op.supports_autograd and (dtype.is_floating_point or dtype.is_complex)
        for sample in op.sample_inputs("cuda", dtype, requires_grad=grad):
            args, kwargs = sample.args, sample.kwargs
            expected = op(sample.input, *args, **kwargs)
            with fastscan.enabled():
                got = op(sample.input, *args, **kwargs)
            reference = _in_float64(op, sample, args, kwargs) if dtype in TOLERANCE else None
            _as_close_as_torch(got, expected, reference, dtype, lambda m: f"{op.name} {dtype} {sample}: {m}")
            checked += 1
            out = _first(expected)
            if not grad or not out.requires_grad:
                continue
            go = torch.randn_like(out)
            (want,) = torch.autograd.grad(out, sample.input, go)
            with fastscan.enabled():
                (have,) = torch.autograd.grad(_first(op(sample.input, *args, **kwargs)), sample.input, go)
            slack = CANCELLING_GRADS.get(op.name, 1)
            reference = _in_float64(op, sample, args, kwargs, go) if dtype in TOLERANCE or slack > 1 else None
            _as_close_as_torch(have, want, reference, dtype, lambda m: f"{op.name} {dtype} grad: {m}", slack)
    assert checked > 0
