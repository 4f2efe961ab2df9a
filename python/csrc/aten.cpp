// fastscan as the CUDA kernels of torch's own cummax, cummin, cumsum and logcumsumexp, while
// enabled (fastscan.enable()). Registered at runtime on the kernels torch's operators route to
// (_cummax_helper, _cummin_helper, cumsum, _logcumsumexp), so torch keeps its argument checks,
// out= forms, named tensors and autograd formulas; what fastscan does not take (complex and other
// dtypes) goes to torch's own CUDA kernel, called directly. Disabling drops the registrations and
// torch's kernels serve again.
#include "common.h"
#include "operators.h"

#include <ATen/ops/_cummax_helper_cuda_dispatch.h>
#include <ATen/ops/_cummin_helper_cuda_dispatch.h>
#include <ATen/ops/_logcumsumexp_cuda_dispatch.h>
#include <ATen/ops/cumsum_cuda_dispatch.h>
#include <torch/library.h>

#include <memory>
#include <mutex>

namespace fastscan_ext {
namespace {

using at::Tensor;

template <bool IsMax>
void extreme_helper(const Tensor& self, Tensor& values, Tensor& indices, int64_t dim) {
  if (!is_scan_dtype(self.scalar_type())) {
    return IsMax ? at::cuda::_cummax_helper(self, values, indices, dim)
                 : at::cuda::_cummin_helper(self, values, indices, dim);
  }
  const c10::cuda::CUDAGuard guard(self.device());
  extreme_into(self, wrap_dim(self, dim), IsMax, values, indices);
}

Tensor cumsum_aten(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype) {
  const at::ScalarType result = cumsum_result_type(self, dtype);
  if (!is_scan_dtype(self.scalar_type()) || !is_scan_dtype(result) || result == at::kBool) {
    return at::cuda::cumsum(self, dim, dtype);
  }
  return cumsum_cuda(self, dim, dtype);
}

Tensor logcumsumexp_aten(const Tensor& self, int64_t dim) {
  if (!is_float_dtype(self.scalar_type())) {
    return at::cuda::_logcumsumexp(self, dim);
  }
  return logcumsumexp_cuda(self, dim);
}

std::mutex registration_mutex;
std::unique_ptr<torch::Library> registration;  // the overrides, while enabled

}  // namespace

void enable_aten() {
  const std::lock_guard<std::mutex> lock(registration_mutex);
  if (registration) {
    return;
  }
  auto lib = std::make_unique<torch::Library>(torch::Library::IMPL, "aten", c10::DispatchKey::CUDA, __FILE__, __LINE__);
  lib->impl("_cummax_helper", TORCH_FN(extreme_helper<true>));
  lib->impl("_cummin_helper", TORCH_FN(extreme_helper<false>));
  lib->impl("cumsum", TORCH_FN(cumsum_aten));
  lib->impl("_logcumsumexp", TORCH_FN(logcumsumexp_aten));
  registration = std::move(lib);
}

void disable_aten() {
  const std::lock_guard<std::mutex> lock(registration_mutex);
  registration.reset();
}

bool aten_enabled() {
  const std::lock_guard<std::mutex> lock(registration_mutex);
  return registration != nullptr;
}

}  // namespace fastscan_ext
