//! \file kernel_policy.hpp
//! The compile-time policies the kernels take as template arguments, built from the tuning table
//! (policy.hpp). The kernels read only these members; they include nothing from plan/.
#pragma once

#include <fastscan/plan/policy.hpp>

#include <cstddef>

namespace FASTSCAN_NAMESPACE {
namespace policy {

//! Look-back polling (device/tile_state.cuh).
struct lookback {
  static constexpr int ordered_windows = lookback_ordered_windows;
  static constexpr unsigned retry_ns = lookback_retry_ns;
};

//! The row kernel: items per thread, launch bounds (the problem's Tuning), the unrolled-row limit.
template <int Items, bool Exact, bool InPlace, class Tuning>
struct row_kernel {
  static constexpr int items = Items;
  static constexpr bool exact = Exact;
  static constexpr int threads = Tuning::row_bounds(InPlace, Exact).threads;
  static constexpr int min_blocks = Tuning::row_bounds(InPlace, Exact).min_blocks_per_sm;
  static constexpr int unrolled_items_max = row_unrolled_items_max;
  using lookback_policy = lookback;
};

//! The pipelined row kernel: squads of Warps warps (reduce, scan-store), a producer warp and a
//! look-back warp; Items per thread, Stages in the ring.
template <int Warps, int Items, int Stages, bool Exact>
struct pipelined_row_kernel {
  static constexpr int warps = Warps;
  static constexpr int items = Items;
  static constexpr int stages = Stages;
  static constexpr int threads = 2 * Warps * 32 + 64;
  static constexpr int min_blocks = pipelined_rows_blocks_per_sm;
  static constexpr bool exact = Exact;
  using lookback_policy = lookback;
};

//! A column kernel: rows and columns per thread, launch bounds (the problem's Tuning), and its
//! compile-time paths.
template <int Items, bool Exact, class Tuning>
struct column_kernel {
  static constexpr int items = Items;
  static constexpr int vec = Tuning::column_vec();
  static constexpr bool exact = Exact;
  static constexpr int threads = column_threads;
  static constexpr int min_blocks = Tuning::column_min_blocks(Items, Exact);
  //! Short kernels: checked loops only, one tile loop for both tile-order modes.
  static constexpr bool checked_only = Items <= column_short_items;
  static constexpr std::size_t stage_rows_below_bytes = column_stage_rows_below_bytes;
  //! Each row of outputs is stored as soon as it is formed (no output buffer in registers).
  static constexpr bool stream_outputs = Tuning::acc_bytes >= column_stream_min_acc_bytes;
  using lookback_policy = lookback;
};

//! The run sums: rows a thread loads before summing them, and launch bounds.
struct run_sums {
  static constexpr int batch = run_sum_batch;
  static constexpr int threads = elementwise_threads;
  static constexpr int min_blocks = run_sum_min_blocks;
};

}  // namespace policy
}  // namespace FASTSCAN_NAMESPACE
