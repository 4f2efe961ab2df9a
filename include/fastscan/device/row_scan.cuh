//! \file row_scan.cuh
//! The row kernel: scans along the contiguous axis ([outer, len, 1]) in one pass.
//!
//! The rows are segments of one flat array of outer * len elements whose heads sit at multiples of
//! `len`. Tiles of `blockDim.x * ITEMS` consecutive elements cover that array whatever the row
//! length, so [1, 2^28], [8, 2^22] and [2^20, 64] are the same kernel: a segmented block scan per
//! tile, and a decoupled look-back that stops at the nearest tile holding a row head. No keys are
//! loaded; heads are computed from positions.
#pragma once

#include <fastscan/block/block_scan.cuh>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/device/tile_state.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

struct row_scan_params {
  std::int64_t numel;       //!< outer * len
  std::int64_t len;         //!< row length (> 0)
  std::int64_t tile_items;  //!< blockDim.x * ITEMS
  std::int64_t num_tiles;
  bool lookback;            //!< false when every tile starts at a row head (or there is one tile)
  unsigned long long* tile_counter;  //!< dynamic tile ids, so a predecessor is always scheduled first
  void* tile_words;                 //!< packed tile state, one word per tile
};

//! Tile prefix hook for the block scan: publishes the tile's aggregate and returns the prefix that
//! precedes its first element (none when the tile starts at a row head).
template <bool Exact, class Acc, class Op>
struct row_tile_prefix {
  packed_tile_state<Acc> state;
  std::int64_t tile;
  bool starts_at_head;
  bool enabled;
  Op op;

  FASTSCAN_DEVICE bool operator()(const flagged<Acc>& total, flagged<Acc>& prefix) const {
    if (!enabled) {
      return false;
    }
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const bool complete = total.head || starts_at_head;
    if (lane == 0) {
      state.publish(tile, total.value, complete ? tile_prefix : tile_aggregate);
    }
    if (starts_at_head) {
      return false;
    }
    const Acc before = state.template exclusive_prefix<Exact>(tile, op);
    if (lane == 0 && !total.head) {
      state.publish(tile, op(before, total.value), tile_prefix);
    }
    prefix = flagged<Acc>{before, false};
    return true;
  }
};

template <int ITEMS, bool Exact, class Problem>
FASTSCAN_DEVICE void row_scan_tile(const Problem& prob, const row_scan_params& p, std::int64_t tile,
                                   unsigned char* smem) {
  using input_t = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  using item_t = flagged<acc_t>;
  const int tid = static_cast<int>(threadIdx.x);
  const std::int64_t tile_base = tile * p.tile_items;
  const std::int64_t first = tile_base + static_cast<std::int64_t>(tid) * ITEMS;
  const std::int64_t left = p.numel - first;
  const int count = left <= 0 ? 0 : (left >= ITEMS ? ITEMS : static_cast<int>(left));

  input_t items[ITEMS];
  load_run<ITEMS>(prob.in + first, items, count);

  const std::int64_t row_pos0 = count > 0 ? first % p.len : 0;
  item_t total{acc_t{}, true};
  {
    std::int64_t r = row_pos0;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < count) {
        const item_t e{prob.lift(items[i], r), r == 0};
        total = i == 0 ? e : segmented_op<typename Problem::op_t>{prob.op}(total, e);
        r = r + 1 == p.len ? 0 : r + 1;
      }
    }
  }

  block_scan<item_t> scan(smem, static_cast<int>(blockDim.x), 1);
  row_tile_prefix<Exact, acc_t, typename Problem::op_t> hook{
      {static_cast<typename packed_tile_state<acc_t>::word*>(p.tile_words)},
      tile,
      tile_base % p.len == 0,
      p.lookback,
      prob.op};
  item_t before;
  const bool has_before = scan.exclusive_scan(total, before, segmented_op<typename Problem::op_t>{prob.op}, hook);

  typename Problem::template buffer<ITEMS> out;
  acc_t running = before.value;
  bool has_running = has_before;
  std::int64_t r = row_pos0;
#pragma unroll
  for (int i = 0; i < ITEMS; ++i) {
    if (i < count) {
      const acc_t e = prob.lift(items[i], r);
      const bool continues = has_running && r != 0;
      const acc_t previous = running;
      running = continues ? prob.op(running, e) : e;
      has_running = true;
      prob.put(out, i, running, previous, continues);
      r = r + 1 == p.len ? 0 : r + 1;
    }
  }
  prob.store(out, first, count);
}

//! Tiles that look back come from a counter, in issue order; independent tiles from a
//! grid-stride loop over independent tiles.
template <int ITEMS, bool Exact, class Problem>
FASTSCAN_KERNEL void row_scan_kernel(Problem prob, row_scan_params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  __shared__ std::int64_t tile_id;
  if (p.lookback) {
    // Tiles are taken in issue order, so every tile a block waits on is held by a running block.
    for (;;) {
      if (threadIdx.x == 0) {
        tile_id = static_cast<std::int64_t>(atomicAdd(p.tile_counter, 1ull));
      }
      __syncthreads();
      if (tile_id >= p.num_tiles) {
        return;
      }
      row_scan_tile<ITEMS, Exact>(prob, p, tile_id, smem);
      __syncthreads();
    }
  }
  for (std::int64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    row_scan_tile<ITEMS, Exact>(prob, p, tile, smem);
    __syncthreads();
  }
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
