//! \file extreme_call.cuh
//! cummax or cummin chosen at run time, for the benchmark and the probe.
#pragma once

#include <fastscan/cummax.cuh>

namespace bench_support {

//! cummax or cummin with the frameworks' tie rule, through the public entry points (the same call
//! against any version of the headers, for A/B runs).
template <class T>
cudaError_t extreme(void* temp, std::size_t& temp_bytes, const T* in, T* values, std::int64_t* indices,
                    fastscan::Shape3 s, fastscan::Extreme e) {
  return e == fastscan::Extreme::max ? fastscan::cummax(temp, temp_bytes, in, values, indices, s)
                                     : fastscan::cummin(temp, temp_bytes, in, values, indices, s);
}

}  // namespace bench_support
