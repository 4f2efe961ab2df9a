//! \file warp_exchange.cuh
//! Moves a warp's contiguous run of 32 * N elements between global memory and a blocked register
//! arrangement (lane l holds elements [l*N, l*N + N)) with coalesced 16-byte accesses, by
//! exchanging 16-byte units through the warp's slice of shared memory.
//!
//! Direct blocked accesses of N*sizeof(T) bytes per lane touch 32 lines per warp instruction, which
//! caps a memory-bound kernel at a fraction of the bandwidth; through shared memory every global
//! access is a full coalesced line. Units are exchanged in passes of at most 8 per lane (128 bytes),
//! with one unit of padding per lane so that the blocked side is free of bank conflicts.
#pragma once

#include <fastscan/config.cuh>

#include <cstring>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

constexpr int exchange_units_per_pass = 8;

//! Shared-memory bytes one warp needs for the exchange.
__host__ __device__ constexpr std::size_t warp_exchange_bytes() {
  return 32 * (exchange_units_per_pass + 1) * 16;
}

template <class T, int N>
struct warp_exchange_shape {
  static constexpr bool supported = (sizeof(T) * N) % 16 == 0;
  static constexpr int units = static_cast<int>(sizeof(T) * N / 16);  //!< 16-byte units per lane
  static constexpr int per_pass = units < exchange_units_per_pass ? units : exchange_units_per_pass;
  static constexpr int passes = units / per_pass;
  static constexpr int pitch = per_pass > 1 ? per_pass + 1 : 1;  //!< padded units per lane in smem
  static_assert(!supported || units % per_pass == 0, "units per lane must split into equal passes");
};

//! Stages 32 * N contiguous elements at `warp_base` (16-byte aligned) in shared memory, lane l's
//! N elements at staged_row<T, N>(smem, l); at most 128 bytes per lane (one pass).
template <int N, class T>
FASTSCAN_DEVICE void warp_stage(const T* warp_base, uint4* smem) {
  using shape = warp_exchange_shape<T, N>;
  static_assert(shape::passes == 1, "staging holds at most 128 bytes per lane");
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const auto* src = reinterpret_cast<const uint4*>(warp_base);
#pragma unroll
  for (int m = 0; m < shape::per_pass; ++m) {
    const int u = m * 32 + lane;
    smem[(u / shape::per_pass) * shape::pitch + u % shape::per_pass] = src[u];
  }
  __syncwarp();
}

//! Lane `lane`'s staged elements.
template <class T, int N>
FASTSCAN_DEVICE T* staged_row(uint4* smem, int lane) {
  return reinterpret_cast<T*>(smem + lane * warp_exchange_shape<T, N>::pitch);
}

//! Stores blocked `items` as 32 * N contiguous elements at `warp_base` (16-byte aligned).
template <int N, class T>
FASTSCAN_DEVICE void warp_store_blocked(T* warp_base, const T (&items)[N], uint4* smem) {
  using shape = warp_exchange_shape<T, N>;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  auto* dst = reinterpret_cast<unsigned char*>(warp_base);
  uint4 mine[shape::units];
  memcpy(&mine, &items, sizeof(items));
#pragma unroll
  for (int pass = 0; pass < shape::passes; ++pass) {
#pragma unroll
    for (int j = 0; j < shape::per_pass; ++j) {
      smem[lane * shape::pitch + j] = mine[pass * shape::per_pass + j];
    }
    __syncwarp();
#pragma unroll
    for (int m = 0; m < shape::per_pass; ++m) {
      const int u = m * 32 + lane;
      const int t = u / shape::per_pass;
      const int j = u % shape::per_pass;
      *reinterpret_cast<uint4*>(dst + static_cast<std::size_t>(t) * N * sizeof(T) +
                                static_cast<std::size_t>(pass * shape::per_pass + j) * 16) = smem[t * shape::pitch + j];
    }
    __syncwarp();
  }
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
