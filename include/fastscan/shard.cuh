//! \file shard.cuh
//! Scans along an axis cut into shards, one per rank in rank order: the arithmetic of a
//! distributed scan, below any communication (fastscan/nccl.cuh adds the all-gather). Rank r holds
//! `[outer, len_r, inner]`, the rows [offset_r, offset_r + len_r) of every column of the whole
//! `[outer, sum of len_q, inner]`; its result is its part of the scan of the whole. Three steps:
//!   1. `summarize`: the shard's length and the fold of each of its columns (a summary record,
//!      `summary_bytes` bytes) in an order fixed by the shape;
//!   2. the exchange: every rank gets every rank's record, in rank order (an all-gather);
//!   3. `scan_from`: each column's carry, the fold of the earlier ranks' records, enters the shard's
//!      first row as it is read, and one scan writes the outputs.
//! Every operator takes the same path, so the whole reads the input twice and writes it once, and
//! a float sum is bitwise the same for a fixed number of ranks and shard lengths. Positions
//! (cummax / cummin indices) are global: a record keeps shard positions, rebased by the offsets
//! the lengths give.
#pragma once

#include <fastscan/detail/layout.hpp>
#include <fastscan/device/shard_passes.cuh>
#include <fastscan/inclusive_scan.cuh>
#include <fastscan/ops/value_index.cuh>

#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/tuple.h>

FASTSCAN_NAMESPACE_BEGIN
namespace shard {

//! What a sharded scan folds: `element(x, position)` lifts an input at a global (or, in a record,
//! shard) position to the accumulator, `rebase(acc, offset)` moves a record's positions by the
//! shard's offset. Sums and any operator ignore positions; cummax / cummin keep them.
template <class Acc, class Op>
struct plain_kind {
  using acc_t = Acc;
  Op op;
  template <class T>
  FASTSCAN_HD Acc element(const T& x, std::int64_t) const {
    return detail::convert_to<Acc>(x);
  }
  FASTSCAN_HD Acc rebase(const Acc& a, std::int64_t) const { return a; }
};
template <class T, Extreme E, Tie Ti>
struct extreme_kind {
  using acc_t = value_index<T>;
  value_index_op<T, E, Ti> op;
  FASTSCAN_HD acc_t element(const T& x, std::int64_t position) const { return {x, position}; }
  FASTSCAN_HD acc_t rebase(acc_t a, std::int64_t offset) const {
    a.index += offset;
    return a;
  }
};

//! A summary record: the shard's length, then one accumulator per column (o * inner + c).
template <class Acc>
std::size_t summary_bytes(Shape3 local) {
  return 16 + detail::align16(static_cast<std::size_t>(local.outer * local.inner) * sizeof(Acc));
}

namespace detail_ {


constexpr std::int64_t fold_rows = 64;  //!< rows a thread folds per pass (passes: log_64 len)

inline bool extents_valid(Shape3 s) { return std::min({s.outer, s.len, s.inner}) >= 0; }

//! Element i of the shard as the scan reads it: lifted at its global position, the carry folded
//! into the first row (inclusive), or the previous row's (exclusive: the carry, or the identity, first).
template <class T, class Kind>
struct carried_input {
  const T* in;
  Kind kind;
  const typename Kind::acc_t* carry;
  const unsigned char* has;
  const std::int64_t* offset;
  std::int64_t len, inner;
  bool exclusive;
  __device__ typename Kind::acc_t operator()(std::int64_t i) const {
    const std::int64_t c = i % inner, pos = (i / inner) % len, col = (i / (inner * len)) * inner + c;
    if (exclusive) {
      if (pos > 0) return kind.element(in[i - inner], *offset + pos - 1);
      return has[col] ? carry[col] : typename Kind::acc_t{};
    }
    const auto x = kind.element(in[i], *offset + pos);
    return pos == 0 && has[col] ? kind.op(carry[col], x) : x;
  }
};

//! (value, index) to the two output arrays.
template <class T, class Index>
struct split_pair {
  __device__ thrust::tuple<T, Index> operator()(const value_index<T>& p) const {
    return thrust::make_tuple(p.value, static_cast<Index>(p.index));
  }
};

}  // namespace detail_

namespace detail_ {

//! out[o * inner + c] = the fold of column (o, c): passes of fold_rows rows each, ping-ponging
//! partial folds between two temp arrays, until one row is left (the last pass writes `out`).
template <class T, class Kind, class Acc = typename Kind::acc_t>
cudaError_t fold_columns(const T* in, Shape3 local, Kind kind, Acc* out, Acc* ping, Acc* pong, cudaStream_t stream) {
  std::int64_t rows_left = local.len;
  const Acc* from = nullptr;
  for (int pass = 0;; ++pass) {
    const std::int64_t chunks = (rows_left + fold_rows - 1) / fold_rows;
    Acc* const to = chunks == 1 ? out : (pass % 2 == 0 ? ping : pong);
    const unsigned blocks = FASTSCAN_NAMESPACE::detail::elementwise_grid(local.outer * chunks * local.inner);
    if (pass == 0) {
      fold_rows_kernel<<<blocks, policy::elementwise_threads, 0, stream>>>(input_rows<T, Kind>{in, kind, local.len, local.inner}, kind.op, to, local.outer,
                                                  rows_left, local.inner, fold_rows);
    } else {
      fold_rows_kernel<<<blocks, policy::elementwise_threads, 0, stream>>>(partial_rows<Acc>{from, rows_left, local.inner}, kind.op, to, local.outer,
                                                  rows_left, local.inner, fold_rows);
    }
    const cudaError_t err = cudaPeekAtLastError();
    if (err != cudaSuccess || chunks == 1) return err;
    from = to;
    rows_left = chunks;
  }
}

}  // namespace detail_

//! Step 1: writes the shard's summary record to `record` (summary_bytes<Kind::acc_t>(local) bytes,
//! device memory, 16-byte aligned). Two-phase temp storage; cudaErrorInvalidValue for negative
//! extents or null pointers with rows.
template <class T, class Kind>
cudaError_t summarize(void* d_temp, std::size_t& temp_bytes, const T* in, Shape3 local, Kind kind, void* record,
                      cudaStream_t stream = nullptr) {
  using Acc = typename Kind::acc_t;
  namespace d = detail_;
  if (!d::extents_valid(local)) return cudaErrorInvalidValue;
  const std::int64_t cols = local.outer * local.inner;
  const auto folds = static_cast<std::size_t>(cols * ((local.len + d::fold_rows - 1) / d::fold_rows));
  FASTSCAN_NAMESPACE::detail::temp_carver t{static_cast<unsigned char*>(d_temp)};
  Acc* const from = t.take<Acc>(folds);  // (the fold passes alternate between two buffers)
  Acc* const to = t.take<Acc>(folds);
  cudaError_t err = cudaSuccess;
  if (!FASTSCAN_NAMESPACE::detail::temp_ready(d_temp, temp_bytes, t.used, err)) return err;
  const std::int64_t len = cols > 0 ? local.len : 0;  // (the rows of a shard without columns are empty)
  if (record == nullptr || (len > 0 && in == nullptr)) return cudaErrorInvalidValue;
  d::write_length_kernel<<<1, 1, 0, stream>>>(static_cast<std::int64_t*>(record), len);
  err = cudaPeekAtLastError();
  if (err != cudaSuccess || len == 0) return err;
  return d::fold_columns(in, local, kind, reinterpret_cast<Acc*>(static_cast<unsigned char*>(record) + 16), from, to, stream);
}

//! Step 3: scans the shard into `out` (any output iterator taking Kind::acc_t) from the records of
//! all `ranks` ranks (`records`, rank order, record_bytes apart, as an all-gather leaves them);
//! `exclusive` for exclusive sums. Two-phase temp storage.
template <class T, class Kind, class OutIt>
cudaError_t scan_from(void* d_temp, std::size_t& temp_bytes, const T* in, Shape3 local, Kind kind, const void* records,
                      std::size_t record_bytes, int rank, OutIt out, bool exclusive = false, cudaStream_t stream = nullptr) {
  using Acc = typename Kind::acc_t;
  namespace d = detail_;
  if (!d::extents_valid(local) || rank < 0) return cudaErrorInvalidValue;
  const std::int64_t cols = local.outer * local.inner;
  FASTSCAN_NAMESPACE::detail::temp_carver t{static_cast<unsigned char*>(d_temp)};
  Acc* const carry = t.take<Acc>(static_cast<std::size_t>(cols));
  unsigned char* const has = t.take<unsigned char>(static_cast<std::size_t>(cols));
  auto* const offset = t.take<std::int64_t>(1);
  const d::carried_input<T, Kind> carried{in, kind, carry, has, offset, std::max<std::int64_t>(local.len, 1),
                                          std::max<std::int64_t>(local.inner, 1), exclusive};
  const auto input = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), carried);
  std::size_t scan_bytes = 0;
  cudaError_t err = FASTSCAN_NAMESPACE::inclusive_scan(nullptr, scan_bytes, input, out, kind.op, local, stream);
  unsigned char* const scan_temp = t.take<unsigned char>(scan_bytes);
  if (err != cudaSuccess || !FASTSCAN_NAMESPACE::detail::temp_ready(d_temp, temp_bytes, t.used, err)) return err;
  if (records == nullptr) return cudaErrorInvalidValue;
  if (cols == 0 || local.len == 0) return cudaSuccess;
  d::carry_kernel<<<FASTSCAN_NAMESPACE::detail::elementwise_grid(cols), policy::elementwise_threads, 0, stream>>>(
      static_cast<const unsigned char*>(records), record_bytes, rank, cols, kind, carry, has, offset);
  err = cudaPeekAtLastError();
  return err != cudaSuccess ? err : FASTSCAN_NAMESPACE::inclusive_scan(scan_temp, scan_bytes, input, out, kind.op, local, stream);
}

//! The output of cummax / cummin shards: values and indices through one iterator.
template <class T, class Index>
auto pair_output(T* values, Index* indices) {
  return thrust::make_transform_output_iterator(thrust::make_zip_iterator(thrust::make_tuple(values, indices)),
                                                detail_::split_pair<T, Index>{});
}

}  // namespace shard
FASTSCAN_NAMESPACE_END
