//! \file extreme.cuh
//! cummax / cummin: the running extreme and the row position where it was taken.
#pragma once

#include <fastscan/problem/contract.cuh>

#include <cstring>
#include <iterator>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Running max or min with the index (within the row) where it was seen; `Op` is one of the four
//! value_index_op<T, E, Ti>.
template <class T, class Index, class Op = value_index_op<T>>
struct extreme_problem {
  using input_t = T;
  using acc_t = value_index<T>;
  using op_t = Op;
  const T* in;
  T* out;         //!< running extremes
  Index* side_out;  //!< their positions within the row
  op_t op;

  using output_t = T;
  using side_t = Index;
  static constexpr bool side_is_row_index = true;  //!< (device/row_codes.cuh)
  FASTSCAN_DEVICE acc_t lift(const T& x, std::int64_t row_pos) const { return {x, row_pos}; }
  FASTSCAN_DEVICE T output(const acc_t& inclusive, const acc_t&, bool) const { return inclusive.value; }
  FASTSCAN_DEVICE Index side(const acc_t& inclusive) const { return static_cast<Index>(inclusive.index); }

  template <int N>
  struct buffer {
    T v[N];
    Index i[N];
  };
  template <int N>
  FASTSCAN_DEVICE void put(buffer<N>& b, int i, const acc_t& inclusive, const acc_t&, bool) const {
    b.v[i] = inclusive.value;
    b.i[i] = side(inclusive);
  }
  template <int N, class Storer>
  FASTSCAN_DEVICE void store(const buffer<N>& b, std::int64_t flat, int count, Storer&& storer) const {
    storer(out + flat, b.v, count);
    storer(side_out + flat, b.i, count);
  }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
