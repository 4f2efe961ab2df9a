//! \file vector_io.cuh
//! Loads and stores of short contiguous runs, as 16-byte (or narrower) vectors when the address
//! allows, element by element otherwise.
#pragma once

#include <fastscan/config.cuh>

#include <cstring>
#include <iterator>
#include <type_traits>
#include <utility>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! True when `It` is a pointer to (possibly const) T: such outputs may leave through the warp's
//! shared-memory exchange; other iterators, and pointers to other types, are written element by
//! element (store_run).
template <class It, class T>
inline constexpr bool is_pointer_to_v =
    std::is_pointer_v<It> && std::is_same_v<std::remove_cv_t<std::remove_pointer_t<It>>, T>;

//! Widest power-of-two chunk (at most 16 bytes) that tiles a run of `bytes`.
__host__ __device__ constexpr int vector_chunk(std::size_t bytes) {
  return bytes % 16 == 0 ? 16 : bytes % 8 == 0 ? 8 : bytes % 4 == 0 ? 4 : bytes % 2 == 0 ? 2 : 1;
}

template <int Chunk>
struct chunk_type;
template <>
struct chunk_type<16> { using type = uint4; };
template <>
struct chunk_type<8> { using type = uint2; };
template <>
struct chunk_type<4> { using type = unsigned; };
template <>
struct chunk_type<2> { using type = unsigned short; };
template <>
struct chunk_type<1> { using type = unsigned char; };

//! Iterators that move a run themselves, `it.read_run(dst, count)` / `it.write_run(src, count)`:
//! rows read through a permutation, or written only where a segment ends, find their row once a
//! run instead of once an element.
template <class It, class T, int N, class = void>
struct reads_runs : std::false_type {};
template <class It, class T, int N>
struct reads_runs<It, T, N, std::void_t<decltype(std::declval<const It&>().read_run(std::declval<T (&)[N]>(), 0))>>
    : std::true_type {};
template <class It, class T, int N, class = void>
struct writes_runs : std::false_type {};
template <class It, class T, int N>
struct writes_runs<It, T, N, std::void_t<decltype(std::declval<const It&>().write_run(std::declval<const T (&)[N]>(), 0))>>
    : std::true_type {};

template <class T, int N>
FASTSCAN_DEVICE bool run_is_vectorizable(const T* p, int count) {
  constexpr int chunk = vector_chunk(sizeof(T) * N);
  return count == N && reinterpret_cast<std::uintptr_t>(p) % chunk == 0;
}

//! Asks L2 for the line holding `p` without waiting for it (no register holds the data): a block
//! fetches the inputs of a tile that a later block will scan, so that block's loads hit L2.
template <class It>
FASTSCAN_DEVICE void prefetch_l2(It it) {
  if constexpr (std::is_pointer_v<It>) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(it));
  }
}

//! A whole run of N elements read as chunks of type C.
template <class C, int N, class T>
FASTSCAN_DEVICE void load_chunks(const T* it, T (&dst)[N]) {
  constexpr int chunks = static_cast<int>(sizeof(T) * N / sizeof(C));
  C tmp[chunks];
  const C* src = reinterpret_cast<const C*>(it);
#pragma unroll
  for (int i = 0; i < chunks; ++i) {
    tmp[i] = src[i];
  }
  memcpy(&dst, &tmp, sizeof(T) * N);
}
//! A whole run of N elements written as chunks of type C.
template <class C, int N, class T>
FASTSCAN_DEVICE void store_chunks(T* it, const T (&src)[N]) {
  constexpr int chunks = static_cast<int>(sizeof(T) * N / sizeof(C));
  C tmp[chunks];
  memcpy(&tmp, &src, sizeof(T) * N);
  C* dst = reinterpret_cast<C*>(it);
#pragma unroll
  for (int i = 0; i < chunks; ++i) {
    if constexpr (sizeof(C) == 16) {
      __stwb(dst + i, tmp[i]);  // one 16-byte store (a plain assignment was split into 8+4+4)
    } else {
      dst[i] = tmp[i];
    }
  }
}

//! Reads `count` (<= N) elements starting at `it` (a pointer or an element-wise iterator).
template <int N, class It, class T>
FASTSCAN_DEVICE void load_plain_run(It it, T (&dst)[N], int count) {
  if constexpr (std::is_pointer_v<It>) {
    using V = std::remove_cv_t<std::remove_pointer_t<It>>;
    if constexpr (std::is_same_v<V, T>) {
      constexpr int chunk = vector_chunk(sizeof(T) * N);
      using C = typename chunk_type<chunk>::type;
      if (chunk > static_cast<int>(sizeof(T)) && run_is_vectorizable<T, N>(it, count)) {
        load_chunks<C>(it, dst);
        return;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (i < count) {
      dst[i] = it[i];
    }
  }
}

//! Writes `count` (<= N) elements starting at `it` (a pointer or an element-wise iterator).
template <int N, class It, class T>
FASTSCAN_DEVICE void store_plain_run(It it, const T (&src)[N], int count) {
  if constexpr (std::is_pointer_v<It>) {
    using V = std::remove_pointer_t<It>;
    if constexpr (std::is_same_v<V, T>) {
      constexpr int chunk = vector_chunk(sizeof(T) * N);
      using C = typename chunk_type<chunk>::type;
      if (chunk > static_cast<int>(sizeof(T)) && run_is_vectorizable<T, N>(it, count)) {
        store_chunks<C>(it, src);
        return;
      }
    }
  }
#pragma unroll
  for (int i = 0; i < N; ++i) {
    if (i < count) {
      it[i] = src[i];
    }
  }
}

//! Reads `count` (<= N) elements starting at `it`.
template <int N, class It, class T>
FASTSCAN_DEVICE void load_run(It it, T (&dst)[N], int count) {
  if constexpr (reads_runs<It, T, N>::value) {
    it.read_run(dst, count);
  } else {
    load_plain_run<N>(it, dst, count);
  }
}

//! Writes `count` (<= N) elements starting at `it`.
template <int N, class It, class T>
FASTSCAN_DEVICE void store_run(It it, const T (&src)[N], int count) {
  if constexpr (writes_runs<It, T, N>::value) {
    it.write_run(src, count);
  } else {
    store_plain_run<N>(it, src, count);
  }
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
