//! \file shard_passes.cuh
//! The kernels of a sharded scan's steps (shard.cuh launches them): column folds in row order
//! (the first pass writes the record's length), and each column's carry from the earlier ranks'
//! records.
#pragma once

#include <fastscan/config.cuh>
#include <fastscan/device/stream_order.cuh>

#include <cstddef>
#include <cstdint>

FASTSCAN_NAMESPACE_BEGIN
namespace shard {
namespace detail_ {

//! A record's length and where it goes (null: nowhere), written by a fold pass on the stream (no
//! host memory for a captured graph to read later, no launch of its own).
struct record_length {
  std::int64_t* at;
  std::int64_t len;
};

//! out[o, k, c] = the fold, in row order, of rows [k * rows, (k + 1) * rows) of column (o, c) of
//! an [outer, len, inner] view read through `load(o, i, c)`; and the record's length.
FASTSCAN_KERNELS_BEGIN
template <class Acc, class Op, class Load>
FASTSCAN_KERNEL void fold_rows_kernel(Load load, Op op, Acc* out, std::int64_t outer, std::int64_t len, std::int64_t inner,
                                      std::int64_t rows, record_length length) {
  FASTSCAN_NAMESPACE::detail::enter_stream_order();
  if (length.at != nullptr && blockIdx.x == 0 && threadIdx.x == 0) *length.at = length.len;
  const std::int64_t chunks = (len + rows - 1) / rows;
  const std::int64_t n = outer * chunks * inner;
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < n; t += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t c = t % inner, k = (t / inner) % chunks, o = t / (inner * chunks);
    const std::int64_t first = k * rows, last = first + rows < len ? first + rows : len;
    Acc acc = load(o, first, c);
    for (std::int64_t i = first + 1; i < last; ++i) acc = op(acc, load(o, i, c));
    out[t] = acc;
  }
}
FASTSCAN_KERNELS_END

//! The shard's inputs lifted at shard positions; then a pass's partial folds.
template <class T, class Kind>
struct input_rows {
  const T* in;
  Kind kind;
  std::int64_t len, inner;
  FASTSCAN_HD typename Kind::acc_t operator()(std::int64_t o, std::int64_t i, std::int64_t c) const {
    return kind.element(in[(o * len + i) * inner + c], i);
  }
};
template <class Acc>
struct partial_rows {
  const Acc* partials;
  std::int64_t len, inner;
  FASTSCAN_HD Acc operator()(std::int64_t o, std::int64_t i, std::int64_t c) const { return partials[(o * len + i) * inner + c]; }
};

//! Each column's carry (the fold of the earlier ranks' records, positions rebased), whether it has
//! one, and the shard's offset.
FASTSCAN_KERNELS_BEGIN
template <class Kind>
FASTSCAN_KERNEL void carry_kernel(const unsigned char* records, std::size_t record_bytes, int rank, std::int64_t cols, Kind kind,
                                  typename Kind::acc_t* carry, unsigned char* has, std::int64_t* offset) {
  FASTSCAN_NAMESPACE::detail::enter_stream_order();
  using Acc = typename Kind::acc_t;
  for (std::int64_t col = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; col < cols; col += std::int64_t{gridDim.x} * blockDim.x) {
    std::int64_t off = 0;
    bool have = false;
    Acc acc{};
    for (int q = 0; q < rank; ++q) {
      const unsigned char* const record = records + static_cast<std::size_t>(q) * record_bytes;
      const std::int64_t len = *reinterpret_cast<const std::int64_t*>(record);
      if (len > 0) {
        const Acc a = kind.rebase(reinterpret_cast<const Acc*>(record + 16)[col], off);
        acc = have ? kind.op(acc, a) : a;
        have = true;
      }
      off += len;
    }
    carry[col] = acc;
    has[col] = have;
    if (col == 0) *offset = off;
  }
}
FASTSCAN_KERNELS_END

}  // namespace detail_
}  // namespace shard
FASTSCAN_NAMESPACE_END
