//! \file segmented.cuh
//! Scans and sums over runs of equal keys in [S, C] feature rows: segmented_cumsum,
//! segmented_inclusive_scan, segment_sum. Row i starts a segment when keys[i] != keys[i - 1]. The
//! scans read the heads from the keys as the rows are loaded (no flag array), on the same kernels
//! and look-back as every other scan, with segments crossing tiles and blocks; segment_sum, a
//! reduction, numbers the segments with an exact scan of the heads and sums each run's rows in
//! order (device/run_sums.cuh). Sorted keys make every key one segment; unsorted keys are well
//! defined too (each run of equal keys is a segment).
#pragma once

#include <fastscan/device/run_sums.cuh>
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
  const byte_span i = span_of(in, S * C), o = span_of(out, S * C), k = span_of(keys, S);
  pointers_valid = pointers_valid && in_place_or_apart(i, o) && !overlap(i, k) && !overlap(o, k);
  if (!segment_args_valid(S, C, pointers_valid)) {
    return cudaErrorInvalidValue;
  }
  using problem = keyed_problem<InIt, Key, A, Op, OutIt>;
  return run(temp, problem{{}, in, out, row_keys<Key>{keys, S}, segmented_op<Op>{op}}, segment_shape(S, C), stream, true);
}

//! Columns a run-sum thread sums: one 16-byte group (one element above 16 bytes).
template <class T>
constexpr int run_sum_vec = sizeof(T) >= 16 ? 1 : static_cast<int>(16 / sizeof(T));

//! Sums each run of equal keys of [S, C] rows (device/run_sums.cuh) into `out` through `to`;
//! carves its partial sums from `t` and launches only when `launch` (the same carving sizes it).
template <class T, class Acc, class Key, class To>
cudaError_t sum_runs(temp_carver& t, bool launch, feature_rows<T> rows, const Key* keys, To to, Acc* out, std::int64_t S,
                     std::int64_t C, cudaStream_t stream) {
  constexpr int V = run_sum_vec<T>;
  const std::int64_t groups = (C + V - 1) / V;
  const std::int64_t range_rows = run_sum_rows(S, groups);
  const std::int64_t ranges = (S + range_rows - 1) / range_rows;
  const run_partials<Acc> parts{t.take<Acc>(static_cast<std::size_t>(ranges * C)), t.take<Acc>(static_cast<std::size_t>(ranges * C)),
                                t.take<std::int64_t>(static_cast<std::size_t>(ranges)),
                                t.take<unsigned char>(static_cast<std::size_t>(ranges))};
  if (!launch || S == 0) {
    return cudaSuccess;
  }
  const run_sum_pass<feature_rows<T>, Key, To, Acc> pass{rows, keys, to, out, parts, S, C, range_rows, ranges, groups};
  using run_policy = policy::run_sums;
  const launch_dims dims{(ranges * groups + run_policy::threads - 1) / run_policy::threads, run_policy::threads};
  const cudaError_t err = launch_kernel<run_sums_kernel<run_policy, V, T, decltype(pass)>>(dims, stream, pass);
  return err == cudaSuccess && ranges > 1 ? launch_kernel<run_tails_kernel<V, decltype(pass)>>(dims, stream, pass) : err;
}

//! The segments of sorted keys numbered 1, 2, ... at each row (`numbers`): an exact scan of the
//! keys' head flags, 8 bytes a row beside the features. Sizes its scan's temp when !launch.
template <class Key>
cudaError_t number_segments(temp_carver& t, bool launch, const Key* keys, std::int64_t* numbers, std::int64_t S,
                            cudaStream_t stream) {
  const generic_problem<head_flags<Key>, std::int64_t*, sum_op> numbering{{}, head_flags<Key>{row_keys<Key>{keys, S}}, numbers, sum_op{}};
  std::size_t bytes = 0;
  cudaError_t err = run(caller_temp{nullptr, bytes}, numbering, Shape3{1, S, 1}, stream, true);
  void* const temp = t.take<unsigned char>(bytes);
  if (err == cudaSuccess && launch && S > 0) {
    err = run(caller_temp{temp, bytes}, numbering, Shape3{1, S, 1}, stream, true);
  }
  return err;
}

//! Past a size query: a count to write, and aligned temp storage where there are rows.
inline bool segment_temp_valid(const void* d_temp, const std::int64_t* num_segments, std::int64_t S) {
  return d_temp == nullptr || (num_segments != nullptr && (S == 0 || temp_aligned(d_temp)));
}
//! segment_sum's arguments: sizes, pointers, arrays that share no byte (outputs of M rows), aligned
//! temp storage (a size query needs no arrays).
template <class T, class Key, class Acc>
bool segment_sum_args_valid(const void* d_temp, const T* feats, const Key* keys, const Key* unique_keys, const Acc* sums,
                            const std::int64_t* num_segments, std::int64_t S, std::int64_t C, std::int64_t M) {
  const bool valid = non_null(num_segments, feats, keys, unique_keys, sums) &&
                     all_apart({span_of(feats, S * C), span_of(keys, S), span_of(unique_keys, M), span_of(sums, M * C),
                                span_of(num_segments, 1)});
  return M >= 0 && segment_args_valid(S, C, valid) && segment_temp_valid(d_temp, num_segments, S);
}

//! The segment count: the last row's number (0 without rows).
inline cudaError_t copy_count(std::int64_t* num_segments, const std::int64_t* numbers, std::int64_t S, cudaStream_t stream) {
  return S == 0 ? cudaMemsetAsync(num_segments, 0, sizeof(std::int64_t), stream)
                : cudaMemcpyAsync(num_segments, numbers + S - 1, sizeof(std::int64_t), cudaMemcpyDeviceToDevice, stream);
}

//! segment_sum's sizes: S rows of C channels in, M rows of sums out.
struct segment_sizes {
  std::int64_t S, C, M;
};

//! segment_sum's passes over its temp storage: the rows' segment numbers, the run sums, the count.
//! `launch` false only sizes them (the same pieces are carved either way).
template <class T, class Key, class Acc>
cudaError_t segment_sum_passes(unsigned char* base, bool launch, std::size_t& used, const T* feats, const Key* keys,
                               Key* unique_keys, Acc* sums, std::int64_t* num_segments, segment_sizes n, cudaStream_t stream) {
  const std::int64_t S = n.S, C = n.C;
  temp_carver t{base};
  std::int64_t* const numbers = t.take<std::int64_t>(static_cast<std::size_t>(S));
  cudaError_t err = number_segments(t, launch, keys, numbers, S, stream);
  if (err == cudaSuccess) {
    err = sum_runs<T>(t, launch, feature_rows<T>{feats, nullptr, C}, keys, runs_to_numbers<Key>{keys, numbers, unique_keys, n.M},
                      sums, S, C, stream);
  }
  if (err == cudaSuccess && launch) {
    err = copy_count(num_segments, numbers, S, stream);
  }
  used = t.used;
  return err;
}

//! M: the rows of unique_keys and sums (segments past them are counted, not written).
template <class T, class Key, class Acc>
cudaError_t segment_sum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Key* unique_keys,
                        Acc* sums, std::int64_t* num_segments, std::int64_t S, std::int64_t C, cudaStream_t stream,
                        std::int64_t M) {
  static_assert(std::is_integral_v<Key>, "segment keys are integers");
  if (!segment_sum_args_valid(d_temp, feats, keys, unique_keys, sums, num_segments, S, C, M)) {
    return cudaErrorInvalidValue;
  }
  const segment_sizes rows{S, C, M};
  std::size_t bytes = 0;
  cudaError_t err = segment_sum_passes(nullptr, false, bytes, feats, keys, unique_keys, sums, num_segments, rows, stream);
  if (err != cudaSuccess || !temp_ready(d_temp, temp_bytes, bytes, err)) return err;
  return segment_sum_passes(static_cast<unsigned char*>(d_temp), true, bytes, feats, keys, unique_keys, sums, num_segments, rows,
                            stream);
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
//! number of segments V. unique_keys and sums have `max_segments` rows (S, the most segments there
//! can be, when negative): segments from max_segments on are counted in V but not written, and
//! rows from V on are left as they were. Determinism and temp storage as for segmented_cumsum.
template <class T, class Key, class Acc = segment_acc_t<T>>
cudaError_t segment_sum(void* d_temp, std::size_t& temp_bytes, const T* feats, const Key* keys, Key* unique_keys,
                        Acc* sums, std::int64_t* num_segments, std::int64_t S, std::int64_t C,
                        cudaStream_t stream = nullptr, std::int64_t max_segments = -1) {
  return detail::segment_sum(d_temp, temp_bytes, feats, keys, unique_keys, sums, num_segments, S, C, stream,
                             max_segments < 0 ? S : max_segments);
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
                        std::int64_t S, std::int64_t C, cudaStream_t stream = nullptr, std::int64_t max_segments = -1) {
  return detail::with_stream_temp(
      [&](void* d_temp, std::size_t& bytes) {
        return detail::segment_sum(d_temp, bytes, feats, keys, unique_keys, sums, num_segments, S, C, stream,
                                   max_segments < 0 ? S : max_segments);
      },
      stream);
}

FASTSCAN_NAMESPACE_END
