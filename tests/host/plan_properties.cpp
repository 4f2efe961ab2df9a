// Properties of the launch-config solver (plan.hpp) over broad sweeps of shapes, element sizes and
// devices: every plan launchable by the kernel it names, its tiles covering every element exactly
// once, within the device's shared memory, its look-back consistent with what the kernels do.
// The properties name the policy's constants, never their values, so a retune that keeps the
// kernels' contracts keeps these tests green.
#include "entry_types.hpp"

#include "../support/host_reference.hpp"

#include <fastscan/plan/explain.hpp>
#include <fastscan/plan/plan.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>

using namespace fstest;
using fastscan::detail::device_limits;
using fastscan::detail::plan;
using fastscan::detail::scan_types;
using fastscan::Shape3;
using fastscan::detail::strategy;
namespace policy = fastscan::policy;

namespace {

//! Limits by name, whatever the order of device_limits' fields.
device_limits limits(int sms, std::int64_t max_grid_x, std::size_t smem_per_block) {
  device_limits d;
  d.sm_count = sms;
  d.max_grid_x = max_grid_x;
  d.smem_per_block = smem_per_block;
  return d;
}

const device_limits h200 = limits(132, 2147483647, 48 * 1024);
//! H200-like, a small GPU, one SM under the old 65535-block grid limit, a device with little shared
//! memory (and the old grid limit), and one that allows every block the opt-in maximum.
const std::vector<device_limits> devices = {
    h200, limits(16, 2147483647, 48 * 1024), limits(1, 65535, 48 * 1024), limits(132, 65535, 24 * 1024),
    limits(132, 2147483647, 227 * 1024)};

bool pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

//! Synthetic element sizes for the solver: the kernels a problem of these sizes would compile, as
//! dispatch lists them (plan/variants.hpp), with the exchange slices of the kernels' layouts: a row
//! kernel and its latency twin where the row kernel takes the size (its slice `row_slice`, else
//! `slice`), the column kernels (a short one, the plain one, a wide one of `wide_items` rows).
struct sizes {
  std::size_t in, acc, word, flagged, slice;
  bool in_place = false;
  std::size_t row_slice = 0;
  int wide_items = 0;
  std::size_t wide_slice = 0;
};
scan_types synthetic(const sizes& z, bool exact = true) {
  using fastscan::detail::kernel_variant;
  scan_types t{z.in, z.acc, z.word, z.flagged, z.in_place, exact, {}, policy::column_items_latency(z.in, z.acc)};
  if (policy::row_kernel_takes(z.in)) {
    const int items = policy::row_items(z.in, z.acc, z.in_place);
    const int latency = policy::row_latency_items(z.in, z.acc);
    const int short_items = policy::row_short_items(z.in, z.acc);
    const int threads = policy::row_kernel_bounds(z.in_place, z.in, exact, z.acc).threads;
    const std::size_t slice = z.row_slice > 0 ? z.row_slice : z.slice;
    t.variants.add({strategy::rows, items, 1, threads, slice, false});
    if (latency != items) t.variants.add({strategy::rows, latency, 1, threads, slice, false});
    if (short_items < items && short_items != latency) t.variants.add({strategy::rows, short_items, 1, threads, slice, false});
    t.row_latency_items = latency;
    t.row_short_items = short_items;
  }
  const int vec = policy::column_vec(z.in);
  const int plain = policy::column_items(z.in);
  const int small = std::min(policy::column_short_items, plain);
  if (small < plain) t.variants.add({strategy::columns, small, vec, policy::column_threads, z.slice, false});
  t.variants.add({strategy::columns, plain, vec, policy::column_threads, z.slice, false});
  if (z.wide_items > plain) t.variants.add({strategy::columns, z.wide_items, vec, policy::column_threads, z.wide_slice, false});
  return t;
}

//! Synthetic sizes and what dispatch passes for every entry point's problem, each synthetic one
//! also as an operator that is not exactly associative.
std::vector<scan_types> all_types() {
  std::vector<sizes> z = {
      {1, 8, 16, 16, 4608}, {1, 16, 32, 24, 4608}, {2, 4, 16, 8, 4608}, {2, 16, 32, 24, 4608}, {4, 4, 16, 8, 4608},
      {4, 16, 32, 24, 4608}, {8, 8, 16, 16, 4608}, {8, 16, 32, 24, 4608}, {16, 16, 32, 20, 4608},
      {32, 32, 64, 40, 4608},
      // Row outputs formed in place (more items per thread, a wider exchange row).
      {1, 1, 16, 9, 4608, true, 8704}, {2, 4, 16, 8, 4608, true, 8704}, {4, 4, 16, 8, 4608, true, 8704},
      {8, 8, 16, 16, 4608, true, 8704},
      // Column rows of exact sums formed in place: more rows per thread in a wide kernel.
      {8, 8, 16, 16, 4608, true, 8704, 16, 8704}, {4, 4, 16, 8, 4608, true, 8704, 16, 8704}};
  // Sizes that are neither powers of two nor divisors of 16.
  for (std::size_t bytes : {3, 5, 6, 7, 12, 24}) {
    z.push_back({bytes, bytes, 16 * ((bytes + 7) / 8), bytes + 4, 4608});
  }
  std::vector<scan_types> t;
  for (const bool exact : {true, false}) {
    for (const auto& one : z) t.push_back(synthetic(one, exact));
  }
  for (const auto& e : entry_point_types()) {
    t.push_back(e.types);
  }
  return t;
}

std::string types_name(const scan_types& t) {
  std::ostringstream os;
  os << "in " << t.in_bytes << " acc " << t.acc_bytes << (t.rows_in_place ? " in place" : "") << (t.exact ? "" : " ordered")
     << " column items " << t.variants.items_of(strategy::columns, true);
  return os.str();
}

std::string device_name(const device_limits& d) {
  return std::to_string(d.sm_count) + " SMs, grid " + std::to_string(d.max_grid_x) + ", " + std::to_string(d.smem_per_block) +
         " bytes of shared memory";
}

//! Columns one warp of a column tile looks back for: the kernel reads them from the plan
//! (column_scan_params::lookback_cols), the solver sets them by detail/layout.hpp.
int kernel_lookback_cols_per_warp(const plan& p, bool) { return p.lookback_cols; }

//! The look-back window of that warp: one predecessor per lane and column, 32 / columns tiles deep
//! (device/tile_state.cuh, exclusive_prefix).
int kernel_lookback_window(const plan& p, bool exact) { return 32 / kernel_lookback_cols_per_warp(p, exact); }

// Every plan of a sweep is checked on every property; Catch hears of one, with the plan's context,
// only when it fails (a million plans' passing CHECKs would take most of the run).
#define PLAN_CHECK(...)             \
  do {                              \
    if (!(__VA_ARGS__)) {           \
      INFO(context());              \
      CHECK(__VA_ARGS__);           \
    }                               \
  } while (false)
#define PLAN_REQUIRE(...)           \
  do {                              \
    if (!(__VA_ARGS__)) {           \
      INFO(context());              \
      REQUIRE(__VA_ARGS__);         \
    }                               \
  } while (false)

//! Every property of one plan that needs no enumeration of its tiles.
//! A pipelined plan: one long row of aligned arrays, persistent blocks that fit two to an SM with
//! the shared memory they opt in to, tiles of the kernel's squad that cover the row once, and temp
//! storage for the tickets, the tile state and the row plan that misaligned arrays would take.
template <class Context>
void check_pipelined(const plan& p, Shape3 s, const scan_types& types, const device_limits& dev, Context&& context) {
  const auto& k = types.variants.at[p.variant];
  const std::int64_t numel = s.outer * s.len * s.inner;
  PLAN_CHECK(k.kind == strategy::pipelined);
  PLAN_CHECK(types.arrays_aligned);
  PLAN_CHECK(p.layout.outer == 1);
  PLAN_CHECK(p.layout.inner == 1);
  PLAN_CHECK(numel >= policy::pipelined_rows_min_items(types.acc_bytes));
  PLAN_CHECK(p.block_threads == k.threads);
  PLAN_CHECK(k.threads == 2 * 32 * k.vec + 64);  // two squads, the producer and the look-back warp
  PLAN_CHECK(k.items % 2 == 1);                  // a warp's threads read different banks
  PLAN_CHECK(p.tile_items == std::int64_t{k.vec} * 32 * k.items);
  PLAN_CHECK(p.num_tiles * p.tile_items >= numel);
  PLAN_CHECK((p.num_tiles - 1) * p.tile_items < numel);
  PLAN_CHECK(p.grid == std::min<std::int64_t>(p.num_tiles, std::int64_t{policy::pipelined_rows_blocks_per_sm} * dev.sm_count));
  PLAN_CHECK(p.smem_bytes == k.slice_bytes);
  PLAN_CHECK(p.smem_bytes <= dev.smem_optin_per_block);
  PLAN_CHECK(p.lookback);
  PLAN_CHECK(p.temp_bytes >= 16 + static_cast<std::size_t>(p.num_tiles) * types.word_bytes);
  scan_types misaligned = types;
  misaligned.arrays_aligned = false;
  const plan rows = fastscan::detail::make_plan(s, misaligned, dev);
  PLAN_CHECK(rows.kind == strategy::rows);
  PLAN_CHECK(p.temp_bytes >= rows.temp_bytes);
}

plan check_plan(Shape3 s, const scan_types& types, const device_limits& dev, const std::string& where) {
  const auto p = fastscan::detail::make_plan(s, types, dev);
  const auto context = [&] { return where + " " + shape_name(s) + " " + (p.error ? p.error : ""); };
  PLAN_REQUIRE(p.valid);
  const std::int64_t numel = s.outer * s.len * s.inner;
  if (numel == 0) {
    PLAN_CHECK(p.kind == strategy::empty);
    return p;
  }
  const auto l = p.layout;
  PLAN_CHECK(l.outer * l.len * l.inner == numel);
  // Launchable: whole warps, within the hardware's block and grid limits.
  PLAN_CHECK(p.block_threads % 32 == 0);
  PLAN_CHECK(p.block_threads >= 32);
  PLAN_CHECK(p.block_threads <= 1024);
  PLAN_CHECK(p.lanes_x * p.lanes_y == p.block_threads);
  PLAN_CHECK(p.grid >= 1);
  PLAN_CHECK(p.grid <= dev.max_grid_x);
  if (p.kind == strategy::pipelined) {
    check_pipelined(p, s, types, dev, context);
    return p;
  }
  PLAN_CHECK(pow2(p.lanes_x));
  PLAN_CHECK(pow2(p.lanes_y));
  // Blocks loop over tiles only when the grid cannot hold one per tile (dispatch then takes tiles
  // from a counter).
  PLAN_CHECK(p.grid == std::min(p.num_tiles, dev.max_grid_x));
  PLAN_CHECK(p.smem_bytes <= dev.smem_per_block);
  PLAN_CHECK(p.prefetch_tiles >= 0);
  PLAN_CHECK(p.prefetch_tiles < std::max<std::int64_t>(p.num_tiles, 1));
  // Only row plans prefetch, and only past the tiles that run at once.
  PLAN_CHECK((p.prefetch_tiles == 0 || p.kind == strategy::rows));
  PLAN_CHECK((p.prefetch_tiles == 0 || p.num_tiles >= std::int64_t{policy::row_min_tiles_per_sm} * dev.sm_count));
  if (!p.lookback) {
    PLAN_CHECK(p.temp_bytes == 0);
    PLAN_CHECK(p.first_poll_ns == 0u);
    PLAN_CHECK(!(p.lookback_groups));
  }
  // The temp-storage bound the README promises: a 16-byte counter and at most one tile-state word
  // (16 bytes per 8 of the accumulator) per 4 elements.
  PLAN_CHECK(p.temp_bytes <= 16 + types.word_bytes * static_cast<std::size_t>((numel + 3) / 4));
  // The first poll sleeps only along long chains (policy::lookback_sleep_min_tiles tiles, fewer
  // column chains than SMs).
  if (p.first_poll_ns != 0u) {
    PLAN_CHECK(p.num_tiles >= policy::lookback_sleep_min_tiles);
    PLAN_CHECK((p.kind == strategy::rows || l.outer * p.col_chunks < dev.sm_count));
  }
  // The plan names a kernel of the problem's list, of its kind.
  const auto& kernels = types.variants;
  PLAN_REQUIRE(p.variant >= 0);
  PLAN_REQUIRE(p.variant < kernels.count);
  const auto& k = kernels.at[p.variant];
  PLAN_CHECK(k.kind == p.kind);
  PLAN_CHECK(p.block_threads <= k.threads);  // its launch bounds: a larger block would not launch
  PLAN_CHECK(p.smem_bytes >= static_cast<std::size_t>(p.block_threads / 32) * k.slice_bytes);
  if (p.kind == strategy::rows) {
    PLAN_CHECK(l.inner == 1);
    PLAN_CHECK(pow2(static_cast<std::int64_t>(types.in_bytes)));  // the row kernel stages power-of-two sizes only
    PLAN_CHECK(p.lanes_y == 1);
    PLAN_CHECK(p.tile_items == std::int64_t{p.block_threads} * p.items);
    PLAN_CHECK(p.items == k.items);
    PLAN_CHECK(p.items * types.in_bytes <= 256);  // one exchange row per thread
    const int most_items = kernels.items_of(strategy::rows, true);
    if (p.items != most_items) {
      // The other row kernels: the latency and short ones, only for problems too small for
      // row_min_tiles_per_sm tiles per SM at the full items and the smallest block; the short one
      // only for rows of at most row_short_max_chain of its tiles.
      PLAN_REQUIRE((p.items == types.row_latency_items || p.items == types.row_short_items));
      PLAN_CHECK(fastscan::detail::ceil_div(numel, std::int64_t{policy::row_threads_min} * most_items) <
                 std::int64_t{policy::row_min_tiles_per_sm} * dev.sm_count);
      // ... and every such row takes it: its look-back reaches all predecessors in one poll.
      const std::int64_t short_chain =
          fastscan::detail::ceil_div(l.len, std::int64_t{policy::row_short_threads} * types.row_short_items);
      if (types.row_short_items != types.row_latency_items) {
        PLAN_CHECK((p.items == types.row_short_items) == (short_chain <= policy::row_short_max_chain));
      }
      if (p.items == types.row_short_items) {
        PLAN_CHECK(p.block_threads <= policy::row_short_threads);  // (halved where shared memory is short)
      }
    }
    // Rows short of row_min_tiles_per_sm tiles per SM run the solver's smallest blocks.
    if (p.num_tiles < std::int64_t{policy::row_min_tiles_per_sm} * dev.sm_count) {
      PLAN_CHECK(p.block_threads <= std::max({policy::row_threads_min, policy::row_short_threads,
                                              policy::row_latency_threads(types.acc_bytes)}));
    }
    // Tiles cover every element exactly once.
    PLAN_CHECK(p.num_tiles * p.tile_items >= numel);
    PLAN_CHECK((p.num_tiles - 1) * p.tile_items < numel);
    PLAN_CHECK(p.lookback == (p.num_tiles > 1 && p.tile_items % l.len != 0));  // tiles that start rows need none
    PLAN_CHECK(!(p.lookback_groups));
    if (p.lookback) {
      PLAN_CHECK(p.temp_bytes >= 16 + static_cast<std::size_t>(p.num_tiles) * types.word_bytes);
    }
  } else {
    PLAN_REQUIRE(p.kind == strategy::columns);
    PLAN_CHECK(pow2(p.vec));
    PLAN_CHECK(p.vec == k.vec);  // the VEC its kernel is compiled for
    PLAN_CHECK(pow2(p.tile_cols));
    PLAN_CHECK(p.tile_cols == std::int64_t{p.lanes_x} * p.vec);
    PLAN_CHECK(p.tile_items == std::int64_t{p.lanes_y} * p.items);
    // Rows per thread: a power of two within its kernel's, and no thread's rows all past the end.
    // The kernel is the one of fewest rows that holds them, or its odd twin for rows of the plane
    // narrower than the tile that the plan fills.
    PLAN_CHECK(p.items >= 1);
    PLAN_CHECK(pow2(p.items));
    PLAN_CHECK(p.items <= k.items);
    for (int i = 0; i < kernels.count; ++i) {
      const auto& other = kernels.at[i];
      PLAN_CHECK(!(other.kind == strategy::columns && !other.odd && other.items >= p.items && other.items < k.items));
    }
    PLAN_CHECK((!k.odd || (p.tile_cols > l.inner && p.items == k.items)));
    const int kernel_items = kernels.items_of(strategy::columns, true);
    PLAN_CHECK((p.items == 1 || std::int64_t{p.items} / 2 < l.len));
    // All of the kernel's rows, or the latency plans' (policy::column_items_latency).
    const int full_items = std::min(kernel_items, fastscan::detail::next_pow2(l.len));
    PLAN_CHECK((p.items == full_items ||
           p.items == std::min(full_items, types.column_latency_items)));
    const auto warp_rows = static_cast<std::size_t>(p.lanes_x >= 32 ? p.lanes_y : p.lanes_y * p.lanes_x / 32);
    PLAN_CHECK(p.smem_bytes >= warp_rows * p.tile_cols * types.acc_bytes + p.tile_cols * types.acc_bytes + p.tile_cols);
    // Tiles cover every column and row exactly once.
    PLAN_CHECK(p.col_chunks * p.tile_cols >= l.inner);
    PLAN_CHECK((p.col_chunks - 1) * p.tile_cols < l.inner);
    PLAN_CHECK(p.len_tiles * p.tile_items >= l.len);
    PLAN_CHECK((p.len_tiles - 1) * p.tile_items < l.len);
    PLAN_CHECK(p.num_tiles == l.outer * p.col_chunks * p.len_tiles);
    PLAN_CHECK(p.lookback == (p.len_tiles > 1));
    const std::int64_t chains = l.outer * p.col_chunks;
    if (p.lookback) {
      // One warp's look-back covers a tile's columns a power of two at a time, every column by
      // some warp, at most a warp's lanes of them (device/column_scan.cuh).
      PLAN_CHECK(p.tile_cols <= 32);
      const int per_warp = kernel_lookback_cols_per_warp(p, types.exact);
      PLAN_CHECK(pow2(per_warp));
      PLAN_CHECK(per_warp <= p.tile_cols);
      PLAN_CHECK(std::int64_t{per_warp} * (p.block_threads / 32) >= p.tile_cols);
      // No wider than the policy's look-back tile for this scan (more columns than that made
      // fewer, longer chains).
      const bool one_chain =
          l.outer * fastscan::detail::ceil_div(l.inner, std::int64_t{policy::column_lookback_max_cols(types.in_bytes)}) == 1;
      PLAN_CHECK(p.tile_cols <=
            std::max<std::int64_t>(p.vec, policy::column_lookback_max_cols(types.in_bytes, types.acc_bytes, one_chain, types.exact)));
      // Along at least one chain per SM, blocks start from the small many-chains size.
      if (chains >= std::int64_t{policy::column_many_chains_per_sm} * dev.sm_count) {
        PLAN_CHECK(p.block_threads <= policy::column_threads_many_chains);
      }
      // Ordered operators along a few chains look back in two levels, with state for both.
      PLAN_CHECK(p.lookback_groups == (!types.exact && chains <= policy::column_grouped_lookback_max_chains));
      PLAN_CHECK(p.temp_bytes == 16 + static_cast<std::size_t>(p.num_tiles * p.tile_cols) * types.word_bytes *
                                          (p.lookback_groups ? 2 : 1));
      PLAN_CHECK(p.temp_bytes >= 16 + static_cast<std::size_t>(p.num_tiles * p.tile_cols) * types.word_bytes);
    }
  }
  return p;
}

//! Marks what each thread of each tile covers, as the kernels map tiles and threads to elements
//! (device/row_scan.cuh, device/column_scan.cuh), and requires every element exactly once.
void check_coverage(Shape3 s, const scan_types& types, const device_limits& dev) {
  INFO(types_name(types) << ", " << device_name(dev) << ", " << shape_name(s));
  const auto p = fastscan::detail::make_plan(s, types, dev);
  REQUIRE(p.valid);
  const auto l = p.layout;
  const std::int64_t numel = s.outer * s.len * s.inner;
  std::vector<unsigned char> seen(static_cast<std::size_t>(numel), 0);
  std::int64_t marked = 0;
  auto mark = [&](std::int64_t at) {
    ++seen[static_cast<std::size_t>(at)];
    ++marked;
  };
  if (p.kind == strategy::rows) {
    for (std::int64_t tile = 0; tile < p.num_tiles; ++tile) {
      for (int t = 0; t < p.block_threads; ++t) {
        const std::int64_t first = tile * p.tile_items + std::int64_t{t} * p.items;
        for (std::int64_t i = first; i < std::min(first + p.items, numel); ++i) mark(i);
      }
    }
  } else if (p.kind == strategy::pipelined) {
    for (std::int64_t tile = 0; tile < p.num_tiles; ++tile) {
      for (std::int64_t i = tile * p.tile_items; i < std::min((tile + 1) * p.tile_items, numel); ++i) mark(i);
    }
  } else if (p.kind == strategy::columns) {
    const std::int64_t chains = l.outer * p.col_chunks;
    for (std::int64_t tile = 0; tile < p.num_tiles; ++tile) {
      const std::int64_t k = tile / chains;  // position along the chain
      const std::int64_t chain = tile % chains;
      const std::int64_t o = chain / p.col_chunks;
      const std::int64_t chunk = chain % p.col_chunks;
      for (int ty = 0; ty < p.lanes_y; ++ty) {
        for (int tx = 0; tx < p.lanes_x; ++tx) {
          const std::int64_t row0 = k * p.tile_items + std::int64_t{ty} * p.items;
          const std::int64_t col0 = chunk * p.tile_cols + std::int64_t{tx} * p.vec;
          for (std::int64_t r = row0; r < std::min(row0 + p.items, l.len); ++r) {
            for (std::int64_t c = col0; c < std::min(col0 + p.vec, l.inner); ++c) mark((o * l.len + r) * l.inner + c);
          }
        }
      }
    }
  }
  CHECK(marked == numel);
  CHECK(std::all_of(seen.begin(), seen.end(), [](unsigned char n) { return n == 1; }));
}

}  // namespace

TEST_CASE("every plan is launchable and keeps the kernels' contracts", "[host][plan]") {
  const auto types = all_types();
  std::vector<std::int64_t> extents = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 1000, 4097, 65536, 1 << 20};
  for (std::int64_t big : {std::int64_t{1} << 31, (std::int64_t{1} << 31) + 1, std::int64_t{1} << 40}) {
    extents.push_back(big);
  }
  // What the sweep reached, so that every property above met plans it constrains.
  bool rows = false, columns = false, row_lookback = false, column_lookback = false, grouped = false, capped_grid = false,
       sleeps = false, latency_rows = false, wide_columns = false;
  for (const auto& dev : devices) {
    for (const auto& t : types) {
      const std::string where = types_name(t) + ", " + device_name(dev) + ",";
      for (std::int64_t outer : extents) {
        for (std::int64_t len : extents) {
          for (std::int64_t inner : extents) {
            // Up to 2^40 elements, every split of them.
            if (outer != 0 && len != 0 && inner != 0 &&
                (outer > (std::int64_t{1} << 40) / len || outer * len > (std::int64_t{1} << 40) / inner)) {
              continue;
            }
            const plan p = check_plan({outer, len, inner}, t, dev, where);
            rows = rows || p.kind == strategy::rows;
            columns = columns || p.kind == strategy::columns;
            row_lookback = row_lookback || (p.kind == strategy::rows && p.lookback);
            column_lookback = column_lookback || (p.kind == strategy::columns && p.lookback);
            grouped = grouped || p.lookback_groups;
            capped_grid = capped_grid || p.grid < p.num_tiles;
            sleeps = sleeps || p.first_poll_ns > 0;
            latency_rows = latency_rows || (p.kind == strategy::rows && p.items != t.variants.items_of(strategy::rows, true));
            wide_columns = wide_columns || (p.kind == strategy::columns && p.items > policy::column_items(t.in_bytes));
          }
        }
      }
    }
  }
  CHECK(rows);
  CHECK(columns);
  CHECK(row_lookback);
  CHECK(column_lookback);
  CHECK(grouped);
  CHECK(capped_grid);
  CHECK(sleeps);
  CHECK(latency_rows);
  CHECK(wide_columns);
}

TEST_CASE("tiles cover every element exactly once", "[host][plan]") {
  const auto types = all_types();
  const std::vector<std::int64_t> extents = {1, 2, 3, 5, 17, 32, 33, 100, 257, 1000, 4099};
  for (const auto& dev : {devices[0], devices[1], devices[3]}) {
    for (const auto& t : types) {
      for (std::int64_t outer : extents) {
        for (std::int64_t len : extents) {
          for (std::int64_t inner : extents) {
            if (outer * len * inner <= 10000) {
              check_coverage({outer, len, inner}, t, dev);
            }
          }
        }
      }
    }
  }
  // Long rows and columns over many tiles, a grid smaller than the tiles.
  for (const Shape3 s : {Shape3{1, 1 << 20, 1}, Shape3{3, 300001, 1}, Shape3{1, 200003, 3}, Shape3{2, 65537, 16},
                         Shape3{1, 4099, 257}}) {
    for (const auto& t : {synthetic({8, 16, 32, 24, 4608}), synthetic({4, 4, 16, 8, 4608, true, 8704, 16, 8704}),
                          synthetic({3, 3, 16, 7, 4608})}) {
      check_coverage(s, t, limits(132, 64, 48 * 1024));
    }
  }
}

TEST_CASE("the solver spreads every split over the whole GPU", "[host][plan]") {
  // A single row must never sit on one block (the hard-coded-shape bug): problems of 2^24
  // elements and more get the tiles per SM the solver aims for, whatever the split.
  const auto types = all_types();
  for (const auto& dev : {h200, limits(16, 2147483647, 48 * 1024)}) {
    for (const auto& t : types) {
      for (std::int64_t total : {std::int64_t{1} << 16, std::int64_t{1} << 24, std::int64_t{1} << 26}) {
        for (std::int64_t rows = 1; rows <= total; rows *= 2) {
          for (auto s : {Shape3{rows, total / rows, 1}, Shape3{1, rows, total / rows}}) {
            CAPTURE(shape_name(s), types_name(t), dev.sm_count);
            const auto p = fastscan::detail::make_plan(s, t, dev);
            REQUIRE(p.valid);
            CHECK(p.num_tiles > 1);
            if (total >= (std::int64_t{1} << 24)) {
              const int per_sm = p.kind == strategy::rows ? policy::row_min_tiles_per_sm : policy::column_min_tiles_per_sm;
              CHECK(p.num_tiles >= std::int64_t{per_sm} * dev.sm_count);
            }
          }
        }
      }
    }
  }
}

TEST_CASE("large column scans along a short axis neither look back nor shrink to one warp", "[host][plan]") {
  // Shared memory used to be trimmed by thread rows first, which split a short len over several
  // tiles, and the look-back's narrow tiles then left one-warp blocks (H200, int64 cummax
  // [1, 16, 2^20]: 231 us with 32-thread blocks, 153 us with 256).
  const auto types = all_types();
  for (const auto& dev : {h200, limits(16, 2147483647, 48 * 1024), limits(132, 2147483647, 227 * 1024)}) {
    for (const auto& t : types) {
      for (const std::int64_t numel : {std::int64_t{1} << 24, std::int64_t{1} << 26}) {
        for (std::int64_t len = 2; len <= 64; len *= 2) {
          const Shape3 s{1, len, numel / len};
          CAPTURE(shape_name(s), types_name(t), dev.sm_count, dev.smem_per_block);
          const auto p = fastscan::detail::make_plan(s, t, dev);
          REQUIRE(p.valid);
          CHECK_FALSE(p.lookback);
          CHECK(p.block_threads > 32);
        }
      }
    }
  }
}

TEST_CASE("row kernels' launch bounds are launchable and fit an SM", "[host][plan]") {
  // The occupancy each row kernel's __launch_bounds__ asks for must exist: whole warps, at most
  // 2048 threads per SM (sm_90), and that many blocks' shared memory within an SM's 228 KB (each
  // block reserves 1 KB more).
  constexpr std::size_t sm_smem = 228 * 1024, reserved_per_block = 1024;
  for (const auto& e : entry_point_types()) {
    const auto& t = e.types;
    const int row = t.variants.find(strategy::rows, t.variants.items_of(strategy::rows, true));
    if (row < 0) continue;
    CAPTURE(e.name);
    const auto b = policy::row_kernel_bounds(t.rows_in_place, t.in_bytes, t.exact, t.acc_bytes);
    CHECK(t.variants.at[row].threads == b.threads);  // the list carries the kernel's own bounds
    CHECK(b.threads % 32 == 0);
    CHECK(b.threads >= policy::row_threads_min);
    CHECK(b.threads <= 1024);
    CHECK(b.min_blocks_per_sm >= 1);
    CHECK(b.threads * b.min_blocks_per_sm <= 2048);
    CHECK(b.min_blocks_per_sm * (fastscan::detail::row_smem(b.threads, t.flagged_bytes, t.variants.at[row].slice_bytes).bytes + reserved_per_block) <= sm_smem);
    // The solver starts from the kernel's block, whatever the device allows: a problem large
    // enough for every SM keeps it. (Rows of two: one long row may take the pipelined kernel.)
    for (const auto& dev : {h200, limits(132, 2147483647, 227 * 1024)}) {
      const auto p = fastscan::detail::make_plan({2, std::int64_t{1} << 27, 1}, t, dev);
      REQUIRE(p.kind == strategy::rows);
      CHECK(p.block_threads == b.threads);
    }
  }
}

TEST_CASE("dispatch plans each entry point with its kernels' exactness and slices", "[host][plan]") {
  for (const auto& e : entry_point_types()) {
    CAPTURE(e.name);
    const auto& t = e.types;
    // Float sums (and log-sum-exp) are not exactly associative (bitwise reproducible only in one fixed order), nor
    // are operators on user types unless is_exactly_associative says so; integer sums and cummax are.
    const bool float_sum = e.name.rfind("cumsum float", 0) == 0 || e.name.rfind("cumsum bfloat", 0) == 0 ||
                           e.name.rfind("logcumsumexp", 0) == 0;
    const bool user_type = e.name.find("-byte") != std::string::npos;
    CHECK(t.exact == !(float_sum || user_type));
    // Column kernels of more rows per thread come with slices at least as large; each odd twin
    // follows a kernel of its rows and slice; at most one kernel of each kind and rows.
    const auto& v = t.variants;
    for (int i = 0; i < v.count; ++i) {
      for (int j = 0; j < v.count; ++j) {
        if (i == j || v.at[i].kind != v.at[j].kind) continue;
        CHECK(!(v.at[i].items == v.at[j].items && v.at[i].odd == v.at[j].odd));
        if (v.at[i].kind == strategy::columns && v.at[i].items < v.at[j].items) CHECK(v.at[i].slice_bytes <= v.at[j].slice_bytes);
      }
      if (v.at[i].odd) {
        const int plain = v.find(strategy::columns, v.at[i].items);
        REQUIRE(plain >= 0);
        CHECK(plain < i);
        CHECK(v.at[plain].slice_bytes == v.at[i].slice_bytes);
      }
    }
  }
}

TEST_CASE("small column scans find every prefix within one look-back window", "[host][plan]") {
  // 65536 int64 along axis 0 is latency: a chain longer than the window a look-back warp polls
  // per round trip (32 tiles shared among the columns it looks back for) waits for several round
  // trips. The window is the column kernel's (the plan's lookback_cols, detail/layout.hpp). Where
  // none fits (the largest block at the narrowest tile, one sector wide), the solver keeps it.
  for (const fastscan::detail::scan_types& types : {synthetic({8, 8, 16, 16, 4608}), synthetic({8, 16, 32, 24, 4608})}) {
    for (std::int64_t len = 2; len <= 65536; len *= 2) {
      const Shape3 s{1, len, 65536 / len};
      const auto p = fastscan::detail::make_plan(s, types, h200);
      REQUIRE(p.valid);
      if (p.kind != strategy::columns || !p.lookback) continue;
      CAPTURE(shape_name(s), types_name(types), p.block_threads, p.tile_cols, p.len_tiles,
              kernel_lookback_cols_per_warp(p, types.exact));
      const bool narrowest = p.lanes_x <= std::max(1, 32 / (p.vec * static_cast<int>(types.in_bytes)));
      const bool largest = p.block_threads == policy::column_threads;
      CHECK((p.len_tiles <= kernel_lookback_window(p, types.exact) || (narrowest && largest)));
    }
  }
}

TEST_CASE("run sums cut the rows into ranges for their thread budget, the shortest that fit", "[host][plan]") {
  using fastscan::detail::run_sum_rows;
  namespace policy = fastscan::policy;
  for (const std::int64_t S : {std::int64_t{0}, std::int64_t{1}, std::int64_t{31}, std::int64_t{33}, std::int64_t{70001},
                               std::int64_t{1} << 23, (std::int64_t{1} << 31) + 5}) {
    for (const std::int64_t groups : {1, 3, 16, 128, 1 << 20}) {
      const std::int64_t rows = run_sum_rows(S, groups);
      const std::int64_t ranges = (S + rows - 1) / rows;
      const std::int64_t budget = std::max<std::int64_t>(1, policy::run_sum_threads / groups);
      CAPTURE(S, groups, rows);
      REQUIRE(rows >= policy::run_sum_min_rows);
      REQUIRE(ranges <= budget);                                             // within the thread budget
      REQUIRE((rows == policy::run_sum_min_rows || (rows - 1) * budget < S));  // and no longer than needed
    }
  }
}

TEST_CASE("a plan in words names its region: rows with or without a look-back, columns, copies, nothing, errors",
          "[host][plan][explain]") {
  using fastscan::detail::describe;
  using fastscan::detail::make_plan;
  for (const auto& e : entry_point_types()) {
    CAPTURE(e.name);
    const scan_types& t = e.types;
    const auto words = [&](Shape3 s) { return describe(s, make_plan(s, t, h200), t); };
    const auto has = [](const std::string& text, const char* part) { return text.find(part) != std::string::npos; };
    const bool rows = t.variants.items_of(strategy::rows, true) > 0;
    const plan long_row = make_plan(Shape3{2, std::int64_t{1} << 23, 1}, t, h200);
    if (rows) {
      // Long rows look back; rows that pack whole into every tile (a tile's length is a multiple
      // of theirs) do not, and one element more per row makes them straddle tiles.
      CHECK(has(words(Shape3{2, std::int64_t{1} << 23, 1}), "rows: flat tiles"));
      CHECK(has(words(Shape3{2, std::int64_t{1} << 23, 1}), "a decoupled look-back carries rows across tiles"));
      const std::int64_t row = long_row.tile_items / 4;
      CHECK(has(words(Shape3{std::int64_t{1} << 14, row, 1}), "no look-back: every tile starts at a row"));
      CHECK(has(words(Shape3{std::int64_t{1} << 14, row + 1, 1}), "a decoupled look-back"));
    }
    if (t.variants.items_of(strategy::pipelined, true) > 0) {
      CHECK(has(words(Shape3{1, policy::pipelined_rows_min_items(t.acc_bytes), 1}), "one long row, pipelined"));
    }
    CHECK(has(words(Shape3{1, std::int64_t{1} << 22, 16}), "columns: tiles of"));
    CHECK(has(words(Shape3{1, std::int64_t{1} << 22, 16}), "chains of"));
    CHECK(has(words(Shape3{5, 1, 7}), "a scan of length 1 is a copy"));
    CHECK(has(words(Shape3{0, 5, 5}), "nothing to do"));
    CHECK(has(words(Shape3{-1, 5, 5}), "rejected (negative extent)"));
    CHECK(has(words(Shape3{std::int64_t{1} << 40, std::int64_t{1} << 30, 1}), "rejected (more than 2^62 elements)"));
  }
}

TEST_CASE("temp storage carves into pieces 256 bytes apart, and a null base only sizes them", "[host][plan]") {
  using fastscan::detail::temp_carver;
  temp_carver sizing{nullptr};
  CHECK(sizing.take<double>(3) == nullptr);
  CHECK(sizing.take<char>(0) == nullptr);
  CHECK(sizing.take<int>(65) == nullptr);
  CHECK(sizing.used == 256 + 0 + 512);
  alignas(256) static unsigned char block[1024];
  temp_carver t{block};
  auto* const a = t.take<double>(3);
  auto* const b = t.take<char>(0);
  auto* const c = t.take<int>(65);
  CHECK(reinterpret_cast<unsigned char*>(a) == block);
  CHECK(reinterpret_cast<unsigned char*>(b) == block + 256);  // (an empty piece takes no room)
  CHECK(reinterpret_cast<unsigned char*>(c) == block + 256);
  CHECK(t.used == sizing.used);
  CHECK(fastscan::detail::temp_piece(1) == 256);
  CHECK(fastscan::detail::temp_piece(256) == 256);
  CHECK(fastscan::detail::temp_piece(257) == 512);
}

TEST_CASE("one long row of 8-byte sums or (value, index) scans takes the pipelined kernel, on aligned arrays only",
          "[host][plan]") {
  for (const auto& e : entry_point_types()) {
    CAPTURE(e.name);
    const bool pipelined = e.types.variants.items_of(strategy::pipelined, true) > 0;
    // (Not int32 indices beside 8-byte values: the side stage holds the values' element size.)
    CHECK(pipelined == (e.name == "cumsum int64" || e.name == "cumsum float64" ||
                        e.name == "cummax int64 (int64 indices)" || e.name == "cummax float64 (int64 indices)"));
    if (!pipelined) {
      continue;
    }
    const std::int64_t min = policy::pipelined_rows_min_items(e.types.acc_bytes);
    for (const Shape3 s : {Shape3{1, min, 1}, Shape3{1, (std::int64_t{1} << 28) + 3, 1}}) {
      CHECK(fastscan::detail::make_plan(s, e.types, h200).kind == strategy::pipelined);
    }
    // Shorter rows, several rows, columns: the row and column kernels.
    for (const Shape3 s : {Shape3{1, min - 1, 1}, Shape3{2, min, 1}, Shape3{1, min, 2}}) {
      CHECK(fastscan::detail::make_plan(s, e.types, h200).kind != strategy::pipelined);
    }
    scan_types misaligned = e.types;
    misaligned.arrays_aligned = false;
    CHECK(fastscan::detail::make_plan(Shape3{1, min, 1}, misaligned, h200).kind == strategy::rows);
  }
}
