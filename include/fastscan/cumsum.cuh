//! \file cumsum.cuh
//! Inclusive and exclusive cumulative sums along an axis.
#pragma once

#include <fastscan/dispatch/dispatch.cuh>
#include <fastscan/problem/sum.cuh>
#include <fastscan/shape.hpp>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Sums accumulate in the output type, except 16-bit float outputs, which accumulate in float; bool
//! inputs are read as bytes (stored_t).
template <class T, class Out>
struct sum_entry {
  static_assert(!std::is_same_v<Out, bool>, "cumsum output must be a number; bool inputs sum into an integer type");
  using acc = arith_t<Out>;
  using problem = sum_problem<stored_t<T>, Out, acc>;
};

//! An inclusive or exclusive sum, with either kind of temp storage (dispatch.cuh).
template <class Temp, class T, class Out>
cudaError_t sum_scan(Temp temp, const T* in, Out* out, Shape3 shape, bool exclusive, cudaStream_t stream) {
  using problem = typename sum_entry<T, Out>::problem;
  const std::int64_t n = shape.outer * shape.len * shape.inner;
  return run(temp, problem{{}, reinterpret_cast<const stored_t<T>*>(in), out, exclusive}, shape, stream,
             in != nullptr && out != nullptr && in_place_or_apart(span_of(in, n), span_of(out, n)));
}

}  // namespace detail

//! Inclusive cumulative sum along `len` of `shape`. `Out` may be wider than `T` (int64 for
//! integers and bool, as PyTorch promotes; float for half/bfloat16); 16-bit float outputs are
//! accumulated in float and rounded once per element.
//!
//! Floating-point results are bitwise reproducible from run to run on the same device and shape:
//! the grouping of additions depends only on the plan, never on timing. Two-phase temp storage and
//! errors as for cummax. In place (`out == in`) is allowed when `Out` is `T`; any other overlap of
//! `in` and `out` is rejected.
template <class T, class Out = T>
cudaError_t cumsum(void* d_temp, std::size_t& temp_bytes, const T* in, Out* out, Shape3 shape,
                   cudaStream_t stream = nullptr) {
  return detail::sum_scan(detail::caller_temp{d_temp, temp_bytes}, in, out, shape, false, stream);
}

//! Exclusive cumulative sum: out[i] is the sum of the row before i (0 at each row start).
template <class T, class Out = T>
cudaError_t exclusive_cumsum(void* d_temp, std::size_t& temp_bytes, const T* in, Out* out, Shape3 shape,
                             cudaStream_t stream = nullptr) {
  return detail::sum_scan(detail::caller_temp{d_temp, temp_bytes}, in, out, shape, true, stream);
}

//! cumsum with stream-ordered temp storage.
template <class T, class Out = T>
cudaError_t cumsum(const T* in, Out* out, Shape3 shape, cudaStream_t stream = nullptr) {
  return detail::sum_scan(detail::stream_temp{}, in, out, shape, false, stream);
}

//! exclusive_cumsum with stream-ordered temp storage.
template <class T, class Out = T>
cudaError_t exclusive_cumsum(const T* in, Out* out, Shape3 shape, cudaStream_t stream = nullptr) {
  return detail::sum_scan(detail::stream_temp{}, in, out, shape, true, stream);
}

//! The plan cumsum<T, Out> (and exclusive_cumsum) takes for `shape` on the current device, in words:
//! the kernel, its tiles and whether they look back. Host only: launches nothing. For reporting a
//! shape that runs slower than its bytes say.
template <class T, class Out = T>
std::string explain_cumsum(Shape3 shape) {
  return detail::explain_problem<typename detail::sum_entry<T, Out>::problem>(shape);
}

FASTSCAN_NAMESPACE_END
