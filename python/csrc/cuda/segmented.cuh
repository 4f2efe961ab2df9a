// segment_sum and segmented_cumsum over [S, C] features with int64 keys (segmented.cuh).
#pragma once

#include "../kernels.h"

#include <fastscan/segmented.cuh>

namespace fastscan_ext {
namespace fs = FASTSCAN_NAMESPACE;

template <class T>
cudaError_t segment_sum(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys,
                        std::int64_t* unique_keys, seg_acc_t<T>* sums, std::int64_t* num_segments, std::int64_t S,
                        std::int64_t C, std::int64_t M, cudaStream_t stream) {
  static_assert(std::is_same_v<seg_acc_t<T>, fs::segment_acc_t<T>>, "kernels.h's accumulator is the library's");
  return fs::segment_sum<T, std::int64_t>(temp, temp_bytes, feats, keys, unique_keys, sums, num_segments, S, C, stream, M);
}

template <class T>
cudaError_t segmented_cumsum(void* temp, std::size_t& temp_bytes, const T* feats, const std::int64_t* keys,
                             seg_acc_t<T>* out, std::int64_t S, std::int64_t C, cudaStream_t stream) {
  static_assert(std::is_same_v<seg_acc_t<T>, fs::segment_acc_t<T>>, "kernels.h's accumulator is the library's");
  return fs::segmented_cumsum<T, std::int64_t>(temp, temp_bytes, feats, keys, out, S, C, stream);
}

}  // namespace fastscan_ext

#define FASTSCAN_EXT_SEGMENT_SUM(T)                                                                          \
  template cudaError_t fastscan_ext::segment_sum<T>(void*, std::size_t&, const T*, const std::int64_t*,    \
                                                    std::int64_t*, fastscan_ext::seg_acc_t<T>*, std::int64_t*, \
                                                    std::int64_t, std::int64_t, std::int64_t, cudaStream_t);
#define FASTSCAN_EXT_SEGMENTED_CUMSUM(T)                                                                   \
  template cudaError_t fastscan_ext::segmented_cumsum<T>(void*, std::size_t&, const T*, const std::int64_t*, \
                                                         fastscan_ext::seg_acc_t<T>*, std::int64_t, std::int64_t, \
                                                         cudaStream_t);
