//! \file cummax.cuh
//! cummax / cummin: running extreme and its index along an axis, with framework semantics.
#pragma once

#include <fastscan/dispatch/dispatch.cuh>
#include <fastscan/problem/extreme.cuh>
#include <fastscan/shape.hpp>

#include <limits>

#ifndef FASTSCAN_SHARED_EXTREME_KERNELS
//! 1: cummax and cummin of a type, and of both signs of an integer width, run one kernel over
//! order keys (problem/extreme.cuh): half the code and compile time of the extremes, for an XOR
//! per element each way (up to 3 % on int64 rows, H200). For builds of every dtype (the torch
//! package sets it). Define it alike in every translation unit of a binary, as the namespace.
#define FASTSCAN_SHARED_EXTREME_KERNELS 0
#endif

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

template <class T, class Index>
struct extreme_entry {
  static_assert(std::is_integral_v<Index> && std::is_signed_v<Index> && (sizeof(Index) == 4 || sizeof(Index) == 8),
                "cummax/cummin indices are 32- or 64-bit signed integers");
  //! Values may be the input (in place); no other array may share a byte with another.
  static bool valid(const T* in, const T* values, const Index* indices, Shape3 shape) {
    const std::int64_t n = shape.outer * shape.len * shape.inner;
    const byte_span i = span_of(in, n), v = span_of(values, n), x = span_of(indices, n);
    return in != nullptr && values != nullptr && indices != nullptr && in_place_or_apart(i, v) && !overlap(i, x) &&
           !overlap(v, x);
  }
  //! The last position of a row must fit the index type.
  static bool index_fits(Shape3 shape) {
    return shape.len - 1 <= static_cast<std::int64_t>(std::numeric_limits<Index>::max());
  }
};

//! The problem cummax (E = max) or cummin of T runs: its own operator, or with Shared the max
//! over order keys (problem/extreme.cuh), one kernel for both extremes and both signs of a width.
//! bool arrays are read and written as bytes (stored_t).
template <Extreme E, Tie Ti, bool Shared>
struct extreme_kernel {
  template <class T, class Index>
  static auto problem(const T* in, T* values, Index* indices) {
    using S = stored_t<T>;
    return extreme_problem<S, Index, value_index_op<S, E, Ti>>{reinterpret_cast<const S*>(in), reinterpret_cast<S*>(values),
                                                               indices, {}, {}};
  }
};
template <Extreme E, Tie Ti>
struct extreme_kernel<E, Ti, true> {
  template <class T, class Index>
  static auto problem(const T* in, T* values, Index* indices) {
    using key = order_key<stored_t<T>>;
    using K = typename key::type;
    // Same-width integers of either sign may alias: a signed array read as its unsigned keys.
    return extreme_problem<K, Index, value_index_op<K, Extreme::max, Ti>, flipped_order<K>>{
        reinterpret_cast<const K*>(in), reinterpret_cast<K*>(values), indices, {}, {key::mask(E)}};
  }
};

//! The scan of one (extreme, tie) operator, with either kind of temp storage (dispatch.cuh).
template <Extreme E, Tie Ti, bool Shared = FASTSCAN_SHARED_EXTREME_KERNELS != 0, class Temp, class T, class Index>
cudaError_t extreme_scan_op(Temp temp, const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream) {
  using entry = extreme_entry<T, Index>;
  if (!entry::index_fits(shape)) {
    return cudaErrorInvalidValue;
  }
  return run(temp, extreme_kernel<E, Ti, Shared>::problem(in, values, indices), shape, stream,
             entry::valid(in, values, indices, shape));
}

//! A runtime tie rule: one of the two operators of extreme E.
template <Extreme E, class Temp, class T, class Index>
cudaError_t extreme_scan_tie(Temp temp, const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream,
                             Tie tie) {
  return tie == Tie::last ? extreme_scan_op<E, Tie::last>(temp, in, values, indices, shape, stream)
                          : extreme_scan_op<E, Tie::first>(temp, in, values, indices, shape, stream);
}

}  // namespace detail

//! Running maximum and its index along `len` of `shape`: `values[i]` is the maximum of the row up
//! to i, `indices[i]` its position within the row.
//!
//! Semantics of PyTorch and Paddle: NaN propagates (it beats every number, for max and min alike);
//! among equal extremes, and among NaNs, `Tie::last` keeps the most recent index (the framework
//! rule), `Tie::first` the earliest. Bit-exact for every grouping: the operator is associative.
//! A runtime `tie` compiles both max operators; `cummax<T, Index, Tie::last>(...)` compiles one.
//!
//! Two-phase: with `d_temp == nullptr`, writes the temp size to `temp_bytes` and returns. Returns
//! cudaErrorInvalidValue, before any launch and without writing outputs, for negative extents,
//! null pointers with a non-empty shape, temp storage that is not 16-byte aligned, an `Index` too
//! narrow for `len`, a `temp_bytes` below what the plan needs, or arrays that share bytes. In
//! place (`values == in`, exactly) is allowed. Reads and writes each element once: O(numel) work, one kernel launch (plus a memset of
//! the tile state under graph capture).
template <class T, class Index = std::int64_t>
cudaError_t cummax(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 shape,
                   cudaStream_t stream = nullptr, Tie tie = Tie::last) {
  return detail::extreme_scan_tie<Extreme::max>(detail::caller_temp{d_temp, temp_bytes}, in, values, indices, shape,
                                                stream, tie);
}
//! Running minimum and its index along `len`; as cummax.
template <class T, class Index = std::int64_t>
cudaError_t cummin(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 shape,
                   cudaStream_t stream = nullptr, Tie tie = Tie::last) {
  return detail::extreme_scan_tie<Extreme::min>(detail::caller_temp{d_temp, temp_bytes}, in, values, indices, shape,
                                                stream, tie);
}
//! cummax with the tie rule fixed at compile time (one operator, a quarter of the code of
//! extreme_scan): `cummax<float, std::int64_t, Tie::last>(d_temp, temp_bytes, ...)`.
template <class T, class Index, Tie TieRule>
cudaError_t cummax(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 shape,
                   cudaStream_t stream = nullptr) {
  return detail::extreme_scan_op<Extreme::max, TieRule>(detail::caller_temp{d_temp, temp_bytes}, in, values, indices,
                                                        shape, stream);
}
//! cummin with the tie rule fixed at compile time.
template <class T, class Index, Tie TieRule>
cudaError_t cummin(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 shape,
                   cudaStream_t stream = nullptr) {
  return detail::extreme_scan_op<Extreme::min, TieRule>(detail::caller_temp{d_temp, temp_bytes}, in, values, indices,
                                                        shape, stream);
}

//! cummax with stream-ordered temp storage (cudaMallocAsync, only when the plan needs any).
template <class T, class Index = std::int64_t>
cudaError_t cummax(const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream = nullptr,
                   Tie tie = Tie::last) {
  return detail::extreme_scan_tie<Extreme::max>(detail::stream_temp{}, in, values, indices, shape, stream, tie);
}
//! cummin with stream-ordered temp storage.
template <class T, class Index = std::int64_t>
cudaError_t cummin(const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream = nullptr,
                   Tie tie = Tie::last) {
  return detail::extreme_scan_tie<Extreme::min>(detail::stream_temp{}, in, values, indices, shape, stream, tie);
}
//! cummax with a compile-time tie rule and stream-ordered temp storage.
template <class T, class Index, Tie TieRule>
cudaError_t cummax(const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream = nullptr) {
  return detail::extreme_scan_op<Extreme::max, TieRule>(detail::stream_temp{}, in, values, indices, shape, stream);
}
//! cummin with a compile-time tie rule and stream-ordered temp storage.
template <class T, class Index, Tie TieRule>
cudaError_t cummin(const T* in, T* values, Index* indices, Shape3 shape, cudaStream_t stream = nullptr) {
  return detail::extreme_scan_op<Extreme::min, TieRule>(detail::stream_temp{}, in, values, indices, shape, stream);
}

//! cummax or cummin chosen at run time (`extreme`), for callers that dispatch on the operation;
//! compiles all four operators.
template <class T, class Index = std::int64_t>
cudaError_t extreme_scan(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 shape,
                         Extreme extreme, cudaStream_t stream = nullptr, Tie tie = Tie::last) {
  return extreme == Extreme::max ? cummax(d_temp, temp_bytes, in, values, indices, shape, stream, tie)
                                 : cummin(d_temp, temp_bytes, in, values, indices, shape, stream, tie);
}
//! extreme_scan with stream-ordered temp storage.
template <class T, class Index = std::int64_t>
cudaError_t extreme_scan(const T* in, T* values, Index* indices, Shape3 shape, Extreme extreme,
                         cudaStream_t stream = nullptr, Tie tie = Tie::last) {
  return extreme == Extreme::max ? cummax(in, values, indices, shape, stream, tie)
                                 : cummin(in, values, indices, shape, stream, tie);
}

//! The plan cummax<T, Index> and cummin take for `shape` on the current device, in words (as
//! explain_cumsum).
template <class T, class Index = std::int64_t>
std::string explain_cummax(Shape3 shape) {
  using problem = decltype(detail::extreme_kernel<Extreme::max, Tie::last, FASTSCAN_SHARED_EXTREME_KERNELS != 0>::problem(
      static_cast<const T*>(nullptr), static_cast<T*>(nullptr), static_cast<Index*>(nullptr)));
  return detail::explain_problem<problem>(shape);
}

FASTSCAN_NAMESPACE_END
