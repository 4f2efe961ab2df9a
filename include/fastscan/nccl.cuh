//! \file nccl.cuh
//! Scans along an axis sharded across the ranks of an NCCL communicator (context parallelism):
//! rank r holds `[outer, len_r, inner]`, the rows after those of ranks 0 ... r-1, any `len_r`
//! (0 included), the same outer and inner everywhere; each rank gets its part of the scan of the
//! whole. Each rank summarizes its shard (fastscan/shard.cuh), one in-place `ncclAllGather`
//! exchanges the records (16 + outer * inner accumulators per rank), and each rank scans its shard
//! from the carry of the earlier ranks: all on the caller's stream, with no host synchronisation.
//! Link NCCL (CMake: `fastscan::nccl`); the rest of fastscan does not need it.
#pragma once

#include <fastscan/shard.cuh>

#include <nccl.h>

FASTSCAN_NAMESPACE_BEGIN
namespace nccl {
namespace detail_ {

//! Acc to Out as it is written (16-bit float outputs round once).
template <class Out>
struct convert {
  template <class Acc>
  __device__ Out operator()(const Acc& a) const {
    return FASTSCAN_NAMESPACE::detail::convert_to<Out>(a);
  }
};

//! The communicator's size and this rank; false for a null or broken communicator.
inline bool ranks_of(ncclComm_t comm, int& ranks, int& rank) {
  return comm != nullptr && ncclCommCount(comm, &ranks) == ncclSuccess && ncclCommUserRank(comm, &rank) == ncclSuccess;
}

//! Valid pointers wherever there are rows, aligned temp storage.
inline bool launchable(const void* d_temp, Shape3 local, bool pointers_valid) {
  const bool rows = local.outer * local.len * local.inner > 0;
  return (!rows || pointers_valid) && FASTSCAN_NAMESPACE::detail::temp_aligned(d_temp);
}

//! A sharded scan's temp storage: every rank's record (record bytes apart), then the larger of the
//! two steps' temp storage.
struct sharded_temp {
  std::size_t record = 0, records = 0, summary = 0, scan = 0;
  std::size_t bytes() const { return records + std::max(summary, scan); }
};
template <class T, class Kind, class OutIt>
cudaError_t size_sharded(sharded_temp& t, const T* in, Shape3 local, Kind kind, OutIt out, bool exclusive, int ranks, int rank,
                         cudaStream_t stream) {
  t.record = shard::summary_bytes<typename Kind::acc_t>(local);
  t.records = FASTSCAN_NAMESPACE::detail::temp_piece(t.record * static_cast<std::size_t>(ranks));
  const cudaError_t err = shard::summarize(nullptr, t.summary, in, local, kind, nullptr, stream);
  return err != cudaSuccess ? err
                            : shard::scan_from(nullptr, t.scan, in, local, kind, nullptr, t.record, rank, out, exclusive, stream);
}

//! Summarize into this rank's record, all-gather the records in place, scan from the carry.
template <class T, class Kind, class OutIt>
cudaError_t summarize_gather_scan(unsigned char* base, sharded_temp t, const T* in, Shape3 local, Kind kind, OutIt out,
                                  bool exclusive, int rank, ncclComm_t comm, cudaStream_t stream) {
  unsigned char* const mine = base + static_cast<std::size_t>(rank) * t.record;
  const cudaError_t err = shard::summarize(base + t.records, t.summary, in, local, kind, mine, stream);
  if (err != cudaSuccess) return err;
  if (ncclAllGather(mine, base, t.record, ncclUint8, comm, stream) != ncclSuccess) return cudaErrorUnknown;
  return shard::scan_from(base + t.records, t.scan, in, local, kind, base, t.record, rank, out, exclusive, stream);
}

//! Summarize, all-gather the records in place, scan from the carry. Temp: the records, then the
//! larger of the two steps' temp storage. An NCCL failure returns cudaErrorUnknown.
template <class T, class Kind, class OutIt>
cudaError_t sharded_scan(void* d_temp, std::size_t& temp_bytes, const T* in, Shape3 local, Kind kind, OutIt out, bool exclusive,
                         bool pointers_valid, ncclComm_t comm, cudaStream_t stream) {
  int ranks = 0, rank = 0;
  if (!shard::detail_::extents_valid(local) || !ranks_of(comm, ranks, rank)) {
    return cudaErrorInvalidValue;
  }
  sharded_temp t;
  cudaError_t err = size_sharded(t, in, local, kind, out, exclusive, ranks, rank, stream);
  if (err != cudaSuccess || !FASTSCAN_NAMESPACE::detail::temp_ready(d_temp, temp_bytes, t.bytes(), err)) return err;
  if (!launchable(d_temp, local, pointers_valid)) return cudaErrorInvalidValue;
  return summarize_gather_scan(static_cast<unsigned char*>(d_temp), t, in, local, kind, out, exclusive, rank, comm, stream);
}

template <Extreme E, class T, class Index>
cudaError_t extreme(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 local, ncclComm_t comm,
                    cudaStream_t stream, Tie tie) {
  const bool valid = in != nullptr && values != nullptr && indices != nullptr;
  const auto out = shard::pair_output(values, indices);
  return tie == Tie::last
             ? sharded_scan(d_temp, temp_bytes, in, local, shard::extreme_kind<T, E, Tie::last>{}, out, false, valid, comm, stream)
             : sharded_scan(d_temp, temp_bytes, in, local, shard::extreme_kind<T, E, Tie::first>{}, out, false, valid, comm, stream);
}

//! Inclusive sums may be in place (each element reads only its own input); exclusive ones read
//! each element's predecessor, which another tile may already have overwritten, so they take
//! arrays apart.
template <class T, class Out>
cudaError_t sum(void* d_temp, std::size_t& temp_bytes, const T* in, Out* out, Shape3 local, bool exclusive, ncclComm_t comm,
                cudaStream_t stream) {
  namespace fd = FASTSCAN_NAMESPACE::detail;
  using Acc = fd::arith_t<Out>;
  const std::int64_t n = local.outer * local.len * local.inner;
  const fd::byte_span i = fd::span_of(in, n), o = fd::span_of(out, n);
  const bool valid = in != nullptr && out != nullptr && (exclusive ? !fd::overlap(i, o) : fd::in_place_or_apart(i, o));
  const auto to = thrust::make_transform_output_iterator(out, convert<Out>{});
  return sharded_scan(d_temp, temp_bytes, in, local, shard::plain_kind<Acc, sum_op>{}, to, exclusive, valid, comm, stream);
}

}  // namespace detail_

//! Running maximum and its global index (the position in the whole axis) of the sharded axis,
//! with cummax's semantics (ties, NaN). `Index` must hold the whole axis's last position.
template <class T, class Index = std::int64_t>
cudaError_t cummax(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 local_shape,
                   ncclComm_t comm, cudaStream_t stream, Tie tie = Tie::last) {
  return detail_::extreme<Extreme::max>(d_temp, temp_bytes, in, values, indices, local_shape, comm, stream, tie);
}
//! Running minimum and its global index; as cummax.
template <class T, class Index = std::int64_t>
cudaError_t cummin(void* d_temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, Shape3 local_shape,
                   ncclComm_t comm, cudaStream_t stream, Tie tie = Tie::last) {
  return detail_::extreme<Extreme::min>(d_temp, temp_bytes, in, values, indices, local_shape, comm, stream, tie);
}
//! Inclusive sums of the sharded axis, accumulated as cumsum does (float for 16-bit floats).
template <class T, class Out = T>
cudaError_t cumsum(void* d_temp, std::size_t& temp_bytes, const T* in, Out* out, Shape3 local_shape, ncclComm_t comm,
                   cudaStream_t stream) {
  return detail_::sum(d_temp, temp_bytes, in, out, local_shape, false, comm, stream);
}
//! Exclusive sums of the sharded axis (0 at the start of the whole axis); `in` and `out` apart (not in
//! place: cudaErrorInvalidValue).
template <class T, class Out = T>
cudaError_t exclusive_cumsum(void* d_temp, std::size_t& temp_bytes, const T* in, Out* out, Shape3 local_shape, ncclComm_t comm,
                             cudaStream_t stream) {
  return detail_::sum(d_temp, temp_bytes, in, out, local_shape, true, comm, stream);
}
//! Any associative `op(earlier, later)` over T (affine pairs for state passing, for example).
template <class T, class Op>
cudaError_t inclusive_scan(void* d_temp, std::size_t& temp_bytes, const T* in, T* out, Op op, Shape3 local_shape, ncclComm_t comm,
                           cudaStream_t stream) {
  return detail_::sharded_scan(d_temp, temp_bytes, in, local_shape, shard::plain_kind<T, Op>{op}, out, false,
                               in != nullptr && out != nullptr, comm, stream);
}

}  // namespace nccl
FASTSCAN_NAMESPACE_END
