//! \file warp_scan.cuh
//! Warp-shuffle collectives for any trivially copyable value type and any associative operator.
#pragma once

#include <fastscan/config.cuh>

#include <cstring>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

constexpr unsigned full_warp_mask = 0xffffffffu;

template <class T>
struct shuffle_words {
  static constexpr int count = static_cast<int>((sizeof(T) + 3) / 4);
  unsigned w[count];
};

//! __shfl_up_sync for a value of any size (it moves 4-byte words).
template <class T>
FASTSCAN_DEVICE T shuffle_up(const T& v, unsigned delta, int width = 32) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  shuffle_words<T> words{};
  memcpy(&words, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < shuffle_words<T>::count; ++i) {
    words.w[i] = __shfl_up_sync(full_warp_mask, words.w[i], delta, width);
  }
  T out;
  memcpy(&out, &words, sizeof(T));
  return out;
}

//! __shfl_sync for a value of any size.
template <class T>
FASTSCAN_DEVICE T shuffle_idx(const T& v, int src_lane, int width = 32) {
  static_assert(std::is_trivially_copyable_v<T>, "shuffled values must be trivially copyable");
  shuffle_words<T> words{};
  memcpy(&words, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < shuffle_words<T>::count; ++i) {
    words.w[i] = __shfl_sync(full_warp_mask, words.w[i], src_lane, width);
  }
  T out;
  memcpy(&out, &words, sizeof(T));
  return out;
}

}  // namespace detail

//! Inclusive scan across the lanes of a warp, in independent segments of `width` lanes (a power of
//! two, at most 32). Kogge-Stone over shuffles: log2(width) steps, no shared memory. All 32 lanes
//! must call it. `op(earlier, later)` need not be commutative.
template <class T, class Op>
FASTSCAN_DEVICE T warp_inclusive_scan(T v, Op op, int width = 32) {
  const int lane = static_cast<int>(threadIdx.x) & (width - 1);
  for (int d = 1; d < width; d *= 2) {
    const T up = detail::shuffle_up(v, static_cast<unsigned>(d), width);
    if (lane >= d) {
      v = op(up, v);
    }
  }
  return v;
}

//! Inclusive scan down interleaved chains of lanes: lane l is element l / stride of chain
//! l % stride (`stride` a power of two; 32 or more leaves every lane alone). The column kernel scans
//! down the thread rows of a warp with it, the look-back down the window groups of each channel.
//! All 32 lanes must call it.
template <class T, class Op>
FASTSCAN_DEVICE T warp_strided_inclusive_scan(T v, Op op, int stride) {
  const int pos = (static_cast<int>(threadIdx.x) & 31) / stride;
  for (int d = 1; d * stride < 32; d *= 2) {
    const T up = detail::shuffle_up(v, static_cast<unsigned>(d * stride));
    if (pos >= d) {
      v = op(up, v);
    }
  }
  return v;
}

FASTSCAN_NAMESPACE_END
