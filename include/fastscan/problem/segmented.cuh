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

//! A scan of [rows, channels] along the rows, restarting at each new key. H = bool: a segmented
//! scan, the output is each element's fold; an integer H: the fold also counts the segments, and
//! the output iterator (run_totals) takes the whole fold.
template <class InIt, class Key, class A, class H, class Op, class OutIt>
struct keyed_problem
    : one_output<keyed_problem<InIt, Key, A, H, Op, OutIt>, std::conditional_t<std::is_same_v<H, bool>, A, flagged<A, H>>> {
  using input_t = typename std::iterator_traits<InIt>::value_type;
  using acc_t = flagged<A, H>;
  using op_t = segmented_op<Op>;
  using output_t = std::conditional_t<std::is_same_v<H, bool>, A, acc_t>;
  using side_t = void;
  InIt in;
  OutIt out;
  row_keys<Key> keys;
  op_t op;

  //! (The kernels pass the row along the scanned axis; a keyed problem has one segment array.)
  FASTSCAN_DEVICE acc_t lift(const input_t& x, std::int64_t row) const {
    return {convert_to<A>(x), static_cast<H>(keys.head(row))};
  }
  //! With flag heads a fold that holds a head is the same whatever comes before it (the operator
  //! restarts there, bit for bit); a count of heads always depends on the heads before.
  static FASTSCAN_DEVICE bool complete(const acc_t& fold) {
    if constexpr (std::is_same_v<H, bool>) {
      return fold.head;
    } else {
      return false;
    }
  }
  FASTSCAN_DEVICE output_t output(const acc_t& inclusive, const acc_t&, bool) const {
    if constexpr (std::is_same_v<H, bool>) {
      return inclusive.value;
    } else {
      return inclusive;
    }
  }
};

//! Output iterator of segment sums over [rows, channels]: the fold at the last row of a segment
//! (its count of heads numbers the segment) goes to sums[segment, channel], the segment's key to
//! unique_keys[segment] and the last row's count to *num_segments; other elements write nothing.
//! With cells > 0 the sums go to the row of the key instead (a dense grid: bev_pool), keys outside
//! [0, cells) are dropped, and there are no unique keys or count.
template <class A, class Key, class Out>
struct run_totals {
  Out* sums;
  Key* unique_keys;
  std::int64_t* num_segments;
  row_keys<Key> keys;
  std::int64_t channels;
  divisor by_channels;
  std::int64_t cells = 0;
  std::int64_t pos = 0;

  using fold_t = flagged<A, std::int64_t>;
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
    const std::int64_t to = destination(row, col, src[0].head);
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
  FASTSCAN_DEVICE std::int64_t destination(std::int64_t row, std::int64_t col, std::int64_t heads) const {
    const Key key = keys.at(row);
    if (cells > 0) {
      return key >= 0 && static_cast<std::int64_t>(key) < cells ? static_cast<std::int64_t>(key) * channels + col : -1;
    }
    const std::int64_t segment = heads - 1;
    if (col == 0) {
      unique_keys[segment] = key;
      if (row + 1 == keys.rows) {
        *num_segments = heads;
      }
    }
    return segment * channels + col;
  }
  FASTSCAN_DEVICE run_totals operator+(std::int64_t n) const {
    run_totals r = *this;
    r.pos += n;
    return r;
  }
  FASTSCAN_DEVICE slot operator[](std::int64_t n) const { return {this, pos + n}; }
  FASTSCAN_DEVICE slot operator*() const { return {this, pos}; }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
