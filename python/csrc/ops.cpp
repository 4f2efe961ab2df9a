// The operator schemas (no CUDA here), a CPU kernel that rejects CPU tensors clearly, and the
// empty Python module whose import loads this library.
#include <Python.h>

#include <torch/library.h>

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
  m.def("segment_sum(Tensor feats, Tensor keys) -> (Tensor sums, Tensor unique_keys, Tensor num_segments)", pt2);
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

extern "C" {
// `import fastscan._C` loads this shared object, which runs the registrations above.
PyObject* PyInit__C(void) {
  static PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", "fastscan's torch operators (torch.ops.fastscan)", -1,
                               nullptr};
  return PyModule_Create(&module);
}
}
