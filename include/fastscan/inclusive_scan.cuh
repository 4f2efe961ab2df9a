//! \file inclusive_scan.cuh
//! Inclusive scan with any associative operator along an axis.
#pragma once

#include <fastscan/detail/dispatch.cuh>
#include <fastscan/detail/problems.cuh>
#include <fastscan/shape.hpp>

#include <iterator>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Outputs leave through shared memory as whole 16-byte units of the input's type: the output is a
//! pointer to the input iterator's value type.
template <class InIt, class OutIt>
constexpr bool output_supported = std::is_pointer_v<OutIt> &&
                                  std::is_same_v<std::remove_cv_t<std::remove_pointer_t<OutIt>>,
                                                 typename std::iterator_traits<InIt>::value_type>;

template <class It>
bool iterator_valid(const It& it) {
  if constexpr (std::is_pointer_v<It>) {
    return it != nullptr;
  } else {
    return true;
  }
}

}  // namespace detail

//! Inclusive scan of `in` (any input iterator) into `out` (a pointer to its value type) along `len`
//! of `shape` with `op(earlier, later)`, which must
//! be associative (not necessarily commutative) and callable on the device. The accumulator is the
//! input's value type. Unless `is_exactly_associative<Op, Acc>` says otherwise, partial results
//! are combined in an order that depends only on the plan, so results are reproducible run to run.
//! Inputs above 8 bytes, or of sizes that are not powers of two, take the column kernel for every
//! layout. Temp storage must be 16-byte aligned (cudaMalloc's is).
template <class InIt, class OutIt, class Op>
cudaError_t inclusive_scan(void* d_temp, std::size_t& temp_bytes, InIt in, OutIt out, Op op, Shape3 shape,
                           cudaStream_t stream = nullptr) {
  static_assert(detail::output_supported<InIt, OutIt>,
                "fastscan::inclusive_scan writes through a pointer to the input iterator's value type");
  using problem = detail::generic_problem<InIt, OutIt, Op>;
  return detail::dispatch<problem>::run(d_temp, temp_bytes, problem{in, out, op}, shape, stream,
                                        detail::iterator_valid(in) && detail::iterator_valid(out));
}

//! inclusive_scan with stream-ordered temp storage.
template <class InIt, class OutIt, class Op>
cudaError_t inclusive_scan(InIt in, OutIt out, Op op, Shape3 shape, cudaStream_t stream = nullptr) {
  static_assert(detail::output_supported<InIt, OutIt>,
                "fastscan::inclusive_scan writes through a pointer to the input iterator's value type");
  using problem = detail::generic_problem<InIt, OutIt, Op>;
  return detail::dispatch<problem>::run(problem{in, out, op}, shape, stream,
                                        detail::iterator_valid(in) && detail::iterator_valid(out));
}

FASTSCAN_NAMESPACE_END
