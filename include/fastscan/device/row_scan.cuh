//! \file row_scan.cuh
//! The row kernel: scans along the contiguous axis ([outer, len, 1]) in one pass.
//!
//! The rows are segments of one flat array of outer * len elements. Tiles of `blockDim.x * ITEMS`
//! consecutive elements cover that array whatever the segment length, so [1, 2^28], [8, 2^22] and
//! [2^20, 64] are the same kernel: a segmented block scan per tile, and a decoupled look-back that
//! stops at the nearest tile holding a segment head. Where the heads are is the Heads policy's
//! (positional_heads: multiples of `len`); a tile runs in named stages (row_tile::run): prefetch,
//! load, reduce, block scan with the look-back, form and store.
#pragma once

#include <fastscan/block/block_scan.cuh>
#include <fastscan/detail/divisor.cuh>
#include <fastscan/detail/layout.hpp>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/device/tile_state.cuh>
#include <fastscan/problem/contract.cuh>
#include <fastscan/warp/warp_exchange.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

struct row_scan_params {
  std::int64_t numel;       //!< outer * len
  std::int64_t tile_items;  //!< blockDim.x * ITEMS
  std::int64_t num_tiles;
  bool lookback;            //!< false when every tile starts at a row head (or there is one tile)
  void* tile_words;         //!< tile state (tile_state<Acc>, one channel per tile)
  unsigned long long tag;   //!< the call's tile-state tag (0: state zeroed)
  std::int64_t prefetch_tiles;  //!< L2 prefetch distance in tiles (0: none)
  unsigned first_poll_ns;       //!< plan::first_poll_ns
  unsigned stall_polls;         //!< polls of a window before a look-back stops waiting
};

//! Tile prefix hook for the block scan: publishes the tile's aggregate and returns the prefix that
//! precedes its first element (none when the tile starts at a row head). A total that holds a head
//! (a row's, or a segment's by the problem) is the tile's prefix as it is, published at once. Its
//! lane 0 writes `*stalled_on`: the predecessor a look-back stopped waiting for, or -1. A helper
//! (row_tile_sequence) only offers its aggregate (tile_state::offer_aggregate): published over a
//! prefix, it would let a later helper take outputs written in place for inputs.
template <bool Exact, class Lookback, class Problem>
struct row_tile_prefix {
  using acc_t = typename Problem::acc_t;
  tile_state<acc_t> state;
  std::int64_t tile;
  bool starts_at_head;
  bool enabled;
  typename Problem::op_t op;
  std::int64_t* stalled_on;  //!< shared
  bool helper;
  bool over_inputs;  //!< the tile's block writes its outputs over its inputs

  FASTSCAN_DEVICE bool operator()(const flagged<acc_t>& total, flagged<acc_t>& prefix) const {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    if (lane == 0) {
      *stalled_on = -1;
    }
    if (!enabled) {
      return false;
    }
    const bool complete = total.head || starts_at_head || fold_is_complete<Problem>(total.value);
    if (lane == 0) {
      publish_total(total.value, complete);
    }
    if (starts_at_head) {
      return false;
    }
    std::int64_t stall = -1;
    const acc_t before = state.template exclusive_prefix<Exact, Lookback, true>(tile, op, 1, 1, 1, 0, &stall);
    if (lane == 0) {
      if (stall >= 0) {
        *stalled_on = stall;
      } else if (!complete) {
        publish_prefix(op(before, total.value));
      }
    }
    prefix = flagged<acc_t>{before, false};
    return true;
  }
  //! The tile's total: its prefix when complete, else its aggregate (a helper's only offered).
  FASTSCAN_DEVICE void publish_total(const acc_t& v, bool complete) const {
    if (complete) {
      publish_prefix(v);
    } else if (helper) {
      state.offer_aggregate(tile, v);
    } else {
      state.publish(tile, v, tile_aggregate);
    }
  }
  //! A block that writes over its inputs makes its prefix visible first: a helper that finds no
  //! prefix after its loads then loaded inputs.
  FASTSCAN_DEVICE void publish_prefix(const acc_t& v) const {
    state.publish(tile, v, tile_prefix);
    if (over_inputs && !helper) {
      __threadfence();
    }
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

//! visit(unit, j, u + j, fast) for the unit's items j below count - u.
template <int Per, class Unit, class Visit, class Fast>
FASTSCAN_DEVICE void visit_unit(Unit& unit, int u, int count, Visit& visit, Fast fast) {
#pragma unroll
  for (int j = 0; j < Per; ++j) {
    if (Fast::value || u + j < count) {
      visit(unit, j, u + j, fast);
    }
  }
}

//! The unit-by-unit visits of for_each_item (Whole threads, and rows of more than UnrolledMax items).
template <int ITEMS, int UnrolledMax, template <int> class Buffer, bool WriteBack, bool Whole, class T, class Visit,
          class UnitFast, class WholeUnit>
FASTSCAN_DEVICE void for_each_unit(T* items, int count, Visit&& visit, UnitFast&& unit_fast, WholeUnit&& whole_unit) {
  constexpr int per = static_cast<int>(16 / sizeof(T));
  constexpr bool rolled = ITEMS > UnrolledMax;
  using unit_t = Buffer<per>;
  static_assert(sizeof(unit_t) == 16 && ITEMS % per == 0, "a row is read in whole 16-byte units");
#pragma unroll(rolled ? 1 : ITEMS / per)
  for (int u = 0; u < (rolled ? count : ITEMS); u += per) {
    unit_t unit;
    uint4 raw = *reinterpret_cast<const uint4*>(items + u);  // rows are 16-byte aligned
    memcpy(&unit, &raw, 16);
    if (Whole || unit_fast(u)) {
      if (!whole_unit(unit, u)) {
        visit_unit<per>(unit, u, per, visit, std::true_type{});
      }
    } else {
      visit_unit<per>(unit, u, count, visit, std::false_type{});
    }
    if constexpr (WriteBack) {
      memcpy(&raw, &unit, 16);
      *reinterpret_cast<uint4*>(items + u) = raw;
    }
  }
}
//! Visits the thread's first `count` staged items in order as visit(b, slot, i, fast): item i is
//! b.v[slot], and a visitor that writes outputs in place puts them at b.v[slot]. `fast` is a
//! std::bool_constant: true where the visitor may skip its checks (bounds, row heads). Buffer is a
//! template of buffers of N items (staged_items<T>::buffer, or a problem's output buffer when
//! outputs are formed in place).
//! - Whole (a thread with all ITEMS items, none of them a head to check): one 16-byte unit at a
//!   time, loaded as a Buffer<16 / sizeof(T)> (and stored back when WriteBack), all fast;
//! - otherwise item by item in place, each checked against `count`, none fast.
//! Rows of more than UnrolledMax items (1- and 2-byte types at 256 bytes per
//! thread) always go unit by unit in a loop that is not unrolled, so registers hold one unit
//! (unrolled, 128 uint8 items spilled 858 bytes); there each unit is fast when unit_fast(u) says
//! so (all of its items in range and no head among them), so a thread with a row head pays the
//! checks in that unit only. A fast unit goes to whole_unit(unit, u) first, which takes it whole
//! (returning true) or leaves it to the item visits. (Checked per thread, a row head sent all
//! 256 items and its warp down the checked path.)
template <int ITEMS, int UnrolledMax, template <int> class Buffer, bool WriteBack, bool Whole, class T, class Visit,
          class UnitFast, class WholeUnit>
FASTSCAN_DEVICE void for_each_item(T* items, int count, Visit&& visit, UnitFast&& unit_fast, WholeUnit&& whole_unit) {
  if constexpr (ITEMS > UnrolledMax || Whole) {
    for_each_unit<ITEMS, UnrolledMax, Buffer, WriteBack, Whole>(items, count, visit, unit_fast, whole_unit);
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

//! Segment heads at multiples of `len` (the rows of an [outer, len] array), computed from
//! positions: no keys are loaded. A heads policy tells a tile whether it starts a segment and a
//! thread where the heads among its items are (thread_heads); ARCHITECTURE.md says how a policy
//! that compares keys, or one with a carry per row, plugs in.
struct positional_heads {
  std::int64_t len;  //!< segment length (> 0)
  divisor by_len;
  //! One thread's heads: the first at `first` (ITEMS when none), then `next(head)`; pos0 is the
  //! first item's position within its segment.
  struct thread_heads {
    std::int64_t pos0;
    int first;
    int spacing;
    FASTSCAN_DEVICE int next(int head) const { return head + spacing; }
  };
  template <int ITEMS>
  FASTSCAN_DEVICE thread_heads at(std::int64_t first, int count) const {
    const std::int64_t pos0 = count > 0 ? by_len.mod(first) : 0;
    const int head = pos0 == 0 ? 0 : (len - pos0 < ITEMS ? static_cast<int>(len - pos0) : ITEMS);
    return {pos0, head, len < ITEMS ? static_cast<int>(len) : ITEMS};
  }
  FASTSCAN_DEVICE bool starts_segment(std::int64_t position) const { return by_len.mod(position) == 0; }
};

//! One row tile, stage by stage. Policy: items, exact, unrolled_items_max, lookback_policy
//! (plan/kernel_policy.hpp); Heads: where segments start (positional_heads).
template <class Policy, class Problem, class Heads>
struct row_tile {
  using input_t = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  using op_t = typename Problem::op_t;
  using item_t = flagged<acc_t>;
  static constexpr int ITEMS = Policy::items;
  static constexpr int unrolled = Policy::unrolled_items_max;
  static constexpr bool in_place = rows_in_place<Problem>;
  using slices = row_slices<Problem, ITEMS>;
  using side_item_t = typename slices::side_item_t;
  using xchg = typename slices::in;
  using in_buffers = staged_items<input_t>;
  using buffer_t = typename Problem::template buffer<ITEMS>;
  static constexpr int unit_items = static_cast<int>(16 / sizeof(input_t));
  static constexpr bool unit_sums = has_unit_sums<Problem>::value;

  const Problem& prob;
  const row_scan_params& p;
  const Heads& heads;
  const std::int64_t tile;
  unsigned char* const smem;
  const int lane;
  const std::int64_t tile_base;
  const std::int64_t first;  //!< the thread's first element
  const int count;           //!< its items in range
  const bool warp_full;      //!< the warp's whole run is in range
  uint4* const exchange;
  uint4* const side_exchange;
  input_t* const items;  //!< the thread's staged items (outputs of the input type formed in place)
  side_item_t* const side_items;
  typename Heads::thread_heads h{};
  bool plain = false;  //!< no head among the thread's items
  item_t total{acc_t{}, true};
  item_t before{};
  bool has_before = false;

  FASTSCAN_DEVICE row_tile(const Problem& prob_, const row_scan_params& p_, const Heads& heads_, std::int64_t tile_,
                           unsigned char* smem_)
      : prob(prob_), p(p_), heads(heads_), tile(tile_), smem(smem_), lane(fresh_lane()),
        tile_base(tile_ * p_.tile_items), first(tile_base + static_cast<std::int64_t>(threadIdx.x) * ITEMS),
        count(items_in_range(p_, first)),
        warp_full(first - lane * ITEMS + 32 * ITEMS <= p_.numel),
        exchange(reinterpret_cast<uint4*>(
                     smem_ + row_smem(static_cast<int>(blockDim.x), sizeof(item_t), slices::warp_bytes).exchange) +
                 (threadIdx.x >> 5) * (slices::warp_bytes / 16)),
        side_exchange(exchange + slices::in_bytes / 16),
        items(unit_row<input_t, xchg::units>(exchange, lane)),
        side_items(unit_row<side_item_t, slices::side::units>(side_exchange, lane)) {}

  //! Scans the tile: -1 once its outputs are written, or the predecessor its look-back stopped
  //! waiting for (no output written). A helper (row_tile_sequence) publishes the tile's aggregate
  //! and prefix, the bits its own block publishes, and writes no output; it returns -1 at once when
  //! the tile's prefix is out, since the tile's own block may then write its outputs over its
  //! inputs (in place), and a helper that loaded before the prefix showed loaded true inputs.
  FASTSCAN_DEVICE std::int64_t run(bool helper) {
    if (p.prefetch_tiles > 0) {
      prefetch(p.prefetch_tiles);
    }
    load();
    h = heads.template at<ITEMS>(first, count);
    plain = h.first >= count;
    total = thread_total(prob, items, count, h);
    if (helper && prefix_published()) {
      return -1;
    }
    const std::int64_t stalled_on = scan(helper);
    if (helper || stalled_on >= 0) {
      return stalled_on;
    }
    form_and_store();
    return -1;
  }
  FASTSCAN_DEVICE void form_and_store() {
    buffer_t out;  // (unused, and optimised away, when outputs are formed in place)
    if (plain && has_before && count == ITEMS) {
      form<true>(out);
    } else {
      form<false>(out);
    }
    store(out);
  }

  //! Whether the tile's prefix is published, as every thread sees it after its own loads.
  FASTSCAN_DEVICE bool prefix_published() const {
    __threadfence();
    const tile_state<acc_t> state{static_cast<ulonglong2*>(p.tile_words), p.tag};
    return __syncthreads_or(state.shows_prefix(tile)) != 0;
  }

  //! A warp run whose addresses are 16-byte aligned moves through shared memory, coalesced.
  template <class Ptr>
  FASTSCAN_DEVICE bool coalesced(Ptr thread_ptr) const {
    return warp_full && reinterpret_cast<std::uintptr_t>(thread_ptr - lane * ITEMS) % 16 == 0;
  }

  //! Asks L2 for the thread's inputs of the tile `ahead` tiles after this one.
  FASTSCAN_DEVICE void prefetch(std::int64_t ahead) const {
    if (first + ahead * p.tile_items < p.numel) {
      prefetch_l2(prob.in + (first + ahead * p.tile_items));
    }
  }

  //! The tile stays in shared memory until the outputs are formed, so no registers hold it across
  //! the block scan and the look-back: staged as the warp's run (cp.async for rows formed in place,
  //! which hold no registers per item), or loaded directly in runs of at most 128 bytes and 32 items.
  FASTSCAN_DEVICE void load() {
    if constexpr (std::is_pointer_v<decltype(prob.in)>) {
      if (coalesced(prob.in + first)) {
        warp_stage_units<xchg::units, in_place>(prob.in + (first - lane * ITEMS), exchange);
        return;
      }
    }
    load_direct(prob, first, count, items);
  }
  static FASTSCAN_DEVICE void load_direct(const Problem& prob, std::int64_t first, int count, input_t* items) {
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

  //! The items of the thread whose first element is `first`.
  static FASTSCAN_DEVICE int items_in_range(const row_scan_params& p, std::int64_t first) {
    return p.numel - first <= 0 ? 0 : (p.numel - first >= ITEMS ? ITEMS : static_cast<int>(p.numel - first));
  }

  //! A thread's total of its `count` staged items, flagged when a head lies among them.
  static FASTSCAN_DEVICE item_t thread_total(const Problem& prob, input_t* items, int count,
                                             const typename Heads::thread_heads& h) {
    return h.first >= count && count == ITEMS ? reduce_plain(prob, items, count, h)
                                              : reduce_checked(prob, items, count, h);
  }
  static FASTSCAN_DEVICE item_t reduce_plain(const Problem& prob, input_t* items, int count,
                                             const typename Heads::thread_heads& h) {
    item_t total{acc_t{}, true};
    for_each_item<ITEMS, unrolled, in_buffers::template buffer, false, true>(
        items, count,
        [&](const auto& b, int slot, int i, auto) {
          const acc_t e = prob.lift(b.v[slot], h.pos0 + i);
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
    return total;
  }
  static FASTSCAN_DEVICE item_t reduce_checked(const Problem& prob, input_t* items, int count,
                                               const typename Heads::thread_heads& h) {
    item_t total{acc_t{}, true};
    const segmented_op<op_t> seg{prob.op};
    int next_head = h.first;
    std::int64_t r = h.pos0;
    for_each_item<ITEMS, unrolled, in_buffers::template buffer, false, false>(
        items, count,
        [&](const auto& b, int slot, int i, auto fast) {
          // (Fast: a unit after the first, in range, with no head.)
          const bool head = !decltype(fast)::value && i == next_head;
          if (head) {
            r = 0;
            next_head = h.next(next_head);
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
    return total;
  }

  //! The block's segmented scan of the thread totals, its prefix from the look-back; returns the
  //! predecessor the look-back stopped waiting for, or -1 (`helper`: row_tile_prefix).
  FASTSCAN_DEVICE std::int64_t scan(bool helper) {
    const segmented_op<op_t> seg{prob.op};
    block_scan<item_t> block(smem, static_cast<int>(blockDim.x), 1);
    auto* const stalled_on = reinterpret_cast<std::int64_t*>(
        smem + row_smem(static_cast<int>(blockDim.x), sizeof(item_t), slices::warp_bytes).stall);
    row_tile_prefix<Policy::exact, typename Policy::lookback_policy, Problem> hook{
        {static_cast<ulonglong2*>(p.tile_words), p.tag, p.first_poll_ns, p.stall_polls},
        tile,
        heads.starts_segment(tile_base),
        p.lookback,
        prob.op,
        stalled_on,
        helper,
        writes_over_input(prob)};
    has_before = block.exclusive_scan(total, before, seg, hook);
    return *stalled_on;  // (written before the block scan's last barrier)
  }

  //! Forms the outputs: in place of the staged items when they have the input type (a second
  //! output in the side row), else into `out`. Whole: a thread with all its items, none of them a
  //! head, after an earlier element of its segment (most threads), without checks.
  template <bool Whole>
  FASTSCAN_DEVICE void form(buffer_t& out) {
    acc_t running = before.value;
    bool has_running = has_before;
    int next_head = plain ? ITEMS : h.first;
    std::int64_t r = h.pos0;
    auto form_one = [&](auto& b, int slot, int i, const input_t x, auto fast) {
      if constexpr (!decltype(fast)::value) {
        if (i == next_head) {
          r = 0;
          next_head = h.next(next_head);
          has_running = false;
        }
      }
      const acc_t e = prob.lift(x, r);
      const acc_t previous = running;
      const bool had = decltype(fast)::value || has_running;
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
      for_each_item<ITEMS, unrolled, in_buffers::template buffer, true, Whole>(
          items, count, [&](auto& b, int slot, int i, auto fast) { form_one(b, slot, i, b.v[slot], fast); }, unit_fast,
          [&](auto& b, int) {
            if constexpr (unit_sums) {
              running = prob.scan_unit(b, running);
              r += unit_items;
            }
            return unit_sums;
          });
    } else {
      for_each_item<ITEMS, unrolled, in_buffers::template buffer, false, Whole>(
          items, count, [&](const auto& b, int slot, int i, auto fast) { form_one(out, i, i, b.v[slot], fast); },
          unit_fast, [](const auto&, int) { return false; });
    }
  }

  //! Outputs formed in place leave from their unit rows (as they are to a pointer to their type,
  //! element by element to any other output); buffered ones through the exchange slice.
  FASTSCAN_DEVICE void store(const buffer_t& out) {
    if constexpr (in_place) {
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
  }
  template <class Out, class Value>
  FASTSCAN_DEVICE void leave(Out thread_out, Value* row, uint4* slice) const {
    constexpr int units = row_exchange<Value, ITEMS>::units;
    if constexpr (is_pointer_to_v<Out, Value>) {
      if (coalesced(thread_out)) {
        warp_unstage_units<units>(thread_out - lane * ITEMS, slice);
        return;
      }
    }
    // (Unit rows are 16-byte aligned: said, or the copy out of shared memory goes byte by byte.)
    const auto* aligned = static_cast<const Value(*)[ITEMS]>(__builtin_assume_aligned(row, 16));
    store_run<ITEMS>(thread_out, *aligned, count);  // (any output iterator)
  }
};

//! The tile a block whose look-back stalled on the window ending at `newest` scans as a helper
//! (tile_state::nearest_empty), chosen by warp 0 once the tile's registers are free and shared
//! through `smem`, so that every warp takes the same.
template <class Acc>
FASTSCAN_DEVICE std::int64_t helped_tile(const row_scan_params& p, std::int64_t newest, unsigned char* smem) {
  auto* chosen = reinterpret_cast<std::int64_t*>(smem);
  if (threadIdx.x < 32) {
    const std::int64_t t = tile_state<Acc>{static_cast<ulonglong2*>(p.tile_words), p.tag}.nearest_empty(newest);
    if (threadIdx.x == 0) {
      *chosen = t;
    }
  }
  __syncthreads();
  const std::int64_t t = *chosen;
  __syncthreads();
  return t;
}

//! Tile `tile` scanned by its block. A look-back that sees no progress for its polls (its
//! predecessor's block may not have started, and may never start while this one waits: CUDA
//! promises no order of blocks, and other work may hold the SMs) scans that predecessor in its
//! place, without outputs, then tries again: each try publishes a prefix closer to the first tile,
//! and the first tile waits on none, so every tile finishes whatever order blocks run in. Each
//! pass's tile is laundered (an empty asm) and the staging reads the lane afresh, so the compiler
//! keeps nothing derived from one pass alive through the next: that cost (value, index) rows 9 %.
//! Ends with a barrier, so the block's shared memory is free for its next tile.
template <class Policy, class Problem, class Heads>
FASTSCAN_DEVICE void row_tile_sequence(const Problem& prob, const row_scan_params& p, const Heads& heads,
                                       std::int64_t tile, unsigned char* smem) {
  using tile_t = row_tile<Policy, Problem, Heads>;
  for (std::int64_t next = tile;;) {
    asm volatile("" : "+l"(next));
    const std::int64_t stalled_on = tile_t(prob, p, heads, next, smem).run(next != tile);
    __syncthreads();
    if (stalled_on < 0 && next == tile) {
      return;
    }
    // A helper that stalls in turn helps one tile further down; one that finishes, or finds its
    // tile's prefix already out, sends the block back to its own tile.
    next = stalled_on >= 0 ? helped_tile<typename tile_t::acc_t>(p, stalled_on, smem) : tile;
  }
}

//! Tile = block index (a grid-stride loop past the largest grid), whatever order blocks start in
//! (row_tile_sequence).
FASTSCAN_KERNELS_BEGIN
template <class Policy, class Problem, class Heads>
FASTSCAN_KERNEL __launch_bounds__(Policy::threads, Policy::min_blocks) void row_scan_kernel(Problem prob, row_scan_params p,
                                                                                            Heads heads) {
  extern __shared__ __align__(16) unsigned char smem[];
  enter_stream_order();
  for (std::int64_t tile = blockIdx.x; tile < p.num_tiles; tile += gridDim.x) {
    row_tile_sequence<Policy>(prob, p, heads, tile, smem);
  }
}
FASTSCAN_KERNELS_END

}  // namespace detail
FASTSCAN_NAMESPACE_END
