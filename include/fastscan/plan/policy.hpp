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
//! where more items would cost registers for the wider accumulators.
constexpr int row_items(std::size_t in_bytes) { return in_bytes >= 8 ? 16 : 32; }
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
constexpr int row_min_tiles_per_sm = 2;

//! Column kernel: columns per thread (one 16-byte vector of the row), and rows per thread: 8, or 4
//! for 16-byte accumulators with 8-byte inputs ((value, int64 index) of int64/double), whose outputs
//! otherwise spill about 1 KB per thread under the register cap.
constexpr int column_vec(std::size_t in_bytes) {
  int vec = 1;
  while (static_cast<std::size_t>(vec) * 2 * in_bytes <= 16) {
    vec *= 2;  // a power of two, so tiles and the look-back's channel groups stay powers of two
  }
  return vec;
}
constexpr int column_items(std::size_t in_bytes, std::size_t acc_bytes) {
  return in_bytes >= 8 && acc_bytes >= 16 ? 4 : 8;
}
constexpr int column_threads = 256;
//! Register cap for the column kernel, as for the rows (uncapped, cummax int64 took 238). One
//! block per SM for 16-byte accumulators removes their spills (ncu: 3.5 M local requests on
//! [1, 256, 65536] int64 cummax) but measured 1.2 - 1.5x slower on the 2^24 axis-0 splits.
constexpr int column_min_blocks_per_sm = 2;
constexpr int column_min_tiles_per_sm = 2;
//! Widest tile (in columns) of a column plan that looks back: every column's look-back is one
//! round trip per window, all columns of a tile at once. 16 columns (at least 32 bytes of a row,
//! one sector); wider tiles with a status word per tile and per-column payloads took twice as long
//! on [1, 262144, 64] int64 (606 against 137 us for the best split, H200).
constexpr int column_lookback_max_cols(std::size_t in_bytes) {
  return 32 / static_cast<int>(in_bytes) > 16 ? 32 / static_cast<int>(in_bytes) : 16;
}

//! Dynamic shared memory a plan may use without opting in.
constexpr std::size_t smem_budget = 48 * 1024;

}  // namespace policy
}  // namespace FASTSCAN_NAMESPACE
