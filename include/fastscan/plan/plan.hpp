//! \file plan.hpp
//! The launch-config solver: (outer, len, inner, element sizes, device) -> plan. Host-only; every
//! launch shape in fastscan comes from here.
#pragma once

#include <fastscan/plan/policy.hpp>
#include <fastscan/shape.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace FASTSCAN_NAMESPACE {

//! What the solver needs to know of the device.
struct device_limits {
  int sm_count = 132;
  std::int64_t max_grid_x = 2147483647;
  std::size_t smem_per_block = 48 * 1024;
};

//! Sizes of the types a scan moves and keeps.
struct scan_types {
  std::size_t in_bytes;     //!< input element
  std::size_t acc_bytes;    //!< accumulator (what the column kernel's tile state holds per column)
  std::size_t word_bytes;   //!< tile state per tile and channel (16 bytes per 8 of the accumulator)
  std::size_t flagged_bytes;  //!< accumulator with a segment-head flag (row kernel block scan)
  std::size_t exchange_bytes_per_warp = 0;  //!< column kernel: a warp's exchange slice
  bool rows_in_place = false;  //!< the row kernel forms outputs in shared memory, the first array in
                               //!< place of the staged inputs (detail::rows_in_place)
  std::size_t row_exchange_bytes_per_warp = 0;  //!< row kernel: its warp slice (0: the column's)
  int column_items = 0;  //!< most rows per thread of the column kernels (0: policy::column_items(in_bytes));
                         //!< plans of more than policy::column_items(in_bytes) run the wide one
  std::size_t column_wide_exchange_bytes_per_warp = 0;  //!< the wide column kernel's warp slice
  bool exact = true;  //!< the operator is exactly associative (is_exactly_associative; not float sums)
};

enum class strategy {
  empty,    //!< nothing to do
  rows,     //!< inner == 1, inputs up to 8 bytes: flat segmented tiles over outer * len
  columns,  //!< inner > 1: tiles of rows x contiguous columns, scanned down the columns
};

//! A launch plan. Describes a layout (tiles over [outer, len, inner]), not a special case.
struct plan {
  strategy kind = strategy::empty;
  int block_threads = 0;       //!< threads per block (lanes_x * lanes_y)
  int lanes_x = 0;             //!< rows: threads along the row; columns: threads across columns
  int lanes_y = 0;             //!< rows: 1; columns: threads down the scan axis
  int items = 0;               //!< consecutive scan positions per thread (compile-time policy)
  int vec = 1;                 //!< columns per thread (columns)
  std::int64_t tile_items = 0; //!< rows: elements per tile; columns: scan positions per tile
  std::int64_t tile_cols = 1;  //!< columns per tile
  std::int64_t col_chunks = 1; //!< tiles across inner
  std::int64_t len_tiles = 0;  //!< tiles along len (columns) or along outer*len (rows)
  std::int64_t num_tiles = 0;  //!< blocks launched
  std::size_t smem_bytes = 0;  //!< dynamic shared memory per block
  bool lookback = false;       //!< tiles depend on predecessors through the tile state
  bool lookback_groups = false;  //!< columns: the ordered look-back runs in two levels (tile groups)
  std::size_t temp_bytes = 0;  //!< temp storage: a 16-byte tile counter, then the tile state (0
                               //!< when no tile looks back)
  std::int64_t grid = 0;       //!< blocks launched: num_tiles, or fewer for grid-stride plans
  std::int64_t prefetch_tiles = 0;  //!< each tile prefetches into L2 the inputs of the tile this many
                                    //!< tiles later (0: none)
  unsigned first_poll_ns = 0;  //!< a tile's look-back sleeps this long before its first poll
  Shape3 layout{0, 0, 0};      //!< the shape the kernels see (a len-1 scan is a copy: rows of 1)
  bool valid = true;           //!< false when the shape cannot be planned (see error)
  const char* error = nullptr;
};

namespace detail {

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
inline int next_pow2(std::int64_t v) {
  int p = 1;
  while (p < v && p < (1 << 30)) {
    p *= 2;
  }
  return p;
}
inline std::size_t align16(std::size_t v) { return (v + 15) / 16 * 16; }
//! Tile state of a column plan: a channel per column of every tile. Plans whose look-back runs in
//! tile groups (plan::lookback_groups) keep as much again for the groups (device/tile_state.cuh,
//! grouped_exclusive_prefix).
inline std::size_t column_tile_state_bytes(const plan& p, std::size_t word_bytes) {
  return static_cast<std::size_t>(p.num_tiles) * static_cast<std::size_t>(p.tile_cols) * word_bytes;
}

//! Shared memory of the row kernel: the block scan (one flagged value per warp, one flag), then
//! each warp's exchange slice.
inline std::size_t row_smem_bytes(int threads, const scan_types& types) {
  const auto warps = static_cast<std::size_t>(threads / 32);
  const std::size_t slice = types.row_exchange_bytes_per_warp > 0 ? types.row_exchange_bytes_per_warp
                                                                  : types.exchange_bytes_per_warp;
  return align16(warps * types.flagged_bytes) + 16 + warps * slice;
}

}  // namespace detail

//! Solves the launch configuration of a scan along `len` of `shape`.
//!
//! Rows (inner == 1): tiles of threads * items consecutive elements; the block is halved from
//! the kernel's (policy::row_kernel_bounds) while that leaves fewer than policy::row_min_tiles_per_sm tiles per SM,
//! so a single long row spreads over the chip and many short rows pack into full tiles.
//! Columns (inner > 1): lanes_x covers the contiguous columns (vec each), lanes_y the scan axis;
//! lanes_y shrinks when len is short and the freed threads widen lanes_x.
inline plan make_plan(Shape3 shape, scan_types types, device_limits dev = {}) {
  plan p;
  if (shape.outer < 0 || shape.len < 0 || shape.inner < 0) {
    p.valid = false;
    p.error = "negative extent";
    return p;
  }
  if (shape.outer == 0 || shape.len == 0 || shape.inner == 0) {
    return p;
  }
  constexpr std::int64_t max_numel = std::int64_t{1} << 62;
  if (shape.outer > max_numel / shape.len || shape.outer * shape.len > max_numel / shape.inner) {
    p.valid = false;
    p.error = "more than 2^62 elements";
    return p;
  }
  const std::int64_t numel = shape.outer * shape.len * shape.inner;
  if (shape.len == 1) {
    shape = Shape3{numel, 1, 1};  // every element is its own row
  }
  p.layout = shape;
  if (shape.inner == 1 && policy::row_kernel_takes(types.in_bytes)) {
    p.kind = strategy::rows;
    p.items = policy::row_items(types.in_bytes, types.acc_bytes, types.rows_in_place);
    int threads = policy::row_kernel_bounds(types.rows_in_place, types.in_bytes, types.exact, types.acc_bytes).threads;
    while (threads > policy::row_threads_min &&
           detail::ceil_div(numel, std::int64_t{threads} * p.items) <
               std::int64_t{policy::row_min_tiles_per_sm} * dev.sm_count) {
      threads /= 2;
    }
    // Latency-bound rows (too few tiles even at the smallest block) take fewer items per thread
    // (policy::row_latency_items, row_latency_threads): more tiles to spread over the chip, and less
    // work in turn for each thread.
    const int latency_items = policy::row_latency_items(types.in_bytes, types.acc_bytes);
    if (latency_items < p.items && threads == policy::row_threads_min &&
        detail::ceil_div(numel, std::int64_t{threads} * p.items) <
            std::int64_t{policy::row_min_tiles_per_sm} * dev.sm_count) {
      p.items = latency_items;
      threads = policy::row_latency_threads(types.acc_bytes);
    }
    while (threads > 32 && detail::row_smem_bytes(threads, types) > dev.smem_per_block) {
      threads /= 2;
    }
    p.block_threads = p.lanes_x = threads;
    p.lanes_y = 1;
    p.tile_items = std::int64_t{threads} * p.items;
    p.len_tiles = p.num_tiles = detail::ceil_div(numel, p.tile_items);
    p.smem_bytes = detail::row_smem_bytes(threads, types);
    p.lookback = p.num_tiles > 1 && p.tile_items % shape.len != 0;
    if (p.lookback) {
      p.temp_bytes = 16 + static_cast<std::size_t>(p.num_tiles) * types.word_bytes;
    }
  } else {
    p.kind = strategy::columns;
    p.vec = policy::column_vec(types.in_bytes);
    const std::int64_t col_groups = detail::ceil_div(shape.inner, p.vec);
    const int want_x = detail::next_pow2(col_groups);
    // Rows per thread: the kernel's (policy::column_items), fewer when len is shorter (no thread
    // covers rows past the end).
    const int kernel_items = types.column_items > 0 ? types.column_items : policy::column_items(types.in_bytes);
    const int max_items = std::min(kernel_items, detail::next_pow2(shape.len));
    // The warp slice of the kernel that runs `items` rows per thread.
    auto column_slice_bytes = [&](int items) {
      return items > policy::column_items(types.in_bytes) ? types.column_wide_exchange_bytes_per_warp
                                                          : types.exchange_bytes_per_warp;
    };
    // Column totals per warp row [warp_rows][tile_cols], per column the tile total and a flag,
    // then the warps' exchange slices (device/column_scan.cuh).
    auto smem = [&](int ly, int lx) {
      const auto cols = static_cast<std::size_t>(lx) * p.vec;
      const auto warp_rows = static_cast<std::size_t>(lx >= 32 ? ly : ly * lx / 32);
      return detail::align16(warp_rows * cols * types.acc_bytes) + detail::align16(cols * types.acc_bytes) +
             detail::align16(cols) + static_cast<std::size_t>(lx * ly / 32) * column_slice_bytes(p.items);
    };
    // Tiles that look back are at most policy::column_lookback_max_cols wide: narrower tiles make
    // more chains, and one warp looks back for all columns of a tile.
    const bool one_chain = shape.outer * detail::ceil_div(shape.inner, std::int64_t{policy::column_lookback_max_cols(types.in_bytes)}) == 1;
    const int lookback_lanes_x =
        std::max(1, policy::column_lookback_max_cols(types.in_bytes, types.acc_bytes, one_chain, types.exact) / p.vec);
    // A look-back reaches 32 tiles per round trip, divided among the columns each warp looks back
    // for: a chain within that finds its prefix in one round trip, a longer one waits for more.
    auto fits_window = [](const plan& q) {
      const int warps = q.block_threads / 32;
      const std::int64_t per_warp = q.tile_cols >= warps ? q.tile_cols / warps : 1;
      return q.len_tiles * per_warp <= 32;
    };
    // Tiles at least one 32-byte sector wide.
    const int min_lanes_x = std::max(1, 32 / (p.vec * static_cast<int>(types.in_bytes)));
    const plan base = p;
    auto search = [&](int start_threads, int items) {
      p = base;
      p.items = items;
      const int want_y = detail::next_pow2(detail::ceil_div(shape.len, p.items));
      plan too_long;  // the first look-back plan whose chains exceed a window
      bool have_too_long = false;
      // Passes: uncapped; then, for a plan that looks back, at most policy::column_lookback_max_cols
      // wide; then, for a small problem whose chains exceed a look-back window, narrower tiles (more,
      // shorter chains) if one fits, so every chain finds its prefix within one round trip.
      for (int max_lanes_x = 1 << 30;;) {
        const int cap_x = want_x < max_lanes_x ? want_x : max_lanes_x;
        // Largest block (from start_threads down to one warp) that still gives
        // policy::column_min_tiles_per_sm tiles per SM; small problems get small tiles.
        plan wider;  // the previous (larger-block) candidate
        bool have_wider = false;
        for (int threads = start_threads;; threads /= 2) {
          // A warp across the columns reads 32 whole 16-byte vectors of a row: wider blocks go down
          // the scan axis, so per-tile look-back state stays small next to the tile's data.
          int lanes_x = cap_x < 32 ? cap_x : 32;
          int lanes_y = threads / lanes_x;
          if (lanes_y > want_y) {
            lanes_y = want_y;
            lanes_x = cap_x < threads / lanes_y ? cap_x : threads / lanes_y;
          }
          while (lanes_x * lanes_y < 32) {  // every block holds whole warps: widen where work remains
            if (lanes_x < cap_x) {
              lanes_x *= 2;
            } else {
              lanes_y *= 2;
            }
          }
          // Over the shared memory: fewer thread rows, unless that would split a len the tile
          // covers (a look-back plan where none was needed) and the tile is wider than a look-back
          // tile; then fewer columns. (Narrowing to keep len whole left rows of 32 bytes, slower
          // than looking back.)
          while (smem(lanes_y, lanes_x) > dev.smem_per_block && lanes_x * lanes_y > 32) {
            const bool covers = std::int64_t{lanes_y} * p.items >= shape.len;
            const bool still_covers = std::int64_t{lanes_y / 2} * p.items >= shape.len;
            if (lanes_y > 1 && (lanes_x <= lookback_lanes_x || !covers || still_covers)) {
              lanes_y /= 2;
            } else {
              lanes_x /= 2;
            }
          }
          p.lanes_x = lanes_x;
          p.lanes_y = lanes_y;
          p.block_threads = lanes_x * lanes_y;
          p.tile_items = std::int64_t{lanes_y} * p.items;
          p.tile_cols = std::int64_t{lanes_x} * p.vec;
          p.col_chunks = detail::ceil_div(shape.inner, p.tile_cols);
          p.len_tiles = detail::ceil_div(shape.len, p.tile_items);
          const std::int64_t chains = shape.outer * p.col_chunks;
          p.num_tiles = chains > max_numel / p.len_tiles ? max_numel : chains * p.len_tiles;
          // Keep the larger block when this one would make a column's chain longer than one look-back
          // window.
          if (have_wider && p.len_tiles > 1 && p.lanes_x <= lookback_lanes_x && !fits_window(p)) {
            p = wider;
            break;
          }
          // Stop at enough tiles or at one warp.
          if (threads <= 32 || p.num_tiles >= std::int64_t{policy::column_min_tiles_per_sm} * dev.sm_count) {
            break;
          }
          wider = p;
          have_wider = true;
        }
        p.lookback = p.len_tiles > 1;
        if (p.lookback && p.lanes_x > lookback_lanes_x && max_lanes_x > lookback_lanes_x) {
          max_lanes_x = lookback_lanes_x;
          continue;
        }
        // Large problems have tiles enough to hide the look-back: only latency-bound ones narrow
        // (wider tiles measured faster there).
        if (!p.lookback || fits_window(p) ||
            p.num_tiles >= std::int64_t{policy::column_min_tiles_per_sm} * dev.sm_count) {
          break;
        }
        if (!have_too_long) {
          too_long = p;
          have_too_long = true;
        }
        if (p.lanes_x <= min_lanes_x) {
          p = too_long;  // no narrower plan fits: keep the first
          break;
        }
        max_lanes_x = p.lanes_x / 2;
      }
    };
    search(policy::column_threads, max_items);
    // A latency-bound plan (fewer tiles than policy::column_min_tiles_per_sm per SM) takes
    // policy::column_items_latency rows per thread where that is fewer: more, shorter tiles. Also
    // where it needs no look-back: there too the time is one tile's path.
    const int latency_items = std::min(max_items, policy::column_items_latency(types.in_bytes, types.acc_bytes));
    if (latency_items < p.items &&
        p.num_tiles < std::int64_t{policy::column_min_tiles_per_sm} * dev.sm_count) {
      search(policy::column_threads, latency_items);
    }
    // Many chains that look back: each chain's predecessor tile was issued a round of chains
    // earlier and is usually done, so what limits is the tiles in flight: small blocks put more
    // of them on each SM (same registers per thread) at the price of longer chains.
    if (p.lookback && p.block_threads > policy::column_threads_many_chains &&
        shape.outer * p.col_chunks >= std::int64_t{policy::column_many_chains_per_sm} * dev.sm_count) {
      search(policy::column_threads_many_chains, p.items);
    }
    p.smem_bytes = smem(p.lanes_y, p.lanes_x);
    if (p.lookback) {
      p.lookback_groups = !types.exact && shape.outer * p.col_chunks <= policy::column_grouped_lookback_max_chains;
      p.temp_bytes = 16 + detail::column_tile_state_bytes(p, types.word_bytes) * (p.lookback_groups ? 2 : 1);
    }
  }
  // More tiles than a grid holds: blocks loop over tiles (in issue order when they look back).
  p.grid = p.num_tiles < dev.max_grid_x ? p.num_tiles : dev.max_grid_x;
  // Long chains (row plans, column plans along fewer chains than SMs) in large grids: a tile's
  // nearest predecessors are rarely done when it first looks back.
  if (p.lookback && p.num_tiles >= policy::lookback_sleep_min_tiles &&
      (p.kind == strategy::rows || p.layout.outer * p.col_chunks < dev.sm_count)) {
    p.first_poll_ns = policy::lookback_first_poll_ns;
  }
  const std::int64_t ahead = std::max(1, dev.sm_count / policy::prefetch_sm_divisor);
  p.prefetch_tiles = p.num_tiles > ahead ? ahead : 0;
  if (p.smem_bytes > dev.smem_per_block) {
    p.valid = false;
    p.error = "no block shape fits the shared memory";
  }
  return p;
}

}  // namespace FASTSCAN_NAMESPACE
