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

// The operator inlines expf / log1pf at every combine, so its code and compile time grow with the
// items a thread holds: 16 a row thread and 8 rows a column thread (no wide column kernel) keep it
// under half the default's, with work enough per tile for an operator of its cost.
namespace FASTSCAN_NAMESPACE {
namespace policy {
template <class T>
struct tuning<T, T, fastscan_ext::impl::log_add_exp> : size_tuning<sizeof(T), sizeof(T)> {
  static constexpr int row_items(bool) { return 16; }
  static constexpr int column_wide_items(bool, bool, bool) { return size_tuning<sizeof(T), sizeof(T)>::column_items(); }
};
}  // namespace policy
}  // namespace FASTSCAN_NAMESPACE

#define FASTSCAN_EXT_LOGCUMSUMEXP(T) \
  template cudaError_t fastscan_ext::logcumsumexp<T>(void*, std::size_t&, const T*, T*, fastscan_ext::Shape3, cudaStream_t);
