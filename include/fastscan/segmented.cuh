//! \file segmented.cuh
//! Scans and sums over runs of equal keys in [S, C] feature rows: segmented_cumsum,
//! segmented_inclusive_scan, segment_sum. Row i starts a segment when keys[i] != keys[i - 1]; the
//! heads are read from the keys as the rows are loaded (no flag array), on the same kernels and
//! look-back as every other scan, with segments crossing tiles and blocks. Sorted keys make every
//! key one segment; unsorted keys are well defined too (each run of equal keys is a segment).
#pragma once

#include <fastscan/dispatch/dispatch.cuh>
#include <fastscan/problem/segmented.cuh>
#include <fastscan/shape.hpp>

#include <iterator>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN

//! The default accumulator of segmented sums: float for 8- and 16-bit floats and float, T otherwise.
template <class T>
using segment_acc_t = std::conditional_t<detail::is_half_v<T> || detail::is_fp8_v<T>, float, T>;

namespace detail {

//! [S, C] rows scanned along S (one segment array: outer 1). Negative sizes, C = 0 with rows, or
//! null pointers with rows are invalid.
inline bool segment_args_valid(std::int64_t S, std::int64_t C, bool pointers_valid) {
  return S >= 0 && C >= 0 && (S == 0 || (C > 0 && pointers_valid));
}
inline Shape3 segment_shape(std::int64_t S, std::int64_t C) { return Shape3{1, S, C}; }

template <class Temp, class InIt, class Key, class A, class H, class Op, class OutIt>
cudaError_t keyed_scan(Temp temp, InIt in, const Key* keys, OutIt out, Op op, std::int64_t S, std::int64_t C,
                       bool pointers_valid, cudaStream_t stream) {
  static_assert(std::is_integral_v<Key>, "segment keys are integers");
  if (!segment_args_valid(S, C, pointers_valid)) {
    return cudaErrorInvalidValue;
  }
  using problem = keyed_problem<InIt, Key, A, H, Op, OutIt>;
  return run(temp, problem{{}, in, out, row_keys<Key>{keys, S}, segmented_op<Op>{op}}, segment_shape(S, C), stream, true);
}

template <class Temp, class T, class Key, class Acc>
cudaError_t segment_sum(Temp temp, const T* feats, const Key* keys, Key* unique_keys, Acc* sums,
                        std::int64_t* num_segments, std::int64_t S, std::int64_t C, cudaStream_t stream) {
  const bool valid = num_segments != nullptr && feats != nullptr && keys != nullptr && unique_keys != nullptr && sums != nullptr;
  const run_totals<Acc, Key, Acc> out{sums, unique_keys, num_segments, {keys, S}, C, divisor(C > 0 ? C : 1), 0};
  cudaError_t err = keyed_scan<Temp, const T*, Key, Acc, std::int64_t>(temp, feats, keys, out, sum_op{}, S, C, valid, stream);
  bool launches = true;
  if constexpr (std::is_same_v<Temp, caller_temp>) {
    launches = temp.d_temp != nullptr;
  }
  if (err == cudaSuccess && S == 0 && launches) {
    if (num_segments == nullptr) {
      return cudaErrorInvalidValue;
    }
    err = cudaMemsetAsync(num_segments, 0, sizeof(std::int64_t), stream);  // no rows: no segments
  }
  return err;
}

}  // namespace detail

//! Inclusive sums of each channel of `feats` ([S, C] row-major) along the rows, restarting at each
//! new key: out[i, c] = sum of feats[j, c] over the rows j <= i of row i's segment, accumulated in
//! Acc in an order fixed by the plan (float results are bitwise the same run to run). Temp storage
//! is two-phase (a null d_temp asks for temp_bytes) and 16-byte aligned; bad arguments give
//! cudaErrorInvalidValue before any launch.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segmented_cumsum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Acc* out,
                             std::int64_t S, std::int64_t C, cudaStream_t stream = nullptr) {
  return detail::keyed_scan<detail::caller_temp, const T*, Key, Acc, bool>(
      {d_temp, temp_bytes}, feats, keys, out, sum_op{}, S, C, feats && keys && out, stream);
}

//! The same with any associative `op(earlier, later)` over the input's value type, C channels per
//! row; `in` is any random-access input iterator, `out` any random-access output iterator.
template <class InIt, class Key, class OutIt, class Op>
cudaError_t segmented_inclusive_scan(void* d_temp, std::size_t& temp_bytes, InIt in, const Key* keys, OutIt out, Op op,
                                     std::int64_t S, std::int64_t C, cudaStream_t stream = nullptr) {
  using value_t = typename std::iterator_traits<InIt>::value_type;
  bool valid = keys != nullptr;
  if constexpr (std::is_pointer_v<InIt>) valid = valid && in != nullptr;
  if constexpr (std::is_pointer_v<OutIt>) valid = valid && out != nullptr;
  return detail::keyed_scan<detail::caller_temp, InIt, Key, value_t, bool>({d_temp, temp_bytes}, in, keys, out, op, S,
                                                                          C, valid, stream);
}

//! One row per segment: unique_keys[v] is segment v's key, sums[v, c] the sum of its rows' channel
//! c (accumulated directly in Acc, never by subtraction), and *num_segments (device memory) the
//! number of segments V. The caller sizes unique_keys and sums for the most segments possible
//! (S rows). Determinism and temp storage as for segmented_cumsum.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segment_sum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Key* unique_keys,
                        Acc* sums, std::int64_t* num_segments, std::int64_t S, std::int64_t C,
                        cudaStream_t stream = nullptr) {
  return detail::segment_sum(detail::caller_temp{d_temp, temp_bytes}, feats, keys, unique_keys, sums, num_segments, S, C,
                             stream);
}

//! The self-allocating forms (stream-ordered temp storage).
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segmented_cumsum(const T* feats, const Key* keys, Acc* out, std::int64_t S, std::int64_t C,
                             cudaStream_t stream = nullptr) {
  return detail::keyed_scan<detail::stream_temp, const T*, Key, Acc, bool>({}, feats, keys, out, sum_op{}, S, C,
                                                                          feats && keys && out, stream);
}
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segment_sum(const T* feats, const Key* keys, Key* unique_keys, Acc* sums, std::int64_t* num_segments,
                        std::int64_t S, std::int64_t C, cudaStream_t stream = nullptr) {
  return detail::segment_sum(detail::stream_temp{}, feats, keys, unique_keys, sums, num_segments, S, C, stream);
}

FASTSCAN_NAMESPACE_END
