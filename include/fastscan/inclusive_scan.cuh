//! \file inclusive_scan.cuh
//! Inclusive scan with any associative operator along an axis.
#pragma once

#include <fastscan/dispatch/dispatch.cuh>
#include <fastscan/problem/generic.cuh>
#include <fastscan/shape.hpp>

#include <iterator>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! The output: a random-access iterator (or pointer) whose elements take the input's value type.
template <class InIt, class OutIt, class = void>
struct output_supported : std::false_type {};
template <class InIt, class OutIt>
struct output_supported<InIt, OutIt,
                        std::void_t<decltype(*(std::declval<OutIt>() + std::int64_t{1}) =
                                                 std::declval<const typename std::iterator_traits<InIt>::value_type&>())>>
    : std::true_type {};

template <class It>
bool iterator_valid(const It& it) {
  if constexpr (std::is_pointer_v<It>) {
    return it != nullptr;
  } else {
    return true;
  }
}

//! The generic scan, with either kind of temp storage (dispatch.cuh).
template <class Temp, class InIt, class OutIt, class Op>
cudaError_t generic_scan(Temp temp, InIt in, OutIt out, Op op, Shape3 shape, cudaStream_t stream) {
  static_assert(output_supported<InIt, OutIt>::value,
                "fastscan::inclusive_scan writes through a random-access output iterator whose elements take the "
                "input iterator's value type");
  using problem = generic_problem<InIt, OutIt, Op>;
  const std::int64_t n = shape.outer * shape.len * shape.inner;
  return run(temp, problem{{}, in, out, op}, shape, stream,
             iterator_valid(in) && iterator_valid(out) && in_place_or_apart(span_of(in, n), span_of(out, n)));
}

}  // namespace detail

//! Inclusive scan of `in` (any random-access input iterator) into `out` along `len` of `shape` with
//! `op(earlier, later)`, which must
//! be associative (not necessarily commutative) and callable on the device. The accumulator is the
//! input's value type. Unless `is_exactly_associative<Op, Acc>` says otherwise, partial results
//! are combined in an order that depends only on the plan, so results are reproducible run to run.
//! Inputs above 8 bytes, or of sizes that are not powers of two, take the column kernel for every
//! layout. `out` is any random-access output iterator whose elements take the input's value type:
//! a pointer to that type is written through shared memory in coalesced 16-byte units, other
//! pointers and iterators one element per thread at a time (the accumulator stays the input's
//! value type; it is converted as it is assigned). Temp storage must be 16-byte aligned (cudaMalloc's is).
//! Pointers `out == in` of one type scan in place; any other overlap of the two is rejected.
template <class InIt, class OutIt, class Op>
cudaError_t inclusive_scan(void* d_temp, std::size_t& temp_bytes, InIt in, OutIt out, Op op, Shape3 shape,
                           cudaStream_t stream = nullptr) {
  return detail::generic_scan(detail::caller_temp{d_temp, temp_bytes}, in, out, op, shape, stream);
}

//! inclusive_scan with stream-ordered temp storage.
template <class InIt, class OutIt, class Op>
cudaError_t inclusive_scan(InIt in, OutIt out, Op op, Shape3 shape, cudaStream_t stream = nullptr) {
  return detail::generic_scan(detail::stream_temp{}, in, out, op, shape, stream);
}

FASTSCAN_NAMESPACE_END
