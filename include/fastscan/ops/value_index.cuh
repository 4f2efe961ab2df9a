//! \file value_index.cuh
//! The (value, index) operator behind cummax and cummin, with the semantics of PyTorch and Paddle.
#pragma once

#include <fastscan/detail/numeric.cuh>

#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN

//! Which index wins among equal extremes (and among NaNs): the most recent one, as PyTorch and
//! Paddle do, or the earliest one.
enum class Tie { last, first };

//! Which extreme a value-index scan keeps.
enum class Extreme { max, min };

//! A running extreme and the position (within its row) where it was seen.
template <class T>
struct value_index {
  T value;
  std::int64_t index;
};

//! Combines an earlier and a later (value, index) pair.
//!
//! The later pair wins when its value is strictly better, or equal and ties go to the last index.
//! NaN counts as better than every number, for max and for min alike, so it propagates; among NaNs
//! the tie rule picks the index. The result is always one of the two operands, chosen by a total
//! order on (key, position), so the operator is associative and any parallel grouping gives the
//! sequential answer bit for bit.
//!
//! Which extreme and which tie rule are template arguments: with both known at compile time the
//! item loops lose their operand selects and half their predicate logic.
template <class T, Extreme E = Extreme::max, Tie Ti = Tie::last>
struct value_index_op {
  static constexpr bool take_min = E == Extreme::min;
  static constexpr bool tie_first = Ti == Tie::first;

  //! Every predicate is computed and combined without short-circuits, so the kernels' unrolled item
  //! loops compile to compares and selects, not to nested branches per item (the branchy form
  //! made the int64 row cummax kernel 240 KB of SASS). 16-bit floats are converted to float once
  //! and compared as floats (converting the selected operands again was slower).
  FASTSCAN_HD bool later_wins(const T& earlier, const T& later) const {
    if constexpr (detail::is_half_v<T>) {
      return wins(detail::to_arith(earlier), detail::to_arith(later));
    } else {
      return wins(earlier, later);
    }
  }

  template <class A>
  FASTSCAN_HD bool wins(const A& earlier, const A& later) const {
    const bool en = detail::is_nan(earlier);
    const bool ln = detail::is_nan(later);
    const bool nan_wins = ln & (!en | !tie_first);
    const bool tie = detail::equal(earlier, later);
    const bool better = detail::less(take_min ? later : earlier, take_min ? earlier : later);
    // Compares with a NaN are false, so at most one of the two is true. Written as predicate
    // logic, not as selects between flags, the item loops keep them in predicate registers (the
    // selects became four integer instructions per item; PTX, sm_90).
    const bool number_wins = better | (tie & !tie_first);
    return nan_wins | number_wins;
  }

  FASTSCAN_HD value_index<T> operator()(const value_index<T>& earlier, const value_index<T>& later) const {
    return later_wins(earlier.value, later.value) ? later : earlier;
  }
};

//! Plain addition; the accumulator type decides the precision.
struct sum_op {
  template <class A>
  FASTSCAN_HD A operator()(const A& earlier, const A& later) const {
    return static_cast<A>(earlier + later);
  }
};

//! True when every grouping of `Op` over `Acc` gives the same bits, so the look-back may fold
//! predecessors in any order. Floating-point sums are not; they are folded in one fixed order so
//! results are reproducible run to run. Specialize for your own exact operators.
template <class Op, class Acc>
struct is_exactly_associative : std::bool_constant<std::is_integral_v<Acc>> {};

template <class T, Extreme E, Tie Ti>
struct is_exactly_associative<value_index_op<T, E, Ti>, value_index<T>> : std::true_type {};

FASTSCAN_NAMESPACE_END
