//! \file tile_state.cuh
//! Per-tile state of the single-pass scans, and the decoupled look-back over it (Merrill & Garland,
//! "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
//!
//! Every tile publishes its aggregate (status `aggregate`) as soon as it has reduced its inputs,
//! and its inclusive prefix (status `prefix`) once it knows it. A successor looks back over a
//! window of predecessors at a time, one per lane, and folds the aggregates newer than the nearest
//! published prefix. Ordered (float) column sums along one chain look back in two levels instead
//! (grouped_exclusive_prefix): tiles publish only aggregates, and groups of tiles their folds and
//! prefixes in a second state.
//!
//! Storage: per tile and channel, the accumulator is cut into 8-byte parts, each carried by one
//! 16-byte word {part, tag << 2 | status}, published by one store. A word counts only when its tag
//! is the call's tag and every part of the channel shows the same status, so a reader never mixes
//! parts of two publications. With a fresh 62-bit tag per call (dispatch.cuh), whatever the temp
//! storage held before (earlier calls, other data) reads as "not yet published": one kernel launch,
//! no zeroing pass (the tile-ticket word is tagged too: resolve_ticket). Tag 0 is the zeroed-state
//! mode (stream capture, grids smaller than their tiles, over 2^23 tiles). Each
//! aligned 16-byte word is assumed to be stored and loaded whole (as CUB's tile state assumes):
//! the per-part check keeps a reader from mixing the words of two publications, not the halves of
//! one word.
#pragma once

#include <fastscan/device/stream_order.cuh>
#include <fastscan/ops/segmented.cuh>
#include <fastscan/warp/warp_scan.cuh>

#include <cstring>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

enum tile_status : unsigned { tile_empty = 0, tile_aggregate = 1, tile_prefix = 2 };

FASTSCAN_DEVICE void store_volatile(ulonglong2* p, ulonglong2 w) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w.x), "l"(w.y) : "memory");
}
FASTSCAN_DEVICE void load_volatile(const ulonglong2* p, ulonglong2& w) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(w.x), "=l"(w.y) : "l"(p) : "memory");
}
//! Replaces the word at `p` by `w` if it still holds `seen`; whether it did. sm_90's 16-byte
//! compare-and-swap (PTX 8.3); elsewhere a plain store.
FASTSCAN_DEVICE bool swap_if_same(ulonglong2* p, ulonglong2 seen, ulonglong2 w) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900 && __CUDACC_VER_MAJOR__ * 100 + __CUDACC_VER_MINOR__ >= 1203
  ulonglong2 was;
  asm volatile(
      "{\n .reg .b128 d, c, v;\n mov.b128 c, {%2, %3};\n mov.b128 v, {%4, %5};\n"
      " atom.relaxed.gpu.global.cas.b128 d, [%6], c, v;\n mov.b128 {%0, %1}, d;\n}"
      : "=l"(was.x), "=l"(was.y)
      : "l"(seen.x), "l"(seen.y), "l"(w.x), "l"(w.y), "l"(p)
      : "memory");
  return was.x == seen.x && was.y == seen.y;
#else
  (void)seen;
  store_volatile(p, w);
  return true;
#endif
}

//! Words per channel and tile for an accumulator: one per 8 bytes.
template <class Acc>
constexpr int tile_parts = static_cast<int>((sizeof(Acc) + 7) / 8);

//! Bytes of tile state per channel and tile (plan.hpp sizes temp storage with it).
template <class Acc>
constexpr std::size_t tile_word_bytes = 16 * static_cast<std::size_t>(tile_parts<Acc>);

//! The least of the warp's values of `v`.
FASTSCAN_DEVICE int warp_min(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_min_sync(full_warp_mask, v);
#else
  for (int o = 16; o > 0; o >>= 1) {
    const int w = __shfl_xor_sync(full_warp_mask, v, o);
    v = w < v ? w : v;
  }
  return v;
#endif
}

//! The lanes of a look-back warp over `cols` channels: lane l serves channel l % cols in window
//! group l / cols (groups = 32 / cols groups, the newest last).
struct lookback_lanes {
  int cols, col_log2, c, groups, g;
  unsigned channel_lanes;  //!< lanes of channel 0; channel c's are these shifted by c
  FASTSCAN_DEVICE explicit lookback_lanes(int cols_) : cols(cols_) {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    col_log2 = __ffs(cols) - 1;  // shifts: a runtime division is dozens of instructions
    c = lane & (cols - 1);
    groups = 32 >> col_log2;
    g = lane >> col_log2;
    channel_lanes = 0u;
    for (int i = 0; i < 32; i += cols) {
      channel_lanes |= 1u << i;
    }
  }
  //! The newest group of this lane's channel whose tile holds a prefix (-1: none).
  FASTSCAN_DEVICE int nearest_prefix(unsigned prefixes) const {
    const unsigned mine = (prefixes >> c) & channel_lanes;
    return mine != 0u ? (31 - __clz(static_cast<int>(mine))) >> col_log2 : -1;
  }
  FASTSCAN_DEVICE int lane_of(int group) const { return group * cols + c; }
};

//! The fold of an exactly associative look-back: a segmented scan down each channel's groups (the
//! last group then holds the fold from the nearest prefix, or of the whole window), windows folded
//! newest first.
template <class Acc, class Op>
struct exact_walk {
  static constexpr int kept_windows = 0;
  Op op;
  Acc later{};
  Acc result{};
  bool have_later = false;
  bool done = false;
  FASTSCAN_DEVICE void fold(const Acc& v, int p, int, const lookback_lanes& l, bool) {
    const flagged<Acc> f =
        warp_strided_inclusive_scan(flagged<Acc>{v, l.g == p}, segmented_op<Op>{op}, l.cols);
    const Acc acc = shuffle_idx(f.value, l.lane_of(l.groups - 1));
    if (done) {
      return;
    }
    if (p >= 0) {
      result = have_later ? op(acc, later) : acc;
      done = true;
    } else {
      later = have_later ? op(acc, later) : acc;
      have_later = true;
    }
  }
};

//! The fold of an ordered look-back: strictly left from the nearest prefix through every aggregate
//! after it, the windows walked before (kept, up to Kept of them) last. The operator only ever sees
//! published values: a window without this channel's prefix is kept, not folded.
template <class Acc, class Op, int Kept>
struct ordered_walk {
  static constexpr int kept_windows = Kept;
  Op op;
  Acc kept[Kept > 0 ? Kept : 1];  //!< windows walked without a prefix, the last walked first
  Acc result{};
  bool done = false;
  //! Column tiles (several channels) start at the oldest prefix any of the warp's channels found:
  //! the groups before it add nothing to any lane.
  FASTSCAN_DEVICE void fold(const Acc& v, int p, int walked, const lookback_lanes& l, bool columns) {
    Acc acc{};
    fold_window(acc, v, p, l, columns);
    fold_kept(acc, p, walked, l);
    if (!done && p >= 0) {
      result = acc;
      done = true;
    }
#pragma unroll
    for (int k = Kept - 1; k > 0; --k) {
      kept[k] = kept[k - 1];
    }
    if constexpr (Kept > 0) {
      kept[0] = v;
    }
  }
  //! The window's fold from its nearest prefix (group p) through its newest aggregate.
  FASTSCAN_DEVICE void fold_window(Acc& acc, const Acc& v, int p, const lookback_lanes& l, bool columns) const {
    const int from = columns ? warp_min(p >= 0 ? p : l.groups) : 0;
    for (int j = from; j < l.groups; ++j) {
      const Acc x = shuffle_idx(v, l.lane_of(j));
      if (j == p) {
        acc = x;
      } else if (p >= 0 && j > p) {
        acc = op(acc, x);
      }
    }
  }
  //! Then the windows walked before it, the last walked first. (`walked` is the same on every lane,
  //! so the shuffles are the whole warp's.)
  FASTSCAN_DEVICE void fold_kept(Acc& acc, int p, int walked, const lookback_lanes& l) const {
#pragma unroll
    for (int k = 0; k < Kept; ++k) {
      if (k < walked) {
        for (int j = 0; j < l.groups; ++j) {
          const Acc x = shuffle_idx(kept[k], l.lane_of(j));
          if (p >= 0) {
            acc = op(acc, x);
          }
        }
      }
    }
  }
};

//! The look-back state: `tile_parts<Acc>` words per tile and channel, tagged with the call's tag.
template <class Acc>
struct tile_state {
  static_assert(std::is_trivially_copyable_v<Acc>, "scan accumulators must be trivially copyable");
  static constexpr int parts = tile_parts<Acc>;
  struct words {
    ulonglong2 w[parts];
  };
  ulonglong2* base;
  unsigned long long tag;  //!< below 2^62; 0 when the state was zeroed before the launch
  unsigned first_poll_ns = 0;  //!< sleep before a look-back's first poll (plan::first_poll_ns)
  unsigned stall_polls = 0;    //!< polls of one window before a look-back that may stall stops waiting

  FASTSCAN_DEVICE ulonglong2* at(std::int64_t tile, int channels, int channel) const {
    return base + (tile * channels + channel) * parts;
  }

  FASTSCAN_DEVICE void publish(std::int64_t tile, const Acc& v, unsigned status, int channels = 1,
                               int channel = 0) const {
    unsigned long long p[parts] = {};
    memcpy(&p, &v, sizeof(Acc));
    ulonglong2* const dst = at(tile, channels, channel);
#pragma unroll
    for (int j = 0; j < parts; ++j) {
      store_volatile(dst + j, ulonglong2{p[j], (tag << 2) | status});
    }
  }

  //! Publishes an aggregate unless a prefix is out: word by word, each replaced only while it holds
  //! no prefix, so a prefix published at any moment stays (row helpers, whose tile's block may
  //! write its outputs over its inputs once its prefix is out), and a tile once published never
  //! reads as empty again. Stops at the first word that holds a prefix or changed. Before sm_90
  //! (no 16-byte compare-and-swap) a prefix published between the check and the store can be
  //! replaced: publishing nothing instead would leave tiles empty that later prefixes counted.
  FASTSCAN_DEVICE void offer_aggregate(std::int64_t tile, const Acc& v) const {
    unsigned long long p[parts] = {};
    memcpy(&p, &v, sizeof(Acc));
    ulonglong2* const dst = at(tile, 1, 0);
#pragma unroll
    for (int j = 0; j < parts; ++j) {
      ulonglong2 seen;
      load_volatile(dst + j, seen);
      if (seen.y == ((tag << 2) | tile_prefix) || !swap_if_same(dst + j, seen, ulonglong2{p[j], (tag << 2) | tile_aggregate})) {
        return;
      }
    }
  }

  //! Reads a channel's words (all loads in flight at once) and returns their status: empty unless
  //! every word carries this call's tag and the same status.
  FASTSCAN_DEVICE unsigned read(std::int64_t tile, int channels, int channel, words& r) const {
    const ulonglong2* const src = at(tile, channels, channel);
#pragma unroll
    for (int j = 0; j < parts; ++j) {
      load_volatile(src + j, r.w[j]);
    }
    bool same = true;
#pragma unroll
    for (int j = 1; j < parts; ++j) {
      same = same && r.w[j].y == r.w[0].y;
    }
    return same && (r.w[0].y >> 2) == tag ? static_cast<unsigned>(r.w[0].y & 3ull) : tile_empty;
  }

  //! Whether the tile's first word holds its prefix (the publisher writes that word first).
  FASTSCAN_DEVICE bool shows_prefix(std::int64_t tile) const {
    ulonglong2 w;
    load_volatile(at(tile, 1, 0), w);
    return w.y == ((tag << 2) | tile_prefix);
  }

  static FASTSCAN_DEVICE Acc value(const words& r) {
    unsigned long long p[parts];
#pragma unroll
    for (int j = 0; j < parts; ++j) {
      p[j] = r.w[j].x;
    }
    Acc v;
    memcpy(&v, &p, sizeof(Acc));
    return v;
  }

  //! Polls one window until it is ready: every lane's predecessor published (and, for ordered
  //! folds that must find a prefix in this window, every channel sees one). Returns false when a
  //! look-back that may stall (Stalls) has polled it stall_polls times; else true, with the
  //! ballot of lanes whose predecessor holds a prefix in `prefixes` and the lane's words in `w`.
  template <bool Exact, class Lookback, bool Stalls>
  FASTSCAN_DEVICE bool poll_window(std::int64_t pred, const lookback_lanes& l, int channels, int first_channel,
                                   bool done, bool need_prefix, words& w, unsigned& prefixes) const {
    unsigned s = tile_prefix;
    for (unsigned polls = 0;; ++polls) {
      if (pred >= 0 && !done) {
        s = read(pred, channels, first_channel + l.c, w);
      }
      prefixes = __ballot_sync(full_warp_mask, s == tile_prefix && pred >= 0);
      bool ready = s != tile_empty;
      if constexpr (!Exact) {
        ready = ready && (done || !need_prefix || ((prefixes >> l.c) & l.channel_lanes) != 0u);
      }
      if (__all_sync(full_warp_mask, ready)) {
        return true;
      }
      if (Stalls && polls >= stall_polls) {
        return false;
      }
      __nanosleep(Lookback::retry_ns);
    }
  }

  //! Warp-collective look-back over `cols` channels at once (a power of two, at most 32; 1 for a
  //! flat array): channels first_channel ... first_channel + cols - 1 of tiles that hold `channels`
  //! each. Lane l serves channel first_channel + l % cols, and in each window of 32 / cols
  //! predecessors the one (32 / cols - 1 - l / cols) tiles before the newest; predecessors are
  //! `stride` tiles apart (1 along a flat array, one round of chains for the column kernel). Every
  //! lane returns the fold of its channel from the nearest published prefix up to the tile's
  //! predecessor. Exact operators may walk any number of windows back, folding whole windows of
  //! aggregates (exact_walk); other operators walk at most Lookback::ordered_windows, waiting in the
  //! last until every channel sees a prefix there, and fold strictly left (ordered_walk), so the
  //! result is the same left fold of all aggregates whichever prefix was found. The first tile of
  //! every chain must publish a prefix.
  //! With Stalls (flat arrays), a window that stays unready for stall_polls polls ends the wait:
  //! the result is then meaningless and `stalled_on` names the window's newest predecessor (the
  //! caller picks the tile it helps: nearest_empty); it is -1 otherwise.
  template <bool Exact, class Lookback, bool Stalls = false, class Op>
  FASTSCAN_DEVICE Acc exclusive_prefix(std::int64_t tile, Op op, std::int64_t stride = 1, int cols = 1,
                                       int channels = 1, int first_channel = 0,
                                       std::int64_t* stalled_on = nullptr) const {
    const lookback_lanes l(cols);
    using walk_t = std::conditional_t<Exact, exact_walk<Acc, Op>, ordered_walk<Acc, Op, Lookback::ordered_windows - 1>>;
    walk_t walk{op};
    if (first_poll_ns > 0) {
      __nanosleep(first_poll_ns);
    }
    std::int64_t stall = -1;
    for (std::int64_t newest = tile - stride, walked = 0;; newest -= l.groups * stride, ++walked) {
      words w{};
      unsigned prefixes = 0;
      if (!poll_window<Exact, Lookback, Stalls>(newest - (l.groups - 1 - l.g) * stride, l, channels, first_channel,
                                                walk.done, walked >= walk_t::kept_windows, w, prefixes)) {
        stall = newest;
        break;
      }
      walk.fold(value(w), l.nearest_prefix(prefixes), static_cast<int>(walked), l, channels > 1);
      if (__all_sync(full_warp_mask, walk.done)) {
        break;
      }
    }
    if constexpr (Stalls) {
      *stalled_on = stall;
    }
    return walk.result;
  }

  //! The tile a flat look-back stalled on window newest - 31 ... newest hands its block to help
  //! (warp-collective): the nearest predecessor still empty, so that every helper pass publishes
  //! one (the newest, when it starts at a head, would finish at once and send its block back to
  //! the same stall forever), or, with none empty now, the window's oldest.
  FASTSCAN_DEVICE std::int64_t nearest_empty(std::int64_t newest) const {
    const std::int64_t pred = newest - (31 - static_cast<int>(threadIdx.x & 31));  // lane 31: the newest
    words w{};
    const unsigned empty = __ballot_sync(full_warp_mask, pred >= 0 && read(pred, 1, 0, w) == tile_empty);
    return empty != 0u ? newest - __clz(static_cast<int>(empty)) : (newest >= 31 ? newest - 31 : 0);
  }

  //! Warp-collective ordered look-back in two levels, for operators that are not exactly
  //! associative (float sums) along a few long chains: the result depends on the inputs alone,
  //! never on timing, and one round trip reaches D * D predecessors instead of D (D = 32 / cols).
  //! A chain's tiles form groups of D. Within its group a tile folds the aggregates of the tiles
  //! before it and its own `own` by a warp scan of fixed shape (lane group q holds the group's tile
  //! q). The group's last tile publishes that fold of the whole group in `groups` (a tile state of
  //! the same channels, entry g * stride + chain for group g) and, once it knows the fold of every
  //! group before, the group's inclusive prefix; the fold of the groups before is
  //! exclusive_prefix<false> over `groups`, a strict left fold from the nearest published prefix.
  //! Tiles publish only aggregates in this state. `position`: the tile's index along its chain
  //! (tile = position * stride + chain). Returns whether the tile has a prefix (position > 0),
  //! and the prefix of channel first_channel + lane % cols in `prefix`.
  //! Lane group q's aggregate of the tile q places into the group, into x (waited for; q < j).
  template <class Lookback>
  FASTSCAN_DEVICE void group_aggregate(std::int64_t tile, std::int64_t stride, int j, int q, int channels, int channel,
                                       Acc& x) const {
    if (first_poll_ns > 0) {
      __nanosleep(first_poll_ns);
    }
    words w{};
    for (;;) {
      const unsigned s = q < j ? read(tile - (j - q) * stride, channels, channel, w) : tile_aggregate;
      if (__all_sync(full_warp_mask, s != tile_empty)) {
        break;
      }
      __nanosleep(Lookback::retry_ns);
    }
    if (q < j) {
      x = value(w);
    }
  }

  template <class Lookback, class Op>
  FASTSCAN_DEVICE bool grouped_exclusive_prefix(std::int64_t tile, std::int64_t position, std::int64_t stride,
                                                const Acc& own, Op op, const tile_state& groups, int cols,
                                                int channels, int first_channel, Acc& prefix) const {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int col_log2 = __ffs(cols) - 1;
    const int c = lane & (cols - 1);
    const int depth_log2 = 5 - col_log2;
    const int q = lane >> col_log2;
    const std::int64_t g = position >> depth_log2;
    const int j = static_cast<int>(position & ((1 << depth_log2) - 1));
    const std::int64_t group_entry = g * stride + (tile - position * stride);
    Acc x = own;
    if (j > 0) {
      group_aggregate<Lookback>(tile, stride, j, q, channels, first_channel + c, x);
    }
    const Acc in_group = warp_strided_inclusive_scan(x, op, cols);
    const Acc before_in_group = shuffle_idx(in_group, (j > 0 ? j - 1 : 0) * cols + c);
    const bool last = j == (1 << depth_log2) - 1;
    const Acc whole = shuffle_idx(in_group, j * cols + c);
    if (last && lane < cols) {
      groups.publish(group_entry, whole, g == 0 ? tile_prefix : tile_aggregate, channels, first_channel + c);
    }
    if (g == 0) {
      prefix = before_in_group;
      return j > 0;
    }
    const Acc before_group = groups.template exclusive_prefix<false, Lookback>(group_entry, op, stride, cols, channels, first_channel);
    if (last && lane < cols) {
      groups.publish(group_entry, op(before_group, whole), tile_prefix, channels, first_channel + c);
    }
    prefix = j > 0 ? op(before_group, before_in_group) : before_group;
    return true;
  }
};

//! The tile-ticket word (the first 8 bytes of a look-back plan's temp storage): the low 40 bits of
//! the call's tag above a 24-bit count of the tickets taken. A word that another call (or other
//! data) left there is claimed by this call's first taker with a compare-and-swap, so a tagged call
//! needs no zeroing; dispatch keeps a tagged call's tickets below 2^23, so the count never reaches
//! the tag. In the zeroed mode (tag 0, the word cleared by dispatch) the word is a plain counter.
constexpr int ticket_count_bits = 24;
constexpr unsigned long long ticket_tag_mask = (1ull << (64 - ticket_count_bits)) - 1;

//! The ticket of a taker whose atomicAdd on `word` returned `raw`.
FASTSCAN_DEVICE std::int64_t resolve_ticket(unsigned long long* word, unsigned long long tag, unsigned long long raw) {
  if (tag == 0) {
    return static_cast<std::int64_t>(raw);
  }
  const unsigned long long mine = tag & ticket_tag_mask;
  unsigned long long seen = raw;
  bool added = true;  // `seen` is what our own add found: the word holds seen + 1 unless others added
  for (;;) {
    if ((seen >> ticket_count_bits) == mine) {
      if (added) {
        return static_cast<std::int64_t>(seen & ((1ull << ticket_count_bits) - 1));
      }
      seen = atomicAdd(word, 1ull);  // claimed by another taker of this call: a ticket of its count
      added = true;
      continue;
    }
    const unsigned long long now = added ? seen + 1 : seen;
    const unsigned long long before = atomicCAS(word, now, mine << ticket_count_bits | 1ull);
    if (before == now) {
      return 0;  // claimed for this call: the first ticket
    }
    seen = before;
    added = false;
  }
}

//! The tickets of one block: its tile's, then, in a grid smaller than its tiles, each next tile's,
//! which the tile asks for itself once its look-back is done (next()), so the atomic's round trip
//! overlaps the tile's last stages and the next tile starts as soon as this one ends. (Asked for
//! any earlier, a ticket would hold up every later tile's look-back until this tile ended.)
struct tile_tickets {
  unsigned long long* counter;  //!< the ticket word, or null: tile = block index
  unsigned long long tag;
  bool more;                    //!< blocks loop over tiles
  unsigned long long raw = 0;   //!< thread 0's last atomicAdd
  FASTSCAN_DEVICE void next() {
    if (more && threadIdx.x == 0) {
      raw = atomicAdd(counter, 1ull);
    }
  }
  //! The ticket asked for last, for the whole block, through the first 8 bytes of `scratch`.
  FASTSCAN_DEVICE std::int64_t take(unsigned char* scratch) const {
    volatile std::int64_t* const shared = reinterpret_cast<volatile std::int64_t*>(scratch);
    if (threadIdx.x == 0) {
      *shared = resolve_ticket(counter, tag, raw);
    }
    __syncthreads();
    const std::int64_t tile = *shared;
    __syncthreads();  // (the tile may write the scratch bytes)
    return tile;
  }
};

//! The block's first tile: its first ticket, or its index without a counter.
FASTSCAN_DEVICE std::int64_t first_tile(bool ticketed, tile_tickets& tickets, unsigned char* scratch) {
  if (ticketed && threadIdx.x == 0) {
    tickets.raw = atomicAdd(tickets.counter, 1ull);
  }
  return ticketed ? tickets.take(scratch) : static_cast<std::int64_t>(blockIdx.x);
}

//! Tiles tile, tile + gridDim.x, ... below num_tiles.
template <class TileFn>
FASTSCAN_DEVICE void strided_tiles(std::int64_t tile, std::int64_t num_tiles, tile_tickets& tickets, TileFn& tile_fn) {
  for (; tile < num_tiles; tile += gridDim.x) {
    tile_fn(tile, tickets);
    __syncthreads();
  }
}

//! Runs `tile_fn(tile, tickets)` for every tile this block gets (the tile calls tickets.next()
//! once, after its look-back). With a `counter`, tiles come from its tickets in the order blocks
//! start them, so every tile a block waits on is held by a running block, whatever order the
//! hardware dispatches blocks in and whatever else holds the SMs. Without a counter (plans with no
//! look-back), tile = block index over a grid-stride loop. The ticket reaches the block through the
//! first 8 bytes of its dynamic shared memory, `scratch`, free between tiles, so the kernels have
//! no static shared memory (a plan may use all there is).
//! OneBody: one loop for every mode, so the tile is compiled once (the row kernel, whose grids
//! hold the blocks that fit at once: launch_grid, and the short column kernels); otherwise the
//! strided loop, from the block's ticket, beside the ticket loop for grids smaller than their
//! tiles (the 8- and 16-row column kernels, a block per tile: the strided body is the faster).
template <bool OneBody, class TileFn>
FASTSCAN_DEVICE void for_each_tile(unsigned long long* counter, unsigned long long tag, std::int64_t num_tiles,
                                   unsigned char* scratch, TileFn&& tile_fn) {
  const bool ticketed = counter != nullptr;
  tile_tickets tickets{counter, tag, ticketed && static_cast<std::int64_t>(gridDim.x) < num_tiles};
  std::int64_t tile = first_tile(ticketed, tickets, scratch);
  if constexpr (!OneBody) {
    if (!tickets.more) {
      strided_tiles(tile, num_tiles, tickets, tile_fn);
      return;
    }
  }
  while (tile < num_tiles) {
    tile_fn(tile, tickets);
    __syncthreads();
    if (ticketed && !tickets.more) {
      return;
    }
    tile = tickets.more ? tickets.take(scratch) : tile + gridDim.x;
  }
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
