//! \file log_sum_exp.cuh
//! The operator of logcumsumexp: a running maximum and the sum of exp(x - maximum), rescaled when
//! the maximum moves. A thread's serial path costs one exp per element, and each output one log
//! (the log-add-exp operator takes an exp and a log1p at every combine, one after the other).
#pragma once

#include <fastscan/detail/numeric.cuh>

#include <cmath>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN

//! A maximum and the sum of exp(x - max) over the elements folded so far: their log-sum-exp is
//! max + log(sum). Every fold holds its maximum's own term, so sum >= 1.
template <class A>
struct scaled_sum {
  A max;
  A sum;
};

//! Combines an earlier and a later scaled_sum: the side with the smaller maximum is scaled by
//! exp(its max - the larger). Equal maxima add unscaled (so do two infinities of one sign, where
//! the difference would be NaN), and a NaN maximum propagates. Associative up to rounding.
struct log_sum_exp_op {
  template <class A>
  FASTSCAN_HD scaled_sum<A> operator()(const scaled_sum<A>& earlier, const scaled_sum<A>& later) const {
    const bool later_high = later.max > earlier.max;
    const A hi = later_high ? later.max : earlier.max;
    const A lo = later_high ? earlier.max : later.max;
    const A scale = lo == hi ? A(1) : exp_of(lo - hi);
    const A sum = later_high ? earlier.sum * scale + later.sum : earlier.sum + later.sum * scale;
    const bool nan = earlier.max != earlier.max || later.max != later.max;
    return {nan ? earlier.max + later.max : hi, sum};
  }
  template <class A>
  static FASTSCAN_HD A exp_of(A d) {
    if constexpr (std::is_same_v<A, float>) {
      return expf(d);
    } else {
      return exp(d);
    }
  }
  template <class A>
  static FASTSCAN_HD A log_of(A s) {
    if constexpr (std::is_same_v<A, float>) {
      return logf(s);
    } else {
      return log(s);
    }
  }
};

FASTSCAN_NAMESPACE_END
