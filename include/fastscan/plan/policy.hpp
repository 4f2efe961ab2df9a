//! \file policy.hpp
//! Every tuning constant of fastscan, in one place. Host-only values (no device code), shared by the
//! solver and by the kernels' template arguments. Constants are written for sm_90 (H200) and
//! scaled by element size, since the kernels are memory-bound.
#pragma once

#include <cstddef>

#ifndef FASTSCAN_NAMESPACE
#define FASTSCAN_NAMESPACE fastscan
#endif

namespace FASTSCAN_NAMESPACE {
namespace policy {

//! Row kernel: consecutive elements per thread. 128 bytes of input per thread for 4- and 8-byte
//! types (eight 16-byte loads in flight), 64 bytes for 2-byte and 32 bytes for 1-byte types,
//! where more items would cost registers for the wider accumulators. 16-byte accumulators ((value,
//! int64 index) of cummax) hold 16 items whatever the input: at 32, float32 cummax spilled 1.2 KB
//! per thread (H200, 32 -> 16 items: float32 [1, 65536] 18.9 -> 11.2 us, int32 15.3 -> 9.0 us,
//! float32 [64, 1024] 19.2 -> 9.5 us, [4096, 4096] 194 -> 154 us, [1, 2^24] 194 -> 178 us; only
//! the 1-D 2^28 scan, 65536 tiles in one chain, lost: 2230 -> 2567 us).
//! Outputs formed in place of the staged inputs (sums into the input type, generic scans) hold no
//! registers per item: those rows keep row_in_place_bytes of input per thread in shared memory
//! (1- and 2-byte types: 256 / 128 items, scanned one 16-byte unit at a time, see
//! row_unrolled_items_max). H200, harness, same run, buffered rows (int64 16 items,
//! 4-byte 32, 256 threads) -> in place at 128 bytes per thread -> at 256 bytes (128-thread blocks,
//! the exchange rows fill 48 KB at 256): 1-D 2^28 cumsum int64 1685 -> 1594 -> 1469 us, float32
//! 1073 -> 862 -> 776, int32 914 -> 889 -> 810, int16 758 -> 655 -> 657, int8 687 -> 587 -> 589;
//! 2^24 int64 124 -> 116 -> 111. [1, 65536] int64 lost 6.4 -> 8.2 us (half the tiles), so
//! latency-bound rows keep the buffered row's items (row_latency_items).
constexpr std::size_t row_in_place_bytes = 256;
//! Rows of more items than this are scanned one 16-byte unit at a time in a loop that is not
//! unrolled (registers hold one unit); shorter ones fully unrolled. ptxas, sm_90, at the register
//! cap, fully unrolled: no spills for 64 uint8 / int16 / half items, 858 bytes for 128 uint8.
constexpr int row_unrolled_items_max = 64;
constexpr int row_items(std::size_t in_bytes, std::size_t acc_bytes, bool rows_in_place = false) {
  if (acc_bytes >= 16) {
    return 16;
  }
  if (rows_in_place) {
    return static_cast<int>(row_in_place_bytes / in_bytes);
  }
  return in_bytes >= 8 ? 16 : 32;
}
//! Latency-bound rows (too few tiles even at row_threads_min blocks): what a thread does in turn
//! is the time. (value, index) accumulators take 16 bytes of input per thread (int64 / float32
//! cummax 4 items against 16) at 128 threads: their 16-item path is 2000 instructions per warp,
//! half the cycles waiting on instruction fetch (ncu, [1, 65536] int64 cummax). H200, harness,
//! same run, 16 items at 64 threads -> 4 items at 64 / 128 threads, int64 cummax back to back:
//! [1, 65536] 10.6 -> 10.9 / 9.5 us, [1, 16384] 10.7 -> 8.2 / 7.2, [64, 1024] 9.9 -> 7.3 / 7.5,
//! [65536, 1] 8.2 -> 4.7 / 5.7, [4096, 16] 9.1 -> 5.1 / 5.5, [1, 131072] 12.4 -> 12.8 / 11.2,
//! [1, 262144] 13.6 -> 16.3 / 13.5. Sums lost as much as they gained at 4 items ([64, 1024] 5.4
//! -> 6.2 us, [1, 16384] 6.0 -> 5.0 at 128 threads), so they keep the buffered row's items.
constexpr int row_latency_items(std::size_t in_bytes, std::size_t acc_bytes) {
  if (acc_bytes >= 16) {
    return 16 / in_bytes > 4 ? static_cast<int>(16 / in_bytes) : 4;
  }
  return row_items(in_bytes, acc_bytes);
}
constexpr int row_latency_threads(std::size_t acc_bytes) { return acc_bytes >= 16 ? 128 : 64; }

//! Widest input the row kernel takes (its exchange holds at most 128 bytes per thread); rows of
//! wider types, and of sizes that are not powers of two, go through the column kernel with one
//! column.
constexpr std::size_t row_max_in_bytes = 8;
constexpr bool row_kernel_takes(std::size_t in_bytes) {
  return in_bytes <= row_max_in_bytes && (in_bytes & (in_bytes - 1)) == 0;
}

//! Row kernel block sizes: the solver starts from the largest and halves it while the problem
//! would give fewer than `row_min_tiles_per_sm` tiles per multiprocessor (small problems are
//! latency: more, smaller tiles spread them over the chip).
constexpr int row_threads_max = 256;
//! Register cap for the row kernel (__launch_bounds__): two blocks of 256 threads per SM, so one
//! block's loads proceed while the other waits on its look-back (uncapped it took 159 registers).
constexpr int row_min_blocks_per_sm = 2;
constexpr int row_threads_min = 64;
//! The row kernel's launch bounds: block size, and blocks per SM its register cap is set for.
//! Rows whose outputs are formed in place of their staged inputs hold no registers per item and
//! stage with cp.async (no registers for the loads in flight): blocks of 128 threads (their
//! exchange rows pass 48 KB at 256), six per SM (80 registers), with the exceptions below. H200,
//! int64 cumsum, harness, same run, two 256-thread blocks' cap (128 registers) -> six 128-thread
//! blocks: 1-D 2^26 324 -> 311 us (before the unit-wise loops of row_scan.cuh: 359), [1, 2^24]
//! 87 -> 85, [262144, 256] 299 -> 272, [1048576, 64] 300 -> 272. Six blocks staging through
//! registers spilled and lost ([262144, 256] 322 us); seven, with or without cp.async, spilled more
//! (2^26 394 - 423 us). 1- and 2-byte inputs (128 or 256 items per thread) fit six without spills
//! since their direct-load runs hold at most 32 items (ptxas; at 64 they spilled 336 - 492 bytes):
//! benchmark, both binaries in one run, four -> six blocks, 2^26 cumsum uint8 / int8 62 -> 56 us,
//! int16 100 -> 90. Sums that are not exact (float accumulators; the look-back folds in a fixed
//! order) of 2- and 8-byte inputs keep four: half / bfloat16 109 -> 113 us at six, float64 472 ->
//! 632 (float32 sums run six: 2^26 206 us in v19, 196 in v20).
struct kernel_bounds {
  int threads;
  int min_blocks_per_sm;
};
//! (Value, index) rows (16-byte accumulators) form their values in place and their indices in a
//! row beside them (row_scan.cuh), also blocks of 128 threads: five per SM for 8-byte values, six
//! for 4-byte, eight for narrower ones (their rows take less shared memory). H200, harness, same
//! run, 1-D 2^26 cummax, blocks per SM 5 / 6 / 7 / 8: int64 523 / 621 (80 registers, 128 bytes of
//! spills) us; float32 - / 383 / 391 / 417; half - / 362 / 364 / 344 (with outputs held in
//! registers, two 256-thread blocks: int64 585, float32 528, half 505 us).
constexpr kernel_bounds row_kernel_bounds(bool rows_in_place, std::size_t in_bytes, bool exact, std::size_t acc_bytes = 0) {
  if (rows_in_place && acc_bytes >= 16) {
    return {128, in_bytes >= 8 ? 5 : (in_bytes == 4 ? 6 : 8)};
  }
  if (rows_in_place) {
    return {128, exact || in_bytes == 4 ? 6 : 4};
  }
  return {row_threads_max, row_min_blocks_per_sm};
}
constexpr int row_min_tiles_per_sm = 2;

//! Column kernel: accumulators of at least column_stream_min_acc_bytes ((value, index) of
//! cummax / cummin) store each row of a thread's outputs as soon as it is formed, with no output
//! buffer in registers, so 8-byte inputs keep 8 rows per thread without spilling (they took 4, and
//! spilled, with a buffer). H200, int64 cummax, harness, same run, buffered 4 rows -> streamed 8:
//! [1, 2^20, 16] 336 -> 217 us, [1, 2^22, 4] 333 -> 261, [1, 4096, 4096] 194 -> 158,
//! [64, 4096, 256] 745 -> 598; float32 [1, 2^20, 16] 286 -> 200. Streaming the sums too (their
//! rows otherwise leave through the warp's exchange as one run) was mixed: [1, 2^20, 16] int64
//! 146 -> 134 us, [1, 2^22, 4] 154 -> 161.
constexpr std::size_t column_stream_min_acc_bytes = 16;
//! Column kernel: columns per thread (one 16-byte vector of the row), and rows per thread: 8, or 4
//! for inputs wider than 16 bytes, which are held in registers rather than the exchange slice
//! (ptxas, sm_90: a 32-byte generic sum spills 368 bytes per thread at 4 rows, 824 at 8). Exactly
//! associative problems whose outputs are formed in place of the staged inputs (integer sums into
//! their own type) hold 16 rows (256 bytes per thread in shared memory; 128-thread blocks, since
//! 256 would pass 48 KB). H200, harness, same run, 8 -> 16 rows: int64 cumsum [1, 2^22, 4]
//! 152 -> 130 us, [1, 2^20, 16] 143 -> 119, [1, 65536, 256] 119 -> 103, [1, 64, 262144] 94 -> 86,
//! [64, 4096, 256] 358 -> 333, [4096, 64, 256] 333 -> 283; int32 [1, 2^22, 16] 311 -> 246. Int64
//! cummax at 16 rows (streamed outputs, 104 bytes of spills) lost 1.1 - 1.5x and keeps 8. Float32
//! sums (not exact, formed in place too) lost when first measured ([1, 2^22, 4] 122 -> 141) and
//! gain since their look-back folds from the warp's oldest prefix (tile_state.cuh): probe, same
//! run, 8 -> 16 rows, [1, 2^22, 16] 344 -> 305 us, [1, 2^20, 64] 259 -> 214, [64, 4096, 256]
//! 218 -> 206, [4096, 64, 256] 193 -> 171, [1, 65536, 1024] 250 -> 213, [1, 2^24, 4] 260 -> 258;
//! float64 sums were mixed ([1, 2^23, 4] 271 -> 314, [1, 2^21, 16] 262 -> 245) and keep 8. 1- and
//! 2-byte inputs (8 or 16 columns per thread) keep 8 rows: at 16, ptxas spilled 616 bytes for int8
//! sums (0 at 8).
constexpr int column_vec(std::size_t in_bytes) {
  int vec = 1;
  while (static_cast<std::size_t>(vec) * 2 * in_bytes <= 16) {
    vec *= 2;  // a power of two, so tiles and the look-back's channel groups stay powers of two
  }
  return vec;
}
constexpr int column_items(std::size_t in_bytes, bool in_place = false, bool exact = true) {
  const bool wide = in_place && (exact ? in_bytes >= 4 && 16 % in_bytes == 0 : in_bytes == 4);
  return in_bytes > 16 ? 4 : (wide ? 16 : 8);
}
//! Rows per thread of latency-bound column plans (fewer tiles than
//! column_min_tiles_per_sm per SM): 4 for 16-byte accumulators of 8-byte inputs, whose 8 rows
//! measured slower there (H200, int64 cummax [1, 4096, 16]: 4 rows 8.5 us, 8 rows 12.1 us), else at
//! most 8.
constexpr int column_items_latency(std::size_t in_bytes, std::size_t acc_bytes) {
  return in_bytes >= 8 && acc_bytes >= 16 ? 4 : column_items(in_bytes);
}
//! Column plans of at most this many rows per thread (len <= 4, and the latency plans above) run a
//! column kernel compiled for that many rather than a wider kernel at a runtime count (H200, int64
//! cumsum [1, 4, 2^22]: 117 -> 82 us, [1, 2, 2^23] 199 -> 128; int64 cummax latency plans of 4
//! rows [1, 4096, 16] 8.6 -> 8.2 us, [1, 16384, 4] 10.2 -> 9.7).
//! These kernels, like the row kernel, run their tiles in one loop for both tile-order modes; the
//! 8- and 16-row column kernels in a loop per mode (device/tile_state.cuh, for_each_tile, has the
//! measurements).
constexpr int column_short_items = 4;
constexpr int column_threads = 256;
//! Register cap for the column kernel, as for the rows (uncapped, cummax int64 took 238). One
//! block per SM for 16-byte accumulators removes their spills (ncu: 3.5 M local requests on
//! [1, 256, 65536] int64 cummax) but measured 1.2 - 1.5x slower on the 2^24 axis-0 splits.
constexpr int column_min_blocks_per_sm = 2;
constexpr int column_min_tiles_per_sm = 2;
//! Column plans that look back along at least one chain per SM (outer x column chunks) start from
//! blocks of this many threads instead: the kernel keeps its register cap, so 64-thread blocks run
//! eight to an SM instead of two 256-thread ones, and with that many chains a tile's predecessor
//! is usually done when it looks back. H200, int64, harness, same run (256 -> 64 threads):
//! cummax [1, 4096, 4096] 227 -> 195 us, cumsum 113 -> 94 us; cummax [64, 4096, 256] 946 ->
//! 744 us. Few long chains lose the other way (each chain gets 4x the tiles): [1, 262144, 64]
//! cummax 256 -> 410 us, [1, 2^20, 16] 337 -> 634 us, so they keep the full blocks.
constexpr int column_threads_many_chains = 64;
constexpr int column_many_chains_per_sm = 1;
//! Column tiles whose rows (whole rows of the plane) are narrower than this many bytes load each
//! warp's rows as one contiguous run staged through shared memory, and prefetch it line by line:
//! a direct load of such rows asks L2 for one sector per lane group, the same line from several
//! instructions. H200, harness, same run (direct -> staged with line prefetch): [1, 2^22, 4]
//! int64 cummax 229 -> 204 us, int64 cumsum 132 -> 121, float32 cumsum 123 -> 99; 128-byte rows
//! ([1, 2^20, 16] int64) already load whole lines and lost (cummax 206 -> 216, cumsum 118 -> 124).
constexpr std::size_t column_stage_rows_below_bytes = 128;
//! Widest tile (in columns) of a column plan that looks back: every column's look-back is one
//! round trip per window, all columns of a tile at once. 16 columns (at least 32 bytes of a row,
//! one sector); wider tiles with a status word per tile and per-column payloads took twice as long
//! on [1, 262144, 64] int64 (606 against 137 us for the best split, H200).
constexpr int column_lookback_max_cols(std::size_t in_bytes) {
  return 32 / static_cast<int>(in_bytes) > 16 ? 32 / static_cast<int>(in_bytes) : 16;
}
//! The same, for a scan whose columns would all lie in one chain at that width: 8-byte inputs with
//! 16-byte accumulators (int64 / float64 cummax, whose tile state is two words per column) split
//! it into two chains of 8 columns, each half as long. H200, harness, same run, 16 -> 8 columns:
//! int64 cummax [1, 2^20, 16] 204 -> 193 us; with 4 chains ([1, 2^18, 64]) 183 -> 182, and at 8
//! columns everywhere many-chain plans lost up to 5 % ([1, 4096, 4096] 162 -> 167, [64, 4096,
//! 256] 602 -> 622). Float32 cummax [1, 2^20, 16] lost (201 -> 213), int64 sums lost 5 - 80 %.
//! Operators that are not exactly associative (float sums) wait for a prefix within
//! lookback_ordered_windows windows, which a chain half as long finds sooner: float32 cumsum
//! [1, 2^20, 16] 142 -> 108 us at 8 columns (same run as above); float32 cumsum [1, 2^20, 12]
//! 150 -> 108 us, [1, 2^22, 16] 525 -> 366, [1, 4096, 16] 8.1 -> 7.3 (H200, harness, same run;
//! measured when they waited inside one window).
constexpr int column_lookback_max_cols(std::size_t in_bytes, std::size_t acc_bytes, bool one_chain, bool exact = true) {
  return one_chain && ((in_bytes == 8 && acc_bytes == 16) || !exact) ? 8 : column_lookback_max_cols(in_bytes);
}

//! Columns one warp of a column tile looks back for, at least (the warps share the rest). Exactly
//! associative operators take 2: fewer warps poll, in windows half as deep, which they can afford
//! since they may fold any number of windows. Others wait for a prefix within
//! lookback_ordered_windows windows and keep the deepest one (measured when that was one window).
//! H200, harness, same run, 1 -> 2 -> 4 columns: int64 cummax [1, 2^22, 4] 260 -> 228 -> 223 us,
//! int64 cumsum 158 -> 155 -> 161; float32 cumsum [1, 2^22, 4] 130 -> 139 -> 199; 16-column tiles
//! (two per warp already) unchanged.
template <bool Exact>
constexpr int column_lookback_min_cols_per_warp = Exact ? 2 : 1;

//! L2 prefetch: every tile asks L2 for the inputs of the tile sm_count / prefetch_sm_divisor tiles
//! later, so that tile's loads wait on L2 rather than DRAM. H200, int64 (harness, same run, no
//! prefetch -> prefetch half an SM count ahead): 1-D 2^28 cumsum 0.51 -> 0.58 of copy, cummax 0.54
//! -> 0.56; [4096, 4096] cumsum 116 -> 100 us; 2^24 along axis 0 cummax 2 - 18 % faster
//! ([1, 256, 65536] 233 -> 208 us), cumsum up to 12 % faster ([1, 262144, 64] 137 -> 120 us) but
//! [1, 2^22, 4] 4 % slower. One SM count ahead was as good or up to 6 % slower, two up to 8 %.
constexpr int prefetch_sm_divisor = 2;

//! Look-back polling. Plans of at least lookback_sleep_min_tiles tiles along long chains (rows;
//! columns along fewer chains than SMs) sleep lookback_first_poll_ns before a tile's first poll
//! (fewer polls of words not yet written); a window not ready is polled again after
//! lookback_retry_ns. H200, harness, same run, first sleep 0 -> 400 ns: 1-D 2^28 int64 cumsum
//! 1747 -> 1681 us, 2^24 cumsum 124 -> 119 us; cummax [1, 2^20, 16] 217 -> 206 us,
//! [1, 262144, 64] 188 -> 183 us; but along many chains, where the predecessor is usually done,
//! [64, 4096, 256] cummax 598 -> 610 us (bench: cumsum 350 -> 362 us). Doubling the retry sleep
//! from 64 up to 1024 ns gained nothing (within 2 %, either way).
constexpr long long lookback_sleep_min_tiles = 512;
constexpr unsigned lookback_first_poll_ns = 400;
constexpr unsigned lookback_retry_ns = 20;
//! Look-backs of operators that are not exactly associative (float sums) fold strictly left from
//! the nearest published prefix, which they may seek up to this many windows (of 32 / columns
//! predecessors) back; only in the last must they wait for one. H200, harness, same run, float32
//! cumsum, 1 / 2 / 4 / 8 windows: 1-D 2^28 689 / 593 / 597 / 604 us, 2^24 56.6 / 46.7 / 47.0 /
//! 48.5, [1, 2^22, 4] 93.2 / 87.5 / 89.2 / 91.3, [64, 4096, 256] 234 / 235 / 238 / 248; [1, 2^20,
//! 16], [64, 2^20] and latency shapes within 1 %.
constexpr int lookback_ordered_windows = 2;
//! Column plans of ordered operators along at most this many chains look back in two levels
//! (groups of 32 / columns-per-warp tiles; device/tile_state.cuh, grouped_exclusive_prefix): one
//! round trip reaches the square of a window. H200, probe, same run, one level -> two: float32
//! cumsum [1, 2^24, 4] 260 -> 222 us, [1, 2^23, 8] 343 -> 228, float64 [1, 2^23, 4] 273 -> 237,
//! float16 [1, 2^24, 4] 1195 -> 1215, latency shapes within 0.3 us. Along two or more chains the
//! extra round trip (the group, then the groups before it) cost more than the reach gave:
//! float32 [1, 2^22, 16] (two chains) 308 -> 330, [1, 2^20, 64] 217 -> 249, [1, 262144, 256]
//! 214 -> 236, float64 [1, 2^21, 16] 263 -> 272.
constexpr long long column_grouped_lookback_max_chains = 1;

//! Dynamic shared memory a plan may use without opting in.
constexpr std::size_t smem_budget = 48 * 1024;

}  // namespace policy
}  // namespace FASTSCAN_NAMESPACE
