//! \file extreme.cuh
//! cummax / cummin: the running extreme and the row position where it was taken.
#pragma once

#include <fastscan/problem/contract.cuh>

#include <cstdint>
#include <cstring>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! The unsigned integer as wide as T.
template <class T>
using bits_t = std::conditional_t<
    sizeof(T) == 1, std::uint8_t,
    std::conditional_t<sizeof(T) == 2, std::uint16_t, std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>>;

//! An element's bits XOR `mask`.
template <class T>
FASTSCAN_HD T flip_bits(T x, bits_t<T> mask) {
  bits_t<T> b;
  memcpy(&b, &x, sizeof b);
  b = static_cast<bits_t<T>>(b ^ mask);
  memcpy(static_cast<void*>(&x), &b, sizeof b);  // __half's bits: it has no public member
  return x;
}

//! Order keys, for cummax and cummin as one max scan: a key is the element's bits XOR a mask, a
//! bijection that keeps the order (cummax) or reverses it (cummin), undone as values are written.
//! Ties stay ties and NaN stays NaN, so values, indices and NaN bits are those of a direct scan.
//! Integers key as the unsigned integer of their width with the sign bit flipped for signed ones
//! (so int8 and uint8 share a kernel too); floats flip their sign bit for cummin; bools (bytes made
//! 0 or 1 first) their low bit.
template <class T>
struct order_key {
  static constexpr bool boolean = std::is_same_v<T, bool> || std::is_same_v<T, bool_byte>;
  static_assert(std::is_arithmetic_v<T> || is_half_v<T> || boolean, "cummax / cummin take integers, bool and floats");
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "1-, 2-, 4- or 8-byte elements");
  using bits = bits_t<T>;
  static constexpr bool integer = std::is_integral_v<T> && !boolean;
  using type = std::conditional_t<integer, bits, T>;
  static constexpr bits sign = static_cast<bits>(bits{1} << (8 * sizeof(T) - 1));
  //! The mask of an extreme: cummax keeps the order, cummin reverses it.
  static constexpr bits mask(Extreme e) {
    const bits keep = integer && std::is_signed_v<T> ? sign : bits{0};
    const bits reverse = boolean ? bits{1} : (integer ? static_cast<bits>(~bits{0}) : sign);
    return e == Extreme::max ? keep : static_cast<bits>(keep ^ reverse);
  }
};
template <class T>
using order_key_t = typename order_key<T>::type;

//! Elements scanned as they are.
struct plain_order {
  template <class T>
  FASTSCAN_HD T operator()(const T& x) const {
    return x;
  }
};
//! Elements scanned as order keys (order_key): their bits XOR `mask`, both ways.
template <class K>
struct flipped_order {
  bits_t<K> mask;
  FASTSCAN_HD K operator()(const K& x) const { return flip_bits(x, mask); }
};

//! Running max or min with the index (within the row) where it was seen; `Op` is one of the four
//! value_index_op<T, E, Ti>, or with `Order` flipped_order the max over order keys `T`.
template <class T, class Index, class Op = value_index_op<T>, class Order = plain_order>
struct extreme_problem {
  using input_t = T;
  using acc_t = value_index<T>;
  using op_t = Op;
  const T* in;
  T* out;         //!< running extremes
  Index* side_out;  //!< their positions within the row
  op_t op;
  Order order;    //!< applied as elements are lifted and as values are written

  using output_t = T;
  using side_t = Index;
  static constexpr bool side_is_row_index = true;  //!< (device/row_codes.cuh)
  FASTSCAN_DEVICE acc_t lift(const T& x, std::int64_t row_pos) const { return {order(canonical(x)), row_pos}; }
  FASTSCAN_DEVICE T output(const acc_t& inclusive, const acc_t&, bool) const { return order(inclusive.value); }
  FASTSCAN_DEVICE Index side(const acc_t& inclusive) const { return static_cast<Index>(inclusive.index); }

  template <int N>
  struct buffer {
    T v[N];
    Index i[N];
  };
  template <int N>
  FASTSCAN_DEVICE void put(buffer<N>& b, int i, const acc_t& inclusive, const acc_t& previous, bool had) const {
    b.v[i] = output(inclusive, previous, had);
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
