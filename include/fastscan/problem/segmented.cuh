//! \file segmented.cuh
//! Scans over runs of equal keys: the segment heads come from the keys as elements are lifted
//! (key[i] != key[i - 1]), so any kernel runs them with no flag array and no change.
#pragma once

#include <fastscan/detail/divisor.cuh>
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

//! Output iterators that take each element's whole fold (value and head) rather than its value.
template <class OutIt>
struct takes_folds : std::false_type {};

//! A scan of [rows, channels] along the rows, restarting at each new key: each element's output
//! is its fold's value (or the whole fold, for an output that takes folds: run_totals).
template <class InIt, class Key, class A, class Op, class OutIt>
struct keyed_problem
    : one_output<keyed_problem<InIt, Key, A, Op, OutIt>, std::conditional_t<takes_folds<OutIt>::value, flagged<A>, A>> {
  using input_t = typename std::iterator_traits<InIt>::value_type;
  using acc_t = flagged<A>;
  using op_t = segmented_op<Op>;
  using output_t = std::conditional_t<takes_folds<OutIt>::value, acc_t, A>;
  using side_t = void;
  static constexpr bool sparse_outputs = takes_folds<OutIt>::value;
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
  FASTSCAN_DEVICE output_t output(const acc_t& inclusive, const acc_t&, bool) const {
    if constexpr (takes_folds<OutIt>::value) {
      return inclusive;
    } else {
      return inclusive.value;
    }
  }
};

//! Output iterator of segment sums over [rows, channels]: the fold at the last row of a segment
//! goes to sums[segment, channel], numbered by `numbers` (the inclusive count of segment heads at
//! each row, head_flags), the segment's key to unique_keys[segment] and the last row's count to
//! *num_segments (both skipped when unique_keys is null); other elements write nothing. With cells > 0 the sums go to the row of the key
//! instead (a dense grid: bev_pool, no numbers), and keys outside [0, cells) are dropped.
template <class A, class Key, class Out>
struct run_totals {
  Out* sums;
  Key* unique_keys;
  std::int64_t* num_segments;
  const std::int64_t* numbers;
  row_keys<Key> keys;
  std::int64_t channels;
  divisor by_channels;
  std::int64_t cells = 0;
  std::int64_t pos = 0;

  using fold_t = flagged<A>;
  struct slot {
    const run_totals* to;
    std::int64_t flat;
    FASTSCAN_DEVICE void operator=(const fold_t& fold) const { to->write_at<1>(flat, &fold, 1); }
  };
  template <int N>
  FASTSCAN_DEVICE void write_run(const fold_t (&src)[N], int count) const {
    write_at<N>(pos, src, count);
  }
  //! Writes `count` folds from `flat` on: a run within one row looks its row's keys up once and
  //! writes only when the row ends its segment.
  template <int N>
  FASTSCAN_DEVICE void write_at(std::int64_t flat, const fold_t* src, int count) const {
    if (count <= 0) {
      return;  // (threads past the last row or column write nothing; their position is no row)
    }
    const std::int64_t row = by_channels.div(flat);
    const std::int64_t col = flat - row * channels;
    if (N > 1 && col + count > channels) {
#pragma unroll
      for (int i = 0; i < N; ++i) {
        if (i < count) write_at<1>(flat + i, src + i, 1);
      }
      return;
    }
    if (!keys.last(row)) {
      return;
    }
    const std::int64_t to = destination(row, col);
    if (to < 0) {
      return;
    }
    Out values[N];
#pragma unroll
    for (int i = 0; i < N; ++i) {
      values[i] = convert_to<Out>(src[i].value);
    }
    store_plain_run<N>(sums + to, values, count);
  }
  //! Where the segment ending at `row` writes channel `col` (its row of the grid, or its number),
  //! recording its key and the count; -1 for keys outside the grid.
  FASTSCAN_DEVICE std::int64_t destination(std::int64_t row, std::int64_t col) const {
    const Key key = keys.at(row);
    if (cells > 0) {
      return key >= 0 && static_cast<std::int64_t>(key) < cells ? static_cast<std::int64_t>(key) * channels + col : -1;
    }
    const std::int64_t number = __ldg(numbers + row);
    if (col == 0 && unique_keys != nullptr) {
      unique_keys[number - 1] = key;
      if (row + 1 == keys.rows) {
        *num_segments = number;
      }
    }
    return (number - 1) * channels + col;
  }
  FASTSCAN_DEVICE run_totals operator+(std::int64_t n) const {
    run_totals r = *this;
    r.pos += n;
    return r;
  }
  FASTSCAN_DEVICE slot operator[](std::int64_t n) const { return {this, pos + n}; }
  FASTSCAN_DEVICE slot operator*() const { return {this, pos}; }
};
template <class A, class Key, class Out>
struct takes_folds<run_totals<A, Key, Out>> : std::true_type {};

}  // namespace detail
FASTSCAN_NAMESPACE_END
