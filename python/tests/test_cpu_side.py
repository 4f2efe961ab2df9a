"""What runs without a GPU: CPU rejection, fake kernels (shapes, dtypes, errors), the wrappers'
return types, autograd on meta tensors and torch.compile tracing."""
import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import fastscan
from fastscan._meta import FEATURE_DTYPES, FLOAT_DTYPES, SCAN_DTYPES

ops = torch.ops.fastscan
CPU_MESSAGE = "expected CUDA tensors, got a tensor on cpu"


# ---- CPU tensors are rejected with a RuntimeError that names the operator.

def _cpu_calls():
    x = torch.randn(4, 5)
    keys = torch.zeros(4, dtype=torch.int64)
    idx = torch.zeros(4, 5, dtype=torch.int64)
    return {
        "cummax": lambda: ops.cummax(x, 1),
        "cummin": lambda: ops.cummin(x, 1),
        "cumsum": lambda: ops.cumsum(x, 1),
        "logcumsumexp": lambda: ops.logcumsumexp(x, 1),
        "cummaxmin_backward": lambda: ops.cummaxmin_backward(x, idx, 1),
        "segment_sum": lambda: ops.segment_sum(x, keys),
        "segmented_cumsum": lambda: ops.segmented_cumsum(x, keys),
        "voxel_sum": lambda: ops.voxel_sum(x, keys),
        "bev_pool": lambda: ops.bev_pool(x, keys, 8),
        "bev_pool_backward": lambda: ops.bev_pool_backward(x, keys, torch.float32),
        "_cummax_raw_bench": lambda: ops._cummax_raw_bench(x, 1, x.clone(), idx, 1),
    }


@pytest.mark.parametrize("name", sorted(_cpu_calls()))
def test_cpu_tensors_rejected(name):
    with pytest.raises(RuntimeError, match=f"fastscan.{name}: {CPU_MESSAGE}"):
        _cpu_calls()[name]()


def test_cpu_rejected_with_grad_and_through_wrappers():
    x = torch.randn(3, 4, requires_grad=True)
    for call in (lambda: fastscan.cummax(x, 0), lambda: fastscan.cumsum(x, -1), lambda: fastscan.logcumsumexp(x, 0)):
        with pytest.raises(RuntimeError, match=CPU_MESSAGE):
            call()


# ---- Fake CUDA tensors: output shapes and dtypes as the CUDA kernels make them.

@pytest.fixture
def fake():
    with FakeTensorMode() as mode:
        yield mode


SHAPES_DIMS = [((), 0), ((), -1), ((0,), 0), ((5, 0), 1), ((7,), 0), ((3, 4, 5), 1), ((3, 4, 5), -1), ((2, 3), -2)]


@pytest.mark.parametrize("dtype", SCAN_DTYPES)
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
def test_fake_extreme(fake, dtype, shape, dim):
    x = torch.empty(shape, dtype=dtype, device="cuda")
    for op in (ops.cummax, ops.cummin):
        values, indices = op(x, dim)
        assert values.device.type == "cuda" and values.shape == x.shape and values.dtype == dtype
        assert indices.shape == x.shape and indices.dtype == torch.int64
        assert values.is_contiguous() and indices.is_contiguous()


@pytest.mark.parametrize("dtype", SCAN_DTYPES)
@pytest.mark.parametrize("requested", [None, torch.int32, torch.int8, torch.float16, torch.float32, torch.float64])
def test_fake_cumsum_dtype_is_torch_s(dtype, requested):
    # torch's own meta kernel gives torch.cumsum's result dtype.
    expected = torch.cumsum(torch.empty(3, 4, dtype=dtype, device="meta"), 1, dtype=requested).dtype
    with FakeTensorMode():
        out = ops.cumsum(torch.empty(3, 4, dtype=dtype, device="cuda"), 1, dtype=requested)
    assert out.dtype == expected and out.shape == (3, 4)


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
def test_fake_logcumsumexp_and_backward(fake, dtype):
    x = torch.empty(4, 6, dtype=dtype, device="cuda")
    assert ops.logcumsumexp(x, -1).dtype == dtype
    idx = torch.empty(4, 6, dtype=torch.int64, device="cuda")
    g = ops.cummaxmin_backward(x, idx, 0)
    assert g.shape == x.shape and g.dtype == dtype


@pytest.mark.parametrize("dtype", FEATURE_DTYPES)
@pytest.mark.parametrize("key_dtype", [torch.int32, torch.int64])
def test_fake_segmented(fake, dtype, key_dtype):
    S, C = 10, 3
    acc = torch.float64 if dtype == torch.float64 else torch.float32
    feats = torch.empty(S, C, dtype=dtype, device="cuda")
    keys = torch.empty(S, dtype=key_dtype, device="cuda")
    sums, unique_keys, count = ops.segment_sum(feats, keys)
    assert unique_keys.shape == (S,) and unique_keys.dtype == key_dtype
    assert sums.shape == (S, C) and sums.dtype == acc
    assert count.shape == (1,) and count.dtype == torch.int64
    assert ops.segmented_cumsum(feats, keys).shape == (S, C)
    assert ops.voxel_sum(feats, keys).dtype == acc
    grid = ops.bev_pool(feats, keys, 7)
    assert grid.shape == (7, C) and grid.dtype == acc
    grad = ops.bev_pool_backward(grid, keys, dtype)
    assert grad.shape == (S, C) and grad.dtype == dtype


# ---- Errors the fake kernels share with the CUDA ones.

@pytest.mark.parametrize("dtype", [torch.complex64, torch.uint16, torch.float8_e4m3fn])
def test_unsupported_scan_dtype(fake, dtype):
    x = torch.empty(3, dtype=dtype, device="cuda")
    with pytest.raises(RuntimeError, match=r"fastscan.cummax: dtype torch\.\w+ is not supported"):
        ops.cummax(x, 0)
    with pytest.raises(RuntimeError, match=r"fastscan.cumsum: dtype torch\.\w+ is not supported"):
        ops.cumsum(x, 0)


def test_other_dtype_errors(fake):
    x = torch.empty(3, dtype=torch.int64, device="cuda")
    with pytest.raises(RuntimeError, match="fastscan.cumsum: dtype=torch.bool is not supported"):
        ops.cumsum(x, 0, dtype=torch.bool)
    with pytest.raises(RuntimeError, match="fastscan.logcumsumexp: dtype torch.int64 is not supported"):
        ops.logcumsumexp(x, 0)
    feats = torch.empty(3, 2, dtype=torch.int32, device="cuda")
    with pytest.raises(RuntimeError, match="fastscan.segment_sum: feats dtype torch.int32 is not supported"):
        ops.segment_sum(feats, x)


def test_dim_out_of_range(fake):
    with pytest.raises(IndexError, match="Dimension out of range"):
        ops.cummax(torch.empty(2, 3, device="cuda"), 2)
    with pytest.raises(IndexError, match="Dimension out of range"):
        ops.cumsum(torch.empty((), device="cuda"), 1)


def test_bad_segment_arguments(fake):
    feats = torch.empty(4, 3, device="cuda")
    with pytest.raises(RuntimeError, match="keys must be 1-D with 4 entries"):
        ops.voxel_sum(feats, torch.empty(5, dtype=torch.int64, device="cuda"))
    with pytest.raises(RuntimeError, match="keys must be torch.int32 or torch.int64"):
        ops.voxel_sum(feats, torch.empty(4, dtype=torch.int16, device="cuda"))
    with pytest.raises(RuntimeError, match="feats must be 2-D"):
        ops.segmented_cumsum(torch.empty(4, device="cuda"), torch.empty(4, dtype=torch.int64, device="cuda"))
    with pytest.raises(RuntimeError, match="num_cells must be positive"):
        ops.bev_pool(feats, torch.empty(4, dtype=torch.int64, device="cuda"), 0)


# ---- Meta tensors run through the dispatcher: wrappers and autograd.

def test_wrapper_return_types():
    x = torch.empty(3, 4, device="meta")
    for fn, kind in ((fastscan.cummax, torch.return_types.cummax), (fastscan.cummin, torch.return_types.cummin)):
        r = fn(x, 1)
        assert type(r) is kind and type(r) is type(getattr(torch, fn.__name__)(x, 1))
        assert r.values.shape == (3, 4) and r.indices.dtype == torch.int64
        values, indices = r
        assert values is r.values and indices is r.indices
    s = fastscan.segment_sum(torch.empty(5, 2, device="meta"), torch.empty(5, dtype=torch.int64, device="meta"))
    assert isinstance(s, fastscan.SegmentSum) and s.sums.shape == (5, 2) and s.num_segments.shape == (1,)
    assert fastscan.cumsum(torch.empty(3, dtype=torch.int8, device="meta"), 0).dtype == torch.int64


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16])
def test_meta_backward(dtype):
    x = torch.empty(4, 5, dtype=dtype, device="meta", requires_grad=True)
    for loss in (lambda: fastscan.cummax(x, 1).values.sum(), lambda: fastscan.cummin(x, 0).values.sum(),
                 lambda: fastscan.cumsum(x, -1, dtype=torch.float64).sum(),
                 lambda: fastscan.logcumsumexp(x, 0).sum()):
        (grad,) = torch.autograd.grad(loss(), x)
        assert grad.shape == x.shape and grad.dtype == dtype
    keys = torch.empty(4, dtype=torch.int32, device="meta")
    for loss in (lambda: fastscan.segment_sum(x, keys).sums.sum(), lambda: fastscan.segmented_cumsum(x, keys).sum(),
                 lambda: fastscan.voxel_sum(x, keys).sum(), lambda: fastscan.bev_pool(x, keys, 9).sum()):
        (grad,) = torch.autograd.grad(loss(), x)
        assert grad.shape == x.shape and grad.dtype == dtype


@pytest.mark.parametrize("name", ["cummax", "cummin", "bev_pool"])
def test_meta_double_backward(name):
    # The backward ops are linear in the gradient: their own gradients exist (a gather at the indices,
    # bev_pool itself), never zeros with a warning. Shapes and graph on meta tensors; values: test_gpu.py.
    x = torch.empty(4, 5, device="meta", requires_grad=True)
    keys = torch.empty(4, dtype=torch.int64, device="meta")
    forward = {"cummax": lambda: fastscan.cummax(x, 1).values, "cummin": lambda: fastscan.cummin(x, 0).values,
               "bev_pool": lambda: fastscan.bev_pool(x, keys, 9)}[name]
    out = forward()
    go = torch.empty(out.shape, device="meta", requires_grad=True)
    (gx,) = torch.autograd.grad(out, x, go, create_graph=True)
    assert gx.requires_grad
    (ggo,) = torch.autograd.grad(gx, go, torch.empty(gx.shape, device="meta"))
    assert ggo.shape == go.shape


def test_indices_are_not_differentiable():
    x = torch.empty(4, 5, device="meta", requires_grad=True)
    values, indices = fastscan.cummax(x, 1)
    assert values.requires_grad and not indices.requires_grad
    out = fastscan.segment_sum(x, torch.empty(4, dtype=torch.int64, device="meta"))
    assert out.sums.requires_grad and not out.unique_keys.requires_grad and not out.num_segments.requires_grad


def test_cumsum_into_an_integer_dtype_follows_torch():
    for device, fn in (("cpu", torch.cumsum), ("meta", fastscan.cumsum), ("meta", torch.ops.fastscan.cumsum)):
        x = torch.ones(4, 5, device=device, requires_grad=True)
        with pytest.raises(RuntimeError, match="Autograd not support dtype: Long"):
            fn(x, 1, dtype=torch.int64)
        assert not fn(x.detach(), 1, dtype=torch.int64).requires_grad
        assert fn(x, 1, dtype=torch.float64).requires_grad


# ---- torch.compile: traced with fake tensors, no graph break.

def _model(x, keys):
    v, i = fastscan.cummax(x, 1)
    m = fastscan.cummin(x, 0).values
    s = fastscan.cumsum(x, -1)
    lse = fastscan.logcumsumexp(x, 1)
    seg = fastscan.segment_sum(x, keys)
    pooled = fastscan.bev_pool(x, keys, 16)
    return (v + m + s + lse + fastscan.segmented_cumsum(x, keys) + fastscan.voxel_sum(x, keys)).sum() \
        + seg.sums.sum() + pooled.sum() + i.sum()


def test_compile_fullgraph_forward_and_backward():
    torch._dynamo.reset()
    compiled = torch.compile(_model, backend="aot_eager", fullgraph=True)
    x = torch.empty(8, 4, device="meta", requires_grad=True)
    keys = torch.empty(8, dtype=torch.int64, device="meta")
    loss = compiled(x, keys)
    (grad,) = torch.autograd.grad(loss, x)
    assert grad.shape == x.shape


def test_make_fx_with_fake_cuda_tensors():
    from torch.fx.experimental.proxy_tensor import make_fx

    with FakeTensorMode():
        x = torch.empty(8, 4, device="cuda")
        keys = torch.empty(8, dtype=torch.int64, device="cuda")
        gm = make_fx(_model)(x, keys)
    targets = {str(n.target) for n in gm.graph.nodes if n.op == "call_function"}
    for name in ("cummax", "cummin", "cumsum", "logcumsumexp", "segment_sum", "segmented_cumsum", "voxel_sum",
                 "bev_pool"):
        assert f"fastscan.{name}.default" in targets


def test_compile_dynamic_shapes():
    torch._dynamo.reset()
    fn = torch.compile(lambda x, k: fastscan.cumsum(x, 0) + fastscan.cummax(x, 0).values
                       + fastscan.segment_sum(x, k).sums, backend="aot_eager", fullgraph=True, dynamic=True)
    for n in (5, 9):
        x = torch.empty(n, 3, device="meta", requires_grad=True)
        out = fn(x, torch.empty(n, dtype=torch.int64, device="meta"))
        assert out.shape == (n, 3)
        (grad,) = torch.autograd.grad(out.sum(), x)
        assert grad.shape == (n, 3)


@pytest.mark.parametrize("name", ["cummax", "cummin", "cumsum", "logcumsumexp", "segment_sum", "segmented_cumsum",
                                  "voxel_sum"])
def test_opcheck_on_meta(name):
    x = torch.empty(6, 5, device="meta", requires_grad=True)
    keyed = name.startswith(("seg", "voxel"))
    args = (x, torch.empty(6, dtype=torch.int64, device="meta")) if keyed else (x, 1)
    torch.library.opcheck(getattr(ops, name).default, args,
                          test_utils=("test_schema", "test_faketensor", "test_aot_dispatch_dynamic"))


# ---- The wrappers honour __torch_function__: fx traces them as calls, modes and subclasses see them.

def _scans(x):
    return fastscan.cummax(x, 1).values + fastscan.cummin(x, 1).values + fastscan.cumsum(x, 1)


def test_fx_traces_the_wrappers_as_calls():
    graph = torch.fx.symbolic_trace(_scans).graph
    targets = [n.target for n in graph.nodes if n.op == "call_function"]
    for wrapper in (fastscan.cummax, fastscan.cummin, fastscan.cumsum):
        assert wrapper in targets


class _Recorder(torch.overrides.TorchFunctionMode):
    """Answers every fastscan wrapper with zeros (no kernel runs: CPU tensors) and records it."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (fastscan.cummax, fastscan.cummin):
            self.seen.append(func.__name__)
            x = args[0]
            return torch.return_types.cummax((torch.zeros_like(x), torch.zeros_like(x, dtype=torch.int64)))
        if func is fastscan.cumsum:
            self.seen.append(func.__name__)
            return torch.zeros_like(args[0])
        return func(*args, **kwargs)


def test_torch_function_modes_see_the_wrappers():
    mode = _Recorder()
    with mode:
        out = _scans(torch.randn(3, 4))
    assert mode.seen == ["cummax", "cummin", "cumsum"]
    assert torch.equal(out, torch.zeros(3, 4))


class _Tagged(torch.Tensor):
    """A subclass that answers the fastscan wrappers itself."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (fastscan.cummax, fastscan.cummin, fastscan.cumsum):
            return func.__name__
        return super().__torch_function__(func, types, args, kwargs or {})


def test_tensor_subclasses_see_the_wrappers():
    x = torch.randn(3, 4).as_subclass(_Tagged)
    assert fastscan.cummax(x, 1) == "cummax"
    assert fastscan.cummin(x, 0) == "cummin"
    assert fastscan.cumsum(x, 1, dtype=torch.float64) == "cumsum"


# ---- The fake kernels make the real ones' device checks (no GPU needed: fake CUDA tensors).

@pytest.mark.skipif(torch.cuda.is_available() and torch.cuda.device_count() < 2,
                    reason="where CUDA is present, fake cuda:1 tensors need a second GPU")
@pytest.mark.parametrize("name", ["cummaxmin_backward", "bev_pool_backward", "segment_sum"])
def test_fake_kernels_reject_tensors_on_two_devices(name):
    with FakeTensorMode():
        grad = torch.empty(4, 5, device="cuda:0")
        calls = {
            "cummaxmin_backward": lambda: ops.cummaxmin_backward(grad, torch.empty(4, 5, dtype=torch.int64,
                                                                                   device="cuda:1"), 1),
            "bev_pool_backward": lambda: ops.bev_pool_backward(grad, torch.empty(7, dtype=torch.int64, device="cuda:1"),
                                                               torch.float32),
            "segment_sum": lambda: ops.segment_sum(grad, torch.empty(4, dtype=torch.int64, device="cuda:1")),
        }
        with pytest.raises(RuntimeError, match=f"fastscan.{name}: .* must be on the input's device cuda:0, got cuda:1"):
            calls[name]()


def test_fake_segment_sum_max_segments():
    feats = torch.randn(50, 8, device="meta", dtype=torch.float16)
    keys = torch.zeros(50, device="meta", dtype=torch.int32)
    sums, unique_keys, count = fastscan.segment_sum(feats, keys, max_segments=7)
    assert sums.shape == (7, 8) and sums.dtype == torch.float32 and unique_keys.shape == (7,)
    assert unique_keys.dtype == torch.int32 and count.shape == (1,)
    assert fastscan.segment_sum(feats, keys).sums.shape == (50, 8)
    with pytest.raises(RuntimeError, match="max_segments must be >= 0"):
        fastscan.segment_sum(feats, keys, max_segments=-1)
