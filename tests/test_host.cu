// Host-side logic, no GPU needed: the launch-config solver, operator semantics and input validation.
#include "common.cuh"

#include <set>

using namespace fstest;

namespace {

void check_plan(fastscan::Shape3 s, const fastscan::scan_types& types, const fastscan::device_limits& dev) {
  const auto p = fastscan::make_plan(s, types, dev);
  CAPTURE(shape_name(s), types.in_bytes, types.acc_bytes, p.error ? p.error : "");
  REQUIRE(p.valid);
  const std::int64_t numel = s.outer * s.len * s.inner;
  if (numel == 0) {
    CHECK(p.kind == fastscan::strategy::empty);
    return;
  }
  const auto l = p.layout;
  CHECK(l.outer * l.len * l.inner == numel);
  CHECK(p.block_threads % 32 == 0);
  CHECK(p.block_threads >= 32);
  CHECK(p.block_threads <= 1024);
  CHECK(p.lanes_x * p.lanes_y == p.block_threads);
  CHECK((p.lanes_x & (p.lanes_x - 1)) == 0);
  CHECK((p.lanes_y & (p.lanes_y - 1)) == 0);
  CHECK(p.grid >= 1);
  CHECK(p.grid <= dev.max_grid_x);
  CHECK(p.grid == std::min(p.num_tiles, dev.max_grid_x));
  CHECK(p.smem_bytes <= dev.smem_per_block);
  CHECK(p.prefetch_tiles >= 0);
  CHECK(p.prefetch_tiles < std::max<std::int64_t>(p.num_tiles, 1));
  if (!p.lookback) {
    CHECK(p.temp_bytes == 0);
  }
  if (p.kind == fastscan::strategy::rows) {
    CHECK(l.inner == 1);
    CHECK(p.tile_items == std::int64_t{p.block_threads} * p.items);
    const std::size_t slice = types.row_exchange_bytes_per_warp > 0 ? types.row_exchange_bytes_per_warp : types.exchange_bytes_per_warp;
    CHECK(p.smem_bytes >= static_cast<std::size_t>(p.block_threads / 32) * slice);
    CHECK(p.items * types.in_bytes <= 256);  // one exchange row per thread
    // Within the row kernel's launch bounds (a larger block would not launch).
    CHECK(p.block_threads <= fastscan::policy::row_kernel_bounds(types.rows_in_place, types.in_bytes, types.exact, types.acc_bytes).threads);
    // One of the two row kernels dispatch.cuh instantiates.
    CHECK((p.items == fastscan::policy::row_items(types.in_bytes, types.acc_bytes, types.rows_in_place) ||
           p.items == fastscan::policy::row_latency_items(types.in_bytes, types.acc_bytes)));
    // Tiles cover every element exactly once.
    CHECK(p.num_tiles * p.tile_items >= numel);
    CHECK((p.num_tiles - 1) * p.tile_items < numel);
    if (!p.lookback) {
      CHECK((p.num_tiles == 1 || p.tile_items % l.len == 0));  // every tile starts a row
    }
    if (p.lookback) {
      CHECK(p.temp_bytes >= 16 + static_cast<std::size_t>(p.num_tiles) * types.word_bytes);
    }
  } else {
    REQUIRE(p.kind == fastscan::strategy::columns);
    CHECK(p.tile_cols == std::int64_t{p.lanes_x} * p.vec);
    CHECK(p.tile_items == std::int64_t{p.lanes_y} * p.items);
    CHECK(p.items >= 1);
    const int kernel_items = types.column_items > 0 ? types.column_items : fastscan::policy::column_items(types.in_bytes);
    CHECK(p.items <= kernel_items);  // the kernel's rows per thread
    const bool wide = p.items > fastscan::policy::column_items(types.in_bytes);  // the wide kernel
    CHECK(p.smem_bytes >= static_cast<std::size_t>(p.block_threads / 32) *
                              (wide ? types.column_wide_exchange_bytes_per_warp : types.exchange_bytes_per_warp));
    CHECK((p.items & (p.items - 1)) == 0);
    CHECK((p.items == 1 || std::int64_t{p.items} / 2 < l.len));  // no thread's rows all past the end
    CHECK(p.col_chunks * p.tile_cols >= l.inner);
    CHECK((p.col_chunks - 1) * p.tile_cols < l.inner);
    CHECK(p.len_tiles * p.tile_items >= l.len);
    CHECK((p.len_tiles - 1) * p.tile_items < l.len);
    CHECK(p.num_tiles == l.outer * p.col_chunks * p.len_tiles);
    CHECK(p.lookback == (p.len_tiles > 1));
    const auto warp_rows = static_cast<std::size_t>(p.lanes_x >= 32 ? p.lanes_y : p.lanes_y * p.lanes_x / 32);
    CHECK(p.smem_bytes >= warp_rows * p.tile_cols * types.acc_bytes + p.tile_cols * types.acc_bytes + p.tile_cols);
    if (p.lookback) {
      CHECK(p.tile_cols <= 32);  // one warp looks back for every column of a tile
      CHECK(p.temp_bytes >= 16 + static_cast<std::size_t>(p.num_tiles * p.tile_cols) * types.word_bytes);
    }
  }
}

}  // namespace

TEST_CASE("every plan is launchable and covers every element", "[host][plan]") {
  const std::vector<fastscan::scan_types> type_sets = {
      {1, 8, 16, 16, 4608}, {1, 16, 32, 24, 4608}, {2, 4, 16, 8, 4608}, {2, 16, 32, 24, 4608}, {4, 4, 16, 8, 4608},
      {4, 16, 32, 24, 4608}, {8, 8, 16, 16, 4608}, {8, 16, 32, 24, 4608}, {16, 16, 32, 20, 4608},
      {32, 32, 64, 40, 4608},
      // Row outputs formed in place (more items per thread, a wider exchange row).
      {1, 1, 16, 9, 4608, true, 8704}, {2, 4, 16, 8, 4608, true, 8704}, {4, 4, 16, 8, 4608, true, 8704},
      {8, 8, 16, 16, 4608, true, 8704},
      // Column rows of exact sums formed in place: 16 rows per thread, a 16-unit exchange row.
      {8, 8, 16, 16, 4608, true, 8704, 16, 8704}, {4, 4, 16, 8, 4608, true, 8704, 16, 8704},
      // What dispatch passes for the entry points' problems.
      fastscan::detail::dispatch<fastscan::detail::sum_problem<std::uint8_t, std::uint8_t, std::uint8_t>>::types(),
      fastscan::detail::dispatch<fastscan::detail::sum_problem<std::int16_t, std::int16_t, std::int16_t>>::types(),
      fastscan::detail::dispatch<fastscan::detail::sum_problem<__half, __half, float>>::types(),
      fastscan::detail::dispatch<fastscan::detail::sum_problem<std::int64_t, std::int64_t, std::int64_t>>::types(),
      fastscan::detail::dispatch<fastscan::detail::sum_problem<bool, std::int64_t, std::int64_t>>::types(),
      fastscan::detail::dispatch<fastscan::detail::extreme_problem<std::int64_t, std::int64_t>>::types(),
      fastscan::detail::dispatch<fastscan::detail::extreme_problem<std::uint8_t, std::int32_t>>::types()};
  std::vector<std::int64_t> extents = {0, 1, 2, 3, 31, 32, 33, 63, 64, 65, 255, 1000, 4097, 65536, 1 << 20};
  for (std::int64_t big : {std::int64_t{1} << 31, (std::int64_t{1} << 31) + 1, std::int64_t{1} << 40}) {
    extents.push_back(big);
  }
  for (const auto& dev : {fastscan::device_limits{132, 2147483647, 48 * 1024}, fastscan::device_limits{1, 65535, 48 * 1024}}) {
    for (const auto& types : type_sets) {
      for (std::int64_t outer : extents) {
        for (std::int64_t len : extents) {
          for (std::int64_t inner : extents) {
            // Up to 2^40 elements, every split of them.
            if (outer != 0 && len != 0 && inner != 0 &&
                (outer > (std::int64_t{1} << 40) / len || outer * len > (std::int64_t{1} << 40) / inner)) {
              continue;
            }
            check_plan({outer, len, inner}, types, dev);
          }
        }
      }
    }
  }
}

TEST_CASE("the solver spreads every split over the whole GPU", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  const fastscan::scan_types pair64{8, 16, 32, 24, 4608};
  for (std::int64_t total : {std::int64_t{1} << 16, std::int64_t{1} << 24}) {
    for (std::int64_t rows = 1; rows <= total; rows *= 2) {
      for (auto s : {fastscan::Shape3{rows, total / rows, 1}, fastscan::Shape3{1, rows, total / rows}}) {
        CAPTURE(shape_name(s));
        const auto p = fastscan::make_plan(s, pair64, h200);
        REQUIRE(p.valid);
        // A single row must never sit on one block (the hard-coded-shape bug): at least one tile
        // per SM for 64 Ki elements, and two per SM once there are enough elements.
        CHECK(p.num_tiles >= (total >= (std::int64_t{1} << 24) ? 2 * 132 : 32));
      }
    }
  }
}

TEST_CASE("column look-backs along many chains take small blocks, few long chains full ones", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  for (const fastscan::scan_types& types : {fastscan::scan_types{8, 8, 16, 16, 4608}, fastscan::scan_types{8, 16, 32, 24, 4608},
                                            fastscan::scan_types{4, 16, 32, 24, 4608}}) {
    CAPTURE(types.in_bytes, types.acc_bytes);
    for (const fastscan::Shape3 s : {fastscan::Shape3{64, 4096, 256}, fastscan::Shape3{1, 4096, 4096}, fastscan::Shape3{40, 999, 64}}) {
      CAPTURE(shape_name(s));
      const auto p = fastscan::make_plan(s, types, h200);
      REQUIRE(p.valid);
      CHECK(p.lookback);
      CHECK(s.outer * p.col_chunks >= 132);
      CHECK(p.block_threads == fastscan::policy::column_threads_many_chains);
    }
    for (const fastscan::Shape3 s : {fastscan::Shape3{1, 262144, 64}, fastscan::Shape3{1, 1 << 20, 16}, fastscan::Shape3{2, 1 << 20, 32}}) {
      CAPTURE(shape_name(s));
      const auto p = fastscan::make_plan(s, types, h200);
      REQUIRE(p.valid);
      CHECK(p.lookback);
      CHECK(p.block_threads == fastscan::policy::column_threads);
    }
  }
}

TEST_CASE("one long chain of 8-byte cummax columns splits in two, other scans keep 16-column tiles", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  const fastscan::scan_types sum64{8, 8, 16, 16, 4608}, pair64{8, 16, 32, 24, 4608}, pair32{4, 16, 32, 24, 4608};
  auto cols = [&](fastscan::Shape3 s, const fastscan::scan_types& types) {
    const auto p = fastscan::make_plan(s, types, h200);
    REQUIRE(p.valid);
    REQUIRE(p.lookback);
    return p.tile_cols;
  };
  for (const fastscan::Shape3 s : {fastscan::Shape3{1, 1 << 20, 16}, fastscan::Shape3{1, 1 << 20, 12}, fastscan::Shape3{1, 1 << 22, 16}}) {
    CAPTURE(shape_name(s));
    CHECK(cols(s, pair64) == 8);
    CHECK(cols(s, pair32) == 16);
    CHECK(cols(s, sum64) == 16);
  }
  // More than one chain at 16 columns: unchanged.
  CHECK(cols(fastscan::Shape3{1, 1 << 18, 64}, pair64) == 16);
  CHECK(cols(fastscan::Shape3{2, 1 << 20, 16}, pair64) == 16);
  // Float sums (not exactly associative) split one chain too; float cummax (exact) does not.
  const auto float_sum = fastscan::detail::dispatch<fastscan::detail::sum_problem<float, float, float>>::types();
  const auto half_sum = fastscan::detail::dispatch<fastscan::detail::sum_problem<__half, __half, float>>::types();
  const auto float_max = fastscan::detail::dispatch<fastscan::detail::extreme_problem<float, std::int64_t>>::types();
  CHECK(!float_sum.exact);
  CHECK(float_max.exact);
  CHECK(cols(fastscan::Shape3{1, 1 << 20, 16}, float_sum) == 8);
  CHECK(cols(fastscan::Shape3{1, 1 << 20, 16}, half_sum) == 8);
  CHECK(cols(fastscan::Shape3{1, 1 << 20, 16}, float_max) == 16);
  CHECK(cols(fastscan::Shape3{1, 1 << 18, 64}, float_sum) == 16);
}

TEST_CASE("ordered column sums along one chain look back in tile groups, with state for them", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  const auto float_sum = fastscan::detail::dispatch<fastscan::detail::sum_problem<float, float, float>>::types();
  const auto double_sum = fastscan::detail::dispatch<fastscan::detail::sum_problem<double, double, double>>::types();
  const auto int_sum = fastscan::detail::dispatch<fastscan::detail::sum_problem<std::int64_t, std::int64_t, std::int64_t>>::types();
  const auto float_max = fastscan::detail::dispatch<fastscan::detail::extreme_problem<float, std::int64_t>>::types();
  auto plan = [&](fastscan::Shape3 s, const fastscan::scan_types& types) {
    const auto p = fastscan::make_plan(s, types, h200);
    REQUIRE(p.valid);
    return p;
  };
  for (const fastscan::Shape3 s : {fastscan::Shape3{1, 1 << 24, 4}, fastscan::Shape3{1, 1 << 23, 8}, fastscan::Shape3{1, 300001, 3}}) {
    CAPTURE(shape_name(s));
    for (const auto& types : {float_sum, double_sum}) {
      const auto p = plan(s, types);
      REQUIRE(p.lookback);
      REQUIRE(s.outer * p.col_chunks == 1);
      CHECK(p.lookback_groups);
      CHECK(p.temp_bytes == 16 + 2 * fastscan::detail::column_tile_state_bytes(p, types.word_bytes));
    }
    for (const auto& types : {int_sum, float_max}) {
      const auto p = plan(s, types);
      REQUIRE(p.lookback);
      CHECK(!p.lookback_groups);
      CHECK(p.temp_bytes == 16 + fastscan::detail::column_tile_state_bytes(p, types.word_bytes));
    }
  }
  // Two or more chains, and row plans: one level.
  for (const fastscan::Shape3 s : {fastscan::Shape3{1, 1 << 22, 16}, fastscan::Shape3{2, 1 << 22, 4}, fastscan::Shape3{1, 1 << 20, 64},
                                   fastscan::Shape3{1, 1 << 26, 1}}) {
    CAPTURE(shape_name(s));
    const auto p = plan(s, float_sum);
    REQUIRE(p.lookback);
    CHECK(!p.lookback_groups);
  }
}

TEST_CASE("column rows per thread: all of the kernel's for large plans, fewer for short or latency-bound ones", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  const fastscan::scan_types sum8{8, 8, 16, 16, 4608}, max8{8, 16, 32, 24, 4608}, max4{4, 16, 32, 24, 4608};
  const auto items = [&](fastscan::Shape3 s, const fastscan::scan_types& t) {
    const auto p = fastscan::make_plan(s, t, h200);
    REQUIRE(p.valid);
    REQUIRE(p.kind == fastscan::strategy::columns);
    return p.items;
  };
  for (const auto& t : {sum8, max8, max4}) {
    CAPTURE(t.in_bytes, t.acc_bytes);
    CHECK(items({1, 1 << 20, 16}, t) == fastscan::policy::column_items(t.in_bytes));
    CHECK(items({1, 1 << 22, 4}, t) == fastscan::policy::column_items(t.in_bytes));
    CHECK(items({64, 4096, 256}, t) == fastscan::policy::column_items(t.in_bytes));
    CHECK(items({1, 4, 1 << 22}, t) == 4);  // len 4: four rows per thread
    CHECK(items({7, 3, 1000}, t) == 4);
    CHECK(items({5, 2, 77}, t) == 2);
  }
  // 65536 int64 along axis 0 looks back in fewer tiles than two per SM: (value, index) of 8-byte
  // inputs take policy::column_items_latency rows there, sums all of the kernel's.
  CHECK(items({1, 4096, 16}, max8) == fastscan::policy::column_items_latency(8, 16));
  CHECK(items({1, 16384, 4}, max8) == fastscan::policy::column_items_latency(8, 16));
  CHECK(fastscan::policy::column_items_latency(8, 16) < fastscan::policy::column_items(8));
  CHECK(items({1, 4096, 16}, sum8) == fastscan::policy::column_items(8));
  CHECK(items({1, 4096, 16}, max4) == fastscan::policy::column_items(4));
  // Inputs wider than 16 bytes sit in registers: four rows per thread.
  CHECK(items({1, 1 << 20, 16}, fastscan::scan_types{32, 32, 64, 40, 4608}) == 4);
  // Exact sums formed in place hold 16 rows in 128-thread blocks (256 would pass 48 KB), and 8
  // where the plan is latency-bound.
  CHECK(fastscan::policy::column_items(8, true) == 16);
  CHECK(fastscan::policy::column_items(8, false) == 8);
  CHECK(fastscan::policy::column_items(12, true) == 8);  // not whole 16-byte units
  CHECK(fastscan::policy::column_items(4, true) == 16);
  CHECK(fastscan::policy::column_items(2, true) == 8);  // 8 or 16 columns per thread: 8 rows
  CHECK(fastscan::policy::column_items(1, true) == 8);
  // Sums that are not exact: float32 takes 16 rows too, float64 keeps 8; the dispatch passes that on.
  CHECK(fastscan::policy::column_items(4, true, false) == 16);
  CHECK(fastscan::policy::column_items(8, true, false) == 8);
  CHECK(fastscan::detail::dispatch<fastscan::detail::sum_problem<float, float, float>>::types().column_items == 16);
  CHECK(fastscan::detail::dispatch<fastscan::detail::sum_problem<double, double, double>>::types().column_items == 8);
  CHECK(fastscan::detail::dispatch<fastscan::detail::sum_problem<std::int64_t, std::int64_t, std::int64_t>>::types().column_items == 16);
  const fastscan::scan_types sum8_in_place{8, 8, 16, 16, 4608, true, 8704, 16, 8704};
  for (const fastscan::Shape3 s : {fastscan::Shape3{1, 1 << 22, 4}, fastscan::Shape3{1, 1 << 20, 16}, fastscan::Shape3{64, 4096, 256}}) {
    CAPTURE(shape_name(s));
    CHECK(items(s, sum8_in_place) == 16);
    CHECK(fastscan::make_plan(s, sum8_in_place, h200).block_threads <= 128);
  }
  CHECK(items({1, 4096, 16}, sum8_in_place) == 8);
  // Latency-bound plans without a look-back take the latency rows too (len fits one tile).
  CHECK(items({1, 64, 1024}, sum8_in_place) == 8);
  CHECK(items({1, 16, 4096}, sum8_in_place) == 8);
  CHECK(items({1, 16, 4096}, max8) == fastscan::policy::column_items_latency(8, 16));
  CHECK_FALSE(fastscan::make_plan({1, 16, 4096}, max8, h200).lookback);
  // Over the shared memory, a tile no wider than a look-back tile gives up rows (and looks back),
  // not columns: 16 columns of int64, not 8 (32-byte rows).
  CHECK(fastscan::make_plan({1, 512, 131072}, sum8_in_place, h200).tile_cols == 16);
  // Short len runs the 8-row kernel, with its narrower slice: full 256-thread blocks.
  CHECK(items({1, 4, 1 << 22}, sum8_in_place) == 4);
  CHECK(fastscan::make_plan({1, 4, 1 << 22}, sum8_in_place, h200).block_threads == 256);
}

TEST_CASE("look-backs along long chains in large grids sleep before their first poll", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  const fastscan::scan_types max8{8, 16, 32, 24, 4608};
  const auto sleep = [&](fastscan::Shape3 s) {
    const auto p = fastscan::make_plan(s, max8, h200);
    REQUIRE(p.valid);
    return p.first_poll_ns;
  };
  const unsigned ns = fastscan::policy::lookback_first_poll_ns;
  CHECK(ns > 0);
  CHECK(sleep({1, 1 << 24, 1}) == ns);       // one row, 4096 tiles
  CHECK(sleep({3, 5592405, 1}) == ns);       // rows that start inside tiles
  CHECK(sleep({1, 1 << 20, 16}) == ns);      // one column chain
  CHECK(sleep({1, 262144, 64}) == ns);       // four chains
  CHECK(sleep({64, 4096, 256}) == 0u);       // 1024 chains: predecessors usually done
  CHECK(sleep({1, 4096, 4096}) == 0u);       // 256 chains
  CHECK(sleep({1, 65536, 1}) == 0u);         // 64 tiles: latency
  CHECK(sleep({4096, 4096, 1}) == 0u);       // rows that fill whole tiles: no look-back
}

TEST_CASE("large column scans along a short axis neither look back nor shrink to one warp", "[host][plan]") {
  // Shared memory used to be trimmed by thread rows first, which split a short len over several
  // tiles, and the look-back's narrow tiles then left one-warp blocks (H200, int64 cummax
  // [1, 16, 2^20]: 231 us with 32-thread blocks, 153 us with 256).
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  for (const fastscan::scan_types& types :
       {fastscan::scan_types{8, 16, 32, 24, 4608}, fastscan::scan_types{8, 8, 16, 16, 4608}, fastscan::scan_types{4, 16, 32, 24, 4608},
        fastscan::scan_types{2, 4, 16, 8, 4608}, fastscan::scan_types{1, 16, 32, 24, 4608}, fastscan::scan_types{1, 8, 16, 16, 4608}}) {
    for (const std::int64_t numel : {std::int64_t{1} << 24, std::int64_t{1} << 26}) {
      for (std::int64_t len = 2; len <= 64; len *= 2) {
        const fastscan::Shape3 s{1, len, numel / len};
        CAPTURE(shape_name(s), types.in_bytes, types.acc_bytes);
        const auto p = fastscan::make_plan(s, types, h200);
        REQUIRE(p.valid);
        CHECK_FALSE(p.lookback);
        CHECK(p.block_threads >= 64);
      }
    }
  }
}

TEST_CASE("row plans of narrow types with outputs in place take more items per thread", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  const auto items = [&](std::size_t in, std::size_t acc, bool in_place) {
    fastscan::scan_types t{in, acc, 16, acc + 8, 4608, in_place};
    const auto p = fastscan::make_plan({1, std::int64_t{1} << 26, 1}, t, h200);
    REQUIRE(p.kind == fastscan::strategy::rows);
    return p.items;
  };
  CHECK(items(1, 1, true) == 256);  // uint8 sums: 256 bytes, scanned a unit at a time
  CHECK(items(2, 4, true) == 128);  // half sums (float accumulators)
  CHECK(items(2, 2, true) == 128);  // int16 sums
  CHECK(items(1, 8, false) == 32);  // bool into int64: a register buffer
  CHECK(items(4, 4, true) == 64);   // 256 bytes per thread in shared memory
  CHECK(items(8, 8, true) == 32);
  CHECK(items(8, 8, false) == 16);
  CHECK(items(1, 16, false) == 16);  // (value, index) accumulators
  // Latency-bound rows keep the buffered row's items: twice the tiles of [1, 65536] int64.
  const auto small = [&](fastscan::Shape3 s) {
    return fastscan::make_plan(s, fastscan::scan_types{8, 8, 16, 16, 4608, true, 9216}, h200);
  };
  CHECK(small({1, 65536, 1}).items == 16);
  CHECK(small({1, 65536, 1}).num_tiles == 64);
  CHECK(small({1, 262144, 1}).items == 16);  // 128 tiles of 32 items at 64 threads: fewer than 2 per SM
  CHECK(small({1, std::int64_t{1} << 20, 1}).items == 32);  // 512 tiles
}

TEST_CASE("row kernels that form outputs in place run six blocks of 128 threads per SM where they fit", "[host][plan]") {
  using fastscan::policy::row_kernel_bounds;
  const auto blocks = [](bool in_place, std::size_t in, bool exact) {
    const auto b = row_kernel_bounds(in_place, in, exact);
    CHECK(b.threads * b.min_blocks_per_sm <= 2048);  // an SM holds 2048 threads
    return std::pair{b.threads, b.min_blocks_per_sm};
  };
  CHECK(blocks(true, 8, true) == std::pair{128, 6});   // int64 sums: 80 registers
  CHECK(blocks(true, 4, false) == std::pair{128, 6});  // float32 sums
  CHECK(blocks(true, 8, false) == std::pair{128, 4});  // float64 sums lost at six
  CHECK(blocks(true, 1, true) == std::pair{128, 6});   // uint8 / int8 sums
  CHECK(blocks(true, 2, true) == std::pair{128, 6});   // int16 sums
  CHECK(blocks(true, 2, false) == std::pair{128, 4});  // half sums (float accumulators) lost at six
  CHECK(blocks(false, 8, true) == std::pair{fastscan::policy::row_threads_max, fastscan::policy::row_min_blocks_per_sm});
  // (Value, index) rows: values in place, indices in a row beside them.
  const auto extreme_blocks = [](std::size_t in) {
    const auto b = row_kernel_bounds(true, in, true, 16);
    return std::pair{b.threads, b.min_blocks_per_sm};
  };
  CHECK(extreme_blocks(8) == std::pair{128, 5});  // int64 / float64 cummax spilled at six
  CHECK(extreme_blocks(4) == std::pair{128, 6});
  CHECK(extreme_blocks(2) == std::pair{128, 8});
  CHECK(extreme_blocks(1) == std::pair{128, 8});
  // The solver starts in-place rows from the kernel's block size, whatever the device allows.
  const fastscan::device_limits roomy{132, 2147483647, 228 * 1024};
  const fastscan::scan_types sum8{8, 8, 16, 16, 4608, true, 9216};
  CHECK(fastscan::make_plan({1, std::int64_t{1} << 28, 1}, sum8, roomy).block_threads == 128);
}

TEST_CASE("latency-bound rows of (value, index) scans take 16 bytes per thread at 128 threads", "[host][plan]") {
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  const auto plan = [&](std::size_t in, fastscan::Shape3 s) {
    const auto p = fastscan::make_plan(s, fastscan::scan_types{in, 16, 32, 24, 4608, false}, h200);
    REQUIRE(p.kind == fastscan::strategy::rows);
    return p;
  };
  const auto int64_small = plan(8, {1, 65536, 1});
  CHECK(int64_small.items == 4);
  CHECK(int64_small.block_threads == 128);
  CHECK(int64_small.num_tiles == 128);
  CHECK(int64_small.lookback);
  CHECK(plan(8, {4096, 16, 1}).items == 4);
  CHECK(plan(8, {4096, 16, 1}).lookback == false);  // 512-element tiles hold whole rows of 16
  CHECK(plan(4, {1, 65536, 1}).items == 4);          // float32 / int32 values
  CHECK(plan(2, {1, 65536, 1}).items == 8);          // half / int16
  CHECK(plan(1, {1, 65536, 1}).items == 16);         // 1-byte values already take 16 bytes
  CHECK(plan(1, {1, 65536, 1}).block_threads == 64);
  // Enough tiles at the smallest block: all 16 items ([1, 2^20]: 1024 tiles of 64 x 16).
  CHECK(plan(8, {1, std::int64_t{1} << 20, 1}).items == 16);
  CHECK(plan(8, {1, std::int64_t{1} << 24, 1}).items == 16);
  CHECK(plan(8, {1, std::int64_t{1} << 24, 1}).block_threads == 256);
}

TEST_CASE("small column scans find every prefix within one look-back window", "[host][plan]") {
  // 65536 int64 along axis 0 is latency: a chain longer than the 32 tiles a look-back round trip
  // reaches (shared among the columns a warp looks back for) would wait for several round trips.
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  for (const fastscan::scan_types& types : {fastscan::scan_types{8, 8, 16, 16, 4608}, fastscan::scan_types{8, 16, 32, 24, 4608}}) {
    for (std::int64_t len = 2; len <= 65536; len *= 2) {
      const fastscan::Shape3 s{1, len, 65536 / len};
      CAPTURE(shape_name(s), types.acc_bytes);
      const auto p = fastscan::make_plan(s, types, h200);
      REQUIRE(p.valid);
      if (p.kind != fastscan::strategy::columns || !p.lookback) continue;
      const int warps = p.block_threads / 32;
      const std::int64_t per_warp = p.tile_cols >= warps ? p.tile_cols / warps : 1;
      CHECK(p.len_tiles * per_warp <= 32);
    }
  }
}

// Named (not anonymous) namespace: kernels instantiated with these types keep external linkage.
namespace odd_sizes {
struct rgb {  // a 3-byte element: neither a power of two nor a divisor of 16
  unsigned char r, g, b;
};
struct rgb_max {
  __host__ __device__ rgb operator()(const rgb& a, const rgb& b) const {
    return {a.r > b.r ? a.r : b.r, a.g > b.g ? a.g : b.g, a.b > b.b ? a.b : b.b};
  }
};
struct six {  // 6 bytes
  short v[3];
};
struct six_sum {
  __host__ __device__ six operator()(const six& a, const six& b) const {
    return {{static_cast<short>(a.v[0] + b.v[0]), static_cast<short>(a.v[1] + b.v[1]), static_cast<short>(a.v[2] + b.v[2])}};
  }
};
}  // namespace odd_sizes

TEST_CASE("elements of any size get power-of-two tiles", "[host][plan]") {
  using namespace odd_sizes;
  // Taking the entry points' addresses instantiates their kernels: odd sizes must compile.
  using rgb_scan = cudaError_t (*)(void*, std::size_t&, const rgb*, rgb*, rgb_max, fastscan::Shape3, cudaStream_t);
  using six_scan = cudaError_t (*)(void*, std::size_t&, const six*, six*, six_sum, fastscan::Shape3, cudaStream_t);
  const rgb_scan rgb_entry = &fastscan::inclusive_scan<const rgb*, rgb*, rgb_max>;
  const six_scan six_entry = &fastscan::inclusive_scan<const six*, six*, six_sum>;
  CHECK(rgb_entry != nullptr);
  CHECK(six_entry != nullptr);
  const fastscan::device_limits h200{132, 2147483647, 48 * 1024};
  for (std::size_t bytes : {3, 5, 6, 7, 12, 24}) {
    const fastscan::scan_types types{bytes, bytes, 16 * ((bytes + 7) / 8), bytes + 4, 4608};
    for (fastscan::Shape3 s : {fastscan::Shape3{1, 100000, 1}, fastscan::Shape3{3, 4099, 1}, fastscan::Shape3{1, 65536, 7},
                               fastscan::Shape3{2, 1000, 300}, fastscan::Shape3{1, 16, 100000}}) {
      CAPTURE(bytes, shape_name(s));
      const auto p = fastscan::make_plan(s, types, h200);
      REQUIRE(p.valid);
      CHECK((p.vec & (p.vec - 1)) == 0);
      CHECK((p.tile_cols & (p.tile_cols - 1)) == 0);
      CHECK(p.block_threads % 32 == 0);
      if ((bytes & (bytes - 1)) != 0) {
        CHECK(p.kind == fastscan::strategy::columns);  // the row kernel stages power-of-two sizes only
      }
    }
  }
}

TEST_CASE("division by a launch-constant divisor is exact", "[host][plan]") {
  // The kernels divide tile indices by chains, column chunks and row lengths this way.
  std::mt19937_64 rng(5);
  std::vector<std::int64_t> divisors = {1, 2, 3, 7, 64, 65, 132, 1000, 65535, 65537, (1 << 30) - 1, 1 << 30,
                                        (std::int64_t{1} << 31) - 1, std::int64_t{1} << 31, std::int64_t{1} << 40};
  for (int i = 0; i < 200; ++i) {
    divisors.push_back(1 + static_cast<std::int64_t>(rng() % ((std::uint64_t{1} << (1 + i % 31)))));
  }
  for (std::int64_t d : divisors) {
    const fastscan::detail::divisor by(d);
    std::vector<std::int64_t> ns = {0, 1, d - 1, d, d + 1, 2 * d - 1, (std::int64_t{1} << 31) - 1, std::int64_t{1} << 31,
                                    (std::int64_t{1} << 31) + 1, std::int64_t{1} << 40, (std::int64_t{1} << 62) - 1};
    for (int k = 0; k < 200; ++k) {
      ns.push_back(static_cast<std::int64_t>(rng() % (std::uint64_t{1} << 31)));
    }
    for (std::int64_t n : ns) {
      if (n < 0) {
        continue;
      }
      CAPTURE(n, d);
      REQUIRE(by.div(n) == n / d);
      REQUIRE(by.mod(n) == n % d);
    }
  }
}

template <int U>
void check_staged_slots() {
  // A warp's run of 32 * U units lands in the padded unit rows: every unit in its own slot, and
  // lane l's unit i is the run's unit (l / k * U + i) * k + l % k.
  for (int k_log2 = 0; k_log2 <= 5; ++k_log2) {
    const int k = 1 << k_log2;
    CAPTURE(U, k);
    std::set<int> slots;
    for (int g = 0; g < 32 * U; ++g) {
      const int slot = fastscan::detail::staged_unit_slot<U>(g, k_log2);
      const int pitch = fastscan::detail::unit_row_pitch(U);
      const int lane = slot / pitch;
      const int i = slot % pitch;
      REQUIRE(lane < 32);
      REQUIRE(i < U);
      REQUIRE((lane / k * U + i) * k + lane % k == g);
      slots.insert(slot);
    }
    REQUIRE(slots.size() == static_cast<std::size_t>(32 * U));
  }
}

TEST_CASE("warp staging puts every unit of a run in its lane's row", "[host][plan]") {
  check_staged_slots<1>();
  check_staged_slots<2>();
  check_staged_slots<4>();
  check_staged_slots<8>();
  check_staged_slots<16>();
}

TEST_CASE("word staging of rows narrower than their tile keeps every word in its part", "[host][plan]") {
  // Column warps whose rows are narrower than the tile (3 floats against 4 columns) stage their run
  // word by word, part q (a thread row's rows) at word q * pitch; the part index comes from a
  // multiply by a reciprocal instead of a division.
  for (int part_words = 2; part_words <= 2200; ++part_words) {
    for (int parts = 1; parts <= 32; parts *= 2) {
      if (part_words * parts > 32 * 17 * 16 / 4) {
        continue;  // larger than any exchange slice
      }
      const fastscan::detail::word_parts r(part_words, parts);
      CAPTURE(part_words, parts);
      REQUIRE(r.pitch % 2 == 1);
      REQUIRE(r.pitch > part_words);
      REQUIRE(r.words == part_words * parts);
      for (int w = 0; w < r.words; ++w) {
        if (r.slot(w) != w / part_words * r.pitch + w % part_words) {
          FAIL("word " << w << " lands at " << r.slot(w));
        }
      }
    }
  }
  // Every such plan's parts fit its kernel's exchange slice: rows of `inner` elements, narrower
  // than the lanes_x * vec columns of the tile (and wider than half of it, as the solver makes it).
  for (std::size_t size : {1, 2, 4, 8, 16}) {
    const int vec = fastscan::policy::column_vec(size);
    const std::size_t word = size % 8 == 0 ? 8 : 4;
    for (int items : {8, 16}) {
      for (int lanes_x = 1; lanes_x <= 32; lanes_x *= 2) {
        for (int inner = lanes_x * vec / 2 + 1; inner < lanes_x * vec; ++inner) {
          const std::size_t part_bytes = static_cast<std::size_t>(items) * inner * size;
          if (part_bytes % word != 0) {
            continue;
          }
          CAPTURE(size, items, lanes_x, inner);
          REQUIRE(fastscan::detail::word_parts::bytes(static_cast<int>(part_bytes / word), 32 / lanes_x, word) <=
                  fastscan::detail::unit_slice_bytes(items));
        }
      }
    }
  }
}

TEST_CASE("value types carry the framework's dtype names", "[host][ops]") {
  using fastscan::detail::dtype_name;
  CHECK(std::string(dtype_name<bool>()) == "bool");
  CHECK(std::string(dtype_name<std::uint8_t>()) == "uint8");
  CHECK(std::string(dtype_name<std::int8_t>()) == "int8");
  CHECK(std::string(dtype_name<std::int16_t>()) == "int16");
  CHECK(std::string(dtype_name<std::int32_t>()) == "int32");
  CHECK(std::string(dtype_name<std::int64_t>()) == "int64");
  CHECK(std::string(dtype_name<long long>()) == "int64");
  CHECK(std::string(dtype_name<__half>()) == "float16");
  CHECK(std::string(dtype_name<__nv_bfloat16>()) == "bfloat16");
  CHECK(std::string(dtype_name<float>()) == "float32");
  CHECK(std::string(dtype_name<double>()) == "float64");
  CHECK(std::string(dtype_name<char>()) == "other");
}

TEST_CASE("extreme operator follows the framework rule", "[host][ops]") {
  using fastscan::Extreme;
  using fastscan::Tie;
  const fastscan::value_index_op<float, Extreme::max, Tie::last> max_last;
  const fastscan::value_index_op<float, Extreme::max, Tie::first> max_first;
  const fastscan::value_index_op<float, Extreme::min, Tie::last> min_last;
  const float nan = std::nanf("");
  CHECK(max_last.later_wins(1.f, 2.f));
  CHECK_FALSE(max_last.later_wins(2.f, 1.f));
  CHECK(max_last.later_wins(2.f, 2.f));
  CHECK_FALSE(max_first.later_wins(2.f, 2.f));
  CHECK(max_last.later_wins(2.f, nan));
  CHECK_FALSE(max_last.later_wins(nan, 5.f));
  CHECK(max_last.later_wins(nan, nan));
  CHECK_FALSE(max_first.later_wins(nan, nan));
  CHECK(min_last.later_wins(2.f, 1.f));
  CHECK(min_last.later_wins(-1.f, nan));
  CHECK_FALSE(min_last.later_wins(nan, -5.f));
  CHECK(max_last.later_wins(0.f, -0.f));  // equal values: the later one (and its sign) is kept
}

namespace {

//! Folds a sequence as a random binary tree; associativity means it equals the left fold.
template <class T, class Op>
T fold_tree(const std::vector<T>& v, std::size_t lo, std::size_t hi, Op op, std::mt19937& rng) {
  if (hi - lo == 1) return v[lo];
  std::uniform_int_distribution<std::size_t> split(lo + 1, hi - 1);
  const std::size_t mid = split(rng);
  return op(fold_tree(v, lo, mid, op, rng), fold_tree(v, mid, hi, op, rng));
}

template <class T>
void check_associative() {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    const auto values = random_values<T>(1 + trial % 97, 1000 + static_cast<std::uint64_t>(trial), 3);
    std::vector<fastscan::value_index<T>> seq(values.size());
    for (std::size_t i = 0; i < values.size(); ++i) seq[i] = {values[i], static_cast<std::int64_t>(i)};
    for (auto e : {fastscan::Extreme::max, fastscan::Extreme::min}) {
      for (auto tie : {fastscan::Tie::last, fastscan::Tie::first}) {
        fastscan::with_value_index_op<T>(e, tie, [&](auto op) {
          auto left = seq[0];
          for (std::size_t i = 1; i < seq.size(); ++i) left = op(left, seq[i]);
          // The left fold is the framework's sequential answer.
          host_array<T> ref_v;
          std::vector<std::int64_t> ref_i;
          reference_extreme(values, ref_v, ref_i, {1, static_cast<std::int64_t>(values.size()), 1},
                            e == fastscan::Extreme::min, tie == fastscan::Tie::first);
          REQUIRE(same_bits(left.value, ref_v.back()));
          REQUIRE(left.index == ref_i.back());
          for (int k = 0; k < 5; ++k) {
            const auto tree = fold_tree(seq, 0, seq.size(), op, rng);
            CAPTURE(type_name<T>(), trial);
            REQUIRE(same_bits(tree.value, left.value));
            REQUIRE(tree.index == left.index);
          }
        });
      }
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("extreme operator is associative on ties and NaNs", "[host][ops]", bool, std::uint8_t, std::int8_t,
                   std::int16_t, std::int32_t, std::int64_t, __half, __nv_bfloat16, float, double) {
  check_associative<TestType>();
}

TEST_CASE("inclusive_scan takes output iterators whose elements take the input's value type", "[host][validation]") {
  using fastscan::detail::output_supported;
  STATIC_REQUIRE(output_supported<const int*, int*>::value);
  STATIC_REQUIRE(output_supported<const int*, long long*>::value);  // converted as it is written
  STATIC_REQUIRE(output_supported<const float*, double*>::value);
  STATIC_REQUIRE_FALSE(output_supported<const int*, const int*>::value);  // not writable
  STATIC_REQUIRE_FALSE(output_supported<const int*, int>::value);         // not an iterator
  struct opaque {
    int x;
  };
  STATIC_REQUIRE_FALSE(output_supported<const opaque*, int*>::value);  // no conversion
}

TEST_CASE("bad input is rejected before any launch and outputs stay untouched", "[host][validation]") {
  // Host arrays stand in for device memory: nothing may be launched or written.
  std::vector<float> in(16, 1.f), values(16, 7.f);
  std::vector<std::int32_t> idx32(16, 7);
  std::vector<std::int64_t> idx64(16, 7);
  alignas(16) unsigned char temp[64];
  std::size_t temp_bytes = sizeof(temp);
  const fastscan::Shape3 ok{1, 16, 1};

  CHECK(fastscan::cummax(temp, temp_bytes, static_cast<const float*>(nullptr), values.data(), idx64.data(), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cummax(temp, temp_bytes, in.data(), static_cast<float*>(nullptr), idx64.data(), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cummin(temp, temp_bytes, in.data(), values.data(), static_cast<std::int64_t*>(nullptr), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cumsum(temp, temp_bytes, static_cast<const float*>(nullptr), values.data(), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::exclusive_cumsum(temp, temp_bytes, in.data(), static_cast<double*>(nullptr), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::inclusive_scan(temp, temp_bytes, in.data(), static_cast<float*>(nullptr), fastscan::sum_op{}, ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cummax(in.data(), static_cast<float*>(nullptr), idx64.data(), ok) == cudaErrorInvalidValue);
  CHECK(fastscan::cumsum(static_cast<const float*>(nullptr), values.data(), ok) == cudaErrorInvalidValue);

  for (fastscan::Shape3 bad : {fastscan::Shape3{-1, 4, 1}, fastscan::Shape3{1, -4, 1}, fastscan::Shape3{1, 4, -1}}) {
    std::size_t query = 0;
    CHECK(fastscan::cummax(nullptr, query, in.data(), values.data(), idx64.data(), bad) == cudaErrorInvalidValue);
    CHECK(fastscan::cumsum(temp, temp_bytes, in.data(), values.data(), bad) == cudaErrorInvalidValue);
  }
  // Temp storage that is not 16-byte aligned (the tile state is read and written in 16-byte words).
  std::size_t short_bytes = temp_bytes - 8;
  CHECK(fastscan::cummax(temp + 8, short_bytes, in.data(), values.data(), idx64.data(), ok) == cudaErrorInvalidValue);
  CHECK(fastscan::cumsum(temp + 4, short_bytes, in.data(), values.data(), ok) == cudaErrorInvalidValue);
  // More than 2^62 elements.
  std::size_t query = 0;
  CHECK(fastscan::cumsum(nullptr, query, in.data(), values.data(), {std::int64_t{1} << 40, std::int64_t{1} << 30, 8}) ==
        cudaErrorInvalidValue);
  // int32 indices cannot name position 2^31.
  CHECK(fastscan::cummax(nullptr, query, in.data(), values.data(), idx32.data(),
                         {1, (std::int64_t{1} << 31) + 1, 1}) == cudaErrorInvalidValue);
  CHECK(fastscan::cummax(temp, temp_bytes, in.data(), values.data(), idx32.data(),
                         {2, (std::int64_t{1} << 31) + 1, 1}) == cudaErrorInvalidValue);

  // Empty shapes succeed and write nothing, with or without pointers.
  for (fastscan::Shape3 empty : {fastscan::Shape3{0, 16, 1}, fastscan::Shape3{1, 0, 1}, fastscan::Shape3{1, 16, 0}}) {
    CHECK(fastscan::cummax(temp, temp_bytes, in.data(), values.data(), idx64.data(), empty) == cudaSuccess);
    CHECK(fastscan::cumsum(temp, temp_bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), empty) ==
          cudaSuccess);
    CHECK(fastscan::cummin(in.data(), values.data(), idx32.data(), empty) == cudaSuccess);
    std::size_t q = 0;
    CHECK(fastscan::cummax(nullptr, q, in.data(), values.data(), idx64.data(), empty) == cudaSuccess);
    CHECK(q >= 1);
  }
  CHECK(values == std::vector<float>(16, 7.f));
  CHECK(idx32 == std::vector<std::int32_t>(16, 7));
  CHECK(idx64 == std::vector<std::int64_t>(16, 7));
}
