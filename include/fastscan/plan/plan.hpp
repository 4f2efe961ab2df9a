//! \file plan.hpp
//! The launch-config solver: (outer, len, inner, element sizes, device) -> plan. Host-only; every
//! launch shape in fastscan comes from here. Internal (namespace detail): the entry points plan
//! every call; the types below may change between versions.
#pragma once

#include <fastscan/detail/layout.hpp>
#include <fastscan/plan/policy.hpp>
#include <fastscan/plan/variants.hpp>
#include <fastscan/shape.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace FASTSCAN_NAMESPACE {
namespace detail {

//! What the solver needs to know of the device.
struct device_limits {
  int device = -1;  //!< the device's ordinal (-1: defaults, no device asked)
  int sm_count = 132;
  std::int64_t max_grid_x = 2147483647;
  std::size_t smem_per_block = 48 * 1024;
  std::size_t smem_optin_per_block = 227 * 1024;  //!< what a kernel may opt in to (sm_90)
};

//! Sizes of the types a scan moves and keeps, and the kernels its problem type compiles.
struct scan_types {
  std::size_t in_bytes;       //!< input element
  std::size_t acc_bytes;      //!< accumulator (what the column kernel's tile state holds per column)
  std::size_t word_bytes;     //!< tile state per tile and channel (16 bytes per 8 of the accumulator)
  std::size_t flagged_bytes;  //!< accumulator with a segment-head flag (row kernel block scan)
  bool rows_in_place = false; //!< the row kernel forms outputs in shared memory, the first array in
                              //!< place of the staged inputs (detail::rows_in_place)
  bool exact = true;  //!< the operator is exactly associative (is_exactly_associative; not float sums)
  kernel_variants variants;  //!< the kernels, in the launcher's numbering (problem_kernels)
  int column_latency_items = 0;  //!< rows per thread of latency-bound column plans (the tuning's)
  int row_latency_items = 0;     //!< items of latency-bound row plans (the tuning's)
  int row_short_items = 0;       //!< items of latency-bound rows of short chains (the tuning's)
  bool arrays_aligned = true;  //!< inputs and outputs 16-byte aligned: the pipelined kernel may run
};

//! A launch plan. Describes a layout (tiles over [outer, len, inner]), not a special case.
struct plan {
  strategy kind = strategy::empty;
  int variant = -1;            //!< the kernel that runs it: an index into scan_types::variants
  int block_threads = 0;       //!< threads per block (lanes_x * lanes_y)
  int lanes_x = 0;             //!< rows: threads along the row; columns: threads across columns
  int lanes_y = 0;             //!< rows: 1; columns: threads down the scan axis
  int items = 0;               //!< consecutive scan positions per thread (compile-time policy)
  int vec = 1;                 //!< columns per thread (columns)
  std::int64_t tile_items = 0; //!< rows: elements per tile; columns: scan positions per tile
  std::int64_t tile_cols = 1;  //!< columns per tile
  std::int64_t col_chunks = 1; //!< tiles across inner
  std::int64_t len_tiles = 0;  //!< tiles along len (columns) or along outer*len (rows)
  std::int64_t num_tiles = 0;  //!< blocks launched
  std::size_t smem_bytes = 0;  //!< dynamic shared memory per block
  bool lookback = false;       //!< tiles depend on predecessors through the tile state
  bool lookback_groups = false;  //!< columns: the ordered look-back runs in two levels (tile groups)
  std::size_t temp_bytes = 0;  //!< temp storage: a 16-byte tile counter, then the tile state (0
                               //!< when no tile looks back)
  std::int64_t grid = 0;       //!< blocks launched: num_tiles, or fewer for grid-stride plans
  int device = -1;             //!< the device planned for (device_limits::device)
  int sm_count = 0;            //!< its SMs
  std::int64_t prefetch_tiles = 0;  //!< each tile prefetches into L2 the inputs of the tile this many
                                    //!< tiles later (0: none)
  unsigned first_poll_ns = 0;  //!< a tile's look-back sleeps this long before its first poll
  int lookback_cols = 1;       //!< columns: columns each warp looks back for (lookback_cols_per_warp)
  Shape3 layout{0, 0, 0};      //!< the shape the kernels see (a len-1 scan is a copy: rows of 1)
  bool valid = true;           //!< false when the shape cannot be planned (see error)
  const char* error = nullptr;
};

inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }
inline int next_pow2(std::int64_t v) {
  int p = 1;
  while (p < v && p < (1 << 30)) {
    p *= 2;
  }
  return p;
}
constexpr std::int64_t max_numel = std::int64_t{1} << 62;

//! Whether a shape of positive extents holds more than max_numel elements (checked without overflow).
inline bool too_many_elements(Shape3 shape) {
  return shape.outer > max_numel / shape.len || shape.outer * shape.len > max_numel / shape.inner;
}

//! Rejects shapes that cannot be scanned and flattens a len-1 scan into rows of one (a copy).
//! Returns false when the plan is already final (an error, or nothing to do).
inline bool plan_shape(Shape3& shape, plan& p) {
  const std::int64_t least = std::min({shape.outer, shape.len, shape.inner});
  if (least <= 0) {
    p.valid = least == 0;
    p.error = least == 0 ? nullptr : "negative extent";
    return false;
  }
  if (too_many_elements(shape)) {
    p.valid = false;
    p.error = "more than 2^62 elements";
    return false;
  }
  if (shape.len == 1) {
    shape = Shape3{shape.outer * shape.inner, 1, 1};  // every element is its own row
  }
  p.layout = shape;
  return true;
}

//! Whether blocks of threads * items give fewer than min_tiles tiles over numel elements.
inline bool too_few_tiles(std::int64_t numel, int threads, int items, std::int64_t min_tiles) {
  return ceil_div(numel, std::int64_t{threads} * items) < min_tiles;
}

//! Rows (inner == 1): tiles of threads * items consecutive elements. The block is halved from the
//! kernel's while the problem would give fewer than policy::row_min_tiles_per_sm tiles per SM, so
//! a long row spreads over the chip and many short rows pack into full tiles; latency-bound rows
//! take policy::row_latency_items.
//! The row block's threads and items (into p.items): halved from the kernel's while there would be
//! fewer than min_tiles tiles; at the least block, latency-bound: the short kernel's tiles for rows
//! of at most policy::row_short_max_chain of them, else the latency kernel's.
inline int row_block(plan& p, const scan_types& types, std::int64_t numel, std::int64_t min_tiles) {
  const kernel_variants& kernels = types.variants;
  p.items = kernels.items_of(strategy::rows, true);
  int threads = kernels.at[kernels.find(strategy::rows, p.items)].threads;
  while (threads > policy::row_threads_min && too_few_tiles(numel, threads, p.items, min_tiles)) {
    threads /= 2;
  }
  if (threads > policy::row_threads_min || !too_few_tiles(numel, threads, p.items, min_tiles)) {
    return threads;
  }
  const std::int64_t short_tile = std::int64_t{policy::row_short_threads} * types.row_short_items;
  if (types.row_short_items < p.items && ceil_div(p.layout.len, short_tile) <= policy::row_short_max_chain) {
    p.items = types.row_short_items;
    return policy::row_short_threads;
  }
  if (types.row_latency_items < p.items) {
    p.items = types.row_latency_items;
    return policy::row_latency_threads(types.acc_bytes);
  }
  return threads;
}

inline void plan_rows(plan& p, const scan_types& types, const device_limits& dev) {
  const Shape3 shape = p.layout;
  const std::int64_t numel = shape.outer * shape.len;
  const kernel_variants& kernels = types.variants;
  p.kind = strategy::rows;
  int threads = row_block(p, types, numel, std::int64_t{policy::row_min_tiles_per_sm} * dev.sm_count);
  p.variant = kernels.find(strategy::rows, p.items);
  const std::size_t slice = kernels.at[p.variant].slice_bytes;
  while (threads > 32 && row_smem(threads, types.flagged_bytes, slice).bytes > dev.smem_per_block) {
    threads /= 2;
  }
  p.block_threads = p.lanes_x = threads;
  p.lanes_y = 1;
  p.tile_items = std::int64_t{threads} * p.items;
  p.len_tiles = p.num_tiles = ceil_div(numel, p.tile_items);
  p.smem_bytes = row_smem(threads, types.flagged_bytes, slice).bytes;
  p.lookback = p.num_tiles > 1 && p.tile_items % shape.len != 0;
  if (p.lookback) {
    p.temp_bytes = lookback_temp(p.num_tiles, 1, types.word_bytes, false).bytes;
  }
}

//! One long row through the pipelined kernel (when the problem compiles one, the row is long enough
//! and the arrays are aligned for bulk copies): persistent blocks, tiles of 2 * warps * 32 * items.
//! Temp storage: the ticket word and the tile state, at least what the row plan needs, so that a
//! size asked for before the arrays are known holds either plan.
//! Whether kernel v (-1: none compiled) takes the layout: one row of at least
//! policy::pipelined_rows_min_items, shared memory the device gives, a row kernel for the size query.
inline bool pipelined_takes(int v, Shape3 layout, const scan_types& types, const device_limits& dev) {
  const bool one_long_row = layout.outer == 1 && layout.inner == 1 && layout.len >= policy::pipelined_rows_min_items(types.acc_bytes);
  return v >= 0 && one_long_row && types.variants.at[v].slice_bytes <= dev.smem_optin_per_block &&
         types.variants.items_of(strategy::rows, true) > 0;
}
inline bool plan_pipelined(plan& p, const scan_types& types, const device_limits& dev) {
  const int v = types.variants.find(strategy::pipelined, types.variants.items_of(strategy::pipelined, true));
  if (!types.arrays_aligned || !pipelined_takes(v, p.layout, types, dev)) {
    return false;
  }
  const kernel_variant& k = types.variants.at[v];
  plan rows = p;
  plan_rows(rows, types, dev);
  p.kind = strategy::pipelined;
  p.variant = v;
  p.items = k.items;
  p.block_threads = p.lanes_x = k.threads;
  p.lanes_y = 1;
  p.tile_items = std::int64_t{k.vec} * 32 * k.items;
  p.len_tiles = p.num_tiles = ceil_div(p.layout.len, p.tile_items);
  p.smem_bytes = k.slice_bytes;
  p.lookback = true;  // (the ticket word and the tile state, however many tiles)
  p.temp_bytes = std::max(lookback_temp(p.num_tiles, 1, types.word_bytes, false).bytes, rows.temp_bytes);
  return true;
}

//! Columns (inner > 1): lanes_x threads cover the contiguous columns (vec each), lanes_y the scan
//! axis. Candidate blocks are searched from the largest down; see plan_columns for the passes.
struct column_planner {
  Shape3 shape;
  scan_types types;
  device_limits dev;
  plan base;
  int want_x;            //!< lanes to cover every column group
  int lookback_lanes_x;  //!< widest tile (in lanes) of a plan that looks back
  int min_lanes_x;       //!< tiles at least one 32-byte sector wide
  std::int64_t min_tiles;

  column_planner(const plan& p, const scan_types& t, const device_limits& d)
      : shape(p.layout), types(t), dev(d), base(p),
        min_tiles(std::int64_t{policy::column_min_tiles_per_sm} * d.sm_count) {
    base.kind = strategy::columns;
    base.vec = policy::column_vec(t.in_bytes);
    want_x = next_pow2(ceil_div(shape.inner, base.vec));
    const std::int64_t chunks16 = ceil_div(shape.inner, std::int64_t{policy::column_lookback_max_cols(t.in_bytes)});
    const bool one_chain = shape.outer * chunks16 == 1;
    lookback_lanes_x =
        std::max(1, policy::column_lookback_max_cols(t.in_bytes, t.acc_bytes, one_chain, t.exact) / base.vec);
    min_lanes_x = std::max(1, 32 / (base.vec * static_cast<int>(t.in_bytes)));
  }

  //! Rows per thread of the widest kernel, fewer when len is shorter (no thread covers rows past
  //! the end).
  int max_items() const { return std::min(types.variants.items_of(strategy::columns, true), next_pow2(shape.len)); }
  //! The warp slice of the kernel that runs `items` rows per thread (its odd twin's is the same).
  std::size_t slice_bytes(int items) const { return types.variants.at[types.variants.columns(items, false)].slice_bytes; }
  std::size_t smem(const plan& q, int lanes_y, int lanes_x) const {
    return column_smem(lanes_x, lanes_y, lanes_x * q.vec, types.acc_bytes, slice_bytes(q.items)).bytes;
  }
  //! Whether every chain of a plan finds its prefix within one look-back window of the kernel.
  static bool fits_window(const plan& q) { return q.len_tiles <= lookback_window(q.lookback_cols); }

  //! The tile of `threads` threads, at most cap_x lanes across: a warp across the columns reads 32
  //! whole vectors of a row, wider blocks go down the scan axis (at most want_y thread rows), every
  //! block holds whole warps; then fit to the shared memory.
  void shape_tile(plan& q, int threads, int cap_x, int want_y) const {
    int lanes_x = std::min(cap_x, 32);
    int lanes_y = threads / lanes_x;
    if (lanes_y > want_y) {
      lanes_y = want_y;
      lanes_x = std::min(cap_x, threads / lanes_y);
    }
    while (lanes_x * lanes_y < 32) {  // widen where work remains
      (lanes_x < cap_x ? lanes_x : lanes_y) *= 2;
    }
    fit_smem(q, lanes_x, lanes_y);
    set_tile(q, lanes_x, lanes_y);
  }

  //! Over the shared memory, fewer thread rows unless that would split a len the tile covers (and
  //! the tile is wider than a look-back's), then fewer columns.
  void fit_smem(const plan& q, int& lanes_x, int& lanes_y) const {
    while (smem(q, lanes_y, lanes_x) > dev.smem_per_block && lanes_x * lanes_y > 32) {
      (sheds_rows(q, lanes_x, lanes_y) ? lanes_y : lanes_x) /= 2;
    }
  }
  //! Whether a tile over the shared memory sheds thread rows (rather than columns).
  bool sheds_rows(const plan& q, int lanes_x, int lanes_y) const {
    const bool splits_len = std::int64_t{lanes_y} * q.items >= shape.len && std::int64_t{lanes_y / 2} * q.items < shape.len;
    return lanes_y > 1 && (lanes_x <= lookback_lanes_x || !splits_len);
  }

  //! The plan's tile from its lanes.
  void set_tile(plan& q, int lanes_x, int lanes_y) const {
    q.lanes_x = lanes_x;
    q.lanes_y = lanes_y;
    q.block_threads = lanes_x * lanes_y;
    q.tile_items = std::int64_t{lanes_y} * q.items;
    q.tile_cols = std::int64_t{lanes_x} * q.vec;
    q.col_chunks = ceil_div(shape.inner, q.tile_cols);
    q.len_tiles = ceil_div(shape.len, q.tile_items);
    const std::int64_t chains = shape.outer * q.col_chunks;
    q.num_tiles = chains > max_numel / q.len_tiles ? max_numel : chains * q.len_tiles;
    q.lookback_cols = lookback_cols_per_warp(static_cast<int>(q.tile_cols), q.block_threads / 32,
                                             types.exact ? policy::column_lookback_min_cols_per_warp<true>
                                                         : policy::column_lookback_min_cols_per_warp<false>);
  }

  //! A plan with several tiles a chain, as narrow as a look-back tile, whose chains exceed a window.
  bool chains_too_long(const plan& q) const { return q.len_tiles > 1 && q.lanes_x <= lookback_lanes_x && !fits_window(q); }
  //! A plan the search keeps: no look-back, chains within a window, or tiles enough.
  bool settled(const plan& q) const { return !q.lookback || fits_window(q) || q.num_tiles >= min_tiles; }

  //! The largest block (from start_threads down to one warp) that still gives min_tiles tiles,
  //! unless a smaller one would make a chain longer than one look-back window.
  plan largest_block(plan q, int start_threads, int cap_x) const {
    const int want_y = next_pow2(ceil_div(shape.len, q.items));
    plan wider;
    bool have_wider = false;
    for (int threads = start_threads;; threads /= 2) {
      shape_tile(q, threads, cap_x, want_y);
      if (have_wider && chains_too_long(q)) {
        return wider;
      }
      if (threads <= 32 || q.num_tiles >= min_tiles) {
        return q;
      }
      wider = q;
      have_wider = true;
    }
  }

  //! A look-back plan wider than a look-back tile, from a pass that allowed it.
  bool too_wide_to_look_back(const plan& q, int max_lanes_x) const {
    return q.lookback && q.lanes_x > lookback_lanes_x && max_lanes_x > lookback_lanes_x;
  }

  //! Passes: uncapped; then, for a plan that looks back, at most lookback_lanes_x wide; then, for a
  //! small problem whose chains exceed a window, narrower tiles (more, shorter chains) if one fits.
  plan search(int start_threads, int items) const {
    plan q = base;
    q.items = items;
    plan too_long;  // the first look-back plan whose chains exceed a window
    bool have_too_long = false;
    for (int max_lanes_x = 1 << 30;;) {
      q = largest_block(q, start_threads, std::min(want_x, max_lanes_x));
      q.lookback = q.len_tiles > 1;
      if (too_wide_to_look_back(q, max_lanes_x)) {
        max_lanes_x = lookback_lanes_x;  // a look-back tile is at most lookback_lanes_x wide
        continue;
      }
      if (settled(q)) {
        return q;
      }
      if (!have_too_long) {
        too_long = q;
        have_too_long = true;
      }
      if (q.lanes_x <= min_lanes_x) {
        return too_long;  // no narrower plan fits: keep the first
      }
      max_lanes_x = q.lanes_x / 2;
    }
  }
};

//! A column plan's look-back state: ordered sums along few chains look back in two levels.
inline void plan_column_state(plan& p, const scan_types& types) {
  if (p.lookback) {
    p.lookback_groups = !types.exact && p.layout.outer * p.col_chunks <= policy::column_grouped_lookback_max_chains;
    p.temp_bytes = lookback_temp(p.num_tiles, p.tile_cols, types.word_bytes, p.lookback_groups).bytes;
  }
}

//! The column plan: the search at the kernel's rows per thread; latency-bound plans with fewer rows
//! (policy::column_items_latency); look-backs along many chains from small blocks (more tiles in
//! flight per SM); then the plan's shared memory and temp storage.
//! A look-back plan of larger blocks along many chains (policy::column_many_chains_per_sm or more
//! per SM), which small blocks serve better (more tiles in flight per SM).
inline bool many_chains(const plan& p, const device_limits& dev) {
  return p.lookback && p.block_threads > policy::column_threads_many_chains &&
         p.layout.outer * p.col_chunks >= std::int64_t{policy::column_many_chains_per_sm} * dev.sm_count;
}
inline void plan_columns(plan& p, const scan_types& types, const device_limits& dev) {
  const column_planner planner(p, types, dev);
  const Shape3 shape = p.layout;
  const int max_items = planner.max_items();
  p = planner.search(policy::column_threads, max_items);
  const int latency_items = std::min(max_items, types.column_latency_items);
  if (latency_items < p.items && p.num_tiles < planner.min_tiles) {
    p = planner.search(policy::column_threads, latency_items);
  }
  if (many_chains(p, dev)) {
    p = planner.search(policy::column_threads_many_chains, p.items);
  }
  p.smem_bytes = planner.smem(p, p.lanes_y, p.lanes_x);
  p.variant = types.variants.columns(p.items, p.tile_cols > shape.inner);
  plan_column_state(p, types);
}

//! Long chains in large grids sleep before a look-back's first poll: a tile's nearest predecessors
//! are rarely done by then.
inline unsigned first_poll_ns(const plan& p, const device_limits& dev) {
  const bool long_chains = p.kind == strategy::rows || p.layout.outer * p.col_chunks < dev.sm_count;
  return p.lookback && long_chains && p.num_tiles >= policy::lookback_sleep_min_tiles ? policy::lookback_first_poll_ns : 0u;
}

//! The L2 prefetch distance in tiles: row plans only, and only those with more tiles than run at
//! once (policy::row_min_tiles_per_sm an SM). Column plans lost nothing without it (their float16
//! scans gained), and short row plans fetched tiles other blocks were already loading.
inline std::int64_t prefetch_distance(const plan& p, int sm_count) {
  const std::int64_t ahead = std::max(1, sm_count / policy::prefetch_sm_divisor);
  const bool many = p.num_tiles >= std::int64_t{policy::row_min_tiles_per_sm} * sm_count && p.num_tiles > ahead;
  return p.kind == strategy::rows && many ? ahead : 0;
}

//! The grid (blocks loop over tiles when there are more than a grid holds), look-back polling and
//! the L2 prefetch distance.
inline void plan_launch(plan& p, const device_limits& dev) {
  p.device = dev.device;
  p.sm_count = dev.sm_count;
  if (p.kind == strategy::pipelined) {  // persistent: the blocks that fit at once
    p.grid = std::min<std::int64_t>(p.num_tiles, std::int64_t{policy::pipelined_rows_blocks_per_sm} * dev.sm_count);
    return;
  }
  p.grid = std::min(p.num_tiles, std::int64_t{dev.max_grid_x});
  p.first_poll_ns = first_poll_ns(p, dev);
  if (p.lookback) {
    p.smem_bytes = std::max<std::size_t>(p.smem_bytes, 16);  // the tile ticket's scratch (tile_state.cuh, for_each_tile)
  }
  p.prefetch_tiles = prefetch_distance(p, dev.sm_count);
  if (p.smem_bytes > dev.smem_per_block) {
    p.valid = false;
    p.error = "no block shape fits the shared memory";
  }
}

//! Rows per range of the run sums over S rows of `groups` column groups: enough ranges for
//! policy::run_sum_threads threads, at least policy::run_sum_min_rows rows each.
inline std::int64_t run_sum_rows(std::int64_t S, std::int64_t groups) {
  const std::int64_t ranges_wanted = std::max<std::int64_t>(1, policy::run_sum_threads / std::max<std::int64_t>(groups, 1));
  return std::max(policy::run_sum_min_rows, (S + ranges_wanted - 1) / ranges_wanted);
}

//! A row plan for inner == 1 (problems that compile a row kernel), else a column plan.
inline void plan_scan(plan& p, const scan_types& types, const device_limits& dev) {
  if (p.layout.inner == 1 && types.variants.items_of(strategy::rows, true) > 0) {
    plan_rows(p, types, dev);
  } else {
    plan_columns(p, types, dev);
  }
}

//! Solves the launch configuration of a scan along `len` of `shape`: a row kernel for inner == 1
//! (problems that compile one), else a column kernel.
inline plan make_plan(Shape3 shape, scan_types types, device_limits dev = {}) {
  plan p;
  if (!plan_shape(shape, p)) {
    return p;
  }
  if (!plan_pipelined(p, types, dev)) {
    plan_scan(p, types, dev);
  }
  plan_launch(p, dev);
  return p;
}

}  // namespace detail
}  // namespace FASTSCAN_NAMESPACE
