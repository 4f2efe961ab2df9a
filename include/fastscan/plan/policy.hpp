//! \file policy.hpp
//! Every tuning constant of fastscan, in one place: host-only values shared by the solver and the
//! kernels' template arguments, written for sm_90 (H200) and scaled by element size, and the
//! per-type trait (tuning, at the end) through which dispatch reads the kernel shapes. How each was
//! measured (shapes, before -> after, commit): bench/NOTES.md.
#pragma once

#include <fastscan/namespace.hpp>

#include <cstddef>
#include <cstdint>

namespace FASTSCAN_NAMESPACE {
struct log_sum_exp_op;  // (ops/log_sum_exp.cuh: its tuning below)
namespace policy {

// Row kernel: items per thread.
//! Input bytes per thread of rows formed in place (no registers per item): 256 beat 128 on 2^28.
constexpr std::size_t row_in_place_bytes = 256;
//! Rows of more items (1- and 2-byte types in place) loop over 16-byte units, rolled: no spills.
constexpr int row_unrolled_items_max = 64;
//! (value, index) accumulators 16 (32 spilled); in place 256 B / size; else 16 (8-byte) / 32 items.
constexpr int row_items(std::size_t in_bytes, std::size_t acc_bytes, bool rows_in_place = false) {
  if (acc_bytes >= 16) {
    return 16;
  }
  if (rows_in_place) {
    return static_cast<int>(row_in_place_bytes / in_bytes);
  }
  return in_bytes >= 8 ? 16 : 32;
}
//! Short rows: 16 input bytes per thread, at least 4 items, in blocks of row_short_threads: the
//! shortest path per warp, for latency-bound rows of at most row_short_max_chain such tiles (one
//! look-back window: a poll reaches every predecessor). Longer chains of short tiles look back
//! longer than a thread takes over more items (sums 2^15 - 2^18 elements, 24 - 42 % slower).
constexpr int row_short_items(std::size_t in_bytes) { return 16 / in_bytes > 4 ? static_cast<int>(16 / in_bytes) : 4; }
//! (Value, index) of 8-byte inputs: 8 items (64 bytes) a thread, half the tiles ([1, 65536] int64
//! cummax 7.2 -> 6.3 us, [1, 262144] 10.3 -> 8.8 on an H100; sums gain nothing at 8).
constexpr int row_short_items(std::size_t in_bytes, std::size_t acc_bytes) {
  return in_bytes == 8 && acc_bytes >= 16 ? 8 : row_short_items(in_bytes);
}
constexpr int row_short_threads = 128;
constexpr std::int64_t row_short_max_chain = 32;
//! Latency-bound rows: (value, index) take the short tiles whatever their chain; sums as is.
constexpr int row_latency_items(std::size_t in_bytes, std::size_t acc_bytes) {
  return acc_bytes >= 16 ? row_short_items(in_bytes, acc_bytes) : row_items(in_bytes, acc_bytes);
}
//! Latency-bound rows: 128 threads for (value, index) accumulators, 64 for sums.
constexpr int row_latency_threads(std::size_t acc_bytes) { return acc_bytes >= 16 ? row_short_threads : 64; }

//! Widest input of the row kernel (128 bytes per thread); wider or odd sizes go as one column.
constexpr std::size_t row_max_in_bytes = 8;
constexpr bool row_kernel_takes(std::size_t in_bytes) {
  return in_bytes <= row_max_in_bytes && (in_bytes & (in_bytes - 1)) == 0;
}

// Row kernel: blocks.
//! Largest row block; halved while a problem gives fewer than row_min_tiles_per_sm tiles per SM.
constexpr int row_threads_max = 256;
//! Buffered rows: two 256-thread blocks per SM, one loading while the other waits on its look-back.
constexpr int row_min_blocks_per_sm = 2;
//! Smallest row block (latency-bound problems).
constexpr int row_threads_min = 64;
//! A kernel's launch bounds: block size and the blocks per SM its register cap is set for.
struct kernel_bounds {
  int threads;
  int min_blocks_per_sm;
};
//! Blocks of 128 threads per SM of in-place rows: (value, index) accumulators by input size, exact
//! 8-byte sums 5 (at 6 they spilled 40 B: 5 - 6.5 % slower), other exact or 4-byte ones 6, the rest 4.
constexpr int row_in_place_blocks(std::size_t in_bytes, bool exact, std::size_t acc_bytes) {
  if (acc_bytes >= 16) {
    return in_bytes >= 8 ? 5 : (in_bytes == 4 ? 6 : 8);
  }
  if (exact && in_bytes == 8) {
    return 5;
  }
  return exact || in_bytes == 4 ? 6 : 4;
}
//! The most blocks per SM that neither spilled nor lost: in place 128 threads by type, else 2x256.
constexpr kernel_bounds row_kernel_bounds(bool rows_in_place, std::size_t in_bytes, bool exact, std::size_t acc_bytes = 0) {
  return rows_in_place ? kernel_bounds{128, row_in_place_blocks(in_bytes, exact, acc_bytes)}
                       : kernel_bounds{row_threads_max, row_min_blocks_per_sm};
}
//! Tiles per SM below which a row problem is latency-bound.
constexpr int row_min_tiles_per_sm = 2;

// Column kernel: rows and columns per thread.
//! (value, index) accumulators store each row as formed (no output buffer): 8 rows without spills.
constexpr std::size_t column_stream_min_acc_bytes = 16;
//! Columns per thread: one 16-byte vector of the row.
constexpr int column_vec(std::size_t in_bytes) {
  int vec = 1;
  while (static_cast<std::size_t>(vec) * 2 * in_bytes <= 16) {
    vec *= 2;  // a power of two, so tiles and the look-back's channel groups stay powers of two
  }
  return vec;
}
//! Rows: 16 for sums in place of 4 - 16 bytes (float: float32 and the 2-byte floats, whose 16 rows
//! keep twice the bytes in flight an SM), 4 above 16 bytes, else 8 (16 lost).
constexpr int column_items(std::size_t in_bytes, bool in_place = false, bool exact = true) {
  const bool wide = in_place && (exact ? in_bytes >= 4 && 16 % in_bytes == 0 : in_bytes == 4 || in_bytes == 2);
  return in_bytes > 16 ? 4 : (wide ? 16 : 8);
}
//! Rows of a problem whose accumulator carries a segment head beside each channel (keyed scans):
//! 4 when a thread's row of accumulators passes 64 bytes (16 fp8 channels and their heads), 16 for
//! 4-byte inputs with at most 32 bytes (float32: 8 % faster than 8 rows), else the plain kernel's 8
//! (float16 at 8 rows, spills and all: 1.46x faster than at 4).
constexpr int column_items_with_heads(std::size_t in_bytes, std::size_t acc_bytes) {
  const std::size_t row_bytes = static_cast<std::size_t>(column_vec(in_bytes)) * acc_bytes;
  return row_bytes > 64 ? 4 : (row_bytes <= 32 && in_bytes == 4 ? 16 : column_items(in_bytes));
}
//! Latency-bound column plans: 4 rows for (value, index) of 8-byte inputs (faster than 8 there).
constexpr int column_items_latency(std::size_t in_bytes, std::size_t acc_bytes) {
  return in_bytes >= 8 && acc_bytes >= 16 ? 4 : column_items(in_bytes);
}
//! Plans of at most this many rows run a kernel compiled for them, not a wider one at runtime.
constexpr int column_short_items = 4;

// Column kernel: blocks and tiles.
//! Column block size along few long chains.
constexpr int column_threads = 256;
//! Register cap for two blocks per SM, as for the rows (one block without spills was slower).
constexpr int column_min_blocks_per_sm = 2;
//! Short kernels of 4-byte sums and exact 8-byte ones (int64) fit 80 registers without spills:
//! three blocks per SM (float32 [1, 4, 2^24] 254 -> 207 us, int64 390 -> 326 over two); promoted
//! or float64 sums would spill.
constexpr int column_kernel_min_blocks(int items, bool exact, std::size_t in_bytes, std::size_t acc_bytes) {
  const bool fits = in_bytes == acc_bytes && (in_bytes == 4 || (in_bytes == 8 && exact));
  return items <= column_short_items && fits ? 3 : column_min_blocks_per_sm;
}
//! Tiles per SM below which a column problem is latency-bound.
constexpr int column_min_tiles_per_sm = 2;
//! Many chains: 64-thread blocks, 8 per SM; predecessors are mostly done, so tiles in flight win.
constexpr int column_threads_many_chains = 64;
//! Chains per SM from which a column plan counts as many chains.
constexpr int column_many_chains_per_sm = 1;
//! Rows of the plane narrower than this load as a staged warp run of whole lines, not lane sectors.
constexpr std::size_t column_stage_rows_below_bytes = 128;
//! Widest look-back tile: 16 columns (at least 32 bytes); all its columns in one round trip.
constexpr int column_lookback_max_cols(std::size_t in_bytes) {
  return 32 / static_cast<int>(in_bytes) > 16 ? 32 / static_cast<int>(in_bytes) : 16;
}
//! One chain of int64 / float64 cummax or of float sums looks back as two 8-column chains instead.
constexpr int column_lookback_max_cols(std::size_t in_bytes, std::size_t acc_bytes, bool one_chain, bool exact = true) {
  return one_chain && ((in_bytes == 8 && acc_bytes == 16) || !exact) ? 8 : column_lookback_max_cols(in_bytes);
}

//! Columns a look-back warp serves at least: exact operators 2 (fewer, shallower polls), others 1.
template <bool Exact>
constexpr int column_lookback_min_cols_per_warp = Exact ? 2 : 1;

// Look-back and memory.
//! L2 prefetch of the tile sm_count / prefetch_sm_divisor tiles ahead (half an SM count was best).
constexpr int prefetch_sm_divisor = 2;

//! Long-chain plans of this many tiles or more sleep before a first poll (many chains lost by it).
constexpr long long lookback_sleep_min_tiles = 512;
//! That sleep: fewer polls of words not yet written.
constexpr unsigned lookback_first_poll_ns = 400;
//! Sleep before a window is polled again (64 - 1024 ns measured the same).
constexpr unsigned lookback_retry_ns = 20;
//! Polls of one window (each after lookback_retry_ns, about a quarter of a microsecond with the L2
//! round trip) before a row look-back stops waiting and scans the tile it waits on itself: far
//! beyond any wait on a running tile, so that happens only where a predecessor has not started.
constexpr unsigned lookback_stall_polls = 4096;
//! Windows an ordered (float) look-back seeks its prefix in: 2 doubles each hop, more gain nothing.
constexpr int lookback_ordered_windows = 2;
//! Ordered column look-backs along at most this many chains run in two levels (tile groups).
constexpr long long column_grouped_lookback_max_chains = 1;

//! Dynamic shared memory a plan may use without opting in.
constexpr std::size_t smem_budget = 48 * 1024;

// The pipelined row kernel (device/pipelined_rows.cuh): one long row of an element size it takes.
//! Warps per squad, items per thread (odd: a warp's threads read different banks), ring stages.
struct pipelined_shape {
  int warps = 0;  //!< 0: no pipelined kernel
  int items = 0;
  int stages = 0;
};
//! 8-byte sums: 2 + 2 warps x 31 items x 6 stages of 16 KB, 0.963 of copy for int64 2^28 on an
//! H100 against the row kernel's 0.862 (bench/NOTES.md item 1); 4-byte sums keep the row kernel
//! (0.90 against 0.92 there). 8-byte (value, index) scans: 23 items a thread in 6 stages of 11.5 KB
//! and three 11.5 KB index buffers (int64 cummax 2^27 on an H100: 0.912 of copy against the row
//! kernel's 0.887; 15 items x 10 stages 0.875, 31 x 4 0.868).
constexpr pipelined_shape pipelined_rows(std::size_t in_bytes, std::size_t acc_bytes) {
  return in_bytes == 8 && acc_bytes == 8    ? pipelined_shape{2, 31, 6}
         : in_bytes == 8 && acc_bytes == 16 ? pipelined_shape{2, 23, 6}
                                            : pipelined_shape{};
}
//! Rows shorter than this take the row kernel (the pipeline's blocks would not fill the chip).
//! (value, index) rows only from 2^25 (H100: 2^20 +10 %, 2^24 +1.2 % against the row kernel).
constexpr std::int64_t pipelined_rows_min_items(std::size_t acc_bytes) {
  return acc_bytes >= 16 ? std::int64_t{1} << 25 : std::int64_t{1} << 20;
}
//! Blocks an SM holds (about 100 KB of stages each).
constexpr int pipelined_rows_blocks_per_sm = 2;

// Element-wise passes (sort inputs, gathers, shard folds and carries; dispatch::elementwise_grid).
//! Threads per block of the element-wise kernels and the run sums.
constexpr int elementwise_threads = 256;
//! Blocks per SM an element-wise grid holds at most (a few waves; threads loop past it).
constexpr int elementwise_blocks_per_sm = 32;

// Run sums (segment sums, BEV pooling; device/run_sums.cuh).
//! Threads the run sums aim for: a few waves of an H200 (132 SMs x 2048), and fixed, so the rows
//! of each range, and with them the grouping of every sum, depend on the shape alone.
constexpr std::int64_t run_sum_threads = std::int64_t{1} << 19;
//! Fewest rows a range sums (fewer ranges to finish crossing runs through).
constexpr std::int64_t run_sum_min_rows = 32;
//! Rows a run-sum thread loads before summing them (in flight together), and the blocks of 256
//! threads an SM holds (the register cap): 4 rows at 4 blocks beat 8 rows at 2.
constexpr int run_sum_batch = 4;
constexpr int run_sum_min_blocks = 4;

// Per-type tuning.
//! The kernel shapes of one element size pair: the formulas above.
template <std::size_t InBytes, std::size_t AccBytes>
struct size_tuning {
  static constexpr std::size_t in_bytes = InBytes;
  static constexpr std::size_t acc_bytes = AccBytes;
  static constexpr bool row_kernel = row_kernel_takes(InBytes);
  static constexpr int row_items(bool in_place) { return policy::row_items(InBytes, AccBytes, in_place); }
  static constexpr int row_latency_items() { return policy::row_latency_items(InBytes, AccBytes); }
  static constexpr int row_short_items() { return policy::row_short_items(InBytes, AccBytes); }
  static constexpr kernel_bounds row_bounds(bool in_place, bool exact) {
    return row_kernel_bounds(in_place, InBytes, exact, AccBytes);
  }
  static constexpr pipelined_shape pipelined() { return pipelined_rows(InBytes, AccBytes); }
  static constexpr int column_vec() { return policy::column_vec(InBytes); }
  static constexpr int column_items() { return policy::column_items(InBytes); }
  //! The widest column kernel: sums formed in place, or accumulators that carry segment heads.
  static constexpr int column_wide_items(bool in_place, bool exact, bool heads) {
    return heads ? column_items_with_heads(InBytes, AccBytes) : policy::column_items(InBytes, in_place, exact);
  }
  static constexpr int column_latency_items() { return column_items_latency(InBytes, AccBytes); }
  static constexpr int column_min_blocks(int items, bool exact) {
    return column_kernel_min_blocks(items, exact, InBytes, AccBytes);
  }
};

//! The kernel tuning of one (input, accumulator, operator) triple, read only by dispatch's
//! problem_kernels (which kernels compile, their rows and launch bounds) and through its kernel list
//! by the solver. By default the size formulas; to retune one type alone, specialise it, e.g.
//!   template <class Op> struct tuning<float, float, Op> : size_tuning<4, 4> {
//!     static constexpr int row_items(bool) { return 24; } };
template <class In, class Acc, class Op>
struct tuning : size_tuning<sizeof(In), sizeof(Acc)> {};

//! logcumsumexp's operator (ops/log_sum_exp.cuh) inlines an exp at every combine, so fewer items a
//! thread keep its code and compile time near a sum's: 16 a row thread (8 for doubles, whose
//! 16-byte scaled sums spilled at 16), no latency kernel with more, the plain column kernel's rows
//! for the widest (the torch package's values for its log-add-exp scan; not A/B'd since).
template <class In, class Acc>
struct tuning<In, Acc, log_sum_exp_op> : size_tuning<sizeof(In), sizeof(Acc)> {
  using base = size_tuning<sizeof(In), sizeof(Acc)>;
  static constexpr int row_items(bool) { return sizeof(In) >= 8 ? 8 : 16; }
  static constexpr int row_latency_items() { return sizeof(In) >= 8 ? policy::row_short_items(sizeof(In)) : row_items(true); }
  static constexpr int row_short_items() { return row_latency_items(); }
  static constexpr int column_wide_items(bool, bool, bool) { return base::column_items(); }
  static constexpr pipelined_shape pipelined() { return {}; }
};

}  // namespace policy
}  // namespace FASTSCAN_NAMESPACE
