"""Fake (meta) kernels of the fastscan operators, for FakeTensor, meta tensors and torch.compile.

Each computes the output shapes and dtypes exactly as the CUDA kernel does and raises the same
errors for bad arguments. No output size depends on data (segment_sum returns S rows, or the
max_segments asked for, and the count as a tensor), so none needs a dynamic size. The autograd formulas are registered in C++
(csrc/autograd.cpp) on DispatchKey::Autograd.
"""
import torch
from torch.library import register_fake

from ._dtypes import names

# The dtypes with kernels (the dtype table: _dtypes.py).
SCAN_DTYPES = tuple(getattr(torch, n) for n in names("extreme"))
FLOAT_DTYPES = tuple(getattr(torch, n) for n in names("backward"))
FEATURE_DTYPES = tuple(getattr(torch, n) for n in names("segment_sum"))
KEY_DTYPES = (torch.int32, torch.int64)

_NAMES = ", ".join(str(t).replace("torch.", "") for t in SCAN_DTYPES)


def _check_device(op, what, t):
    if t.device.type not in ("cuda", "meta"):
        raise RuntimeError(f"fastscan.{op}: expected CUDA tensors, got {what} on {t.device} (fastscan runs on "
                           "CUDA only; use torch's own operator on other devices)")


def _check_same_device(op, a, b, what):
    if a.device != b.device:
        raise RuntimeError(f"fastscan.{op}: {what} must be on the input's device {a.device}, got {b.device}")


def _check_dtype(op, what, dtype, allowed):
    if dtype not in allowed:
        names = ", ".join(str(t).replace("torch.", "") for t in allowed)
        raise RuntimeError(f"fastscan.{op}: {what}{dtype} is not supported ({names})")


def _wrap_dim(dim, ndim):
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _like(t, shape, dtype):
    return t.new_empty(shape, dtype=dtype)


def cumsum_result_type(dtype, requested=None):
    """torch.cumsum's result dtype: int64 for integer and bool inputs unless dtype= is given."""
    if requested is not None:
        return requested
    return dtype if dtype.is_floating_point else torch.int64


def acc_dtype(dtype):
    """The output dtype of the segmented sums: float32 for 16- and 8-bit floats."""
    return torch.float64 if dtype == torch.float64 else torch.float32


def _extreme(op, x, dim):
    _check_device(op, "input", x)
    _check_dtype(op, "dtype ", x.dtype, SCAN_DTYPES)
    _wrap_dim(dim, x.dim())
    return _like(x, x.shape, x.dtype), _like(x, x.shape, torch.int64)


@register_fake("fastscan::cummax")
def _cummax(x, dim):
    return _extreme("cummax", x, dim)


@register_fake("fastscan::cummin")
def _cummin(x, dim):
    return _extreme("cummin", x, dim)


@register_fake("fastscan::cumsum")
def _cumsum(x, dim, *, dtype=None):
    _check_device("cumsum", "input", x)
    _check_dtype("cumsum", "dtype ", x.dtype, SCAN_DTYPES)
    result = cumsum_result_type(x.dtype, dtype)
    _check_dtype("cumsum", "dtype=", result, SCAN_DTYPES[1:])
    _wrap_dim(dim, x.dim())
    return _like(x, x.shape, result)


@register_fake("fastscan::logcumsumexp")
def _logcumsumexp(x, dim):
    _check_device("logcumsumexp", "input", x)
    _check_dtype("logcumsumexp", "dtype ", x.dtype, FLOAT_DTYPES)
    _wrap_dim(dim, x.dim())
    return _like(x, x.shape, x.dtype)


@register_fake("fastscan::cummaxmin_backward")
def _cummaxmin_backward(grad, indices, dim):
    op = "cummaxmin_backward"
    _check_device(op, "grad", grad)
    _check_device(op, "indices", indices)
    _check_same_device(op, grad, indices, "indices")
    _check_dtype(op, "dtype ", grad.dtype, FLOAT_DTYPES)
    if indices.dtype != torch.int64:
        raise RuntimeError(f"fastscan.{op}: indices must be torch.int64, got {indices.dtype}")
    if grad.shape != indices.shape:
        raise RuntimeError(f"fastscan.{op}: grad and indices must have one shape, got {list(grad.shape)} and "
                           f"{list(indices.shape)}")
    _wrap_dim(dim, grad.dim())
    return _like(grad, grad.shape, grad.dtype)


def _check_keys(op, keys, rows):
    if keys.dim() != 1 or keys.shape[0] != rows:
        raise RuntimeError(f"fastscan.{op}: keys must be 1-D with {rows} entries (one per feature row), got "
                           f"shape {list(keys.shape)}")
    if keys.dtype not in KEY_DTYPES:
        raise RuntimeError(f"fastscan.{op}: keys must be torch.int32 or torch.int64, got {keys.dtype}")


def _check_rows(op, feats, keys):
    _check_device(op, "feats", feats)
    _check_device(op, "keys", keys)
    _check_same_device(op, feats, keys, "keys")
    if feats.dim() != 2:
        raise RuntimeError(f"fastscan.{op}: feats must be 2-D [S, C], got shape {list(feats.shape)}")
    _check_dtype(op, "feats dtype ", feats.dtype, FEATURE_DTYPES)
    _check_keys(op, keys, feats.shape[0])
    return feats.shape[0], feats.shape[1]


@register_fake("fastscan::segment_sum")
def _segment_sum(feats, keys, max_segments=None):
    S, C = _check_rows("segment_sum", feats, keys)
    if C == 0 and S != 0:
        raise RuntimeError(f"fastscan.segment_sum: feats must have at least one channel, got shape {list(feats.shape)}")
    if max_segments is not None and max_segments < 0:
        raise RuntimeError(f"fastscan.segment_sum: max_segments must be >= 0, got {max_segments}")
    M = S if max_segments is None else max_segments
    return (_like(feats, (M, C), acc_dtype(feats.dtype)), _like(keys, (M,), keys.dtype),
            _like(keys, (1,), torch.int64))


@register_fake("fastscan::segmented_cumsum")
def _segmented_cumsum(feats, keys):
    S, C = _check_rows("segmented_cumsum", feats, keys)
    return _like(feats, (S, C), acc_dtype(feats.dtype))


@register_fake("fastscan::voxel_sum")
def _voxel_sum(feats, keys):
    S, C = _check_rows("voxel_sum", feats, keys)
    return _like(feats, (S, C), acc_dtype(feats.dtype))


@register_fake("fastscan::bev_pool")
def _bev_pool(feats, keys, num_cells):
    if num_cells <= 0:
        raise RuntimeError(f"fastscan.bev_pool: num_cells must be positive, got {num_cells}")
    _, C = _check_rows("bev_pool", feats, keys)
    return _like(feats, (num_cells, C), acc_dtype(feats.dtype))


@register_fake("fastscan::bev_pool_backward")
def _bev_pool_backward(grad_grid, keys, dtype):
    op = "bev_pool_backward"
    _check_device(op, "grad_grid", grad_grid)
    _check_device(op, "keys", keys)
    _check_same_device(op, grad_grid, keys, "keys")
    _check_dtype(op, "feature dtype ", dtype, FEATURE_DTYPES)
    if grad_grid.dim() != 2 or grad_grid.shape[0] == 0:
        raise RuntimeError(f"fastscan.{op}: grad_grid must be 2-D [num_cells, C] with num_cells > 0, got shape "
                           f"{list(grad_grid.shape)}")
    if grad_grid.dtype != acc_dtype(dtype):
        raise RuntimeError(f"fastscan.{op}: grad_grid must be {acc_dtype(dtype)} for features of {dtype}, got "
                           f"{grad_grid.dtype}")
    _check_keys(op, keys, keys.shape[0] if keys.dim() == 1 else -1)
    return _like(grad_grid, (keys.shape[0], grad_grid.shape[1]), dtype)


@register_fake("fastscan::_cummax_raw_bench")
def _cummax_raw_bench(x, dim, values, indices, iters):
    return None
