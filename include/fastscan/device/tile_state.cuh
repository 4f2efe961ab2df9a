//! \file tile_state.cuh
//! Per-tile state of the single-pass scans, and the decoupled look-back over it (Merrill & Garland,
//! "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016).
//!
//! Every tile publishes its aggregate (status `aggregate`) as soon as it has reduced its inputs,
//! and its inclusive prefix (status `prefix`) once it knows it. A successor looks back over a
//! window of 32 predecessors at a time, one per lane, and folds the aggregates newer than the
//! nearest published prefix. Two storage forms share that protocol:
//! - packed: value and status in one 8- or 16-byte word per channel, published by one store;
//! - payload (column kernel, wide tiles and accumulators above 12 bytes): a status word per tile
//!   plus per-column values, made visible by a fence before the status store.
//! Status 0 means "not yet published", so the state is made ready by zeroing it.
#pragma once

#include <fastscan/ops/value_index.cuh>
#include <fastscan/warp/warp_scan.cuh>

#include <cstring>
#include <type_traits>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

enum tile_status : unsigned { tile_empty = 0, tile_aggregate = 1, tile_prefix = 2 };

//! Word layout of the packed form for a generic accumulator of at most 12 bytes.
template <class Acc>
struct packed_codec {
  static_assert(sizeof(Acc) <= 12, "packed tile state holds accumulators of at most 12 bytes");
  struct layout {
    Acc value;
    unsigned status;
  };
  using word = std::conditional_t<(sizeof(layout) <= 8), unsigned long long, ulonglong2>;

  static FASTSCAN_HD word pack(const Acc& v, unsigned s) {
    layout l{};
    l.value = v;
    l.status = s;
    word w{};
    memcpy(&w, &l, sizeof(l));
    return w;
  }
  static FASTSCAN_HD unsigned status(const word& w) {
    layout l;
    memcpy(&l, &w, sizeof(l));
    return l.status;
  }
  static FASTSCAN_HD Acc value(const word& w) {
    layout l;
    memcpy(&l, &w, sizeof(l));
    return l.value;
  }
};

//! (value, index) pairs: the status lives in the two low bits of the index word, since an index
//! is below 2^62; so a 16-byte word carries value, index and status.
template <class T>
struct packed_codec<value_index<T>> {
  static_assert(sizeof(T) <= 8, "value type of a value-index scan must be at most 8 bytes");
  using word = ulonglong2;
  static FASTSCAN_HD word pack(const value_index<T>& v, unsigned s) {
    word w{0ull, 0ull};
    memcpy(&w.x, &v.value, sizeof(T));
    w.y = (static_cast<unsigned long long>(v.index) << 2) | s;
    return w;
  }
  static FASTSCAN_HD unsigned status(const word& w) { return static_cast<unsigned>(w.y & 3ull); }
  static FASTSCAN_HD value_index<T> value(const word& w) {
    value_index<T> v;
    memcpy(&v.value, &w.x, sizeof(T));
    v.index = static_cast<std::int64_t>(w.y >> 2);
    return v;
  }
};

template <class Acc, class = void>
struct has_packed_form : std::bool_constant<(sizeof(Acc) <= 12)> {};
template <class T>
struct has_packed_form<value_index<T>> : std::bool_constant<(sizeof(T) <= 8)> {};

FASTSCAN_DEVICE void store_volatile(unsigned long long* p, unsigned long long w) {
  asm volatile("st.volatile.global.u64 [%0], %1;" ::"l"(p), "l"(w) : "memory");
}
FASTSCAN_DEVICE void store_volatile(ulonglong2* p, ulonglong2 w) {
  asm volatile("st.volatile.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(w.x), "l"(w.y) : "memory");
}
FASTSCAN_DEVICE void load_volatile(const unsigned long long* p, unsigned long long& w) {
  asm volatile("ld.volatile.global.u64 %0, [%1];" : "=l"(w) : "l"(p) : "memory");
}
FASTSCAN_DEVICE void load_volatile(const ulonglong2* p, ulonglong2& w) {
  asm volatile("ld.volatile.global.v2.u64 {%0, %1}, [%2];" : "=l"(w.x), "=l"(w.y) : "l"(p) : "memory");
}
FASTSCAN_DEVICE void store_volatile(unsigned* p, unsigned s) {
  asm volatile("st.volatile.global.u32 [%0], %1;" ::"l"(p), "r"(s) : "memory");
}
FASTSCAN_DEVICE unsigned load_volatile(const unsigned* p) {
  unsigned s;
  asm volatile("ld.volatile.global.u32 %0, [%1];" : "=r"(s) : "l"(p) : "memory");
  return s;
}

//! Packed tile state: one word per tile and channel (the row scan has one channel, the column
//! scan one per column of a tile).
template <class Acc>
struct packed_tile_state {
  using codec = packed_codec<Acc>;
  using word = typename codec::word;
  word* words;

  static constexpr std::size_t bytes_per_tile = sizeof(word);

  //! Word of `channel` of `tile` when each tile holds `channels` channels.
  FASTSCAN_DEVICE word* at(std::int64_t tile, int channels, int channel) const {
    return words + tile * channels + channel;
  }

  FASTSCAN_DEVICE void publish(std::int64_t tile, const Acc& v, unsigned status, int channels = 1,
                               int channel = 0) const {
    store_volatile(at(tile, channels, channel), codec::pack(v, status));
  }

  //! Warp-collective look-back over `cols` channels at once (a power of two, at most 32; 1 for a
  //! flat array): channels first_channel ... first_channel + cols - 1 of tiles that hold `channels`
  //! each. Lane l serves channel first_channel + l % cols, and in each window of 32 / cols predecessors the
  //! one (32 / cols - 1 - l / cols) tiles before the newest; predecessors are `stride` tiles apart
  //! (1 along a flat array, one round of chains for the column kernel). Every lane returns the fold
  //! of its channel from the nearest published prefix up to the tile's predecessor. Exact
  //! operators may walk several windows back, folding whole windows of aggregates; other operators
  //! wait until every channel sees a prefix inside the first window and fold left from it, so the
  //! result is the same left fold whichever prefix was found. The first tile of every chain must
  //! publish a prefix.
  template <bool Exact, class Op>
  FASTSCAN_DEVICE Acc exclusive_prefix(std::int64_t tile, Op op, std::int64_t stride = 1, int cols = 1,
                                       int channels = 1, int first_channel = 0) const {
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const int c = lane & (cols - 1);
    const int groups = 32 / cols;
    const int g = lane / cols;
    unsigned channel_lanes = 0u;  // lanes of channel 0; channel c's are these shifted by c
    for (int i = 0; i < 32; i += cols) {
      channel_lanes |= 1u << i;
    }
    Acc later{};
    Acc result{};
    bool have_later = false;
    bool done = false;
    for (std::int64_t newest = tile - stride;; newest -= groups * stride) {
      const std::int64_t pred = newest - (groups - 1 - g) * stride;
      word w{};
      unsigned s = tile_prefix;
      unsigned prefixes;
      for (;;) {
        if (pred >= 0 && !done) {
          load_volatile(at(pred, channels, first_channel + c), w);
          s = codec::status(w);
        }
        prefixes = __ballot_sync(full_warp_mask, s == tile_prefix && pred >= 0);
        bool ready = s != tile_empty;
        if constexpr (!Exact) {
          ready = ready && (done || ((prefixes >> c) & channel_lanes) != 0u);
        }
        if (__all_sync(full_warp_mask, ready)) {
          break;
        }
        __nanosleep(20);
      }
      const unsigned mine = (prefixes >> c) & channel_lanes;
      const int p = mine != 0u ? (31 - __clz(static_cast<int>(mine))) / cols : -1;
      const Acc v = codec::value(w);
      Acc acc{};
      if constexpr (Exact) {
        // Log-depth segmented scan over the groups of each channel; the last group holds the fold
        // from the nearest prefix (or from the oldest group when there is none).
        flagged<Acc> f{v, g == p};
        const segmented_op<Op> seg{op};
        for (int d = 1; d < groups; d *= 2) {
          const flagged<Acc> up = shuffle_up(f, static_cast<unsigned>(d * cols));
          if (g >= d) {
            f = seg(up, f);
          }
        }
        acc = shuffle_idx(f.value, (groups - 1) * cols + c);
      } else {
        for (int j = 0; j < groups; ++j) {
          const Acc x = shuffle_idx(v, j * cols + c);
          if (j == p) {
            acc = x;
          } else if (j > p) {
            acc = op(acc, x);
          }
        }
      }
      if (!done) {
        if (p >= 0) {
          result = have_later ? op(acc, later) : acc;
          done = true;
        } else {
          later = have_later ? op(acc, later) : acc;
          have_later = true;
        }
      }
      if (__all_sync(full_warp_mask, done)) {
        return result;
      }
    }
  }
};

//! Runs `tile_fn(tile)` for every tile this block gets. Tiles that look back come from `counter`
//! in issue order, so every tile a block waits on is held by a running block; independent tiles
//! come from a grid-stride loop, so shapes with more tiles than a grid holds still run.
template <class TileFn>
FASTSCAN_DEVICE void for_each_tile(bool ordered, unsigned long long* counter, std::int64_t num_tiles, TileFn&& tile_fn) {
  __shared__ std::int64_t next_tile;
  if (ordered) {
    for (;;) {
      if (threadIdx.x == 0) {
        next_tile = static_cast<std::int64_t>(atomicAdd(counter, 1ull));
      }
      __syncthreads();
      const std::int64_t tile = next_tile;
      if (tile >= num_tiles) {
        return;
      }
      tile_fn(tile);
      __syncthreads();
    }
  }
  for (std::int64_t tile = blockIdx.x; tile < num_tiles; tile += gridDim.x) {
    tile_fn(tile);
    __syncthreads();
  }
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
