//! \file segmented.cuh
//! Scans and sums over runs of equal keys in [S, C] feature rows: segmented_cumsum,
//! segmented_inclusive_scan, segment_sum. Row i starts a segment when keys[i] != keys[i - 1]; the
//! heads are read from the keys as the rows are loaded (no flag array), on the same kernels and
//! look-back as every other scan, with segments crossing tiles and blocks. Sorted keys make every
//! key one segment; unsorted keys are well defined too (each run of equal keys is a segment).
#pragma once

#include <fastscan/dispatch/dispatch.cuh>
#include <fastscan/problem/generic.cuh>
#include <fastscan/problem/segmented.cuh>
#include <fastscan/shape.hpp>

#include <algorithm>
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

template <class Temp, class InIt, class Key, class A, class Op, class OutIt>
cudaError_t keyed_scan(Temp temp, InIt in, const Key* keys, OutIt out, Op op, std::int64_t S, std::int64_t C,
                       bool pointers_valid, cudaStream_t stream) {
  static_assert(std::is_integral_v<Key>, "segment keys are integers");
  if (!segment_args_valid(S, C, pointers_valid)) {
    return cudaErrorInvalidValue;
  }
  using problem = keyed_problem<InIt, Key, A, Op, OutIt>;
  return run(temp, problem{{}, in, out, row_keys<Key>{keys, S}, segmented_op<Op>{op}}, segment_shape(S, C), stream, true);
}

//! Carves 256-byte aligned pieces out of temp storage (a null base only adds up the sizes).
struct temp_carver {
  unsigned char* base;
  std::size_t used = 0;
  template <class T>
  T* take(std::size_t count) {
    T* const at = base ? reinterpret_cast<T*>(base + used) : nullptr;
    used += (count * sizeof(T) + 255) / 256 * 256;
    return at;
  }
};

//! Sums per run of sorted rows, in two passes sharing one scan's temp storage: the segments are
//! numbered by an exact scan of the keys' head flags (`numbers`, S int64), then the feature scan
//! with flag heads (whose look-backs stop at the first tile holding a head) writes each run's
//! total through `totals` (run_totals, which reads the numbers).
template <class InIt, class Key, class Acc, class Totals>
struct numbered_runs {
  using sum_problem = keyed_problem<InIt, Key, Acc, sum_op, Totals>;
  using number_problem = generic_problem<head_flags<Key>, std::int64_t*, sum_op>;
  std::int64_t S, C;
  std::size_t number_bytes = 0, sum_bytes = 0;

  number_problem numbering(const Key* keys, std::int64_t* numbers) const {
    return {{}, head_flags<Key>{row_keys<Key>{keys, S}}, numbers, sum_op{}};
  }
  sum_problem sums(InIt in, const Key* keys, const Totals& totals) const {
    return {{}, in, totals, row_keys<Key>{keys, S}, segmented_op<sum_op>{}};
  }
  //! The scans' temp storage (both run on one stream, so they share it).
  cudaError_t size(InIt in, const Key* keys, const Totals& totals, cudaStream_t stream) {
    cudaError_t err = run(caller_temp{nullptr, number_bytes}, numbering(keys, nullptr), Shape3{1, S, 1}, stream, true);
    if (err == cudaSuccess) err = run(caller_temp{nullptr, sum_bytes}, sums(in, keys, totals), segment_shape(S, C), stream, true);
    return err;
  }
  std::size_t scan_bytes() const { return std::max(number_bytes, sum_bytes); }
  cudaError_t launch(void* scan_temp, InIt in, const Key* keys, std::int64_t* numbers, const Totals& totals,
                     cudaStream_t stream) {
    cudaError_t err = run(caller_temp{scan_temp, number_bytes}, numbering(keys, numbers), Shape3{1, S, 1}, stream, true);
    if (err == cudaSuccess) err = run(caller_temp{scan_temp, sum_bytes}, sums(in, keys, totals), segment_shape(S, C), stream, true);
    return err;
  }
};

template <class T, class Key, class Acc>
cudaError_t segment_sum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Key* unique_keys,
                        Acc* sums, std::int64_t* num_segments, std::int64_t S, std::int64_t C, cudaStream_t stream) {
  static_assert(std::is_integral_v<Key>, "segment keys are integers");
  const bool valid = num_segments != nullptr && feats != nullptr && keys != nullptr && unique_keys != nullptr && sums != nullptr;
  if (!segment_args_valid(S, C, valid) || (d_temp != nullptr && num_segments == nullptr)) {
    return cudaErrorInvalidValue;
  }
  temp_carver t{static_cast<unsigned char*>(d_temp)};
  std::int64_t* const numbers = t.take<std::int64_t>(static_cast<std::size_t>(S));
  using totals_t = run_totals<Acc, Key, Acc>;
  const totals_t totals{sums, unique_keys, num_segments, numbers, {keys, S}, C, divisor(C > 0 ? C : 1)};
  numbered_runs<const T*, Key, Acc, totals_t> runs{S, C};
  const cudaError_t err = runs.size(feats, keys, totals, stream);
  const std::size_t bytes = t.used + runs.scan_bytes();
  if (err != cudaSuccess) {
    return err;
  }
  if (d_temp == nullptr) {
    temp_bytes = bytes;
    return cudaSuccess;
  }
  if (temp_bytes < bytes) {
    return cudaErrorInvalidValue;
  }
  if (S == 0) {
    return cudaMemsetAsync(num_segments, 0, sizeof(std::int64_t), stream);  // no rows: no segments
  }
  return runs.launch(static_cast<unsigned char*>(d_temp) + t.used, feats, keys, numbers, totals, stream);
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
  return detail::keyed_scan<detail::caller_temp, const T*, Key, Acc>({d_temp, temp_bytes}, feats, keys, out, sum_op{}, S,
                                                                    C, feats && keys && out, stream);
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
  return detail::keyed_scan<detail::caller_temp, InIt, Key, value_t>({d_temp, temp_bytes}, in, keys, out, op, S, C, valid,
                                                                    stream);
}

//! One row per segment: unique_keys[v] is segment v's key, sums[v, c] the sum of its rows' channel
//! c (accumulated directly in Acc, never by subtraction), and *num_segments (device memory) the
//! number of segments V. The caller sizes unique_keys and sums for the most segments possible
//! (S rows). Determinism and temp storage as for segmented_cumsum.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segment_sum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Key* unique_keys,
                        Acc* sums, std::int64_t* num_segments, std::int64_t S, std::int64_t C,
                        cudaStream_t stream = nullptr) {
  return detail::segment_sum(d_temp, temp_bytes, feats, keys, unique_keys, sums, num_segments, S, C, stream);
}

//! The self-allocating forms (stream-ordered temp storage).
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segmented_cumsum(const T* feats, const Key* keys, Acc* out, std::int64_t S, std::int64_t C,
                             cudaStream_t stream = nullptr) {
  return detail::keyed_scan<detail::stream_temp, const T*, Key, Acc>({}, feats, keys, out, sum_op{}, S, C,
                                                                    feats && keys && out, stream);
}
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segment_sum(const T* feats, const Key* keys, Key* unique_keys, Acc* sums, std::int64_t* num_segments,
                        std::int64_t S, std::int64_t C, cudaStream_t stream = nullptr) {
  return detail::with_stream_temp(
      [&](void* d_temp, std::size_t& bytes) {
        return detail::segment_sum(d_temp, bytes, feats, keys, unique_keys, sums, num_segments, S, C, stream);
      },
      stream);
}

FASTSCAN_NAMESPACE_END
