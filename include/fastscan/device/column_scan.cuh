//! \file column_scan.cuh
//! The column kernel: scans along a strided axis ([outer, len, inner] with inner > 1) in one pass.
//!
//! A tile is `tile_rows` positions along len by `tile_cols` contiguous columns of one outer slice:
//! lanes_x threads across the columns (VEC columns each, so a warp reads whole 16-byte vectors of a
//! row) and lanes_y threads down the rows (`items` rows each, at most ITEMS). A tile runs in named
//! stages (column_tile::run): prefetch the tile ahead, load, reduce each thread's rows, scan down
//! the columns (shuffles within a warp, a fold over the warp rows in shared memory), look back for
//! the prefix of every column at once (one channel per column), form the thread's prefix, form and
//! store. Tile ids run len-tile-major, so a tile's predecessor was issued a whole round of
//! (outer x column-chunk) tiles earlier and is usually complete when it is needed.
//! Rows narrower than the tile (tile_cols > inner: 3 floats against 4 columns) run in a kernel of
//! their own (Odd), whose warps stage their whole rows word by word (column_odd_row_parts).
#pragma once

#include <fastscan/detail/divisor.cuh>
#include <fastscan/detail/layout.hpp>
#include <fastscan/detail/vector_io.cuh>
#include <fastscan/device/row_codes.cuh>
#include <fastscan/device/tile_state.cuh>
#include <fastscan/problem/contract.cuh>
#include <fastscan/warp/warp_exchange.cuh>
#include <fastscan/warp/warp_scan.cuh>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

struct column_scan_params {
  std::int64_t outer, len, inner;
  std::int64_t tile_rows;   //!< lanes_y * items
  std::int64_t tile_cols;   //!< lanes_x * VEC
  std::int64_t col_chunks;  //!< ceil(inner / tile_cols)
  std::int64_t chains;      //!< outer * col_chunks: tiles per len-tile round
  std::int64_t num_tiles;
  divisor by_chains, by_chunks;  //!< chains and col_chunks as divisors
  int lanes_x, lanes_y;     //!< powers of two
  bool lookback;  //!< len spans more than one tile
  int lookback_cols;  //!< columns each warp looks back for (detail::lookback_cols_per_warp)
  unsigned long long* tile_counter;  //!< the tile-ticket word (plans that look back), or null: tile = block index
  void* tile_words;                  //!< tile state (tile_state<Acc>, a channel per column)
  void* group_words;                 //!< the tile groups' state of ordered look-backs (else null)
  unsigned long long tag;            //!< the call's tile-state tag (0: state zeroed)
  std::int64_t prefetch_tiles;       //!< L2 prefetch distance in tiles (0: none)
  int items;  //!< rows per thread: a power of two, at most the kernel's ITEMS
  unsigned first_poll_ns;  //!< plan::first_poll_ns
};

//! Whether a thread's rows are whole 16-byte units (one per row) kept in its exchange row.
template <class T, int ITEMS, int VEC>
constexpr bool column_unit_rows = VEC * sizeof(T) == 16 && ITEMS <= exchange_units_max;

//! A warp's exchange slice: unit rows of ITEMS units when the rows are units.
template <class T, int ITEMS, int VEC>
FASTSCAN_HD constexpr std::size_t column_slice_bytes() {
  return column_unit_rows<T, ITEMS, VEC> ? unit_slice_bytes(ITEMS) : warp_exchange_bytes();
}

//! Where one thread's part of a column tile lies.
struct column_tile_part {
  std::int64_t k;          //!< tile index along len
  std::int64_t row0;       //!< first row (along len) of the thread
  std::int64_t base;       //!< element offset of the thread's first item
  std::int64_t warp_base;  //!< element offset of the warp's run when warp_rows
  int tx, ty, nrows, ncols;
  bool warp_rows;          //!< the warp's rows are whole rows of the plane (the tile spans every
                           //!< column) and in range: one contiguous run
  bool warp_full;          //!< warp_rows, and the rows exactly as wide as the tile
};

//! Whether item i of a thread's n rows or columns is in range (always, for Fast: a whole warp).
template <bool Fast>
FASTSCAN_DEVICE bool in_range(int i, int n) {
  return Fast || i < n;
}

template <int ITEMS, int VEC>
FASTSCAN_DEVICE column_tile_part column_part(const column_scan_params& p, std::int64_t tile) {
  const int tid = static_cast<int>(threadIdx.x);
  column_tile_part t;
  const int lx = log2_pow2(p.lanes_x);
  t.k = p.by_chains.div(tile);
  const std::int64_t chain = tile - t.k * p.chains;
  const std::int64_t o = p.by_chunks.div(chain);
  const std::int64_t chunk = chain - o * p.col_chunks;
  t.tx = tid & (p.lanes_x - 1);
  t.ty = tid >> lx;
  const std::int64_t col0 = chunk * p.tile_cols + static_cast<std::int64_t>(t.tx) * VEC;
  t.row0 = t.k * p.tile_rows + static_cast<std::int64_t>(t.ty) * p.items;
  const std::int64_t rows_left = p.len - t.row0;
  t.nrows = rows_left <= 0 ? 0 : (rows_left >= p.items ? p.items : static_cast<int>(rows_left));
  const std::int64_t cols_left = p.inner - col0;
  t.ncols = cols_left <= 0 ? 0 : (cols_left >= VEC ? VEC : static_cast<int>(cols_left));
  t.base = (o * p.len + t.row0) * p.inner + col0;
  const int warp_ty0 = (tid & ~31) >> lx;
  const std::int64_t warp_row0 = t.k * p.tile_rows + static_cast<std::int64_t>(warp_ty0) * p.items;
  t.warp_rows = p.items == ITEMS && p.col_chunks == 1 && p.lanes_x <= 32 && warp_row0 + (32 >> lx) * ITEMS <= p.len;
  t.warp_full = t.warp_rows && p.tile_cols == p.inner;
  t.warp_base = (o * p.len + warp_row0) * p.inner;
  return t;
}

//! Word staging of a warp whose rows are whole rows of the plane narrower than the tile (3 floats
//! against a tile of 4 columns, 6 against 8; column_tile_part::warp_rows): the warp's run in
//! W-byte words, each thread row's ITEMS rows one part. False where the parts are not whole words
//! or do not fit the warp's exchange slice.
template <class W, class T, int ITEMS, int VEC>
FASTSCAN_DEVICE bool column_odd_row_parts(const column_scan_params& p, word_parts& parts) {
  const std::size_t part_bytes = static_cast<std::size_t>(ITEMS) * static_cast<std::size_t>(p.inner) * sizeof(T);
  const int part_words = static_cast<int>(part_bytes / sizeof(W));
  const int count = 32 >> log2_pow2(p.lanes_x);
  if (part_bytes % sizeof(W) != 0 || part_words < 2 ||
      word_parts::bytes(part_words, count, sizeof(W)) > column_slice_bytes<T, ITEMS, VEC>()) {
    return false;
  }
  parts = word_parts(part_words, count);
  return true;
}


//! One column tile, stage by stage. Policy: rows and columns per thread (items, vec), exact,
//! checked_only, stage_rows_below_bytes, stream_outputs, lookback_policy (plan/kernel_policy.hpp).
template <class Policy, bool Odd, class Problem>
struct column_tile {
  using input_t = typename Problem::input_t;
  using acc_t = typename Problem::acc_t;
  static constexpr int ITEMS = Policy::items;
  static constexpr int VEC = Policy::vec;
  static constexpr bool unit_rows = column_unit_rows<input_t, ITEMS, VEC>;
  static constexpr bool pointer_in = std::is_pointer_v<decltype(Problem::in)>;
  static constexpr std::size_t slice_bytes = column_slice_bytes<input_t, ITEMS, VEC>();
  using word_t = std::conditional_t<sizeof(input_t) % 8 == 0, unsigned long long, unsigned>;
  using codes_t = row_codes<Problem, ITEMS, VEC>;

  const Problem& prob;
  const column_scan_params& p;
  const std::int64_t tile;
  const column_tile_part t;
  const int lane;
  const int tile_cols;
  const column_smem_layout layout;
  unsigned char* const smem;
  uint4* const exchange;
  //! Rows of the plane narrower than a line (whole rows when warp_full) move as warp runs.
  const bool narrow_rows;
  //! The thread's per-column values that pass from stage to stage, and its items where they stay in
  //! registers. They live apart from the tile (column_scan_kernel declares them): an array indexed
  //! in a loop not yet unrolled keeps its whole object in memory, and as tile members every store
  //! to one reloaded the tile's references (prob, p), so the form loops kept a select on
  //! `exclusive` per output (64 FSEL per tile of the 16-row float sum) instead of two copies, and
  //! the shuffle scans divided lane by lanes_x once per column, not once (4 divisions, not 1).
  struct lanes {
    // The thread's items stay in its exchange row until the outputs are formed (registers are the
    // limit); inputs wider than a 16-byte unit per row stay in registers.
    input_t held[unit_rows ? 1 : ITEMS * VEC];
    acc_t total[VEC];
    acc_t before_lane[VEC];  //!< the fold of the thread rows above in the warp
    acc_t running[VEC];
    bool has_running[VEC];
  };
  input_t (&held)[unit_rows ? 1 : ITEMS * VEC];
  acc_t (&total)[VEC];
  acc_t (&before_lane)[VEC];
  acc_t (&running)[VEC];
  bool (&has_running)[VEC];
  input_t* items;  //!< the thread's rows, VEC elements apart
  input_t* rows;   //!< where the checked loops find them, rp elements apart
  int rp = VEC;
  bool staged = false;
  bool odd = false;    //!< rows staged as word parts (column_odd_row_parts)
  bool whole = false;  //!< the warp's threads have all their rows and columns in range
  bool fast = false;   //!< whole, and every column of the warp has a prefix
  int wy = 0;  //!< warp row
  int yl = 0;  //!< thread row within the warp
  std::uint32_t heads = 0;  //!< bit i: the thread's row i starts a segment (problems with row heads)

  FASTSCAN_DEVICE column_tile(const Problem& prob_, const column_scan_params& p_, std::int64_t tile_, unsigned char* smem_,
                              lanes& l)
      : prob(prob_), p(p_), tile(tile_), t(column_part<ITEMS, VEC>(p_, tile_)), lane(static_cast<int>(threadIdx.x) & 31),
        tile_cols(static_cast<int>(p_.tile_cols)),
        layout(column_smem(p_.lanes_x, p_.lanes_y, static_cast<int>(p_.tile_cols), sizeof(acc_t), slice_bytes)),
        smem(smem_),
        exchange(reinterpret_cast<uint4*>(smem_ + layout.exchange) +
                 static_cast<int>(threadIdx.x >> 5) * static_cast<int>(slice_bytes / 16)),
        narrow_rows(static_cast<std::size_t>(p_.inner) * sizeof(input_t) < Policy::stage_rows_below_bytes),
        held(l.held), total(l.total), before_lane(l.before_lane), running(l.running), has_running(l.has_running) {
    items = unit_rows ? unit_row<input_t, ITEMS>(exchange, lane) : held;
    rows = items;
  }

  FASTSCAN_DEVICE acc_t* warp_totals() const { return reinterpret_cast<acc_t*>(smem + layout.warp_totals); }
  FASTSCAN_DEVICE acc_t* totals() const { return reinterpret_cast<acc_t*>(smem + layout.totals); }
  FASTSCAN_DEVICE bool* has_prefix() const { return reinterpret_cast<bool*>(smem + layout.has_prefix); }

  FASTSCAN_DEVICE void run(tile_tickets& tickets) {
    if (p.prefetch_tiles > 0) {
      prefetch(p.prefetch_tiles);
    }
    load();
    if constexpr (has_row_heads<Problem>::value) {
      heads = prob.template row_heads<ITEMS>(t.row0, t.nrows);
    }
    reduce();
    scan_down();
    look_back();
    tickets.next();
    thread_prefix();
    store();
  }

  //! Asks L2 for the inputs of the tile `distance` tiles after this one: a warp run line by line,
  //! or the thread's rows.
  FASTSCAN_DEVICE void prefetch(std::int64_t distance) const {
    if (tile + distance >= p.num_tiles) {
      return;
    }
    const column_tile_part ahead = column_part<ITEMS, VEC>(p, tile + distance);
    if constexpr (pointer_in) {
      if (ahead.warp_full && narrow_rows) {
        prefetch_run(ahead);
        return;
      }
    }
    if (ahead.ncols > 0) {
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (i < ahead.nrows) {
          prefetch_l2(prob.in + (ahead.base + i * p.inner));
        }
      }
    }
  }

  //! The warp's run, line by line.
  FASTSCAN_DEVICE void prefetch_run(const column_tile_part& ahead) const {
    constexpr int lines = static_cast<int>(32 * ITEMS * VEC * sizeof(input_t) / 128);
    const auto* const run = reinterpret_cast<const unsigned char*>(prob.in + ahead.warp_base);
#pragma unroll
    for (int j = 0; j < lines; j += 32) {
      if (j + lane < lines) {
        prefetch_l2(run + static_cast<std::size_t>(j + lane) * 128);
      }
    }
  }

  //! Stages the warp's rows as one run where they are whole rows narrower than a line (units, or
  //! words for rows narrower than the tile), else loads the thread's rows directly.
  FASTSCAN_DEVICE void load() {
    if constexpr (unit_rows && pointer_in) {
      stage_rows(prob.in + t.warp_base);
    }
    rp = odd ? static_cast<int>(p.inner) : VEC;
    if (!staged) {
      load_direct();
    }
  }

  FASTSCAN_DEVICE void stage_rows(const input_t* warp_in) {
    if (t.warp_full && narrow_rows && reinterpret_cast<std::uintptr_t>(warp_in) % 16 == 0) {
      warp_stage_units<ITEMS>(warp_in, exchange, p.lanes_x);
      staged = true;
    }
    if constexpr (Odd) {
      stage_odd_rows(warp_in);
    }
  }

  //! Rows narrower than the tile: the warp's run staged word by word, each thread row's rows one
  //! part, in which the thread finds its columns `inner` elements from row to row.
  FASTSCAN_DEVICE void stage_odd_rows(const input_t* warp_in) {
    word_parts parts;
    if (t.warp_rows && !t.warp_full && narrow_rows && reinterpret_cast<std::uintptr_t>(warp_in) % sizeof(word_t) == 0 &&
        column_odd_row_parts<word_t, input_t, ITEMS, VEC>(p, parts)) {
      auto* const words = reinterpret_cast<word_t*>(exchange);
      warp_stage_words(reinterpret_cast<const word_t*>(warp_in), words, parts);
      rows = reinterpret_cast<input_t*>(words + (lane >> log2_pow2(p.lanes_x)) * parts.pitch) + t.tx * VEC;
      staged = odd = true;
    }
  }

  //! Every row is loaded before any is kept, so the loads are in flight together.
  FASTSCAN_DEVICE void load_direct() {
    input_t run[ITEMS][VEC];
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < t.nrows) {
        load_run<VEC>(prob.in + (t.base + i * p.inner), run[i], t.ncols);
      }
    }
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < t.nrows) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          items[i * VEC + v] = run[i][v];
        }
      }
    }
  }

  //! Row i's element as an accumulator: by the row's head bit (read once per row) for problems
  //! with row heads, else by its position.
  FASTSCAN_DEVICE acc_t lift_at(const input_t& x, int i) const {
    if constexpr (has_row_heads<Problem>::value) {
      return prob.lift_head(x, (heads >> i) & 1u);
    } else {
      return prob.lift(x, t.row0 + i);
    }
  }

  //! Each column's fold over the thread's rows; warps whose threads have every row and column skip
  //! the checks (the choice is the warp's, so it takes one path).
  FASTSCAN_DEVICE void reduce() {
    whole = !Policy::checked_only && __all_sync(full_warp_mask, t.nrows == ITEMS && t.ncols == VEC);
    if (whole) {
      reduce_whole();
      return;
    }
    reduce_checked();
  }
  FASTSCAN_DEVICE void reduce_whole() {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        fold_total(v, i, lift_at(items[i * VEC + v], i));
      }
    }
  }
  FASTSCAN_DEVICE void reduce_checked() {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      total[v] = acc_t{};
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (i < t.nrows && v < t.ncols) {
          fold_total(v, i, lift_at(rows[i * rp + v], i));
        }
      }
    }
  }

  FASTSCAN_DEVICE void fold_total(int v, int i, acc_t e) { total[v] = i == 0 ? e : prob.op(total[v], e); }

  //! Down the columns: the thread rows of a warp that share tx form a chain lanes_x lanes apart
  //! (shuffle scan), then the warp rows fold through shared memory into each column's tile total.
  //! Thread rows past the end of len hold no items and only ever follow the valid ones.
  FASTSCAN_DEVICE void scan_down() {
    const int rows_log2 = p.lanes_x >= 32 ? 0 : 5 - log2_pow2(p.lanes_x);
    const int rows_per_warp = 1 << rows_log2;
    wy = t.ty >> rows_log2;
    yl = t.ty - (wy << rows_log2);
    const std::int64_t tile_rows_left = p.len - t.k * p.tile_rows;
    const int last_ty =
        static_cast<int>(((tile_rows_left < p.tile_rows ? tile_rows_left : p.tile_rows) - 1) >> log2_pow2(p.items));
    const int last_wy = last_ty >> rows_log2;
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      total[v] = warp_strided_inclusive_scan(total[v], prob.op, p.lanes_x);
      if (rows_per_warp > 1) {
        before_lane[v] = shuffle_up(total[v], static_cast<unsigned>(p.lanes_x));
      }
    }
    acc_t* const warp_total = warp_totals();
    const int last_in_warp = wy * rows_per_warp + rows_per_warp - 1;
    if (t.ty == (last_in_warp < last_ty ? last_in_warp : last_ty)) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        warp_total[wy * tile_cols + t.tx * VEC + v] = total[v];
      }
    }
    __syncthreads();
    fold_warp_totals(warp_total, last_wy);
    __syncthreads();
  }
  //! Each column's tile total: the fold of the totals of its warp rows 0 ... last_wy.
  FASTSCAN_DEVICE void fold_warp_totals(const acc_t* warp_total, int last_wy) {
    const bool first_tile = t.k == 0;
    for (int c = static_cast<int>(threadIdx.x); c < tile_cols; c += static_cast<int>(blockDim.x)) {
      acc_t sum = warp_total[c];
      for (int r = 1; r <= last_wy; ++r) {
        sum = prob.op(sum, warp_total[r * tile_cols + c]);
      }
      totals()[c] = sum;
      has_prefix()[c] = !first_tile;
    }
  }

  //! Publishes the column totals and replaces each with its prefix from the look-back: the warps
  //! share the columns, each looking back for p.lookback_cols of them at once. Ordered (float) sums
  //! along one chain look back in two levels (tile groups).
  FASTSCAN_DEVICE void look_back() {
    if (p.lookback) {
      const tile_state<acc_t> state{static_cast<ulonglong2*>(p.tile_words), p.tag, p.first_poll_ns};
      const int per_warp = p.lookback_cols;
      const int first_col = static_cast<int>(threadIdx.x >> 5) * per_warp;
      if (first_col < tile_cols) {
        column_prefix(state, per_warp, first_col, first_col + (lane & (per_warp - 1)));
      }
    }
    __syncthreads();
  }

  //! The prefixes of columns first_col ... first_col + per_warp - 1 (lane c's: column c).
  FASTSCAN_DEVICE void column_prefix(const tile_state<acc_t>& state, int per_warp, int first_col, int c) {
    if (Policy::exact || p.group_words == nullptr) {
      chained_prefix(state, per_warp, first_col, c);
    } else {
      grouped_prefix(state, per_warp, first_col, c);
    }
  }

  FASTSCAN_DEVICE void chained_prefix(const tile_state<acc_t>& state, int per_warp, int first_col, int c) {
    acc_t* const total = totals();
    const bool first_tile = t.k == 0;
    const bool complete = first_tile || fold_is_complete<Problem>(total[c]);
    if (lane < per_warp) {
      state.publish(tile, total[c], complete ? tile_prefix : tile_aggregate, tile_cols, c);
    }
    if (!first_tile) {
      const acc_t before = state.template exclusive_prefix<Policy::exact, typename Policy::lookback_policy>(
          tile, prob.op, p.chains, per_warp, tile_cols, first_col);
      if (lane < per_warp) {
        if (!complete) {
          state.publish(tile, prob.op(before, total[c]), tile_prefix, tile_cols, c);
        }
        total[c] = before;
      }
    }
  }

  FASTSCAN_DEVICE void grouped_prefix(const tile_state<acc_t>& state, int per_warp, int first_col, int c) {
    if constexpr (!Policy::exact) {
      acc_t* const total = totals();
      if (lane < per_warp) {
        state.publish(tile, total[c], tile_aggregate, tile_cols, c);
      }
      const tile_state<acc_t> groups{static_cast<ulonglong2*>(p.group_words), p.tag, 0};
      acc_t before;
      state.template grouped_exclusive_prefix<typename Policy::lookback_policy>(tile, t.k, p.chains, total[c], prob.op,
                                                                               groups, per_warp, tile_cols, first_col,
                                                                               before);
      __syncwarp();
      if (t.k != 0 && lane < per_warp) {
        total[c] = before;
      }
    }
  }

  //! The thread's prefix per column: the tile's prefix, then the warp rows above, then the thread
  //! rows above in its warp. The warp takes the unchecked path only if all of it can.
  FASTSCAN_DEVICE void thread_prefix() {
    const acc_t* const warp_total = warp_totals();
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      const int c = t.tx * VEC + v;
      has_running[v] = has_prefix()[c];
      running[v] = totals()[c];
      for (int r = 0; r < wy; ++r) {
        fold_running(v, warp_total[r * tile_cols + c]);
      }
      if (yl > 0) {
        fold_running(v, before_lane[v]);
      }
    }
    if constexpr (!Policy::checked_only) {  // (short kernels never take the unchecked path)
      fast = __all_sync(full_warp_mask, all_running(whole));
    }
  }
  //! `all`, and every column has a running prefix.
  FASTSCAN_DEVICE bool all_running(bool all) const {
#pragma unroll
    for (int v = 0; v < VEC; ++v) {
      all = all && has_running[v];
    }
    return all;
  }

  //! Folds x into column v's running prefix, which it starts where there is none yet.
  FASTSCAN_DEVICE void fold_running(int v, acc_t x) {
    running[v] = has_running[v] ? prob.op(running[v], x) : x;
    has_running[v] = true;
  }

  //! Folds row i of column v into the running prefix; returns whether one came before it (into
  //! `previous`). Fast: the row and column are in range and the column has a prefix.
  template <bool Fast>
  FASTSCAN_DEVICE bool advance(int i, int v, acc_t& previous) {
    const acc_t e = lift_at(Fast ? items[i * VEC + v] : rows[i * rp + v], i);
    previous = running[v];
    const bool had = Fast || has_running[v];
    running[v] = had ? prob.op(running[v], e) : e;
    has_running[v] = true;
    return had;
  }
  //! Forms the output of row i, column v into slot `slot` of a problem buffer.
  template <bool Fast, class Buffer>
  FASTSCAN_DEVICE void form(Buffer& out, int slot, int i, int v) {
    acc_t previous;
    const bool had = advance<Fast>(i, v, previous);
    prob.put(out, slot, running[v], previous, had);
  }
  template <class F>
  FASTSCAN_DEVICE void with_fast(F&& f) {
    if (fast) {
      f(std::true_type{});
    } else {
      f(std::false_type{});
    }
  }

  //! Forms and writes the outputs by the way the problem and the warp's rows allow.
  FASTSCAN_DEVICE void store() {
    if constexpr (Policy::stream_outputs) {
      if constexpr (codes_t::value) {
        if (store_coded_runs()) {
          return;
        }
        if constexpr (Odd) {
          if (store_coded_parts()) {
            return;
          }
        }
      }
      store_streamed();
    } else {
      store_formed();
    }
  }

  //! Forms row i, column v: the value into `value`, its side output kept as a row code.
  template <bool Fast>
  FASTSCAN_DEVICE void form_coded(codes_t& codes, input_t& value, int i, int v) {
    acc_t previous;
    const bool had = advance<Fast>(i, v, previous);
    value = prob.output(running[v], previous, had);
    codes.keep(i, v, prob.side(running[v]));
  }

  //! One thread across the row and the warp's rows one staged run: values formed in place of the
  //! inputs, side outputs kept as row codes, both leave as whole runs through the exchange slice.
  FASTSCAN_DEVICE bool store_coded_runs() {
    if (!(staged && !odd && p.lanes_x == 1 && codes_t::aligned(prob, t.warp_base))) {
      return false;
    }
    codes_t codes;
    codes.begin(prob, running, has_running, t.row0);
    with_fast([&](auto is_fast) {
      constexpr bool Fast = decltype(is_fast)::value;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          form_coded<Fast>(codes, items[i * VEC + v], i, v);
        }
      }
    });
    warp_unstage_units<ITEMS>(prob.out + t.warp_base, exchange);
    codes.leave(prob.side_out + t.warp_base, exchange);
    return true;
  }

  //! The same for odd rows (word parts).
  FASTSCAN_DEVICE bool store_coded_parts() {
    word_parts parts;
    if (!(odd && reinterpret_cast<std::uintptr_t>(prob.out + t.warp_base) % sizeof(word_t) == 0 &&
          column_odd_row_parts<word_t, input_t, ITEMS, VEC>(p, parts))) {
      return false;
    }
    codes_t codes;
    codes.begin(prob, running, has_running, t.row0);
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
#pragma unroll
      for (int v = 0; v < VEC; ++v) {
        if (v < t.ncols) {
          form_coded<false>(codes, rows[i * rp + v], i, v);
        }
      }
    }
    warp_unstage_words(reinterpret_cast<word_t*>(prob.out + t.warp_base), reinterpret_cast<const word_t*>(exchange), parts);
    codes.leave_parts(prob.side_out + t.warp_base, exchange, slice_bytes, static_cast<int>(p.inner), log2_pow2(p.lanes_x),
                      t.tx, t.ncols);
    return true;
  }

  //! Each row of outputs leaves as soon as it is formed: a warp's stores of one row cover whole
  //! 16-byte vectors of 32 / lanes_x rows, and no output buffer holds registers.
  FASTSCAN_DEVICE void store_streamed() {
    with_fast([&](auto is_fast) {
      constexpr bool Fast = decltype(is_fast)::value;
#pragma unroll
      for (int i = 0; i < ITEMS; ++i) {
        if (in_range<Fast>(i, t.nrows)) {
          typename Problem::template buffer<VEC> out;
#pragma unroll
          for (int v = 0; v < VEC; ++v) {
            if (in_range<Fast>(v, t.ncols)) {
              form<Fast>(out, v, i, v);
            }
          }
          prob.store(out, t.base + i * p.inner, 0, [&](auto ptr, const auto& values, int) {
            using value_t = std::remove_cv_t<std::remove_reference_t<decltype(values[0])>>;
            value_t run[VEC];
#pragma unroll
            for (int v = 0; v < VEC; ++v) {
              run[v] = values[v];
            }
            store_run<VEC>(ptr, run, Fast ? VEC : t.ncols);
          });
        }
      }
    });
  }

  //! Outputs formed into a buffer (in place of the staged inputs when they have the input type),
  //! then stored by column_run_storer.
  FASTSCAN_DEVICE void store_formed() {
    using buffer_t = typename Problem::template buffer<ITEMS * VEC>;
    constexpr bool in_place = unit_rows && outputs_in_place<Problem>;
    buffer_t held_out;
    buffer_t& out_fast = in_place ? *reinterpret_cast<buffer_t*>(items) : held_out;
    buffer_t& out = in_place ? *reinterpret_cast<buffer_t*>(rows) : held_out;
    with_fast([&](auto is_fast) {
      constexpr bool Fast = decltype(is_fast)::value;
      form_rows<Fast, in_place>(Fast ? out_fast : out);
    });
    prob.store(out, t.base, 0, [&](auto ptr, const auto& values, int) { store_run_of(ptr, values); });
  }

  //! Forms the thread's rows into a buffer: rows VEC slots apart, or rp in place of staged odd rows.
  template <bool Fast, bool InPlace, class Buffer>
  FASTSCAN_DEVICE void form_rows(Buffer& into) {
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (in_range<Fast>(i, t.nrows)) {
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          if (in_range<Fast>(v, t.ncols)) {
            form<Fast>(into, (InPlace && !Fast ? i * rp : i * VEC) + v, i, v);
          }
        }
      }
    }
  }

  //! Writes one output array of the thread's rows: as the warp's run in words (odd rows) or whole
  //! units (rows exactly as wide as the tile), else row by row.
  template <class Ptr, class Values>
  FASTSCAN_DEVICE void store_run_of(Ptr ptr, const Values& values) {
    using value_t = std::remove_cv_t<std::remove_reference_t<decltype(values[0])>>;
    constexpr bool in_place = unit_rows && outputs_in_place<Problem>;
    if constexpr (is_pointer_to_v<Ptr, value_t> && column_unit_rows<value_t, ITEMS, VEC>) {
      value_t* const warp_ptr = ptr - (t.base - t.warp_base);
      if (store_odd_words<in_place>(warp_ptr)) {
        return;
      }
      if (store_units<in_place>(warp_ptr, values)) {
        return;
      }
    }
    if (in_place && odd) {
      store_rows<true>(ptr, values, rp);  // (a thread reads only its columns of odd rows)
    } else {
      store_rows<false>(ptr, values, VEC);
    }
  }
  //! Odd rows formed in place leave as the warp's run of words.
  template <bool InPlace, class T>
  FASTSCAN_DEVICE bool store_odd_words(T* warp_ptr) {
    if constexpr (InPlace) {
      word_parts parts;
      if (odd && reinterpret_cast<std::uintptr_t>(warp_ptr) % sizeof(word_t) == 0 &&
          column_odd_row_parts<word_t, input_t, ITEMS, VEC>(p, parts)) {
        warp_unstage_words(reinterpret_cast<word_t*>(warp_ptr), reinterpret_cast<const word_t*>(exchange), parts);
        return true;
      }
    }
    return false;
  }
  //! Rows exactly as wide as the tile leave as the warp's run of units (staged first unless formed
  //! in place).
  template <bool InPlace, class T, class Values>
  FASTSCAN_DEVICE bool store_units(T* warp_ptr, const Values& values) {
    if (t.warp_full && reinterpret_cast<std::uintptr_t>(warp_ptr) % 16 == 0) {
      if constexpr (!InPlace) {
        T* const row = unit_row<T, ITEMS>(exchange, lane);
#pragma unroll
        for (int j = 0; j < ITEMS * VEC; ++j) {
          row[j] = values[j];
        }
      }
      warp_unstage_units<ITEMS>(warp_ptr, exchange, p.lanes_x);
      return true;
    }
    return false;
  }
  template <bool OddRows, class Ptr, class Values>
  FASTSCAN_DEVICE void store_rows(Ptr ptr, const Values& values, int pitch) const {
    using value_t = std::remove_cv_t<std::remove_reference_t<decltype(values[0])>>;
#pragma unroll
    for (int i = 0; i < ITEMS; ++i) {
      if (i < t.nrows) {
        value_t run[VEC];
#pragma unroll
        for (int v = 0; v < VEC; ++v) {
          run[v] = !OddRows || v < t.ncols ? values[i * pitch + v] : value_t{};
        }
        store_run<VEC>(ptr + i * p.inner, run, t.ncols);
      }
    }
  }
};

//! One block scans tiles as for_each_tile hands them out. Odd: the kernel for plans whose rows are
//! narrower than the tile (tile_cols > inner), kept apart so the other plans' kernels carry none of
//! it.
FASTSCAN_KERNELS_BEGIN
template <class Policy, class Problem, bool Odd = false>
FASTSCAN_KERNEL __launch_bounds__(Policy::threads, Policy::min_blocks) void column_scan_kernel(Problem prob, column_scan_params p) {
  extern __shared__ __align__(16) unsigned char smem[];
  enter_stream_order();
  for_each_tile<Policy::checked_only>(p.tile_counter, p.tag, p.num_tiles, smem,
                                      [&](std::int64_t tile, tile_tickets& tickets) {
    using tile_t = column_tile<Policy, Odd, Problem>;
    typename tile_t::lanes lanes;
    tile_t(prob, p, tile, smem, lanes).run(tickets);
  });
}
FASTSCAN_KERNELS_END

}  // namespace detail
FASTSCAN_NAMESPACE_END
