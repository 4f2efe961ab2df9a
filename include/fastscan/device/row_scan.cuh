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
#include <fastscan/detail/divisor.cuh>
#include <fastscan/detail/problems.cuh>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/device/tile_state.cuh>
#include <fastscan/plan/policy.hpp>
#include <fastscan/warp/warp_exchange.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

struct row_scan_params {
  std::int64_t numel;       //!< outer * len
  std::int64_t len;         //!< row length (> 0)
  divisor by_len;           //!< len as a divisor
  std::int64_t tile_items;  //!< blockDim.x * ITEMS
  std::int64_t num_tiles;
  bool lookback;            //!< false when every tile starts at a row head (or there is one tile)
  unsigned long long* tile_counter;  //!< zeroed tile counter, or null: tile = block index
  void* tile_words;                  //!< tile state (tile_state<Acc>, one channel per tile)
  unsigned long long tag;            //!< the call's tile-state tag (0: state zeroed)
  std::int64_t prefetch_tiles;       //!< L2 prefetch distance in tiles (0: none)
  unsigned first_poll_ns;            //!< plan::first_poll_ns
};

//! Tile prefix hook for the block scan: publishes the tile's aggregate and returns the prefix that
//! precedes its first element (none when the tile starts at a row head).
template <bool Exact, class Acc, class Op>
struct row_tile_prefix {
  tile_state<Acc> state;
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

//! The row kernel's warp slice: each lane's ITEMS inputs as one unit row (at most
//! exchange_units_max units).
template <class T, int N>
struct row_exchange {
  static constexpr int units = static_cast<int>(sizeof(T) * N / 16);
  static constexpr std::size_t warp_bytes = unit_slice_bytes(units);
  static_assert(sizeof(T) * N % 16 == 0 && units <= exchange_units_max,
                "row items per thread must fill whole 16-byte units, at most 256 bytes");
};

//! Calls visit(i, item) for the thread's first `count` items in order. Rows of more than
//! policy::row_unrolled_items_max items (1- and 2-byte types at 256 bytes per thread) go one
//! 16-byte unit at a time in a loop that is not unrolled, so registers hold one unit (unrolled, 128
//! uint8 items spilled 858 bytes).
template <int ITEMS, class T, class Visit>
FASTSCAN_DEVICE void for_each_item(const T* items, int count, Visit&& visit) {
  if constexpr (ITEMS > policy::row_unrolled_items_max) {
    constexpr int per = static_cast<int>(16 / sizeof(T));
#pragma unroll 1
    for (int u = 0; u < count; u += per) {
      T unit[per];
      const uint4 raw = *reinterpret_cast<const uint4*>(items + u);  // rows are 16-byte aligned
      memcpy(&unit, &raw, 16);
#pragma unroll
      for (int j = 0; j < per; ++j) {
        if (u + j < count) {
          visit(u + j, unit[j]);
        }
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < count) {
        visit(i, items[i]);
      }
    }
  }
}

template <int ITEMS, bool Exact, class Problem>
FASTSCAN_DEVICE void row_scan_tile(const Problem& prob, const row_scan_params& p, std::int64_t tile,
                                   unsigned char* smem) {
  using input_t = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  using op_t = typename Problem::op_t;
  using item_t = flagged<acc_t>;
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const std::int64_t tile_base = tile * p.tile_items;
  const std::int64_t first = tile_base + static_cast<std::int64_t>(tid) * ITEMS;
  const std::int64_t left = p.numel - first;
  const int count = left <= 0 ? 0 : (left >= ITEMS ? ITEMS : static_cast<int>(left));
  // A warp whose whole run is in range moves it with coalesced accesses through shared memory.
  const bool warp_full = first - lane * ITEMS + 32 * ITEMS <= p.numel;
  const std::size_t scan_bytes = (block_scan<item_t>::storage_bytes(static_cast<int>(blockDim.x), 1) + 15) / 16 * 16;
  using xchg = row_exchange<input_t, ITEMS>;
  uint4* const exchange = reinterpret_cast<uint4*>(smem + scan_bytes) + (tid >> 5) * (xchg::warp_bytes / 16);
  if (p.prefetch_tiles > 0 && first + p.prefetch_tiles * p.tile_items < p.numel) {
    prefetch_l2(prob.in + (first + p.prefetch_tiles * p.tile_items));
  }
  auto coalesced = [&](const auto* thread_ptr) {
    return warp_full && reinterpret_cast<std::uintptr_t>(thread_ptr - lane * ITEMS) % 16 == 0;
  };

  // The tile stays in shared memory (this thread's items at `items`) until the outputs are formed,
  // so no registers hold it across the block scan and the look-back.
  bool staged = false;
  if constexpr (std::is_pointer_v<decltype(prob.in)>) {
    if (coalesced(prob.in + first)) {
      warp_stage_units<xchg::units>(prob.in + (first - lane * ITEMS), exchange);
      staged = true;
    }
  }
  input_t* const items = unit_row<input_t, xchg::units>(exchange, lane);
  if (!staged) {
    // In runs of at most 128 bytes and 64 items (a register each), so a long row of items never
    // sits in registers at once.
    constexpr int run_max = 128 / sizeof(input_t) < 64 ? static_cast<int>(128 / sizeof(input_t)) : 64;
    constexpr int run = ITEMS > run_max ? run_max : ITEMS;
#pragma unroll
    for (int c = 0; c < ITEMS; c += run) {
      input_t direct[run];
      load_run<run>(prob.in + (first + c), direct, count - c);
#pragma unroll
      for (int i = 0; i < run; ++i) {
        items[c + i] = direct[i];
      }
    }
  }

  // Row heads among this thread's items: the first at `first_head` (ITEMS when none), then every
  // `len` items. Most threads have none and take the plain path.
  const std::int64_t row_pos0 = count > 0 ? p.by_len.mod(first) : 0;
  const int first_head = row_pos0 == 0 ? 0 : (p.len - row_pos0 < ITEMS ? static_cast<int>(p.len - row_pos0) : ITEMS);
  const int spacing = p.len < ITEMS ? static_cast<int>(p.len) : ITEMS;
  const bool plain = first_head >= count;
  const segmented_op<op_t> seg{prob.op};

  item_t total{acc_t{}, true};
  if (plain) {
    for_each_item<ITEMS>(items, count, [&](int i, const input_t& x) {
      const acc_t e = prob.lift(x, row_pos0 + i);
      total = i == 0 ? item_t{e, false} : item_t{prob.op(total.value, e), false};
    });
  } else {
    int next_head = first_head;
    std::int64_t r = row_pos0;
    for_each_item<ITEMS>(items, count, [&](int i, const input_t& x) {
      const bool head = i == next_head;
      if (head) {
        r = 0;
        next_head += spacing;
      }
      const item_t e{prob.lift(x, r), head};
      total = i == 0 ? e : seg(total, e);
      ++r;
    });
  }

  block_scan<item_t> scan(smem, static_cast<int>(blockDim.x), 1);
  row_tile_prefix<Exact, acc_t, op_t> hook{{static_cast<ulonglong2*>(p.tile_words), p.tag, p.first_poll_ns},
                                           tile,
                                           p.by_len.mod(tile_base) == 0,
                                           p.lookback,
                                           prob.op};
  item_t before;
  const bool has_before = scan.exclusive_scan(total, before, seg, hook);

  // Outputs of the inputs' type (sums into the same type, generic scans) are formed in place of
  // the thread's staged items, so no output buffer holds registers; others are buffered.
  using buffer_t = typename Problem::template buffer<ITEMS>;
  constexpr bool in_place = outputs_in_place<Problem>;
  auto form_and_store = [&](buffer_t& out) {
    acc_t running = before.value;
    bool has_running = has_before;
    int next_head = plain ? ITEMS : first_head;
    std::int64_t r = row_pos0;
    // Forms item i's output from x, into `b` at `slot`.
    auto form = [&](auto& b, int slot, int i, const input_t& x) {
      if (i == next_head) {
        r = 0;
        next_head += spacing;
        has_running = false;
      }
      const acc_t e = prob.lift(x, r);
      const acc_t previous = running;
      running = has_running ? prob.op(running, e) : e;
      prob.put(b, slot, running, previous, has_running);
      has_running = true;
      ++r;
    };
    if constexpr (in_place && ITEMS > policy::row_unrolled_items_max) {
      // One 16-byte unit at a time (for_each_item), its outputs written back over it.
      constexpr int per = static_cast<int>(16 / sizeof(input_t));
#pragma unroll 1
      for (int u = 0; u < count; u += per) {
        typename Problem::template buffer<per> unit;
        static_assert(sizeof(unit) == 16, "a unit of outputs formed in place is 16 bytes");
        uint4 raw = *reinterpret_cast<const uint4*>(items + u);
        memcpy(&unit, &raw, 16);
#pragma unroll
        for (int j = 0; j < per; ++j) {
          if (u + j < count) {
            form(unit, j, u + j, unit.v[j]);
          }
        }
        memcpy(&raw, &unit, 16);
        *reinterpret_cast<uint4*>(items + u) = raw;
      }
    } else {
      for_each_item<ITEMS>(items, count, [&](int i, const input_t& x) { form(out, i, i, x); });
    }
    prob.store(out, first, count, [&](auto thread_out, const auto& values, int n) {
      using value_t = std::remove_cv_t<std::remove_reference_t<decltype(values[0])>>;
      if constexpr (is_pointer_to_v<decltype(thread_out), value_t> && warp_exchange_shape<value_t, ITEMS>::supported) {
        if (coalesced(thread_out)) {
          if constexpr (in_place) {
            warp_unstage_units<xchg::units>(thread_out - lane * ITEMS, exchange);
          } else {
            warp_store_blocked<ITEMS>(thread_out - lane * ITEMS, values, exchange);
          }
          return;
        }
      }
      store_run<ITEMS>(thread_out, values, n);  // (any output iterator)
    });
  };
  if constexpr (in_place) {
    form_and_store(*reinterpret_cast<buffer_t*>(items));
  } else {
    buffer_t out;
    form_and_store(out);
  }
}

//! One block scans tiles as for_each_tile hands them out.
template <int ITEMS, bool Exact, class Problem>
FASTSCAN_KERNEL __launch_bounds__(policy::row_threads_max, policy::row_min_blocks_per_sm) void row_scan_kernel(Problem prob, row_scan_params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  for_each_tile<true>(p.tile_counter, p.num_tiles, [&](std::int64_t tile) { row_scan_tile<ITEMS, Exact>(prob, p, tile, smem); });
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
