//! \file logcumsumexp.cuh
//! logcumsumexp along an axis: out[i] = log(sum over the row up to i of exp(in[j])), as torch.
#pragma once

#include <fastscan/dispatch/dispatch.cuh>
#include <fastscan/problem/logsumexp.cuh>
#include <fastscan/shape.hpp>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

template <class Temp, class T>
cudaError_t logsumexp_scan(Temp temp, const T* in, T* out, Shape3 shape, cudaStream_t stream) {
  const std::int64_t n = shape.outer * shape.len * shape.inner;
  return run(temp, logsumexp_problem<T>{{}, in, out}, shape, stream,
             in != nullptr && out != nullptr && in_place_or_apart(span_of(in, n), span_of(out, n)));
}

}  // namespace detail

//! Running log-sum-exp along `len` of `shape` for float, double, __half and __nv_bfloat16: a running
//! maximum with the sum of exp(x - max) rescaled as the maximum moves (one exp per element, one log
//! per output), 16-bit floats in float and rounded once. As torch: -inf rows give -inf, +inf and
//! NaN propagate. Equal to a float64 reference within rounding; bitwise the same run to run (the
//! grouping depends on the plan only). In place (`out == in`) allowed. Two-phase temp storage and
//! errors as for cumsum.
template <class T>
cudaError_t logcumsumexp(void* d_temp, std::size_t& temp_bytes, const T* in, T* out, Shape3 shape,
                         cudaStream_t stream = nullptr) {
  return detail::logsumexp_scan(detail::caller_temp{d_temp, temp_bytes}, in, out, shape, stream);
}

//! logcumsumexp with stream-ordered temp storage.
template <class T>
cudaError_t logcumsumexp(const T* in, T* out, Shape3 shape, cudaStream_t stream = nullptr) {
  return detail::logsumexp_scan(detail::stream_temp{}, in, out, shape, stream);
}

FASTSCAN_NAMESPACE_END
