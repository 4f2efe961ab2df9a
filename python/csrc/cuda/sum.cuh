// cumsum: integers and bool into int64, floats into their own type (16-bit floats accumulate in
// float and round once per element, in the library).
#pragma once

#include "../kernels.h"

#include <fastscan/cumsum.cuh>

namespace fastscan_ext {

template <class T, class Out>
cudaError_t cumsum(void* temp, std::size_t& temp_bytes, const T* in, Out* out, Shape3 shape, cudaStream_t stream) {
  return FASTSCAN_NAMESPACE::cumsum<T, Out>(temp, temp_bytes, in, out, shape, stream);
}

}  // namespace fastscan_ext

#define FASTSCAN_EXT_CUMSUM(T, OUT)                                                                               \
  template cudaError_t fastscan_ext::cumsum<T, OUT>(void*, std::size_t&, const T*, OUT*, fastscan_ext::Shape3, \
                                                    cudaStream_t);
