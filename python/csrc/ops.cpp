// The operator schemas (no CUDA here), a CPU kernel that rejects CPU tensors clearly, and the
// Python module whose import loads this library: it also holds direct calls of the hot operators.
#include <torch/python.h>  // pybind11 and torch's tensor casters; not torch/extension.h's C++ frontend
#include <torch/library.h>

#include "scan_ops.h"

TORCH_LIBRARY(fastscan, m) {
  // The fake (meta) kernels are registered in Python, in this module.
  m.set_python_module("fastscan._meta");
  // segment_sum returns its float sums first: torch's opcheck adds up the outputs starting from the
  // first, and an integer first output cannot take the float ones.
  const std::vector<at::Tag> pt2 = {at::Tag::pt2_compliant_tag};
  m.def("cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)", pt2);
  m.def("cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)", pt2);
  m.def("cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", pt2);
  m.def("logcumsumexp(Tensor self, int dim) -> Tensor", pt2);
  m.def("cummaxmin_backward(Tensor grad, Tensor indices, int dim) -> Tensor", pt2);
  m.def("segment_sum(Tensor feats, Tensor keys, int? max_segments=None) -> (Tensor sums, Tensor unique_keys, Tensor "
        "num_segments)",
        pt2);
  m.def("segmented_cumsum(Tensor feats, Tensor keys) -> Tensor", pt2);
  m.def("voxel_sum(Tensor feats, Tensor keys) -> Tensor", pt2);
  m.def("bev_pool(Tensor feats, Tensor keys, int num_cells) -> Tensor", pt2);
  m.def("bev_pool_backward(Tensor grad_grid, Tensor keys, ScalarType dtype) -> Tensor", pt2);
  // Benchmark only: `iters` library calls into preallocated outputs on the current stream.
  m.def("_cummax_raw_bench(Tensor x, int dim, Tensor(a!) values, Tensor(b!) indices, int iters) -> ()");
}

namespace {

// One boxed kernel for every operator on CPU tensors: a RuntimeError that names the operator.
void reject_cpu(const c10::OperatorHandle& op, torch::jit::Stack*) {
  const std::string& name = op.schema().name();  // "fastscan::cummax"
  TORCH_CHECK(false, "fastscan.", name.substr(name.find("::") + 2),
              ": expected CUDA tensors, got a tensor on cpu (fastscan runs on CUDA only; use torch's own operator on "
              "other devices)");
}

}  // namespace

TORCH_LIBRARY_IMPL(fastscan, CPU, m) {
  for (const char* name : {"cummax", "cummin", "cumsum", "logcumsumexp", "cummaxmin_backward", "segment_sum",
                           "segmented_cumsum", "voxel_sum", "bev_pool", "bev_pool_backward", "_cummax_raw_bench"}) {
    m.impl(name, torch::CppFunction::makeFromBoxedFunction<&reject_cpu>());
  }
}

namespace {

// The operators called through the dispatcher from C++: the same kernels (autograd included) as
// torch.ops.fastscan.*, without the Python-side schema matching and boxing of a torch.ops call,
// which cost more host time than the library call itself. The Python wrappers use them outside
// torch.compile's tracing.
template <class Sig>
c10::TypedOperatorHandle<Sig> typed_op(const char* name) {
  return c10::Dispatcher::singleton().findSchemaOrThrow(name, "").typed<Sig>();
}
using PairSig = std::tuple<at::Tensor, at::Tensor>(const at::Tensor&, int64_t);

std::tuple<at::Tensor, at::Tensor> cummax_call(const at::Tensor& x, int64_t dim) {
  static const auto op = typed_op<PairSig>("fastscan::cummax");
  return op.call(x, dim);
}
std::tuple<at::Tensor, at::Tensor> cummin_call(const at::Tensor& x, int64_t dim) {
  static const auto op = typed_op<PairSig>("fastscan::cummin");
  return op.call(x, dim);
}
at::Tensor cumsum_call(const at::Tensor& x, int64_t dim) {
  static const auto op = typed_op<at::Tensor(const at::Tensor&, int64_t, std::optional<at::ScalarType>)>("fastscan::cumsum");
  return op.call(x, dim, std::nullopt);
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "fastscan's torch operators (torch.ops.fastscan) and direct calls of the hot ones";
  m.def("cummax", &cummax_call);
  m.def("cummin", &cummin_call);
  m.def("cumsum", &cumsum_call);
  m.def("enable", &fastscan_ext::enable_aten, "fastscan as the CUDA kernels of torch.cummax / cummin / cumsum / logcumsumexp");
  m.def("disable", &fastscan_ext::disable_aten, "torch's own kernels again");
  m.def("is_enabled", &fastscan_ext::aten_enabled);
}
