// The CUDA kernels of the scans that the aten overrides (aten.cpp) call besides the fastscan
// operators: inputs already checked by torch's own operator.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>

namespace fastscan_ext {

// cummax (is_max) or cummin of self along dim (wrapped) into values and indices (self's shape).
void extreme_into(const at::Tensor& self, int64_t dim, bool is_max, const at::Tensor& values, const at::Tensor& indices);
// torch.cumsum's result dtype.
at::ScalarType cumsum_result_type(const at::Tensor& self, std::optional<at::ScalarType> dtype);
at::Tensor cumsum_cuda(const at::Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype);
at::Tensor logcumsumexp_cuda(const at::Tensor& self, int64_t dim);

// fastscan as the CUDA kernels of torch's cummax, cummin, cumsum and logcumsumexp (aten.cpp).
void enable_aten();
void disable_aten();
bool aten_enabled();

}  // namespace fastscan_ext
