//! \file layout.hpp
//! The one home of every formula that the solver (host) and the kernels (device) must agree on:
//! shared-memory layouts, the look-back's columns per warp, and the temp-storage layout. Plain
//! C++ (host and device), no CUDA types, so the host-only solver and its tests include it too.
#pragma once

#include <fastscan/namespace.hpp>

#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define FASTSCAN_LAYOUT_FN __host__ __device__ constexpr inline
#else
#define FASTSCAN_LAYOUT_FN constexpr inline
#endif

namespace FASTSCAN_NAMESPACE {
namespace detail {

FASTSCAN_LAYOUT_FN std::size_t align16(std::size_t v) { return (v + 15) / 16 * 16; }

//! Pieces of temp storage start 256 bytes apart at least, as the CUDA allocators align blocks.
FASTSCAN_LAYOUT_FN std::size_t temp_piece(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

//! The one carver of temp storage into pieces (a null base only adds up the sizes).
struct temp_carver {
  unsigned char* base;
  std::size_t used = 0;
  template <class T>
  T* take(std::size_t count) {
    T* const at = base ? reinterpret_cast<T*>(base + used) : nullptr;
    used += temp_piece(count * sizeof(T));
    return at;
  }
};

//! Warp rows of a column tile: a warp holds 32 / lanes_x thread rows when lanes_x < 32, else one.
FASTSCAN_LAYOUT_FN int column_warp_rows(int lanes_x, int lanes_y) {
  return lanes_x >= 32 ? lanes_y : lanes_y * lanes_x / 32;
}

//! Shared memory of a column tile, in byte offsets: the column totals of each warp row
//! [warp_rows][tile_cols], per column the tile total (later its prefix) and a has-prefix flag,
//! then one exchange slice per warp.
struct column_smem_layout {
  std::size_t warp_totals, totals, has_prefix, exchange, bytes;
};
FASTSCAN_LAYOUT_FN column_smem_layout column_smem(int lanes_x, int lanes_y, int tile_cols, std::size_t acc_bytes,
                                                  std::size_t slice_bytes) {
  const auto cols = static_cast<std::size_t>(tile_cols);
  const std::size_t totals = align16(static_cast<std::size_t>(column_warp_rows(lanes_x, lanes_y)) * cols * acc_bytes);
  const std::size_t has_prefix = totals + align16(cols * acc_bytes);
  const std::size_t exchange = has_prefix + align16(cols);
  return {0, totals, has_prefix, exchange, exchange + static_cast<std::size_t>(lanes_x * lanes_y / 32) * slice_bytes};
}

//! Shared memory of a row tile: the block scan's storage (a flagged value per warp and a flag),
//! the tile a stalled look-back names (8 bytes at `stall`), then one exchange slice per warp.
struct row_smem_layout {
  std::size_t stall, exchange, bytes;
};
FASTSCAN_LAYOUT_FN row_smem_layout row_smem(int threads, std::size_t flagged_bytes, std::size_t slice_bytes) {
  const auto warps = static_cast<std::size_t>(threads / 32);
  const std::size_t flag = align16(warps * flagged_bytes);
  const std::size_t exchange = flag + 16;
  return {flag + 8, exchange, exchange + warps * slice_bytes};
}

//! Columns each warp of a column tile looks back for: the tile's columns shared among its warps,
//! at least `min_per_warp` (or all of them when fewer). A power of two when its inputs are.
FASTSCAN_LAYOUT_FN int lookback_cols_per_warp(int tile_cols, int warps, int min_per_warp) {
  const int least = tile_cols < min_per_warp ? tile_cols : min_per_warp;
  const int spread = tile_cols >= warps ? tile_cols / warps : 1;
  return spread > least ? spread : least;
}
//! Predecessors one look-back poll reaches (lane groups of a warp, one column each).
FASTSCAN_LAYOUT_FN int lookback_window(int cols_per_warp) { return 32 / cols_per_warp; }

//! Temp storage of a plan that looks back: a 16-byte tile counter, the tiles' state (`channels`
//! words of `word_bytes` per tile), and as much again for the tile groups of a grouped look-back.
struct temp_layout {
  std::size_t tile_words, group_words, bytes;
};
FASTSCAN_LAYOUT_FN temp_layout lookback_temp(std::int64_t tiles, std::int64_t channels, std::size_t word_bytes,
                                             bool groups) {
  const std::size_t state = static_cast<std::size_t>(tiles) * static_cast<std::size_t>(channels) * word_bytes;
  return {16, 16 + state, 16 + state * (groups ? 2 : 1)};
}

}  // namespace detail
}  // namespace FASTSCAN_NAMESPACE
