//! \file logsumexp.cuh
//! logcumsumexp: elements lifted to scaled sums (ops/log_sum_exp.cuh), outputs max + log(sum).
#pragma once

#include <fastscan/ops/log_sum_exp.cuh>
#include <fastscan/problem/contract.cuh>

FASTSCAN_NAMESPACE_BEGIN

namespace detail {

//! logcumsumexp of floats: scaled sums in float (16-bit floats) or the input's type, each output
//! max + log(sum) rounded once to T.
template <class T>
struct logsumexp_problem : one_output<logsumexp_problem<T>, T> {
  using arith = arith_t<T>;
  static_assert(std::is_floating_point_v<arith>, "logcumsumexp takes floating-point values");
  using input_t = T;
  using acc_t = scaled_sum<arith>;
  using op_t = log_sum_exp_op;
  const T* in;
  T* out;
  op_t op{};

  using output_t = T;
  using side_t = void;
  FASTSCAN_DEVICE acc_t lift(const T& x, std::int64_t) const { return {to_arith(x), arith(1)}; }
  FASTSCAN_DEVICE T output(const acc_t& inclusive, const acc_t&, bool) const {
    return convert_to<T>(inclusive.max + log_sum_exp_op::log_of(inclusive.sum));
  }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
