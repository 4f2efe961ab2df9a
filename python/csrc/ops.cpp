// The operator registry (no CUDA here: the kernels are in scan_ops.cpp, segmented_ops.cpp and
// autograd.cpp) and the Python module whose import loads this library: it also holds direct calls
// of the hot operators.
#include <torch/python.h>  // pybind11 and torch's tensor casters; not torch/extension.h's C++ frontend
#include <torch/library.h>

#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "operators.h"

namespace {

// One boxed kernel for every operator on CPU tensors: a RuntimeError that names the operator.
void reject_cpu(const c10::OperatorHandle& op, torch::jit::Stack*) {
  const std::string& name = op.schema().name();  // "fastscan::cummax"
  TORCH_CHECK(false, "fastscan.", name.substr(name.find("::") + 2),
              ": expected CUDA tensors, got a tensor on cpu (fastscan runs on CUDA only; use torch's own operator on "
              "other devices)");
}

// Defines an operator from its schema with its CUDA kernel, its autograd kernel where it has one, and
// the CPU rejection; tagged for torch.compile unless `pt2` is false.
template <class Cuda, class Autograd = std::nullptr_t>
void define(torch::Library& m, const char* schema, Cuda cuda, Autograd autograd = nullptr, bool pt2 = true) {
  const std::string name(schema, std::strchr(schema, '('));
  const std::vector<at::Tag> tags = pt2 ? std::vector<at::Tag>{at::Tag::pt2_compliant_tag} : std::vector<at::Tag>{};
  m.def(schema, tags);
  m.impl(name.c_str(), torch::dispatch(c10::DispatchKey::CUDA, cuda));
  if constexpr (!std::is_same_v<Autograd, std::nullptr_t>) {
    m.impl(name.c_str(), torch::dispatch(c10::DispatchKey::Autograd, autograd));
  }
  m.impl(name.c_str(), torch::dispatch(c10::DispatchKey::CPU, torch::CppFunction::makeFromBoxedFunction<&reject_cpu>()));
}

}  // namespace

// The operator registry: each operator's schema, CUDA kernel and autograd kernel (operators.h); its
// fake kernel is fastscan/_meta.py's, registered under the same name (tests/test_registration.py
// checks that the two lists agree).
TORCH_LIBRARY(fastscan, m) {
  using namespace fastscan_ext;
  m.set_python_module("fastscan._meta");
  define(m, "cummax(Tensor self, int dim) -> (Tensor values, Tensor indices)", cummax_cuda, cummax_autograd);
  define(m, "cummin(Tensor self, int dim) -> (Tensor values, Tensor indices)", cummin_cuda, cummin_autograd);
  define(m, "cumsum(Tensor self, int dim, *, ScalarType? dtype=None) -> Tensor", cumsum_cuda, cumsum_autograd);
  define(m, "logcumsumexp(Tensor self, int dim) -> Tensor", logcumsumexp_cuda, logcumsumexp_autograd);
  define(m, "cummaxmin_backward(Tensor grad, Tensor indices, int dim) -> Tensor", cummaxmin_backward_cuda);
  // segment_sum returns its float sums first: torch's opcheck adds up the outputs starting from the
  // first, and an integer first output cannot take the float ones.
  define(m, "segment_sum(Tensor feats, Tensor keys, int? max_segments=None) -> (Tensor sums, Tensor unique_keys, "
            "Tensor num_segments)",
         segment_sum_cuda, segment_sum_autograd);
  define(m, "segmented_cumsum(Tensor feats, Tensor keys) -> Tensor", segmented_cumsum_cuda, segmented_cumsum_autograd);
  define(m, "voxel_sum(Tensor feats, Tensor keys) -> Tensor", voxel_sum_cuda, voxel_sum_autograd);
  define(m, "bev_pool(Tensor feats, Tensor keys, int num_cells) -> Tensor", bev_pool_cuda, bev_pool_autograd);
  define(m, "bev_pool_backward(Tensor grad_grid, Tensor keys, ScalarType dtype) -> Tensor", bev_pool_backward_cuda);
  // Benchmark only: `iters` library calls into preallocated outputs on the current stream.
  define(m, "_cummax_raw_bench(Tensor x, int dim, Tensor(a!) values, Tensor(b!) indices, int iters) -> ()",
         cummax_raw_bench_cuda, nullptr, false);
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
