//! \file block_scan.cuh
//! Block-wide scan collective with a runtime 2-D shape and a prefix-callback hook.
#pragma once

#include <fastscan/block/blelloch.cuh>
#include <fastscan/warp/warp_scan.cuh>

FASTSCAN_NAMESPACE_BEGIN

//! How a block scan combines the totals of the warps in a row.
//! - warp_scans: the row's first warp scans the warp totals with shuffles (Kogge-Stone); two
//!   barriers in all. The default: the Blelloch variant's barriers were the row kernel's top stall.
//! - blelloch: work-efficient up-sweep / down-sweep in shared memory, one barrier per level.
enum class block_scan_algorithm { warp_scans, blelloch };

//! Callback that supplies no prefix: every row starts fresh.
struct no_prefix {
  template <class T>
  FASTSCAN_DEVICE bool operator()(const T&, T&) const {
    return false;
  }
};

//! Scans one value (or an array of `N` values) per thread along rows of a block.
//!
//! The block (1-D, blockDim.x == x_extent * y_extent) is viewed as `y_extent` independent rows of
//! `x_extent` threads, thread t at x = t % x_extent, y = t / x_extent. `x_extent` is a power of two:
//! below 32 a row is a segment of a warp and the scan is shuffles only; from 32 up each warp scans
//! with shuffles and the warp totals of a row are combined as `Algorithm` says. Both are
//! deterministic: the grouping depends only on the shape.
//!
//! Prefix hook: with x_extent >= 32, `prefix(row_total, row_prefix)` is called by all 32 lanes of
//! the first warp of every row, after the row total is known and before any result is formed; when
//! lane 0 returns true, lane 0's `row_prefix` is combined in front of the whole row. This is how a
//! block scan becomes a device scan (decoupled look-back) or carries a running prefix across tiles.
//!
//! Shared memory: `storage_bytes(x_extent, y_extent)` bytes, 16-byte aligned, passed to the
//! constructor. Synchronize the block before reusing that memory after a scan.
template <class T, block_scan_algorithm Algorithm = block_scan_algorithm::warp_scans>
class block_scan {
 public:
  static FASTSCAN_HD int warps_per_row(int x_extent) { return x_extent >= 32 ? x_extent / 32 : 1; }

  static FASTSCAN_HD std::size_t storage_bytes(int x_extent, int y_extent) {
    const std::size_t slots = static_cast<std::size_t>(y_extent) * warps_per_row(x_extent) * sizeof(T);
    return (slots + 15) / 16 * 16 + static_cast<std::size_t>(y_extent);
  }

  FASTSCAN_DEVICE block_scan(void* storage, int x_extent, int y_extent)
      : slots_(static_cast<T*>(storage)),
        has_prefix_(static_cast<bool*>(storage) +
                    (static_cast<std::size_t>(y_extent) * warps_per_row(x_extent) * sizeof(T) + 15) / 16 * 16),
        x_extent_(x_extent),
        y_extent_(y_extent) {}

  //! Exclusive scan of one value per thread. Returns false for the first thread of a row that got
  //! no prefix (its `exclusive` is then unspecified).
  template <class Op, class Prefix = no_prefix>
  FASTSCAN_DEVICE bool exclusive_scan(const T& value, T& exclusive, Op op, Prefix&& prefix = Prefix{}) {
    const int tid = static_cast<int>(threadIdx.x);
    const int x = tid % x_extent_;
    const int y = tid / x_extent_;
    const int lane = tid & 31;
    const int width = x_extent_ < 32 ? x_extent_ : 32;
    const T inclusive = warp_inclusive_scan(value, op, width);
    const T lane_exclusive = detail::shuffle_up(inclusive, 1, width);
    if (x_extent_ < 32) {
      exclusive = lane_exclusive;
      return x != 0;
    }
    const int wpr = x_extent_ / 32;
    const int w = x / 32;
    T* row = slots_ + static_cast<std::size_t>(y) * wpr;
    if (lane == 31) {
      row[w] = inclusive;
    }
    __syncthreads();
    if constexpr (Algorithm == block_scan_algorithm::warp_scans) {
      scan_row_totals(row, y, w, lane, wpr, op, prefix);
    } else {
      sweep_row_totals(row, y, w, lane, wpr, op, prefix);
    }
    const bool warp_has = w > 0 || has_prefix_[y];
    if (lane == 0) {
      exclusive = row[w];
      return warp_has;
    }
    exclusive = warp_has ? op(row[w], lane_exclusive) : lane_exclusive;
    return true;
  }

  //! Inclusive scan of `N` consecutive items per thread (blocked arrangement), in place.
  template <int N, class Op, class Prefix = no_prefix>
  FASTSCAN_DEVICE void inclusive_scan(T (&items)[N], Op op, Prefix&& prefix = Prefix{}) {
    T total = items[0];
#pragma unroll
    for (int i = 1; i < N; ++i) {
      total = op(total, items[i]);
    }
    T exclusive;
    const bool has = exclusive_scan(total, exclusive, op, prefix);
    T running = has ? op(exclusive, items[0]) : items[0];
    items[0] = running;
#pragma unroll
    for (int i = 1; i < N; ++i) {
      running = op(running, items[i]);
      items[i] = running;
    }
  }

 private:
  //! warp_scans: the row's first warp scans its warp totals; lane i then holds the prefix of warp
  //! i + 1. Two barriers.
  template <class Op, class Prefix>
  FASTSCAN_DEVICE void scan_row_totals(T* row, int y, int w, int lane, int wpr, Op op, Prefix& prefix) {
    if (w == 0) {
      const T total = row[lane < wpr ? lane : wpr - 1];
      const T scanned = warp_inclusive_scan(total, op);
      T row_prefix = detail::shuffle_idx(scanned, wpr - 1);
      const bool has = prefix(detail::shuffle_idx(scanned, wpr - 1), row_prefix);
      const bool has_row_prefix = detail::shuffle_idx(has, 0);
      row_prefix = detail::shuffle_idx(row_prefix, 0);
      __syncwarp();
      if (lane + 1 < wpr) {
        row[lane + 1] = has_row_prefix ? op(row_prefix, scanned) : scanned;
      }
      if (lane == 0) {
        has_prefix_[y] = has_row_prefix;
        if (has_row_prefix) {
          row[0] = row_prefix;
        }
      }
    }
    __syncthreads();
  }
  //! blelloch: up-sweep, the prefix hook on the row total, down-sweep.
  template <class Op, class Prefix>
  FASTSCAN_DEVICE void sweep_row_totals(T* row, int y, int w, int lane, int wpr, Op op, Prefix& prefix) {
    const detail::sweep_layout layout{wpr, y_extent_, wpr, 1};
    detail::blelloch_upsweep(slots_, layout, op);
    if (w == 0) {
      T row_prefix = row[wpr - 1];
      const bool has = prefix(row[wpr - 1], row_prefix);
      __syncwarp();
      if (lane == 0) {
        has_prefix_[y] = has;
        if (has) {
          row[wpr - 1] = row_prefix;
        }
      }
    }
    __syncthreads();
    const bool* has_prefix = has_prefix_;
    detail::blelloch_downsweep(slots_, layout, op, [has_prefix](int r) { return has_prefix[r]; });
  }

  T* slots_;
  bool* has_prefix_;
  int x_extent_;
  int y_extent_;
};

FASTSCAN_NAMESPACE_END
