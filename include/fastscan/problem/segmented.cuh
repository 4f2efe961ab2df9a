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
struct keyed_problem {
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
  FASTSCAN_DEVICE output_t output(const acc_t& inclusive, const acc_t&, bool) const {
    if constexpr (std::is_same_v<H, bool>) {
      return inclusive.value;
    } else {
      return inclusive;
    }
  }

  template <int N>
  struct buffer {
    output_t v[N];
  };
  template <int N>
  FASTSCAN_DEVICE void put(buffer<N>& b, int i, const acc_t& inclusive, const acc_t& previous, bool had) const {
    b.v[i] = output(inclusive, previous, had);
  }
  template <int N, class Storer>
  FASTSCAN_DEVICE void store(const buffer<N>& b, std::int64_t flat, int count, Storer&& storer) const {
    storer(out + flat, b.v, count);
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

  struct slot {
    const run_totals* to;
    std::int64_t flat;
    FASTSCAN_DEVICE void operator=(const flagged<A, std::int64_t>& fold) const { to->write(flat, fold); }
  };
  FASTSCAN_DEVICE void write(std::int64_t flat, const flagged<A, std::int64_t>& fold) const {
    const std::int64_t row = by_channels.div(flat);
    if (!keys.last(row)) {
      return;
    }
    const std::int64_t channel = flat - row * channels;
    const Key key = keys.at(row);
    if (cells > 0) {
      if (key >= 0 && static_cast<std::int64_t>(key) < cells) {
        sums[static_cast<std::int64_t>(key) * channels + channel] = convert_to<Out>(fold.value);
      }
      return;
    }
    const std::int64_t segment = fold.head - 1;
    sums[segment * channels + channel] = convert_to<Out>(fold.value);
    if (channel == 0) {
      unique_keys[segment] = key;
      if (row + 1 == keys.rows) {
        *num_segments = fold.head;
      }
    }
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
