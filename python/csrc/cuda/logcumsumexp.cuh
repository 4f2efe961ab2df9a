// logcumsumexp as an inclusive scan with the log-add-exp operator (associative, so any grouping
// is the same sum up to rounding; the library folds in an order fixed by the plan).
#pragma once

#include "../kernels.h"

#include <fastscan/inclusive_scan.cuh>

namespace fastscan_ext {
namespace impl {

struct log_add_exp {
  template <class A>
  __host__ __device__ A operator()(const A& a, const A& b) const {
    if (a != a || b != b) {
      return a + b;  // NaN propagates
    }
    const A hi = a < b ? b : a;
    const A lo = a < b ? a : b;
    if (hi == lo && !isfinite(hi)) {
      return hi;  // -inf with -inf, +inf with +inf: lo - hi would be NaN
    }
    if constexpr (std::is_same_v<A, float>) {
      return hi + log1pf(expf(lo - hi));
    } else {
      return hi + log1p(exp(lo - hi));
    }
  }
};

}  // namespace impl

template <class T>
cudaError_t logcumsumexp(void* temp, std::size_t& temp_bytes, const T* in, T* out, Shape3 shape, cudaStream_t stream) {
  return FASTSCAN_NAMESPACE::inclusive_scan(temp, temp_bytes, in, out, impl::log_add_exp{}, shape, stream);
}

}  // namespace fastscan_ext

#define FASTSCAN_EXT_LOGCUMSUMEXP(T) \
  template cudaError_t fastscan_ext::logcumsumexp<T>(void*, std::size_t&, const T*, T*, fastscan_ext::Shape3, cudaStream_t);
