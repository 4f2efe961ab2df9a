//! \file generic.cuh
//! inclusive_scan: any associative operator over any random-access input iterator.
#pragma once

#include <fastscan/problem/contract.cuh>

#include <cstring>
#include <iterator>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Any associative operator over any input iterator; the accumulator is the input value type.
template <class InIt, class OutIt, class Op>
struct generic_problem : one_output<generic_problem<InIt, OutIt, Op>, typename std::iterator_traits<InIt>::value_type> {
  using input_t = typename std::iterator_traits<InIt>::value_type;
  using acc_t = input_t;
  using op_t = Op;
  InIt in;
  OutIt out;
  op_t op;

  using output_t = acc_t;
  using side_t = void;
  FASTSCAN_DEVICE acc_t lift(const input_t& x, std::int64_t) const { return x; }
  FASTSCAN_DEVICE acc_t output(const acc_t& inclusive, const acc_t&, bool) const { return inclusive; }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
