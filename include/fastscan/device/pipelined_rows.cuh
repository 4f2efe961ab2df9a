//! \file pipelined_rows.cuh
//! The pipelined kernel of one long row (a flat array): persistent blocks whose warps each own one
//! stage of a tile's way through a ring of shared-memory stages, so that a tile's look-back
//! overlaps the next tiles' loads and reductions and the last tile's scan and store:
//! - a producer warp takes the tiles' tickets (tile_state.cuh: tagged, in the order blocks run)
//!   and loads each tile into a free stage with one bulk copy (cp.async.bulk);
//! - a reduce squad folds the stage and publishes the tile's aggregate;
//! - a look-back warp finds the tile's prefix and publishes it;
//! - a scan-store squad reads the stage again, scans it in place with the prefix and stores it
//!   with one bulk copy, then frees the stage.
//! Tiles come from tickets, so a tile only ever waits on tiles held by running blocks: the kernel
//! needs no helpers for forward progress. The ticket's round trip is the producer's, off every
//! other warp's path. Inputs and outputs have one size (the stage is scanned in place; a side
//! output, the indices of a (value, index) scan, has a stage of its own); the entry points give
//! this kernel only 16-byte aligned arrays (bulk copies).
#pragma once

#include <fastscan/device/tile_state.cuh>
#include <fastscan/problem/contract.cuh>
#include <fastscan/warp/warp_scan.cuh>

#include <cstdint>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

struct pipelined_row_params {
  std::int64_t numel;
  std::int64_t num_tiles;
  unsigned long long* counter;  //!< the ticket word
  void* tile_words;
  unsigned long long tag;       //!< 0: state and ticket word zeroed
};

//! Shared memory of a block: `Stages` tile stages, then the ring's barriers and hand-offs.
template <class Acc, int Warps, int Stages>
struct pipelined_shared {
  std::uint64_t full[Stages], reduced[Stages], prefixed[Stages], empty[Stages];
  std::int64_t tile[Stages];
  Acc warp_total[Stages][Warps];
  Acc prefix[Stages];
};

//! The ring's mbarriers (one arrival each) and bulk copies.
struct ring {
  static FASTSCAN_DEVICE unsigned at(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }
  static FASTSCAN_DEVICE void init(std::uint64_t* bar) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(at(bar)) : "memory");
  }
  static FASTSCAN_DEVICE void arrive(std::uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(at(bar)) : "memory");
  }
  static FASTSCAN_DEVICE void arrive_expect(std::uint64_t* bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(at(bar)), "r"(bytes) : "memory");
  }
  //! Waits for the phase of parity `use & 1` (the use-th time the stage comes round).
  static FASTSCAN_DEVICE void wait(std::uint64_t* bar, std::int64_t use) {
    unsigned done = 0;
    do {
      asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                   : "=r"(done)
                   : "r"(at(bar)), "r"(static_cast<unsigned>(use & 1))
                   : "memory");
    } while (done == 0);
  }
  static FASTSCAN_DEVICE void load(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(at(dst)),
                 "l"(src), "r"(bytes), "r"(at(bar))
                 : "memory");
  }
  //! A bulk store into the open group (commit() closes it: one group a tile).
  static FASTSCAN_DEVICE void store(void* dst, const void* src, unsigned bytes) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(at(src)), "r"(bytes)
                 : "memory");
  }
  static FASTSCAN_DEVICE void commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }
  //! Until at most one bulk store of this thread still reads shared memory.
  static FASTSCAN_DEVICE void store_read_but_one() { asm volatile("cp.async.bulk.wait_group.read 1;" ::: "memory"); }
  static FASTSCAN_DEVICE void stores_done() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
  //! This thread's shared-memory writes, before later bulk copies read them.
  static FASTSCAN_DEVICE void fence_to_copies() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
  template <int Id, int Threads>
  static FASTSCAN_DEVICE void squad_sync() {
    asm volatile("bar.sync %0, %1;" ::"n"(Id), "n"(Threads) : "memory");
  }
};

//! One block of the kernel: the roles share its shared memory and each runs its own loop over the
//! block's tiles, in ticket order (the k-th tile of the block in stage k % Stages).
template <class Policy, class Problem>
struct pipelined_rows {
  using T = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  static constexpr int warps = Policy::warps, items = Policy::items, stages = Policy::stages;
  static constexpr int squad = warps * 32;
  static constexpr int tile_items = squad * items;
  static constexpr int stage_bytes = (tile_items * static_cast<int>(sizeof(T)) + 127) / 128 * 128;
  //! Problems with a side output ((value, index) scans) form it into one of side_buffers buffers,
  //! a slot an item, taken in turn: only the scan-store squad writes them, and a buffer is written
  //! again two tiles after its store was issued, when the squad's barrier follows the wait for that
  //! store's reads (scan_store).
  static constexpr bool sides = has_side_output<Problem>;
  using side_t = std::conditional_t<sides, typename Problem::side_t, T>;
  static constexpr int side_buffers = sides ? 3 : 0;
  static constexpr int side_bytes = (tile_items * static_cast<int>(sizeof(side_t)) + 127) / 128 * 128;
  using shared_t = pipelined_shared<acc_t, warps, stages>;
  //! The block's dynamic shared memory (over the 48 KB default: the launcher opts in).
  static constexpr std::size_t smem_bytes =
      std::size_t{stages} * stage_bytes + std::size_t{side_buffers} * side_bytes + sizeof(shared_t);
  static_assert(sizeof(typename Problem::output_t) == sizeof(T) && sizeof(side_t) == sizeof(T),
                "the stage is scanned in place: inputs and outputs of one size");

  const Problem& prob;
  const pipelined_row_params& p;
  unsigned char* smem;

  FASTSCAN_DEVICE shared_t& sh() const {
    return *reinterpret_cast<shared_t*>(smem + stages * stage_bytes + side_buffers * side_bytes);
  }
  FASTSCAN_DEVICE T* stage(int s) const { return reinterpret_cast<T*>(smem + s * stage_bytes); }
  //! The side buffer of the block's k-th tile.
  FASTSCAN_DEVICE side_t* side_stage(std::int64_t k) const {
    return reinterpret_cast<side_t*>(smem + stages * stage_bytes + static_cast<int>(k % (sides ? side_buffers : 1)) * side_bytes);
  }
  FASTSCAN_DEVICE int valid(std::int64_t t) const {
    const std::int64_t left = p.numel - t * tile_items;
    return static_cast<int>(left < tile_items ? left : tile_items);
  }
  //! role(k, stage, tile) for the block's tiles in ticket order, each once its stage is loaded.
  template <class Role>
  FASTSCAN_DEVICE void each_loaded(Role&& role) const {
    for (std::int64_t k = 0;; ++k) {
      const int st = static_cast<int>(k % stages);
      ring::wait(&sh().full[st], k / stages);
      const std::int64_t t = sh().tile[st];
      if (t >= p.num_tiles) {
        return;
      }
      role(k, st, t);
    }
  }
  //! Bulk copies move whole 16-byte parts; the last tile's rest goes element by element.
  static FASTSCAN_DEVICE int bulk_items(int n) { return n - n % static_cast<int>(16 / sizeof(T)); }

  //! Producer (lane 0): the block's tickets, each tile's load into the next free stage; a ticket past
  //! the last tile is handed on as the end.
  FASTSCAN_DEVICE void produce() const {
    shared_t& s = sh();
    for (std::int64_t k = 0;; ++k) {
      const int st = static_cast<int>(k % stages);
      if (k >= stages) {
        ring::wait(&s.empty[st], k / stages - 1);
      }
      const std::int64_t t = resolve_ticket(p.counter, p.tag, atomicAdd(p.counter, 1ull));
      s.tile[st] = t;
      if (t >= p.num_tiles) {
        ring::arrive(&s.full[st]);
        return;
      }
      const int n = valid(t), bulk = bulk_items(n);
      const T* const src = prob.in + t * tile_items;
      for (int i = bulk; i < n; ++i) {
        stage(st)[i] = src[i];
      }
      ring::arrive_expect(&s.full[st], static_cast<unsigned>(bulk * sizeof(T)));
      if (bulk > 0) {
        ring::load(stage(st), src, static_cast<unsigned>(bulk * sizeof(T)), &s.full[st]);
      }
    }
  }

  //! A squad thread's items of a stage (thread-contiguous: Policy::items is odd, so the threads of
  //! a warp read different banks) as accumulators, and their fold.
  FASTSCAN_DEVICE acc_t gather(int st, std::int64_t t, int tid, acc_t (&v)[items]) const {
    const int n = valid(t);
    const std::int64_t first = t * tile_items + tid * items;
    acc_t total{};
#pragma unroll
    for (int i = 0; i < items; ++i) {
      v[i] = tid * items + i < n ? prob.lift(stage(st)[tid * items + i], first + i) : acc_t{};
      total = i == 0 ? v[i] : prob.op(total, v[i]);
    }
    return total;
  }
  FASTSCAN_DEVICE acc_t block_total(int st) const {
    acc_t b = sh().warp_total[st][0];
#pragma unroll
    for (int w = 1; w < warps; ++w) {
      b = prob.op(b, sh().warp_total[st][w]);
    }
    return b;
  }

  //! Reduce squad: warp totals into shared memory, the tile's aggregate (tile 0: its prefix) out.
  FASTSCAN_DEVICE void reduce() const {
    shared_t& s = sh();
    const int tid = static_cast<int>(threadIdx.x), lane = tid & 31;
    const tile_state<acc_t> state{static_cast<ulonglong2*>(p.tile_words), p.tag};
    each_loaded([&](std::int64_t, int st, std::int64_t t) {
      acc_t v[items];
      const acc_t w = warp_inclusive_scan(gather(st, t, tid, v), prob.op);
      if (lane == 31) {
        s.warp_total[st][tid >> 5] = w;
      }
      ring::squad_sync<1, squad>();
      if (tid == 0) {
        state.publish(t, block_total(st), t == 0 ? tile_prefix : tile_aggregate);
        ring::arrive(&s.reduced[st]);
      }
    });
  }

  //! Look-back warp: each tile's exclusive prefix, its inclusive prefix published.
  FASTSCAN_DEVICE void look_back() const {
    shared_t& s = sh();
    const int lane = static_cast<int>(threadIdx.x) & 31;
    const tile_state<acc_t> state{static_cast<ulonglong2*>(p.tile_words), p.tag};
    each_loaded([&](std::int64_t k, int st, std::int64_t t) {
      ring::wait(&s.reduced[st], k / stages);
      acc_t prefix{};
      if (t > 0) {
        prefix = state.template exclusive_prefix<Policy::exact, typename Policy::lookback_policy>(t, prob.op);
        if (lane == 0) {
          state.publish(t, prob.op(prefix, block_total(st)), tile_prefix);
        }
      }
      if (lane == 0) {
        s.prefix[st] = prefix;
        ring::arrive(&s.prefixed[st]);
      }
    });
  }

  //! Scan-store squad: the stage's running folds in place, then its bulk store; a stage is freed
  //! once the next tile's store is under way (its own store has read it by then).
  FASTSCAN_DEVICE void scan_store() const {
    shared_t& s = sh();
    const int tid = static_cast<int>(threadIdx.x) - squad, lane = tid & 31, warp = tid >> 5;
    int pending = -1;
    each_loaded([&](std::int64_t k, int st, std::int64_t t) {
      acc_t v[items];
      const acc_t lane_before = shuffle_up(warp_inclusive_scan(gather(st, t, tid, v), prob.op), 1u);
      ring::wait(&s.prefixed[st], k / stages);  // (after reduced: the warp totals are in)
      form(k, st, t, tid, lane > 0, lane_before, warp, v);
      ring::fence_to_copies();
      ring::squad_sync<2, squad>();
      if (tid == 0) {
        const int bulk = bulk_items(valid(t));
        if (bulk > 0) {
          ring::store(prob.out + t * tile_items, stage(st), static_cast<unsigned>(bulk * sizeof(T)));
          if constexpr (sides) {
            ring::store(prob.side_out + t * tile_items, side_stage(k), static_cast<unsigned>(bulk * sizeof(side_t)));
          }
          ring::commit();
        }
        if (pending >= 0) {
          ring::store_read_but_one();
          ring::arrive(&s.empty[pending]);
        }
        pending = st;
      }
    });
    if (tid == 0) {
      ring::stores_done();
      if (pending >= 0) {
        ring::arrive(&s.empty[pending]);
      }
    }
  }
  //! Tile t's side outputs in global memory (none without a side output).
  FASTSCAN_DEVICE side_t* side_out(std::int64_t t) const {
    if constexpr (sides) {
      return prob.side_out + t * tile_items;
    } else {
      return nullptr;
    }
  }
  //! Output `slot` of a tile into `values` (and its side output into `side`).
  FASTSCAN_DEVICE void put(T* values, side_t* side, int slot, const acc_t& running, const acc_t& previous, bool had) const {
    values[slot] = prob.output(running, previous, had);
    if constexpr (sides) {
      side[slot] = prob.side(running);
    }
  }
  //! The thread's outputs into its stage slots (the last tile's rest straight to global memory).
  FASTSCAN_DEVICE void form(std::int64_t k, int st, std::int64_t t, int tid, bool has_lane_before, const acc_t& lane_before, int warp,
                            const acc_t (&v)[items]) const {
    shared_t& s = sh();
    acc_t running = s.prefix[st];
    bool has = t > 0;
    for (int w = 0; w < warp; ++w) {
      running = has ? prob.op(running, s.warp_total[st][w]) : s.warp_total[st][w];
      has = true;
    }
    if (has_lane_before) {
      running = has ? prob.op(running, lane_before) : lane_before;
      has = true;
    }
    const int n = valid(t), bulk = bulk_items(n);
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const acc_t previous = running;
      const bool had = has;
      running = has ? prob.op(running, v[i]) : v[i];
      has = true;
      const int slot = tid * items + i;
      if (slot < bulk) {
        put(stage(st), side_stage(k), slot, running, previous, had);
      } else if (slot < n) {
        put(prob.out + t * tile_items, side_out(t), slot, running, previous, had);
      }
    }
  }
};

//! The kernel: two squads of Policy::warps warps (reduce, scan-store), then the producer warp and
//! the look-back warp; persistent blocks (as many as fit at once).
FASTSCAN_KERNELS_BEGIN
template <class Policy, class Problem>
FASTSCAN_KERNEL __launch_bounds__(Policy::threads, Policy::min_blocks) void pipelined_rows_kernel(Problem prob, pipelined_row_params p) {
  extern __shared__ __align__(16) unsigned char smem[];  // (bulk copies need 16-byte alignment)
  enter_stream_order();
  const pipelined_rows<Policy, Problem> block{prob, p, smem};
  auto& s = block.sh();
  if (threadIdx.x == 0) {
    for (int st = 0; st < Policy::stages; ++st) {
      ring::init(&s.full[st]);
      ring::init(&s.reduced[st]);
      ring::init(&s.prefixed[st]);
      ring::init(&s.empty[st]);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  constexpr int squad = Policy::warps * 32;
  const int t = static_cast<int>(threadIdx.x);
  if (t < squad) {
    block.reduce();
  } else if (t < 2 * squad) {
    block.scan_store();
  } else if (t < 2 * squad + 32) {
    if (t == 2 * squad) {
      block.produce();
    }
  } else {
    block.look_back();
  }
}
FASTSCAN_KERNELS_END

}  // namespace detail
FASTSCAN_NAMESPACE_END
