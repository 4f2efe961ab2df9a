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

//! One pass of fold_columns: `rows` (the input or the last pass's partial folds, rows_left rows
//! a column) folded fold_rows rows at a time into `to` (chunks rows a column).
template <class Rows, class Op, class Acc>
cudaError_t fold_pass(Rows rows, Op op, Acc* to, Shape3 local, std::int64_t rows_left, std::int64_t chunks,
                      record_length length, cudaStream_t stream) {
  namespace d = FASTSCAN_NAMESPACE::detail;
  return d::launch_kernel<fold_rows_kernel<Acc, Op, Rows>>(d::elementwise_dims(local.outer * chunks * local.inner),
                                                           stream, rows, op, to, local.outer, rows_left, local.inner,
                                                           fold_rows, length);
}
inline std::int64_t fold_chunks(std::int64_t rows) { return (rows + fold_rows - 1) / fold_rows; }

//! out[o * inner + c] = the fold of column (o, c): passes of fold_rows rows each, ping-ponging
//! partial folds between two temp arrays, until one row is left (the last pass writes `out`). The
//! first pass, made even with no rows, writes `length`.
template <class T, class Kind, class Acc = typename Kind::acc_t>
cudaError_t fold_columns(const T* in, Shape3 local, Kind kind, Acc* out, Acc* ping, Acc* pong, record_length length,
                         cudaStream_t stream) {
  std::int64_t chunks = fold_chunks(local.len);
  Acc* to = chunks == 1 ? out : ping;
  cudaError_t err = fold_pass(input_rows<T, Kind>{in, kind, local.len, local.inner}, kind.op, to, local, local.len, chunks,
                              length, stream);
  for (int pass = 1; err == cudaSuccess && chunks > 1; ++pass) {
    const Acc* const from = to;
    const std::int64_t rows_left = chunks;
    chunks = fold_chunks(rows_left);
    to = chunks == 1 ? out : (pass % 2 == 0 ? ping : pong);
    err = fold_pass(partial_rows<Acc>{from, rows_left, local.inner}, kind.op, to, local, rows_left, chunks,
                    record_length{nullptr, 0}, stream);
  }
  return err;
}

}  // namespace detail_

namespace detail_ {
//! summarize's temp storage: two arrays of partial folds, written in turn by the fold passes.
template <class Acc>
struct fold_temp {
  Acc* from;
  Acc* to;
};
template <class Acc>
fold_temp<Acc> take_folds(FASTSCAN_NAMESPACE::detail::temp_carver& t, Shape3 local) {
  const auto folds = static_cast<std::size_t>(local.outer * local.inner * fold_chunks(local.len));
  Acc* const from = t.take<Acc>(folds);
  return {from, t.take<Acc>(folds)};
}
//! The record's length (a shard without columns has empty rows) and its columns' folds.
template <class T, class Kind, class Acc>
cudaError_t write_record(const T* in, Shape3 local, Kind kind, void* record, fold_temp<Acc> folds, cudaStream_t stream) {
  const record_length length{static_cast<std::int64_t*>(record), local.outer * local.inner > 0 ? local.len : 0};
  const Shape3 rows{local.outer, length.len, local.inner};  // (no columns: one pass over nothing)
  return fold_columns(in, rows, kind, reinterpret_cast<Acc*>(static_cast<unsigned char*>(record) + 16), folds.from, folds.to,
                      length, stream);
}
//! A record to write to, and inputs wherever the shard has elements.
template <class T>
bool summary_pointers_valid(const T* in, Shape3 local, const void* record) {
  return record != nullptr && (in != nullptr || local.outer * local.len * local.inner == 0);
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
  FASTSCAN_NAMESPACE::detail::temp_carver t{static_cast<unsigned char*>(d_temp)};
  const d::fold_temp<Acc> folds = d::take_folds<Acc>(t, local);
  cudaError_t err = cudaSuccess;
  if (!FASTSCAN_NAMESPACE::detail::temp_ready(d_temp, temp_bytes, t.used, err)) return err;
  if (!d::summary_pointers_valid(in, local, record)) return cudaErrorInvalidValue;
  return d::write_record(in, local, kind, record, folds, stream);
}

namespace detail_ {
//! scan_from's temp storage: each column's carry and whether it has one, the shard's offset.
template <class Acc>
struct carry_temp {
  Acc* carry;
  unsigned char* has;
  std::int64_t* offset;
};
template <class Acc>
carry_temp<Acc> take_carries(FASTSCAN_NAMESPACE::detail::temp_carver& t, std::int64_t cols) {
  Acc* const carry = t.take<Acc>(static_cast<std::size_t>(cols));
  unsigned char* const has = t.take<unsigned char>(static_cast<std::size_t>(cols));
  return {carry, has, t.take<std::int64_t>(1)};
}
//! The ranks' records: rank order, record_bytes apart, and this rank's number.
struct record_set {
  const void* records;
  std::size_t record_bytes;
  int rank;
};
//! Each column's carry from the earlier ranks' records, then the scan of the shard with them.
template <class Kind, class Acc, class Input, class OutIt>
cudaError_t carry_and_scan(record_set r, Shape3 local, Kind kind, carry_temp<Acc> c, Input input, OutIt out, void* scan_temp,
                           std::size_t scan_bytes, cudaStream_t stream) {
  if (r.records == nullptr) return cudaErrorInvalidValue;
  const std::int64_t cols = local.outer * local.inner;
  if (cols == 0 || local.len == 0) return cudaSuccess;
  namespace d = FASTSCAN_NAMESPACE::detail;
  const cudaError_t err = d::launch_kernel<carry_kernel<Kind>>(d::elementwise_dims(cols), stream,
                                           static_cast<const unsigned char*>(r.records), r.record_bytes, r.rank, cols,
                                           kind, c.carry, c.has, c.offset);
  return err != cudaSuccess ? err : FASTSCAN_NAMESPACE::inclusive_scan(scan_temp, scan_bytes, input, out, kind.op, local, stream);
}
}  // namespace detail_

//! Step 3: scans the shard into `out` (any output iterator taking Kind::acc_t) from the records of
//! all `ranks` ranks (`records`, rank order, record_bytes apart, as an all-gather leaves them);
//! `exclusive` for exclusive sums. Two-phase temp storage.
template <class T, class Kind, class OutIt>
cudaError_t scan_from(void* d_temp, std::size_t& temp_bytes, const T* in, Shape3 local, Kind kind, const void* records,
                      std::size_t record_bytes, int rank, OutIt out, bool exclusive = false, cudaStream_t stream = nullptr) {
  namespace d = detail_;
  if (!d::extents_valid(local) || rank < 0) return cudaErrorInvalidValue;
  FASTSCAN_NAMESPACE::detail::temp_carver t{static_cast<unsigned char*>(d_temp)};
  const auto c = d::take_carries<typename Kind::acc_t>(t, local.outer * local.inner);
  const d::carried_input<T, Kind> carried{in, kind, c.carry, c.has, c.offset, std::max<std::int64_t>(local.len, 1),
                                          std::max<std::int64_t>(local.inner, 1), exclusive};
  const auto input = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), carried);
  std::size_t scan_bytes = 0;
  cudaError_t err = FASTSCAN_NAMESPACE::inclusive_scan(nullptr, scan_bytes, input, out, kind.op, local, stream);
  unsigned char* const scan_temp = t.take<unsigned char>(scan_bytes);
  if (err != cudaSuccess || !FASTSCAN_NAMESPACE::detail::temp_ready(d_temp, temp_bytes, t.used, err)) return err;
  return d::carry_and_scan(d::record_set{records, record_bytes, rank}, local, kind, c, input, out, scan_temp, scan_bytes, stream);
}

//! The output of cummax / cummin shards: values and indices through one iterator.
template <class T, class Index>
auto pair_output(T* values, Index* indices) {
  return thrust::make_transform_output_iterator(thrust::make_zip_iterator(thrust::make_tuple(values, indices)),
                                                detail_::split_pair<T, Index>{});
}

}  // namespace shard
FASTSCAN_NAMESPACE_END
