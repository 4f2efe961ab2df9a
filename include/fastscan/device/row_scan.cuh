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

//! The row kernel's warp slice for a problem: the inputs' unit rows, then, for problems with a second
//! output formed in shared memory (rows_in_place and has_side_output: the indices of cummax), a
//! unit row per lane for those. Rows formed in place only stage and unstage their unit rows, so
//! their slices are the rows alone (unit_row_pitch); buffered rows also store through the slice
//! (warp_store_blocked), which takes at least warp_exchange_bytes.
template <class Problem, int N>
struct row_slices {
  using in = row_exchange<typename Problem::input_t, N>;
  static constexpr bool has_side = rows_in_place<Problem> && has_side_output<Problem>;
  using side_item_t = std::conditional_t<has_side, typename Problem::side_t, typename Problem::input_t>;
  using side = row_exchange<side_item_t, N>;
  static constexpr std::size_t rows_bytes(int units) { return std::size_t{32} * 16 * unit_row_pitch(units); }
  static constexpr std::size_t in_bytes = rows_in_place<Problem> ? rows_bytes(in::units) : in::warp_bytes;
  static constexpr std::size_t warp_bytes = in_bytes + (has_side ? rows_bytes(side::units) : 0);
};

//! Staged items viewed as a buffer of N (the shape of a problem's in-place output buffer).
template <class T>
struct staged_items {
  template <int N>
  struct buffer {
    T v[N];
  };
};

//! Visits the thread's first `count` staged items in order as visit(b, slot, i, fast): item i is
//! b.v[slot], and a visitor that writes outputs in place puts them at b.v[slot]. `fast` is a
//! std::bool_constant: true where the visitor may skip its checks (bounds, row heads). Buffer is a
//! template of buffers of N items (staged_items<T>::buffer, or a problem's output buffer when
//! outputs are formed in place).
//! - Whole (a thread with all ITEMS items, none of them a head to check): one 16-byte unit at a
//!   time, loaded as a Buffer<16 / sizeof(T)> (and stored back when WriteBack), all fast;
//! - otherwise item by item in place, each checked against `count`, none fast.
//! Rows of more than policy::row_unrolled_items_max items (1- and 2-byte types at 256 bytes per
//! thread) always go unit by unit in a loop that is not unrolled, so registers hold one unit
//! (unrolled, 128 uint8 items spilled 858 bytes); there each unit is fast when unit_fast(u) says
//! so (all of its items in range and no head among them), so a thread with a row head pays the
//! checks in that unit only. A fast unit goes to whole_unit(unit, u) first, which takes it whole
//! (returning true) or leaves it to the item visits. (Checked per thread, a row head sent all
//! 256 items and its warp down the checked path.)
template <int ITEMS, template <int> class Buffer, bool WriteBack, bool Whole, class T, class Visit, class UnitFast,
          class WholeUnit>
FASTSCAN_DEVICE void for_each_item(T* items, int count, Visit&& visit, UnitFast&& unit_fast, WholeUnit&& whole_unit) {
  constexpr int per = static_cast<int>(16 / sizeof(T));
  constexpr bool rolled = ITEMS > policy::row_unrolled_items_max;
  using unit_t = Buffer<per>;
  static_assert(sizeof(unit_t) == 16 && ITEMS % per == 0, "a row is read in whole 16-byte units");
  if constexpr (rolled || Whole) {
#pragma unroll(rolled ? 1 : ITEMS / per)
    for (int u = 0; u < (rolled ? count : ITEMS); u += per) {
      unit_t unit;
      uint4 raw = *reinterpret_cast<const uint4*>(items + u);  // rows are 16-byte aligned
      memcpy(&unit, &raw, 16);
      if (Whole || unit_fast(u)) {
        if (!whole_unit(unit, u)) {
#pragma unroll
          for (int j = 0; j < per; ++j) {
            visit(unit, j, u + j, std::true_type{});
          }
        }
      } else {
#pragma unroll
        for (int j = 0; j < per; ++j) {
          if (u + j < count) {
            visit(unit, j, u + j, std::false_type{});
          }
        }
      }
      if constexpr (WriteBack) {
        memcpy(&raw, &unit, 16);
        *reinterpret_cast<uint4*>(items + u) = raw;
      }
    }
  } else {
    auto& row = *reinterpret_cast<Buffer<ITEMS>*>(items);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < count) {
        visit(row, i, i, std::false_type{});
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
  constexpr bool in_place = rows_in_place<Problem>;
  using slices = row_slices<Problem, ITEMS>;
  using side_item_t = typename slices::side_item_t;
  const int tid = static_cast<int>(threadIdx.x);
  const int lane = tid & 31;
  const std::int64_t tile_base = tile * p.tile_items;
  const std::int64_t first = tile_base + static_cast<std::int64_t>(tid) * ITEMS;
  const std::int64_t left = p.numel - first;
  const int count = left <= 0 ? 0 : (left >= ITEMS ? ITEMS : static_cast<int>(left));
  // A warp whose whole run is in range moves it with coalesced accesses through shared memory.
  const bool warp_full = first - lane * ITEMS + 32 * ITEMS <= p.numel;
  const std::size_t scan_bytes = (block_scan<item_t>::storage_bytes(static_cast<int>(blockDim.x), 1) + 15) / 16 * 16;
  using xchg = typename slices::in;
  uint4* const exchange = reinterpret_cast<uint4*>(smem + scan_bytes) + (tid >> 5) * (slices::warp_bytes / 16);
  uint4* const side_exchange = exchange + slices::in_bytes / 16;
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
      // Rows formed in place hold no registers per item, so they run more blocks per SM
      // (row_kernel_bounds) and stage without registers too.
      warp_stage_units<xchg::units, in_place>(prob.in + (first - lane * ITEMS), exchange);
      staged = true;
    }
  }
  input_t* const items = unit_row<input_t, xchg::units>(exchange, lane);
  side_item_t* const side_items = unit_row<side_item_t, slices::side::units>(side_exchange, lane);
  if (!staged) {
    // In runs of at most 128 bytes and 32 items (a register each), so a long row of items never
    // sits in registers at once (runs of 64 narrow items set the kernel's register demand).
    constexpr int run_max = 128 / sizeof(input_t) < 32 ? static_cast<int>(128 / sizeof(input_t)) : 32;
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
  using in_buffers = staged_items<input_t>;
  constexpr int unit_items = static_cast<int>(16 / sizeof(input_t));
  constexpr bool unit_sums = has_unit_sums<Problem>::value;
  if (plain && count == ITEMS) {
    for_each_item<ITEMS, in_buffers::template buffer, false, true>(
        items, count,
        [&](const auto& b, int slot, int i, auto) {
          const acc_t e = prob.lift(b.v[slot], row_pos0 + i);
          total = i == 0 ? item_t{e, false} : item_t{prob.op(total.value, e), false};
        },
        [](int) { return true; },
        [&](const auto& b, int u) {
          if constexpr (unit_sums) {
            const acc_t t = prob.unit_total(b);
            total = u == 0 ? item_t{t, false} : item_t{prob.op(total.value, t), false};
          }
          return unit_sums;
        });
  } else {
    int next_head = first_head;
    std::int64_t r = row_pos0;
    for_each_item<ITEMS, in_buffers::template buffer, false, false>(
        items, count,
        [&](const auto& b, int slot, int i, auto fast) {
          // (Fast: a unit after the first, in range, with no head.)
          const bool head = !decltype(fast)::value && i == next_head;
          if (head) {
            r = 0;
            next_head += spacing;
          }
          const item_t e{prob.lift(b.v[slot], r), head};
          if constexpr (decltype(fast)::value) {
            total.value = prob.op(total.value, e.value);
          } else {
            total = i == 0 ? e : seg(total, e);
          }
          ++r;
        },
        [&](int u) { return u > 0 && u + unit_items <= count && next_head >= u + unit_items; },
        [&](const auto& b, int) {
          if constexpr (unit_sums) {
            total.value = prob.op(total.value, prob.unit_total(b));
            r += unit_items;
          }
          return unit_sums;
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

  // Outputs of the inputs' type (sums into the same type, generic scans, the extremes of cummax) are
  // formed in place of the thread's staged items, a second output (the extremes' indices) in the
  // side row, so no output buffer holds registers; others are buffered.
  using buffer_t = typename Problem::template buffer<ITEMS>;
  auto form_and_store = [&](buffer_t& out) {
    // Forms the outputs: Whole for a thread with all ITEMS items, none of them a row head, after an
    // earlier element of its row (most threads), without the checks for heads and bounds.
    auto form_all = [&](auto whole) {
      constexpr bool Whole = decltype(whole)::value;
      acc_t running = before.value;
      bool has_running = has_before;
      int next_head = plain ? ITEMS : first_head;
      std::int64_t r = row_pos0;
      // Forms item i's output from x, into `b` at `slot`; fast: no head or missing prefix to check.
      auto form = [&](auto& b, int slot, int i, const input_t x, auto fast) {
        constexpr bool Fast = decltype(fast)::value;
        if constexpr (!Fast) {
          if (i == next_head) {
            r = 0;
            next_head += spacing;
            has_running = false;
          }
        }
        const acc_t e = prob.lift(x, r);
        const acc_t previous = running;
        const bool had = Fast || has_running;
        running = had ? prob.op(running, e) : e;
        if constexpr (in_place) {
          b.v[slot] = prob.output(running, previous, had);
          if constexpr (slices::has_side) {
            side_items[i] = prob.side(running);
          }
        } else {
          prob.put(b, slot, running, previous, had);
        }
        has_running = true;
        ++r;
      };
      auto unit_fast = [&](int u) { return has_running && u + unit_items <= count && next_head >= u + unit_items; };
      if constexpr (in_place) {
        for_each_item<ITEMS, in_buffers::template buffer, true, Whole>(
            items, count, [&](auto& b, int slot, int i, auto fast) { form(b, slot, i, b.v[slot], fast); }, unit_fast,
            [&](auto& b, int) {
              if constexpr (unit_sums) {
                running = prob.scan_unit(b, running);
                r += unit_items;
              }
              return unit_sums;
            });
      } else {
        for_each_item<ITEMS, in_buffers::template buffer, false, Whole>(
            items, count, [&](const auto& b, int slot, int i, auto fast) { form(out, i, i, b.v[slot], fast); }, unit_fast,
            [](const auto&, int) { return false; });
      }
    };
    if (plain && has_before && count == ITEMS) {
      form_all(std::true_type{});
    } else {
      form_all(std::false_type{});
    }
    if constexpr (in_place) {
      // Each output row leaves from its unit rows: as they are, to a pointer to their type; element
      // by element, converted, to any other output.
      auto leave = [&](auto thread_out, auto* row, uint4* slice) {
        using value_t = std::remove_pointer_t<decltype(row)>;
        constexpr int units = row_exchange<value_t, ITEMS>::units;
        if constexpr (is_pointer_to_v<decltype(thread_out), value_t>) {
          if (coalesced(thread_out)) {
            warp_unstage_units<units>(thread_out - lane * ITEMS, slice);
            return;
          }
        }
        store_run<ITEMS>(thread_out, *reinterpret_cast<const value_t(*)[ITEMS]>(row), count);  // (any output iterator)
      };
      leave(prob.out + first, items, exchange);
      if constexpr (slices::has_side) {
        leave(prob.side_out + first, side_items, side_exchange);
      }
    } else {
      prob.store(out, first, count, [&](auto thread_out, const auto& values, int n) {
        using value_t = std::remove_cv_t<std::remove_reference_t<decltype(values[0])>>;
        if constexpr (is_pointer_to_v<decltype(thread_out), value_t> && warp_exchange_shape<value_t, ITEMS>::supported) {
          if (coalesced(thread_out)) {
            warp_store_blocked<ITEMS>(thread_out - lane * ITEMS, values, exchange);
            return;
          }
        }
        store_run<ITEMS>(thread_out, values, n);  // (any output iterator)
      });
    }
  };
  buffer_t out;  // (unused, and optimised away, when outputs are formed in place)
  form_and_store(out);
}

//! The row kernel's launch bounds for a problem (policy::row_kernel_bounds).
template <bool Exact, class Problem>
constexpr policy::kernel_bounds row_bounds =
    policy::row_kernel_bounds(rows_in_place<Problem>, sizeof(typename Problem::input_t), Exact, sizeof(typename Problem::acc_t));

//! One block scans tiles as for_each_tile hands them out.
template <int ITEMS, bool Exact, class Problem>
FASTSCAN_KERNEL __launch_bounds__(row_bounds<Exact, Problem>.threads, row_bounds<Exact, Problem>.min_blocks_per_sm) void row_scan_kernel(Problem prob, row_scan_params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  for_each_tile<true>(p.tile_counter, p.num_tiles, [&](std::int64_t tile) { row_scan_tile<ITEMS, Exact>(prob, p, tile, smem); });
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
