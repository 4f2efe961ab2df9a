// logcumsumexp: the library's (a running maximum with rescaled sums: one exp per element on a
// thread's serial path, one log per output), 16-bit floats scanned in float and rounded once.
#pragma once

#include "../kernels.h"

#include <fastscan/logcumsumexp.cuh>

namespace fastscan_ext {

template <class T>
cudaError_t logcumsumexp(void* temp, std::size_t& temp_bytes, const T* in, T* out, Shape3 shape, cudaStream_t stream) {
  return FASTSCAN_NAMESPACE::logcumsumexp<T>(temp, temp_bytes, in, out, shape, stream);
}

}  // namespace fastscan_ext

#define FASTSCAN_EXT_LOGCUMSUMEXP(T) \
  template cudaError_t fastscan_ext::logcumsumexp<T>(void*, std::size_t&, const T*, T*, fastscan_ext::Shape3, cudaStream_t);
