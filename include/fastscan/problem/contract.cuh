//! \file contract.cuh
//! What a scan problem is, and the traits the kernels read from one.
//!
//! A problem says what one entry point scans: how an input element becomes an accumulator, the
//! operator, and how results are written. The kernels are generic over problems; a problem type
//! supplies (device functions const, members trivially copyable: it is a kernel argument):
//! - `input_t`, `acc_t`, `op_t`, `output_t`, `side_t` (void when there is no second output);
//! - `in` (random-access input iterator), `out` (first output), `side_out` when side_t is not void;
//! - `op`: an associative `acc_t op(const acc_t& earlier, const acc_t& later)`;
//! - `acc_t lift(const input_t& x, std::int64_t row_pos)`: the element at position `row_pos` of
//!   its segment as an accumulator;
//! - `output_t output(const acc_t& inclusive, const acc_t& previous, bool has_previous)`: the first
//!   output of an element (previous: the fold before it, when has_previous);
//! - `side_t side(const acc_t& inclusive)` when there is a second output;
//! - `template <int N> struct buffer` with `put(buffer&, slot, inclusive, previous, has_previous)`
//!   and `store(const buffer&, flat, count, storer)`, which hands each output array of a run to the
//!   kernel's storer (`storer(output_iterator, const value (&)[N], count)`); `one_output` supplies
//!   them for a problem with one output array;
//! - optionally `static constexpr bool side_is_row_index` (the side output is the row where the
//!   running accumulator was taken: device/row_codes.cuh) and `unit_sums` with `unit_total` /
//!   `scan_unit` (whole 16-byte units of 1-byte sums, problem/sum.cuh), and `static bool
//!   complete(const acc_t& fold)`: the fold depends on nothing before it (it holds a segment
//!   head), so a tile whose total is complete publishes it as its prefix at once and look-backs
//!   stop there.
#pragma once

#include <fastscan/detail/numeric.cuh>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/ops/segmented.cuh>

#include <type_traits>
#include <utility>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Whether the row kernel forms a problem's outputs in shared memory: the first output array has
//! the input type and is formed in place of the staged inputs, the second (if any) in a row of
//! its own beside them, so no registers hold outputs.
template <class Problem>
constexpr bool rows_in_place = std::is_same_v<typename Problem::output_t, typename Problem::input_t>;
template <class Problem>
constexpr bool has_side_output = !std::is_void_v<typename Problem::side_t>;
//! Whether a problem's outputs can be formed in place of its staged inputs: one output array of
//! the input type.
template <class Problem>
constexpr bool outputs_in_place = rows_in_place<Problem> && !has_side_output<Problem>;

//! Whether a call writes its first output over its input (in place).
template <class Problem>
FASTSCAN_DEVICE bool writes_over_input(const Problem& p) {
  if constexpr (std::is_pointer_v<decltype(p.in)> && std::is_pointer_v<decltype(p.out)>) {
    return static_cast<const void*>(p.in) == static_cast<const void*>(p.out);
  } else {
    return false;
  }
}

//! The output buffer, put and store of a problem with one output array: `Problem::out` receives
//! `Problem::output(...)` of each element (a base of the problem, so it stays an aggregate).
template <class Problem, class Output>
struct one_output {
  template <int N>
  struct buffer {
    Output v[N];
  };
  template <int N, class Acc>
  FASTSCAN_DEVICE void put(buffer<N>& b, int i, const Acc& inclusive, const Acc& previous, bool has_previous) const {
    b.v[i] = static_cast<const Problem&>(*this).output(inclusive, previous, has_previous);
  }
  template <int N, class Storer>
  FASTSCAN_DEVICE void store(const buffer<N>& b, std::int64_t flat, int count, Storer&& storer) const {
    storer(static_cast<const Problem&>(*this).out + flat, b.v, count);
  }
};

//! Problems without unit-wise paths.
template <class Problem, class = void>
struct has_unit_sums : std::false_type {};
template <class Problem>
struct has_unit_sums<Problem, std::enable_if_t<Problem::unit_sums>> : std::true_type {};

//! Problems whose elements of one row share a segment head (`row_heads<N>(row0, n)`: the heads of
//! rows row0 .. row0 + n - 1 as bits, and `lift_head(x, head)`), which the column kernel reads
//! once per row rather than once per element.
template <class Problem, class = void>
struct has_row_heads : std::false_type {};
template <class Problem>
struct has_row_heads<Problem, std::void_t<decltype(std::declval<const Problem&>().lift_head(
                                  std::declval<const typename Problem::input_t&>(), true))>> : std::true_type {};

//! Whether a fold needs no predecessor (`complete`); problems without segments never say so.
template <class Problem, class = void>
struct has_complete_folds : std::false_type {};
template <class Problem>
struct has_complete_folds<Problem, std::void_t<decltype(Problem::complete(std::declval<const typename Problem::acc_t&>()))>>
    : std::true_type {};
template <class Problem>
FASTSCAN_DEVICE bool fold_is_complete(const typename Problem::acc_t& fold) {
  if constexpr (has_complete_folds<Problem>::value) {
    return Problem::complete(fold);
  } else {
    return false;
  }
}

//! Whether the look-back may fold a problem's predecessors in any order.
template <class Problem>
constexpr bool problem_is_exact = is_exactly_associative<typename Problem::op_t, typename Problem::acc_t>::value;

}  // namespace detail
FASTSCAN_NAMESPACE_END
