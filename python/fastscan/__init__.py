"""fastscan's scans as torch operators: torch.ops.fastscan.* and these wrappers.

cummax / cummin / cumsum / logcumsumexp take torch's signatures and return torch's types; the
segmented operators work on [S, C] feature rows keyed by int32 / int64 keys. CUDA tensors only.
"""
import contextlib
from collections import namedtuple

import torch

try:
    from . import _C  # (loading it registers the operators)
except ImportError as e:  # e.g. the source folder python/fastscan shadowing the installed package
    raise ImportError("fastscan._C, the compiled operators, is not next to this fastscan package "
                      f"({__path__[0]}): pip install --no-build-isolation ./python and import it from outside "
                      "python/, or build in place: cd python && python setup.py build_ext --inplace") from e
from . import _meta  # noqa: F401  (their fake kernels)

try:
    from ._version import __version__
except ImportError:  # a source tree that setup.py has not built
    __version__ = "unknown"

__all__ = ["cummax", "cummin", "cumsum", "logcumsumexp", "segment_sum", "segment_sum_compact", "segmented_cumsum",
           "voxel_sum", "bev_pool", "SegmentSum", "enable", "disable", "is_enabled", "enabled"]

_ops = torch.ops.fastscan

SegmentSum = namedtuple("SegmentSum", ["sums", "unique_keys", "num_segments"])


# Eager calls of the hot operators go through _C's direct calls (the same dispatcher kernels,
# less host time per call); torch.compile traces the torch.ops form. A tensor with
# __torch_function__ (a subclass, an fx Proxy) or an active TorchFunctionMode sees the wrapper
# itself, as torch's own functions are seen: fx records it as one call, a mode may replace it.
_tracing = torch.compiler.is_compiling
_overridden = torch.overrides.has_torch_function_unary
_override = torch.overrides.handle_torch_function


def enable():
    """Makes fastscan the CUDA kernels of torch's own cummax, cummin, cumsum and logcumsumexp
    (the functions, the methods and the cummax / cummin out= forms), process-wide, until disable():
    existing models get the speed without edits. torch keeps its checks, dtype rules and autograd
    formulas; dtypes fastscan does not take (complex) still run torch's kernels. torch warns once
    that its CUDA kernels are overridden."""
    _C.enable()


def disable():
    """torch's own CUDA kernels again."""
    _C.disable()


def is_enabled():
    return _C.is_enabled()


@contextlib.contextmanager
def enabled():
    """enable() inside a with block, and the previous state after it."""
    was = _C.is_enabled()
    _C.enable()
    try:
        yield
    finally:
        if not was:
            _C.disable()


def cummax(input, dim):
    """torch.cummax: (values, indices) as torch.return_types.cummax; the last index among ties."""
    if _overridden(input):
        return _override(cummax, (input,), input, dim)
    if _tracing():
        return torch.return_types.cummax(_ops.cummax.default(input, dim))
    return torch.return_types.cummax(_C.cummax(input, dim))


def cummin(input, dim):
    """torch.cummin: (values, indices) as torch.return_types.cummin; the last index among ties."""
    if _overridden(input):
        return _override(cummin, (input,), input, dim)
    if _tracing():
        return torch.return_types.cummin(_ops.cummin.default(input, dim))
    return torch.return_types.cummin(_C.cummin(input, dim))


def cumsum(input, dim, *, dtype=None):
    """torch.cumsum: integer and bool inputs give int64 unless dtype says otherwise."""
    if _overridden(input):
        return _override(cumsum, (input,), input, dim, dtype=dtype)
    if dtype is None and not _tracing():
        return _C.cumsum(input, dim)
    return _ops.cumsum.default(input, dim, dtype=dtype)


def logcumsumexp(input, dim):
    """torch.logcumsumexp (floating types)."""
    return _ops.logcumsumexp.default(input, dim)


def segment_sum(feats, keys, max_segments=None):
    """One row per run of equal keys of feats [S, C]: SegmentSum(sums [M, C], unique_keys [M],
    num_segments [1] int64), M = max_segments or S (the most segments there can be). The first
    min(num_segments, M) rows are segments, the rest 0; segments past M are dropped (their rows get
    no gradient) but counted. The count stays on the device, so nothing synchronizes: slice with
    segment_sum_compact or yourself. Pass max_segments when you know a bound (the number of cells,
    of voxels): the sums then write M rows, not S."""
    return SegmentSum(*_ops.segment_sum.default(feats, keys, max_segments))


def segment_sum_compact(feats, keys):
    """segment_sum sliced to its segments: (sums [V, C], unique_keys [V]). SYNCHRONIZES the host
    with the device to read V."""
    sums, unique_keys, num_segments = _ops.segment_sum.default(feats, keys)
    n = int(num_segments.item())
    return sums[:n], unique_keys[:n]


def segmented_cumsum(feats, keys):
    """Inclusive sums of feats [S, C] down the rows, restarting where the key changes."""
    return _ops.segmented_cumsum.default(feats, keys)


def voxel_sum(feats, keys):
    """out[i] = the sum of feats[j] over all rows j with keys[j] == keys[i] (keys need not be sorted)."""
    return _ops.voxel_sum.default(feats, keys)


def bev_pool(feats, keys, num_cells):
    """grid [num_cells, C]: grid[k] = the sum of feats[i] over keys[i] == k; keys outside
    [0, num_cells) are dropped."""
    return _ops.bev_pool.default(feats, keys, num_cells)
