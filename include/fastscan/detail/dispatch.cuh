//! \file dispatch.cuh
//! Validation, planning, temp-storage sizing and launch, shared by every entry point.
#pragma once

#include <fastscan/device/column_scan.cuh>
#include <fastscan/device/row_scan.cuh>
#include <fastscan/plan/plan.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Reads what the solver needs of the current device. The attributes are immutable, so each host
//! thread keeps those of the device it asked about last (a plan costs one cudaGetDevice then).
inline cudaError_t query_device(device_limits& dev) {
  thread_local int cached_device = -1;
  thread_local device_limits cached;
  int device = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err != cudaSuccess) {
    return err;
  }
  if (device == cached_device) {
    dev = cached;
    return cudaSuccess;
  }
  int sms = 0;
  int grid_x = 0;
  int smem = 0;
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&grid_x, cudaDevAttrMaxGridDimX, device);
  if (err == cudaSuccess) err = cudaDeviceGetAttribute(&smem, cudaDevAttrMaxSharedMemoryPerBlock, device);
  if (err != cudaSuccess) {
    return err;
  }
  dev.sm_count = sms;
  dev.max_grid_x = grid_x;
  dev.smem_per_block = static_cast<std::size_t>(smem);
  cached = dev;
  cached_device = device;
  return cudaSuccess;
}

//! A shape with no elements (negative extents are reported by the solver).
inline bool is_empty(Shape3 s) { return s.outer <= 0 || s.len <= 0 || s.inner <= 0; }

//! A fresh tile-state tag for each call (62 bits, never 0): a per-process seed from the clock and
//! an address, plus a call counter. Tags of one process never repeat, and whatever else the temp
//! storage may hold (another process's state, unrelated data) matches a tag with probability 2^-62
//! per word.
inline unsigned long long next_tile_tag() {
  static std::atomic<unsigned long long> counter{[] {
    static const int anchor = 0;
    unsigned long long z = static_cast<unsigned long long>(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                           (static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(&anchor)) << 20);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;  // splitmix64 finalizer
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }()};
  for (;;) {
    const unsigned long long tag = counter.fetch_add(1, std::memory_order_relaxed) & ((1ull << 62) - 1);
    if (tag != 0 && tag != (1ull << 62) - 1) {  // 0: the zeroed mode; all ones: memory filled with 0xff
      return tag;
    }
  }
}

//! Everything about launching one problem type.
template <class Problem>
struct dispatch {
  using input_t = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  using op_t = typename Problem::op_t;
  static constexpr bool exact = is_exactly_associative<op_t, acc_t>::value;
  static constexpr int row_items = policy::row_items(sizeof(input_t), sizeof(acc_t), rows_in_place<Problem>);
  //! Items of latency-bound rows (plan.hpp, policy::row_latency_items).
  static constexpr int row_latency_items = policy::row_latency_items(sizeof(input_t), sizeof(acc_t));
  static constexpr int column_vec = policy::column_vec(sizeof(input_t));
  //! Rows per thread of the column kernel, and of the wide one that sums formed in place run
  //! when a plan takes more (policy::column_items).
  static constexpr int column_items = policy::column_items(sizeof(input_t));
  static constexpr int column_wide_items = policy::column_items(sizeof(input_t), outputs_in_place<Problem>, exact);
  //! Rows per thread of the column kernel that plans of at most that many run
  //! (policy::column_short_items; policy::column_items_latency is never more).
  static constexpr int column_small_items = std::min(policy::column_short_items, column_items);
  static_assert(policy::column_items_latency(sizeof(input_t), sizeof(acc_t)) >= column_items ||
                    policy::column_items_latency(sizeof(input_t), sizeof(acc_t)) <= column_small_items,
                "latency column plans take the rows of a compiled column kernel");

  static constexpr std::size_t row_slice_bytes() {
    if constexpr (policy::row_kernel_takes(sizeof(input_t))) {
      return row_slices<Problem, row_items>::warp_bytes;
    } else {
      return 0;
    }
  }

  static scan_types types() {
    return {sizeof(input_t), sizeof(acc_t), tile_word_bytes<acc_t>, sizeof(flagged<acc_t>),
            column_slice_bytes<input_t, column_items, column_vec>(), rows_in_place<Problem>, row_slice_bytes(),
            column_wide_items, column_slice_bytes<input_t, column_wide_items, column_vec>(), exact};
  }

  //! Plans the scan; cudaErrorInvalidValue for shapes that cannot be scanned. Shape errors are
  //! found before the device is asked anything.
  static cudaError_t solve(Shape3 shape, plan& p) {
    p = make_plan(shape, types(), device_limits{});
    if (!p.valid) {
      return cudaErrorInvalidValue;
    }
    if (p.kind == strategy::empty) {
      return cudaSuccess;
    }
    device_limits dev;
    const cudaError_t err = query_device(dev);
    if (err != cudaSuccess) {
      return err;
    }
    p = make_plan(shape, types(), dev);
    return p.valid ? cudaSuccess : cudaErrorInvalidValue;
  }

  static cudaError_t launch(const plan& p, void* d_temp, const Problem& prob, cudaStream_t stream) {
    const Shape3 shape = p.layout;
    if (p.kind == strategy::empty) {
      return cudaSuccess;
    }
    // Tile state for the look-back: a fresh tag (one launch, nothing to zero) when every tile has
    // its own block; zeroed, with a tile counter, when blocks loop over tiles or the stream is being
    // captured into a graph (every replay of a graph would reuse the captured tag).
    unsigned long long* counter = nullptr;
    unsigned long long tag = 0;
    void* words = nullptr;
    if (p.lookback) {
      cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
      cudaError_t err = cudaStreamIsCapturing(stream, &capture);
      if (err != cudaSuccess) {
        return err;
      }
      if (capture == cudaStreamCaptureStatusNone && p.grid == p.num_tiles) {
        tag = next_tile_tag();
      } else {
        err = cudaMemsetAsync(d_temp, 0, p.temp_bytes, stream);
        if (err != cudaSuccess) {
          return err;
        }
        counter = static_cast<unsigned long long*>(d_temp);
      }
      words = static_cast<unsigned char*>(d_temp) + 16;
    }
    const std::int64_t prefetch = p.prefetch_tiles;
    if (p.kind == strategy::rows) {
      if constexpr (policy::row_kernel_takes(sizeof(input_t))) {
        const row_scan_params params{shape.outer * shape.len, shape.len, divisor(shape.len), p.tile_items,
                                     p.num_tiles, p.lookback, counter, words, tag, prefetch, p.first_poll_ns};
        if (p.items == row_items) {
          row_scan_kernel<row_items, exact, Problem>
              <<<static_cast<unsigned>(p.grid), p.block_threads, p.smem_bytes, stream>>>(prob, params);
        } else if (p.items == row_latency_items) {
          if constexpr (row_latency_items != row_items) {
            row_scan_kernel<row_latency_items, exact, Problem>
                <<<static_cast<unsigned>(p.grid), p.block_threads, p.smem_bytes, stream>>>(prob, params);
          }
        } else {
          return cudaErrorInvalidValue;  // no kernel of the plan's items (never from types())
        }
      } else {
        return cudaErrorInvalidValue;
      }
    } else {
      const std::int64_t chains = shape.outer * p.col_chunks;
      // Look-backs in tile groups keep the groups' state after the tiles' (plan.hpp sizes both).
      void* const group_words = p.lookback && p.lookback_groups
                                    ? static_cast<unsigned char*>(words) + column_tile_state_bytes(p, tile_word_bytes<acc_t>)
                                    : nullptr;
      const column_scan_params params{shape.outer,       shape.len,           shape.inner, p.tile_items,
                                      p.tile_cols,       p.col_chunks,        chains,      p.num_tiles,
                                      divisor(chains),   divisor(p.col_chunks), p.lanes_x, p.lanes_y,
                                      p.lookback,        counter,             words,       group_words,
                                      tag,               prefetch,            p.items,     p.first_poll_ns};
      // Rows narrower than the tile, in a plan of the largest kernel's rows: its Odd kernel (for
      // inputs it can stage: pointers to types of at most 16 bytes).
      constexpr bool odd_kernel = column_unit_rows<input_t, column_wide_items, column_vec> &&
                                  std::is_pointer_v<std::remove_cv_t<decltype(prob.in)>>;
      const bool odd_rows = odd_kernel && p.tile_cols > shape.inner && p.items == column_wide_items;
      if (column_small_items < column_items && p.items <= column_small_items) {
        if constexpr (column_small_items < column_items) {
          column_scan_kernel<column_small_items, column_vec, exact, Problem>
              <<<static_cast<unsigned>(p.grid), p.block_threads, p.smem_bytes, stream>>>(prob, params);
        }
      } else if (p.items <= column_items && !(odd_rows && column_wide_items == column_items)) {
        column_scan_kernel<column_items, column_vec, exact, Problem>
            <<<static_cast<unsigned>(p.grid), p.block_threads, p.smem_bytes, stream>>>(prob, params);
      } else if (p.items <= column_wide_items) {
        if constexpr (odd_kernel) {
          if (odd_rows) {
            column_scan_kernel<column_wide_items, column_vec, exact, Problem, true>
                <<<static_cast<unsigned>(p.grid), p.block_threads, p.smem_bytes, stream>>>(prob, params);
            return cudaPeekAtLastError();
          }
        }
        if constexpr (column_wide_items > column_items) {
          column_scan_kernel<column_wide_items, column_vec, exact, Problem>
              <<<static_cast<unsigned>(p.grid), p.block_threads, p.smem_bytes, stream>>>(prob, params);
        }
      } else {
        return cudaErrorInvalidValue;  // more rows than any kernel holds (never from types())
      }
    }
    return cudaPeekAtLastError();
  }

  //! Two-phase entry: a null `d_temp` asks for the size (always at least 1 byte, so that a size of
  //! zero can never be mistaken for a query); otherwise validates and launches.
  static cudaError_t run(void* d_temp, std::size_t& temp_bytes, const Problem& prob, Shape3 shape,
                         cudaStream_t stream, bool pointers_valid) {
    if (d_temp != nullptr && !is_empty(shape) &&
        (!pointers_valid || reinterpret_cast<std::uintptr_t>(d_temp) % 16 != 0)) {
      return cudaErrorInvalidValue;  // the tile state is read and written in 16-byte words
    }
    plan p;
    const cudaError_t err = solve(shape, p);
    if (err != cudaSuccess) {
      return err;
    }
    if (d_temp == nullptr) {
      temp_bytes = std::max<std::size_t>(p.temp_bytes, 1);
      return cudaSuccess;
    }
    if (p.kind == strategy::empty) {
      return cudaSuccess;
    }
    if (!pointers_valid || temp_bytes < p.temp_bytes) {
      return cudaErrorInvalidValue;
    }
    return launch(p, d_temp, prob, stream);
  }

  //! One-call entry: temp storage is allocated and freed stream-ordered when the plan needs it.
  static cudaError_t run(const Problem& prob, Shape3 shape, cudaStream_t stream, bool pointers_valid) {
    if (!pointers_valid && !is_empty(shape)) {
      return cudaErrorInvalidValue;
    }
    plan p;
    cudaError_t err = solve(shape, p);
    if (err != cudaSuccess || p.kind == strategy::empty) {
      return err;
    }
    void* d_temp = nullptr;
    if (p.temp_bytes > 0) {
      err = cudaMallocAsync(&d_temp, p.temp_bytes, stream);
      if (err != cudaSuccess) {
        return err;
      }
    }
    err = launch(p, d_temp, prob, stream);
    if (d_temp != nullptr) {
      const cudaError_t free_err = cudaFreeAsync(d_temp, stream);
      if (err == cudaSuccess) {
        err = free_err;
      }
    }
    return err;
  }
};

}  // namespace detail
FASTSCAN_NAMESPACE_END
