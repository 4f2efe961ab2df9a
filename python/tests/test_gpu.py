"""fastscan against torch on the GPU: equality, gradients, determinism, opcheck, devices, streams."""
import math

import pytest
import torch

import fastscan
from conftest import requires_cuda
from fastscan._meta import FLOAT_DTYPES, SCAN_DTYPES

pytestmark = requires_cuda
ops = torch.ops.fastscan
INT_VIEW = {1: torch.uint8, 2: torch.int16, 4: torch.int32, 8: torch.int64}

SHAPES_DIMS = [((), 0), ((), -1), ((0,), 0), ((5, 0), 1), ((0, 5), 1), ((1,), 0), ((17,), 0), ((3, 1000), 1),
               ((1000, 3), 0), ((2, 3, 4, 5), 0), ((2, 3, 4, 5), 2), ((2, 3, 4, 5), -1), ((2, 3, 4, 5), -3),
               ((1, 65536), -1), ((65536, 1), 0), ((7, 129, 33), 1), ((4, 5000, 2), 1), ((300000,), 0)]


def bits(t):
    """A tensor's bytes as integers, so that NaNs and -0.0 compare exactly."""
    return t.view(INT_VIEW[t.element_size()]) if t.dtype != torch.bool else t.to(torch.uint8)


def sample(shape, dtype, nans=True, seed=0):
    """Small integers (many ties), NaNs sprinkled into floating types."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=g, device="cuda").bool()
    low = 0 if dtype == torch.uint8 else -4
    x = torch.randint(low, 5, shape, generator=g, device="cuda").to(dtype)
    if dtype.is_floating_point and nans and x.numel() > 0:
        x[torch.rand(shape, generator=g, device="cuda") < 0.01] = float("nan")
    return x


def assert_same_extreme(ours, theirs):
    assert ours.values.shape == theirs.values.shape and ours.values.dtype == theirs.values.dtype
    assert torch.equal(bits(ours.values), bits(theirs.values))
    assert torch.equal(ours.indices, theirs.indices)


@pytest.mark.parametrize("dtype", SCAN_DTYPES)
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_extreme_equals_torch(name, dtype, shape, dim):
    x = sample(shape, dtype)
    assert_same_extreme(getattr(fastscan, name)(x, dim), getattr(torch, name)(x, dim))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_extreme_semantics(name):
    x = torch.tensor([1, 3, 3, 2, float("nan"), 5, float("nan")], device="cuda")
    assert_same_extreme(getattr(fastscan, name)(x, 0), getattr(torch, name)(x, 0))
    r = fastscan.cummax(torch.tensor([2, 2, 1, 1, 3, 3], device="cuda"), 0)
    assert r.indices.tolist() == [0, 1, 1, 1, 4, 5]


@pytest.mark.parametrize("name", ["cummax", "cummin", "cumsum"])
def test_non_contiguous(name):
    base = sample((64, 50, 6), torch.float32, nans=False)
    for x in (base.transpose(0, 1), base[:, ::3], base.expand(2, 64, 50, 6)[1], base.permute(2, 0, 1)):
        for dim in range(x.dim()):
            ours, theirs = getattr(fastscan, name)(x, dim), getattr(torch, name)(x, dim)
            if name == "cumsum":
                torch.testing.assert_close(ours, theirs)
            else:
                assert_same_extreme(ours, theirs)


def float64_reference(x, dim):
    return torch.cumsum(x.double(), dim), torch.cumsum(x.double().abs(), dim)


def assert_close_to_reference(out, x, dim):
    ref, scale = float64_reference(x, dim)
    eps = torch.finfo(out.dtype).eps
    # A fold of tile totals in float plus, for 16-bit types, the one rounding at the end.
    tol = 64 * torch.finfo(torch.float32).eps * scale + eps * ref.abs()
    if out.dtype == torch.float64:
        tol = 64 * eps * scale
    assert bool(((out.double() - ref).abs() <= tol + 1e-300).all())


@pytest.mark.parametrize("dtype", SCAN_DTYPES)
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
def test_cumsum_equals_torch(dtype, shape, dim):
    x = sample(shape, dtype, nans=False)
    ours, theirs = fastscan.cumsum(x, dim), torch.cumsum(x, dim)
    assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
    if dtype.is_floating_point:
        if x.numel() > 0:
            assert_close_to_reference(ours, x, dim)
    else:
        assert torch.equal(ours, theirs)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,dim", [((1, 65536), 1), ((65536, 3), 0), ((7, 4097, 5), 1), ((300000,), 0)])
def test_cumsum_random_floats(dtype, shape, dim):
    x = torch.randn(shape, device="cuda").to(dtype)
    assert_close_to_reference(fastscan.cumsum(x, dim), x, dim)


@pytest.mark.parametrize("src,dtype", [(torch.int32, torch.float32), (torch.float32, torch.int32),
                                       (torch.int64, torch.int8), (torch.uint8, torch.uint8), (torch.bool, torch.int16),
                                       (torch.float16, torch.float32), (torch.float64, torch.float16),
                                       (torch.int16, torch.int64)])
def test_cumsum_dtype_argument(src, dtype):
    x = (torch.randn(40, 300, device="cuda") * 50).to(src)
    ours, theirs = fastscan.cumsum(x, 1, dtype=dtype), torch.cumsum(x, 1, dtype=dtype)
    assert ours.dtype == theirs.dtype
    if dtype.is_floating_point:
        assert_close_to_reference(ours, x.to(dtype), 1)
    else:
        assert torch.equal(ours, theirs)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("shape,dim", [((), 0), ((0, 3), 1), ((17,), 0), ((5, 3000), 1), ((3000, 5), 0)])
def test_logcumsumexp_close_to_torch(dtype, shape, dim):
    x = (torch.randn(shape, device="cuda") * 3).to(dtype)
    if x.numel() > 4:
        x.view(-1)[:4] = torch.tensor([float("-inf"), float("-inf"), 2.0, float("inf")], dtype=dtype)
    ours = fastscan.logcumsumexp(x, dim)
    ref = torch.logcumsumexp(x.double(), dim).to(dtype)
    torch.testing.assert_close(ours, ref, atol=1e-3 if dtype.itemsize == 2 else 1e-5, rtol=1e-2 if dtype.itemsize == 2 else 1e-5)


def test_logcumsumexp_nan():
    x = torch.tensor([0.0, float("nan"), 1.0], device="cuda")
    assert fastscan.logcumsumexp(x, 0)[1:].isnan().all()


# ---- gradients

def distinct(shape, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    n = max(1, torch.Size(shape).numel())
    return (torch.randperm(n, generator=g, device="cuda").double() / n).reshape(shape).requires_grad_()


@pytest.mark.parametrize("shape,dim", [((), 0), ((7,), 0), ((4, 6), 1), ((4, 6), 0), ((3, 4, 5), -2)])
def test_gradcheck_scans(shape, dim):
    x = distinct(shape)
    for fn in (lambda t: fastscan.cummax(t, dim).values, lambda t: fastscan.cummin(t, dim).values,
               lambda t: fastscan.cumsum(t, dim), lambda t: fastscan.logcumsumexp(t, dim)):
        assert torch.autograd.gradcheck(fn, (x,))


def test_gradcheck_segmented():
    feats = distinct((12, 3))
    keys = torch.tensor([0, 0, 2, 2, 2, 1, 5, 5, 0, 3, 3, 3], device="cuda")
    for k in (keys, keys.int()):
        assert torch.autograd.gradcheck(lambda f: fastscan.segment_sum(f, k).sums, (feats,))
        assert torch.autograd.gradcheck(lambda f: fastscan.segmented_cumsum(f, k), (feats,))
        assert torch.autograd.gradcheck(lambda f: fastscan.voxel_sum(f, k), (feats,))
        assert torch.autograd.gradcheck(lambda f: fastscan.bev_pool(f, k - 1, 4), (feats,))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_extreme_backward_equals_torch(name, dtype):
    # Integer-valued gradients sum exactly, so torch's scatter_add and our runs must agree bit for bit.
    x = sample((33, 517), dtype).requires_grad_()
    grad = sample((33, 517), dtype, nans=False, seed=1)
    for dim in (0, 1):
        (ours,) = torch.autograd.grad(getattr(fastscan, name)(x, dim).values, x, grad)
        (theirs,) = torch.autograd.grad(getattr(torch, name)(x, dim).values, x, grad)
        assert torch.equal(ours, theirs)


def test_backward_is_deterministic():
    x = sample((4, 200000), torch.float32, nans=False).requires_grad_()
    grad = torch.randn(4, 200000, device="cuda")
    first = torch.autograd.grad(fastscan.cummax(x, 1).values, x, grad)[0]
    for _ in range(5):
        assert torch.equal(bits(torch.autograd.grad(fastscan.cummax(x, 1).values, x, grad)[0]), bits(first))
    y = torch.randn(300000, device="cuda", requires_grad=True)
    g = torch.randn(300000, device="cuda")
    first = torch.autograd.grad(fastscan.cumsum(y, 0), y, g)[0]
    for _ in range(5):
        assert torch.equal(bits(torch.autograd.grad(fastscan.cumsum(y, 0), y, g)[0]), bits(first))


def test_cumsum_backward_dtype():
    x = torch.randn(5, 7, device="cuda", dtype=torch.float16, requires_grad=True)
    out = fastscan.cumsum(x, 1, dtype=torch.float32)
    (g,) = torch.autograd.grad(out.sum(), x)
    (t,) = torch.autograd.grad(torch.cumsum(x, 1, dtype=torch.float32).sum(), x)
    assert g.dtype == t.dtype == torch.float16 and torch.equal(g, t)


# ---- segmented operators against plain torch

def keys_and_feats(S, C, dtype, cells, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    keys = torch.randint(0, cells, (S,), generator=g, device="cuda")
    feats = torch.randn(S, C, generator=g, device="cuda").to(dtype)
    return keys, feats


@pytest.mark.parametrize("dtype", FLOAT_DTYPES + (torch.float8_e4m3fn,))
@pytest.mark.parametrize("S,C", [(0, 3), (1, 1), (1, 64), (1000, 1), (5000, 64), (3, 200)])
def test_segmented_equal_references(dtype, S, C):
    keys, feats = keys_and_feats(S, C, dtype, cells=50)
    f64 = feats.double()
    tol = dict(atol=1e-4, rtol=1e-4) if dtype != torch.float64 else dict(atol=1e-10, rtol=1e-10)
    acc = torch.float64 if dtype == torch.float64 else torch.float32
    # voxel_sum and bev_pool: from unsorted keys
    grid = torch.zeros(50, C, dtype=torch.float64, device="cuda").index_add_(0, keys, f64)
    torch.testing.assert_close(fastscan.bev_pool(feats, keys, 50), grid.to(acc), **tol)
    torch.testing.assert_close(fastscan.voxel_sum(feats, keys), grid[keys].to(acc), **tol)
    outside = keys.clone()
    outside[::3] = -1
    masked = torch.zeros(50, C, dtype=torch.float64, device="cuda").index_add_(0, keys[outside >= 0],
                                                                                  f64[outside >= 0])
    torch.testing.assert_close(fastscan.bev_pool(feats, outside.int(), 50), masked.to(acc), **tol)
    # segment_sum and segmented_cumsum: runs of the sorted keys
    skeys, perm = torch.sort(keys, stable=True)
    sfeats, sf64 = feats[perm], f64[perm]
    out = fastscan.segment_sum(sfeats, skeys)
    unique, counts = torch.unique_consecutive(skeys, return_counts=True)
    V = unique.numel()
    assert int(out.num_segments) == V
    assert torch.equal(out.unique_keys[:V], unique) and not out.unique_keys[V:].any()
    ids = torch.repeat_interleave(torch.arange(V, device="cuda"), counts)
    sums = torch.zeros(V, C, dtype=torch.float64, device="cuda").index_add_(0, ids, sf64)
    torch.testing.assert_close(out.sums[:V], sums.to(acc), **tol)
    assert not out.sums[V:].any()
    starts = torch.cumsum(counts, 0) - counts
    running = torch.cumsum(sf64, 0)
    before = torch.cat([torch.zeros(1, C, dtype=torch.float64, device="cuda"), running])[starts][ids]
    torch.testing.assert_close(fastscan.segmented_cumsum(sfeats, skeys), (running - before).to(acc), **tol)
    s, u = fastscan.segment_sum_compact(sfeats, skeys.int())
    assert u.dtype == torch.int32 and u.shape == (V,) and s.shape == (V, C)


# ---- opcheck: schema, fake kernel, autograd registration, AOT dispatch

def opcheck_args(case):
    x = distinct((6, 5))
    keys = torch.tensor([0, 0, 3, 1, 1, 1], device="cuda")
    idx = torch.cummax(x.detach(), 1).indices
    return {
        "cummax": lambda: (x, 1), "cummin": lambda: (x, 0), "cumsum": lambda: (x, -1),
        "logcumsumexp": lambda: (x, 1), "cumsum_int": lambda: (sample((6, 5), torch.int32), 1),
        "cummax_int": lambda: (sample((6, 5), torch.int16), 0),
        "cummaxmin_backward": lambda: (torch.randn(6, 5, device="cuda"), idx, 1),
        "segment_sum": lambda: (x, keys), "segmented_cumsum": lambda: (x, keys), "voxel_sum": lambda: (x, keys),
        "bev_pool": lambda: (x, keys, 4),
        "bev_pool_backward": lambda: (torch.randn(4, 5, device="cuda", dtype=torch.float64), keys, torch.float64),
        "_cummax_raw_bench": lambda: (x.detach(), 1, torch.empty_like(x.detach()), idx.clone(), 2),
    }[case]()


@pytest.mark.parametrize("case", ["cummax", "cummin", "cumsum", "logcumsumexp", "cumsum_int", "cummax_int",
                                  "cummaxmin_backward", "segment_sum", "segmented_cumsum", "voxel_sum", "bev_pool",
                                  "bev_pool_backward", "_cummax_raw_bench"])
def test_opcheck(case):
    name = case.replace("_int", "") if case.endswith("_int") else case
    torch.library.opcheck(getattr(ops, name).default, opcheck_args(case))


# ---- torch.compile with inductor on the GPU

def test_compile_inductor_matches_eager():
    torch._dynamo.reset()

    def f(x, keys):
        return (fastscan.cummax(x, 1).values + fastscan.cumsum(x, 0) * 2 + fastscan.logcumsumexp(x, 1),
                fastscan.segment_sum(x, keys).sums, fastscan.cummin(x, 0).indices)

    x = torch.randn(64, 33, device="cuda")
    keys = torch.sort(torch.randint(0, 9, (64,), device="cuda")).values
    compiled = torch.compile(f, fullgraph=True)
    for a, b in zip(compiled(x, keys), f(x, keys)):
        assert torch.equal(a, b)


# ---- devices and streams

def test_current_stream_and_graph_capture():
    x = sample((8, 70000), torch.float32)
    expected = torch.cummax(x, 1)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        out = fastscan.cummax(x, 1)
        sums = fastscan.cumsum(x, 1)
    torch.cuda.current_stream().wait_stream(side)
    assert_same_extreme(out, expected)
    # Capture works only if every launch goes to the capturing (current) stream.
    static = x.clone()
    fastscan.cummax(static, 1)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = fastscan.cummax(static, 1)
    static.copy_(sample((8, 70000), torch.float32, seed=3))
    graph.replay()
    assert_same_extreme(captured, torch.cummax(static, 1))
    torch.testing.assert_close(sums, torch.cumsum(x, 1), equal_nan=True)


def test_look_back_calls_on_two_streams_at_once():
    # Look-back calls of growing and shrinking sizes, each size on two streams that run at once.
    streams = [torch.cuda.current_stream(), torch.cuda.Stream()]
    streams[1].wait_stream(streams[0])
    shapes = [(1, 1 << 16), (4, 1 << 18), (1, 3001), (2, 1 << 21)]
    inputs = [sample(shape, torch.int64, seed=i) for i, shape in enumerate(shapes)]
    results = []
    for x in inputs:
        for s in streams:
            with torch.cuda.stream(s):
                results.append((x, fastscan.cummax(x, 1), fastscan.cumsum(x, 1)))
    torch.cuda.synchronize()
    for x, extreme, sums in results:
        assert_same_extreme(extreme, torch.cummax(x, 1))
        assert torch.equal(sums, torch.cumsum(x, 1))


@pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs a second CUDA GPU")
def test_second_device():
    x = sample((5, 3000), torch.float32, seed=2).to("cuda:1")
    out = fastscan.cummax(x, 1)
    assert out.values.device == x.device and out.indices.device == x.device
    assert_same_extreme(out, torch.cummax(x, 1))
    keys = torch.zeros(5, dtype=torch.int64, device="cuda:1")
    assert fastscan.segment_sum(x, keys).sums.device == x.device


def test_errors_on_cuda():
    x = torch.zeros(3, 4, device="cuda", dtype=torch.complex64)
    with pytest.raises(RuntimeError, match="fastscan.cummax: dtype torch.complex64 is not supported"):
        fastscan.cummax(x, 0)
    with pytest.raises(RuntimeError, match="fastscan.cumsum: dtype=torch.bool is not supported"):
        fastscan.cumsum(torch.zeros(3, device="cuda"), 0, dtype=torch.bool)
    with pytest.raises(IndexError):
        fastscan.cummin(torch.zeros(3, device="cuda"), 1)
    with pytest.raises(RuntimeError, match="expected CUDA tensors, got keys on cpu"):
        fastscan.voxel_sum(torch.zeros(3, 2, device="cuda"), torch.zeros(3, dtype=torch.int64))
    with pytest.raises(RuntimeError, match="at least one channel"):
        fastscan.segment_sum(torch.zeros(3, 0, device="cuda"), torch.zeros(3, dtype=torch.int64, device="cuda"))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
def test_double_backward_equals_torch(name):
    # Second-order gradients through the backward op (its adjoint: a gather at the indices), against
    # torch's own cummax / cummin on the same inputs, ties included.
    x = torch.randint(-4, 5, (6, 300), device="cuda").double().requires_grad_()
    go = torch.randn(6, 300, device="cuda", dtype=torch.float64, requires_grad=True)
    w = torch.randn(6, 300, device="cuda", dtype=torch.float64)
    results = []
    for fn in (getattr(fastscan, name), getattr(torch, name)):
        (gx,) = torch.autograd.grad(fn(x, 1).values, x, go, create_graph=True)
        (ggo,) = torch.autograd.grad(gx, go, w)
        results.append((gx, ggo))
    # First order: run sums in the plan's order against torch's atomics, so equal up to rounding;
    # second order: a gather at the same indices, so exact.
    torch.testing.assert_close(results[0][0], results[1][0])
    assert torch.equal(results[0][1], results[1][1])


def test_bev_pool_double_backward():
    # bev_pool_backward's adjoint is bev_pool: d<w, bev_pool_backward(go)>/d go = bev_pool(w).
    feats = torch.randn(500, 8, device="cuda", requires_grad=True)
    keys = torch.randint(-3, 40, (500,), device="cuda")
    go = torch.randn(37, 8, device="cuda", requires_grad=True)
    (gf,) = torch.autograd.grad(fastscan.bev_pool(feats, keys, 37), feats, go, create_graph=True)
    w = torch.randint(-3, 4, (500, 8), device="cuda").float()
    (ggo,) = torch.autograd.grad(gf, go, w)
    inside = (keys >= 0) & (keys < 37)
    expected = torch.zeros(37, 8, device="cuda").index_add_(0, keys[inside], w[inside])
    assert torch.equal(ggo, expected)


def test_fp8_bev_pool_backward_rounds_once():
    # Each point's gradient is its cell's float32 row rounded once to fp8 (not through float16).
    keys = torch.randint(-2, 50, (4000,), device="cuda")
    grad_grid = torch.randn(50, 16, device="cuda") * 3
    got = torch.ops.fastscan.bev_pool_backward(grad_grid, keys, torch.float8_e4m3fn)
    inside = ((keys >= 0) & (keys < 50)).unsqueeze(1)
    expected = torch.where(inside, grad_grid[keys.clamp(0, 49)], torch.zeros(())).to(torch.float8_e4m3fn)
    assert torch.equal(got.view(torch.uint8), expected.view(torch.uint8))


# ---- torch's rules on what a tensor may hold, and what an output may carry

def raw_bools(shape, seed=0):
    """bool tensors over arbitrary bytes (u8.view(torch.bool)): torch reads any nonzero byte as true."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    u8 = torch.randint(0, 256, shape, generator=g, device="cuda", dtype=torch.uint8)
    u8[torch.rand(shape, generator=g, device="cuda") < 0.4] = 0
    return u8.view(torch.bool)


@pytest.mark.parametrize("shape,dim", [((7,), 0), ((3, 100003), 1), ((4099, 5), 0), ((70001, 16), 0), ((257, 33, 3), 1)])
def test_bool_bytes_read_as_torch_reads_them(shape, dim):
    # The reference is torch on the same truths stored as 0 / 1 (torch's own kernels on raw bytes
    # are what the finding was about).
    x = raw_bools(shape)
    truth = x.view(torch.uint8) != 0
    assert torch.equal(fastscan.cumsum(x, dim), torch.cumsum(truth, dim))
    for name in ("cummax", "cummin"):
        ours, theirs = getattr(fastscan, name)(x, dim), getattr(torch, name)(truth, dim)
        assert torch.equal(ours.indices, theirs.indices)
        assert torch.equal(ours.values.view(torch.uint8), theirs.values.view(torch.uint8))  # written as 0 / 1
    few = torch.tensor([2, 0, 3, 1, 255, 0, 7], dtype=torch.uint8, device="cuda").view(torch.bool)
    assert fastscan.cumsum(few, 0).tolist() == [1, 1, 2, 3, 4, 4, 5]


def test_outputs_carry_no_hidden_storage():
    x = sample((1000, 300), torch.float32, nans=False)
    for out in (*fastscan.cummax(x, 1), *fastscan.cummin(x, 0), fastscan.cumsum(x, 1),
                fastscan.cumsum(x.to(torch.int32), 0), fastscan.logcumsumexp(x, 1)):
        assert out.untyped_storage().nbytes() == out.numel() * out.element_size()
        assert out.storage_offset() == 0 and out.is_contiguous()


def _run_isolated(code):
    """Runs code in a fresh interpreter (a device-side assert loses the CUDA context): its stderr."""
    import subprocess
    import sys
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.parametrize("bad", ["-32", "10**12", "5"])
def test_cummaxmin_backward_rejects_indices_outside_their_column(bad):
    # Indices of -32, of 10^12, and of positions after their own (another dim's indices) must never
    # write outside grad_in: the launch fails through torch's device-assert path.
    code = f"""
import torch, fastscan
grad = torch.ones(4, 3, device="cuda")
indices = torch.zeros(4, 3, dtype=torch.int64, device="cuda")
indices[1, 1] = {bad}
torch.ops.fastscan.cummaxmin_backward(grad, indices, 1)
torch.cuda.synchronize()
print("no error")
"""
    code_rc, out = _run_isolated(code)
    assert code_rc != 0 and "no error" not in out
    assert "device-side assert" in out or "cummaxmin_backward" in out


def test_cummaxmin_backward_with_valid_indices_still_matches_torch():
    x = sample((64, 700), torch.float32, nans=False)
    values, indices = torch.cummax(x, 1)
    grad = torch.randn(64, 700, device="cuda")
    expected = torch.zeros_like(x).scatter_add_(1, indices, grad)
    torch.testing.assert_close(torch.ops.fastscan.cummaxmin_backward(grad, indices, 1), expected)


@pytest.mark.parametrize("value", [float("inf"), float("-inf"), 2.5])
def test_logcumsumexp_0d_gradient_passes_through(value):
    for fn in (fastscan.logcumsumexp, torch.logcumsumexp):
        x = torch.tensor(value, device="cuda", requires_grad=True)
        (g,) = torch.autograd.grad(fn(x, 0), x, torch.tensor(3.0, device="cuda"))
        assert g.item() == 3.0


def test_cumsum_into_an_integer_dtype_needs_no_gradient():
    x = torch.randn(5, 7, device="cuda", requires_grad=True) * 10
    for fn in (fastscan.cumsum, torch.cumsum):  # torch's rule: an error while x needs a gradient
        with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
            fn(x, 1, dtype=torch.int64)
    with torch.no_grad():
        assert torch.equal(fastscan.cumsum(x, 1, dtype=torch.int64), torch.cumsum(x, 1, dtype=torch.int64))


BIG = 2**31 + 77


@pytest.mark.skipif(torch.cuda.is_available() and torch.cuda.get_device_properties(0).total_memory < 60 * 2**30,
                    reason="needs 60 GB of GPU memory")
def test_every_scan_beyond_2_31_elements():
    # Each op's output past 2^31 elements: its last entries against closed forms, and torch's own
    # indexing of it (its metadata and storage as a tensor built by torch would have).
    x = torch.zeros(BIG, dtype=torch.bool, device="cuda")
    x[::3] = True
    s = fastscan.cumsum(x, 0)
    assert s.shape == (BIG,) and s.untyped_storage().nbytes() == BIG * 8
    assert s[-1].item() == (BIG + 2) // 3 and s[2**31 + 1].item() == (2**31 + 1) // 3 + 1
    assert s[torch.tensor([BIG - 1], device="cuda")].item() == (BIG + 2) // 3
    del s
    values, indices = fastscan.cummin(x, 0)
    last = BIG - 1  # the last False at or before it (Tie::last)
    assert indices[-1].item() == (last if last % 3 else last - 1) and not values[-1].item()
    del values, indices
    x = x.view(torch.uint8)
    values, indices = fastscan.cummax(x, 0)
    assert values[-1].item() == 1 and indices[-1].item() == BIG - 1 - (BIG - 1) % 3
    del values, indices, x
    y = torch.full((BIG,), -30.0, device="cuda")
    out = fastscan.logcumsumexp(y, 0)
    expected = torch.tensor(-30.0 + math.log(BIG), device="cuda")
    torch.testing.assert_close(out[-1], expected, rtol=1e-4, atol=0)


@pytest.mark.parametrize("cut", [-5, 0, 9])  # fewer rows than segments, exactly as many, more
def test_segment_sum_max_segments(cut):
    keys, feats = keys_and_feats(5000, 6, torch.float32, 40)
    keys = keys.sort().values
    feats.requires_grad_()
    full = fastscan.segment_sum(feats, keys)
    V = int(full.num_segments.item())
    M = V + cut
    out = fastscan.segment_sum(feats, keys, max_segments=M)
    assert out.sums.shape == (M, 6) and out.unique_keys.shape == (M,) and int(out.num_segments.item()) == V
    n = min(M, V)
    assert torch.equal(out.sums[:n], full.sums[:n]) and torch.equal(out.unique_keys[:n], full.unique_keys[:n])
    assert not out.sums[n:].any() and not out.unique_keys[n:].any()
    w = torch.randn(M, 6, device="cuda")
    (g,) = torch.autograd.grad(out.sums, feats, w)
    ids = torch.cat([torch.zeros(1, dtype=torch.long, device="cuda"), (keys[1:] != keys[:-1]).long().cumsum(0)])
    expected = torch.where((ids < M).unsqueeze(1), w[ids.clamp_max(M - 1)], torch.zeros((), device="cuda"))
    assert torch.equal(g, expected)


# ---- The wrappers call the CUDA kernel directly only where the dispatcher would do nothing else.

class _DispatchRecorder(torch.utils._python_dispatch.TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append(str(func))
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("name", ["cummax", "cummin", "cumsum"])
def test_wrappers_keep_modes_profiler_and_autograd(name):
    x = sample((64, 100), torch.float32)
    wrapper, op = getattr(fastscan, name), getattr(ops, name).default
    want = op(x, 1)
    got = wrapper(x, 1)
    for a, b in zip(got if name != "cumsum" else [got], want if name != "cumsum" else [want]):
        assert torch.equal(bits(a), bits(b))
    mode = _DispatchRecorder()
    with mode:
        wrapper(x, 1)
    assert f"fastscan.{name}.default" in mode.seen
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as prof:
        wrapper(x, 1)
    assert f"fastscan::{name}" in [e.key for e in prof.key_averages()]
    leaf = x.clone().requires_grad_()
    out = wrapper(leaf, 1)
    assert (out[0] if name != "cumsum" else out).grad_fn is not None
    with torch.no_grad():
        out = wrapper(leaf, 1)
    assert (out[0] if name != "cumsum" else out).grad_fn is None
    with torch.inference_mode():
        out = wrapper(x, 1)
    assert (out[0] if name != "cumsum" else out).is_inference()
