//! \file segmented.cuh
//! Scans over runs of equal keys: the segment heads come from the keys as elements are lifted
//! (key[i] != key[i - 1]), so any kernel runs them with no flag array and no change.
#pragma once

#include <fastscan/problem/contract.cuh>

#include <iterator>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! The keys of `rows` rows; a row starts a segment when its key differs from the row before.
template <class Key>
struct row_keys {
  const Key* keys;
  std::int64_t rows;
  FASTSCAN_DEVICE Key at(std::int64_t row) const { return __ldg(keys + row); }
  FASTSCAN_DEVICE bool head(std::int64_t row) const { return key_starts_segment(at(row), row > 0 ? at(row - 1) : Key{}, row == 0); }
  //! The row ends its segment (the next row's key differs, or it is the last row).
  FASTSCAN_DEVICE bool last(std::int64_t row) const { return row + 1 == rows || !(at(row + 1) == at(row)); }
};

//! The head flags of sorted keys as a random-access input of 0 / 1: their inclusive sum numbers
//! each row's segment 1, 2, ... (an exact scan over the keys alone, 8 bytes a row).
template <class Key>
struct head_flags {
  using value_type = std::int64_t;
  using difference_type = std::int64_t;
  using pointer = const std::int64_t*;
  using reference = std::int64_t;
  using iterator_category = std::random_access_iterator_tag;
  row_keys<Key> keys;
  std::int64_t pos = 0;
  FASTSCAN_DEVICE std::int64_t operator[](std::int64_t n) const { return keys.head(pos + n) ? 1 : 0; }
  FASTSCAN_DEVICE std::int64_t operator*() const { return (*this)[0]; }
  FASTSCAN_DEVICE head_flags operator+(std::int64_t n) const {
    head_flags r = *this;
    r.pos += n;
    return r;
  }
};

//! A scan of [rows, channels] along the rows, restarting at each new key: each element's output
//! is its fold's value.
template <class InIt, class Key, class A, class Op, class OutIt>
struct keyed_problem : one_output<keyed_problem<InIt, Key, A, Op, OutIt>, A> {
  using input_t = typename std::iterator_traits<InIt>::value_type;
  using acc_t = flagged<A>;
  using op_t = segmented_op<Op>;
  using output_t = A;
  using side_t = void;
  InIt in;
  OutIt out;
  row_keys<Key> keys;
  op_t op;

  //! (The kernels pass the row along the scanned axis; a keyed problem has one segment array.)
  FASTSCAN_DEVICE acc_t lift(const input_t& x, std::int64_t row) const { return {convert_to<A>(x), keys.head(row)}; }
  FASTSCAN_DEVICE acc_t lift_head(const input_t& x, bool head) const { return {convert_to<A>(x), head}; }
  //! The heads of rows row0 .. row0 + n - 1 (n <= N <= 32) as bits, each key loaded once.
  template <int N>
  FASTSCAN_DEVICE std::uint32_t row_heads(std::int64_t row0, std::int64_t n) const {
    static_assert(N <= 32, "one bit a row");
    std::uint32_t bits = 0;
    Key previous = row0 > 0 && n > 0 ? keys.at(row0 - 1) : Key{};
#pragma unroll
    for (int i = 0; i < N; ++i) {
      if (i < n) {
        const Key key = keys.at(row0 + i);
        bits |= static_cast<std::uint32_t>(key_starts_segment(key, previous, row0 + i == 0)) << i;
        previous = key;
      }
    }
    return bits;
  }
  //! A fold that holds a head is the same whatever comes before it (the operator restarts there,
  //! bit for bit), so a tile whose total holds one is its own prefix.
  static FASTSCAN_DEVICE bool complete(const acc_t& fold) { return fold.head; }
  FASTSCAN_DEVICE output_t output(const acc_t& inclusive, const acc_t&, bool) const { return inclusive.value; }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
