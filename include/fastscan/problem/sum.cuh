//! \file sum.cuh
//! cumsum / exclusive_cumsum: sums in an accumulation type, 1-byte sums unit by unit.
#pragma once

#include <fastscan/problem/contract.cuh>

#include <cstring>
#include <iterator>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Inclusive or exclusive sums; `Acc` is the accumulation type (float for 16-bit floats).
template <class T, class Out, class Acc>
struct sum_problem : one_output<sum_problem<T, Out, Acc>, Out> {
  using input_t = T;
  using acc_t = Acc;
  using op_t = sum_op;
  const T* in;
  Out* out;
  bool exclusive;
  op_t op{};

  using output_t = Out;
  using side_t = void;
  FASTSCAN_DEVICE acc_t lift(const T& x, std::int64_t) const { return static_cast<Acc>(to_arith(x)); }
  FASTSCAN_DEVICE Out output(const Acc& inclusive, const Acc& previous, bool has_previous) const {
    return convert_to<Out>(exclusive ? (has_previous ? previous : Acc{}) : inclusive);
  }

  //! 1-byte integer sums into their own type take whole 16-byte units four bytes at a time
  //! (unit_total, scan_unit), where the item loop spent 3 - 4 instructions per byte.
  static constexpr bool unit_sums = std::is_integral_v<T> && sizeof(T) == 1 && std::is_same_v<Out, T> && std::is_same_v<Acc, T>;
  //! The sum of a unit's 16 bytes (modulo 256, as the type wraps): one dp4a per 4 bytes.
  template <class Unit>
  FASTSCAN_DEVICE Acc unit_total(const Unit& unit) const {
    unsigned w[4];
    memcpy(w, &unit, 16);
    unsigned t = 0;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      t = __dp4a(w[k], 0x01010101u, t);
    }
    return static_cast<Acc>(t & 0xffu);
  }
  //! Forms a unit's outputs in place after `carry` (the sum before its first byte); returns the sum
  //! through its last. Per 32-bit word: the even and odd bytes as 16-bit lanes, their pairwise sums,
  //! and the carry broadcast to both lanes give every prefix in two three-way adds with no carry
  //! between lanes (at most 1275 per lane); one byte permute reassembles them.
  template <class Unit>
  FASTSCAN_DEVICE Acc scan_unit(Unit& unit, const Acc carry) const {
    unsigned w[4];
    memcpy(w, &unit, 16);
    unsigned c = static_cast<unsigned char>(carry) * 0x00010001u;  // the carry in both lanes
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const unsigned even = __byte_perm(w[k], 0u, 0x4240);  // b0, b2 as 16-bit lanes
      const unsigned odd = __byte_perm(w[k], 0u, 0x4341);   // b1, b3
      const unsigned pairs = even + odd;                    // b0 + b1, b2 + b3
      const unsigned low = __byte_perm(pairs, 0u, 0x1044);  // lane 1: b0 + b1; lane 0: 0
      const unsigned x = even + low + c;                    // c + b0, c + b0 + b1 + b2
      const unsigned y = pairs + low + c;                   // c + b0 + b1, c + b0 + ... + b3
      const unsigned inclusive = __byte_perm(x, y, 0x6240);
      w[k] = exclusive ? __byte_perm(inclusive, c, 0x2104) : inclusive;  // shifted up, carry first
      c = __byte_perm(y, 0u, 0x4242);
    }
    memcpy(&unit, w, 16);
    return static_cast<Acc>(c & 0xffu);
  }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
