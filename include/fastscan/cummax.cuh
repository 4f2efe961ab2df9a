//! \file cummax.cuh
//! cummax / cummin: running extreme and its index along an axis, with framework semantics.
#pragma once

#include <fastscan/detail/dispatch.cuh>
#include <fastscan/detail/problems.cuh>
#include <fastscan/shape.hpp>

#include <limits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

template <class T, class Index>
struct extreme_entry {
  static_assert(std::is_integral_v<Index> && std::is_signed_v<Index> && (sizeof(Index) == 4 || sizeof(Index) == 8),
                "cummax/cummin indices are 32- or 64-bit signed integers");
  template <class Op>
  using problem = extreme_problem<T, Index, Op>;

  static bool valid(const T* in, const T* values, const Index* indices, Shape3 shape) {
    (void)shape;
    return in != nullptr && values != nullptr && indices != nullptr;
  }
  //! The last position of a row must fit the index type.
  static bool index_fits(Shape3 shape) {
    return shape.len - 1 <= static_cast<std::int64_t>(std::numeric_limits<Index>::max());
  }
};

}  // namespace detail

//! Running value-index extreme along `len` of `shape`: `values[i]` is the extreme of the row up
//! to i, `indices[i]` its position within the row.
//!
//! Semantics of PyTorch and Paddle: NaN propagates (it beats every number, for max and min alike);
//! among equal extremes, and among NaNs, `Tie::last` keeps the most recent index (the framework
//! rule), `Tie::first` the earliest. Bit-exact for every grouping: the operator is associative.
//!
//! Two-phase: with `d_temp == nullptr`, writes the temp size to `temp_bytes` and returns. Returns
//! cudaErrorInvalidValue, before any launch and without writing outputs, for negative extents,
//! null pointers with a non-empty shape, temp storage that is not 16-byte aligned, an `Index` too
//! narrow for `len`, or a `temp_bytes` below what the plan needs. In place (`values == in`) is
//! allowed. Reads and writes each element once: O(numel) work, one kernel launch (plus a memset of
//! the tile state under graph capture).
template <class T, class Index>
cudaError_t extreme_scan(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices,
                         Shape3 shape, Extreme extreme, Tie tie, cudaStream_t stream = nullptr) {
  using entry = detail::extreme_entry<T, Index>;
  if (!entry::index_fits(shape)) {
    return cudaErrorInvalidValue;
  }
  return with_value_index_op<T>(extreme, tie, [&](auto op) {
    using problem = typename entry::template problem<decltype(op)>;
    return detail::dispatch<problem>::run(d_temp, temp_bytes, problem{in, values, indices, op}, shape, stream,
                                          entry::valid(in, values, indices, shape));
  });
}

//! extreme_scan that allocates its temp storage stream-ordered (cudaMallocAsync).
template <class T, class Index>
cudaError_t extreme_scan(const T* in, T* values, Index* indices, Shape3 shape, Extreme extreme, Tie tie,
                         cudaStream_t stream = nullptr) {
  using entry = detail::extreme_entry<T, Index>;
  if (!entry::index_fits(shape)) {
    return cudaErrorInvalidValue;
  }
  return with_value_index_op<T>(extreme, tie, [&](auto op) {
    using problem = typename entry::template problem<decltype(op)>;
    return detail::dispatch<problem>::run(problem{in, values, indices, op}, shape, stream,
                                          entry::valid(in, values, indices, shape));
  });
}

//! Running maximum and its index along `len`; see extreme_scan for semantics and errors.
template <class T, class Index = std::int64_t>
cudaError_t cummax(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 shape,
                   cudaStream_t stream = nullptr, Tie tie = Tie::last) {
  return extreme_scan(d_temp, temp_bytes, in, values, indices, shape, Extreme::max, tie, stream);
}

//! Running minimum and its index along `len`; see extreme_scan for semantics and errors.
template <class T, class Index = std::int64_t>
cudaError_t cummin(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 shape,
                   cudaStream_t stream = nullptr, Tie tie = Tie::last) {
  return extreme_scan(d_temp, temp_bytes, in, values, indices, shape, Extreme::min, tie, stream);
}

//! cummax with stream-ordered temp storage.
template <class T, class Index = std::int64_t>
cudaError_t cummax(const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream = nullptr,
                   Tie tie = Tie::last) {
  return extreme_scan(in, values, indices, shape, Extreme::max, tie, stream);
}

//! cummin with stream-ordered temp storage.
template <class T, class Index = std::int64_t>
cudaError_t cummin(const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream = nullptr,
                   Tie tie = Tie::last) {
  return extreme_scan(in, values, indices, shape, Extreme::min, tie, stream);
}

FASTSCAN_NAMESPACE_END
