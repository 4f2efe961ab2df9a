// Every operator's kernels, as the registry in ops.cpp names them: the CUDA kernels (scan_ops.cpp,
// segmented_ops.cpp) and the autograd kernels (autograd.cpp); and the scans that the aten overrides
// (aten.cpp) call with inputs torch's own operator has checked.
#pragma once

#include <ATen/core/Tensor.h>

#include <optional>
#include <tuple>

namespace fastscan_ext {

using at::Tensor;
using TensorPair = std::tuple<Tensor, Tensor>;
using SegmentSums = std::tuple<Tensor, Tensor, Tensor>;  // sums, unique_keys, num_segments

// CUDA kernels.
TensorPair cummax_cuda(const Tensor& self, int64_t dim);
TensorPair cummin_cuda(const Tensor& self, int64_t dim);
Tensor cumsum_cuda(const Tensor& self, int64_t dim, std::optional<at::ScalarType> dtype);
Tensor logcumsumexp_cuda(const Tensor& self, int64_t dim);
Tensor cummaxmin_backward_cuda(const Tensor& grad, const Tensor& indices, int64_t dim);
SegmentSums segment_sum_cuda(const Tensor& feats, const Tensor& keys, std::optional<int64_t> max_segments);
Tensor segmented_cumsum_cuda(const Tensor& feats, const Tensor& keys);
Tensor voxel_sum_cuda(const Tensor& feats, const Tensor& keys);
Tensor bev_pool_cuda(const Tensor& feats, const Tensor& keys, int64_t num_cells);
Tensor bev_pool_backward_cuda(const Tensor& grad_grid, const Tensor& keys, at::ScalarType dtype);
void cummax_raw_bench_cuda(const Tensor& x, int64_t dim, const Tensor& values, const Tensor& indices, int64_t iters);

// Autograd kernels (every backend, fake tensors included).
TensorPair cummax_autograd(const Tensor& x, int64_t dim);
TensorPair cummin_autograd(const Tensor& x, int64_t dim);
Tensor cumsum_autograd(const Tensor& x, int64_t dim, std::optional<at::ScalarType> dtype);
Tensor logcumsumexp_autograd(const Tensor& x, int64_t dim);
SegmentSums segment_sum_autograd(const Tensor& feats, const Tensor& keys, std::optional<int64_t> max_segments);
Tensor segmented_cumsum_autograd(const Tensor& feats, const Tensor& keys);
Tensor voxel_sum_autograd(const Tensor& feats, const Tensor& keys);
Tensor bev_pool_autograd(const Tensor& feats, const Tensor& keys, int64_t num_cells);

// cummax (is_max) or cummin of self along dim (wrapped) into values and indices (self's shape).
void extreme_into(const Tensor& self, int64_t dim, bool is_max, const Tensor& values, const Tensor& indices);
// torch.cumsum's result dtype.
at::ScalarType cumsum_result_type(const Tensor& self, std::optional<at::ScalarType> dtype);

// fastscan as the CUDA kernels of torch's cummax, cummin, cumsum and logcumsumexp (aten.cpp).
void enable_aten();
void disable_aten();
bool aten_enabled();

}  // namespace fastscan_ext
