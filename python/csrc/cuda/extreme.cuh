// cummax / cummin with torch's rule fixed at compile time (Tie::last: one operator per kernel);
// cummax and cummin of a type run one kernel, so a type's two are instantiated in one file.
#pragma once

#include "../kernels.h"

#include <fastscan/cummax.cuh>

namespace fastscan_ext {
namespace fs = FASTSCAN_NAMESPACE;

template <class T>
cudaError_t cummax(void* temp, std::size_t& temp_bytes, const T* in, T* values, std::int64_t* indices, Shape3 shape,
                   cudaStream_t stream) {
  return fs::cummax<T, std::int64_t, fs::Tie::last>(temp, temp_bytes, in, values, indices, shape, stream);
}

template <class T>
cudaError_t cummin(void* temp, std::size_t& temp_bytes, const T* in, T* values, std::int64_t* indices, Shape3 shape,
                   cudaStream_t stream) {
  return fs::cummin<T, std::int64_t, fs::Tie::last>(temp, temp_bytes, in, values, indices, shape, stream);
}

}  // namespace fastscan_ext

#define FASTSCAN_EXT_EXTREME(NAME, T)                                                                        \
  template cudaError_t fastscan_ext::NAME<T>(void*, std::size_t&, const T*, T*, std::int64_t*, fastscan_ext::Shape3, \
                                             cudaStream_t);
