// voxel_sum, bev_pool and bev_pool_backward from unsorted int64 keys (bev.cuh). One translation
// unit per feature type holds all three: voxel_sum and bev_pool share their sort and scan kernels.
#pragma once

#include "../kernels.h"

#include <fastscan/bev.cuh>

namespace fastscan_ext {
namespace fs = FASTSCAN_NAMESPACE;

template <class T>
cudaError_t voxel_sum(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys, seg_acc_t<T>* out,
                      std::int64_t S, std::int64_t C, cudaStream_t stream) {
  static_assert(std::is_same_v<seg_acc_t<T>, fs::segment_acc_t<T>>, "kernels.h's accumulator is the library's");
  return fs::voxel_sum<T, std::int64_t>(temp, temp_bytes, feats, keys, out, S, C, stream);
}

template <class T>
cudaError_t bev_pool(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys, seg_acc_t<T>* grid,
                     std::int64_t S, std::int64_t C, std::int64_t num_cells, cudaStream_t stream) {
  return fs::bev_pool<T, std::int64_t>(temp, temp_bytes, feats, keys, grid, S, C, num_cells, stream);
}

template <class T>
cudaError_t bev_pool_backward(void* temp, std::size_t& temp_bytes, const seg_acc_t<T>* grad_grid,
                              const std::int64_t* keys, T* grad_feats, std::int64_t S, std::int64_t C,
                              std::int64_t num_cells, cudaStream_t stream) {
  return fs::bev_pool_backward<T, std::int64_t>(temp, temp_bytes, grad_grid, keys, grad_feats, S, C, num_cells, stream);
}

}  // namespace fastscan_ext

#define FASTSCAN_EXT_BEV(T)                                                                                         \
  template cudaError_t fastscan_ext::voxel_sum<T>(void*, std::size_t&, const T*, const std::int64_t*,             \
                                                  fastscan_ext::seg_acc_t<T>*, std::int64_t, std::int64_t,        \
                                                  cudaStream_t);                                                  \
  template cudaError_t fastscan_ext::bev_pool<T>(void*, std::size_t&, const T*, const std::int64_t*,              \
                                                 fastscan_ext::seg_acc_t<T>*, std::int64_t, std::int64_t,         \
                                                 std::int64_t, cudaStream_t);                                     \
  template cudaError_t fastscan_ext::bev_pool_backward<T>(void*, std::size_t&, const fastscan_ext::seg_acc_t<T>*, \
                                                          const std::int64_t*, T*, std::int64_t, std::int64_t,    \
                                                          std::int64_t, cudaStream_t);
