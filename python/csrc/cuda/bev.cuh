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

// bev_pool from unsorted keys as a plan (the sort) and the pooling pass, in one temp storage. The
// library's one-call form asks the pooling pass for its size with a plan that holds no points yet,
// which the pass rejects for S > 0 (cudaErrorInvalidValue), so the size query asks with a
// placeholder plan: a size query reads no pointer, and the pass's size depends on S and C alone.
template <class T>
cudaError_t bev_pool(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys, seg_acc_t<T>* grid,
                     std::int64_t S, std::int64_t C, std::int64_t num_cells, cudaStream_t stream) {
  fs::bev_pool_plan<std::int64_t> plan{keys, keys, S, num_cells};
  std::size_t plan_bytes = 0;
  std::size_t pool_bytes = 0;
  cudaError_t err = fs::make_bev_pool_plan<std::int64_t>(nullptr, plan_bytes, keys, S, num_cells, plan, stream);
  if (err == cudaSuccess) {
    err = fs::bev_pool<T, std::int64_t>(nullptr, pool_bytes, plan, feats, grid, C, stream);
  }
  if (err != cudaSuccess) {
    return err;
  }
  plan_bytes = (plan_bytes + 255) / 256 * 256;
  if (temp == nullptr) {
    temp_bytes = plan_bytes + pool_bytes;
    return cudaSuccess;
  }
  if (temp_bytes < plan_bytes + pool_bytes) {
    return cudaErrorInvalidValue;
  }
  err = fs::make_bev_pool_plan<std::int64_t>(temp, plan_bytes, keys, S, num_cells, plan, stream);
  if (err != cudaSuccess) {
    return err;
  }
  return fs::bev_pool<T, std::int64_t>(static_cast<unsigned char*>(temp) + plan_bytes, pool_bytes, plan, feats, grid, C,
                                       stream);
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
