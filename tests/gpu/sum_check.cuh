// cumsum / exclusive_cumsum checks shared by the per-dtype test files (dtype/*.cu: each dtype's
// kernels compile in their own file, in parallel). The random data are multiples of 0.5 small
// enough that every partial sum is exact in float, so results are compared bit for bit (NaN to NaN).
#pragma once

#include "common.cuh"
#include "fuzz.cuh"

#include <algorithm>

namespace fstest {

template <class T, class Out>
void check_sum(fastscan::Shape3 s, bool exclusive, std::uint64_t seed, bool in_place) {
  const auto numel = static_cast<std::size_t>(s.outer * s.len * s.inner);
  const auto in = random_values<T>(numel, seed);
  device_buffer<T> d_in(numel);
  device_buffer<Out> d_out(numel);
  d_in.upload(in);
  d_out.poison();
  Out* out = d_out.ptr;
  if constexpr (std::is_same_v<T, Out>) {
    if (in_place) out = d_in.ptr;
  }
  std::size_t temp_bytes = 0;
  auto call = [&](void* temp) {
    return exclusive ? fastscan::exclusive_cumsum(temp, temp_bytes, d_in.ptr, out, s)
                     : fastscan::cumsum(temp, temp_bytes, d_in.ptr, out, s);
  };
  CUDA_REQUIRE(call(nullptr));
  device_buffer<unsigned char> temp(temp_bytes);
  CUDA_REQUIRE(call(temp.ptr));
  CUDA_REQUIRE(cudaDeviceSynchronize());

  std::vector<double> sums, magnitudes;
  std::vector<Out> exact;
  reference_sum<T, Out>(in, sums, magnitudes, exact, s, exclusive);
  host_array<Out> got(numel);
  if (out == d_out.ptr) {
    got = d_out.download();
  } else {
    if constexpr (std::is_same_v<T, Out>) got = d_in.download();
  }
  std::size_t bad = 0, first_bad = 0;
  for (std::size_t i = 0; i < numel; ++i) {
    bool ok;
    if constexpr (std::is_integral_v<Out>) {
      ok = got[i] == exact[i];
    } else {
      const Out want = from_double<Out>(sums[i]);
      ok = std::isnan(sums[i]) ? fastscan::detail::is_nan(got[i]) : same_bits(got[i], want);
    }
    if (!ok && bad++ == 0) first_bad = i;
  }
  if (bad != 0) {
    CAPTURE(first_bad, to_double(got[first_bad]), sums[first_bad]);
    CHECK(bad == 0);
  }
}

template <class T, class Out>
void check_sum_shapes() {
  using dispatch = fstest::dispatch_of<typename fastscan::detail::sum_entry<T, Out>::problem>;
  const auto tiles = tile_sizes<dispatch>();
  std::uint64_t seed = 100;
  for (const auto& s : edge_shapes(tiles.rows, tiles.column_rows, tiles.small_rows)) {
    for (bool exclusive : {false, true}) {
      CAPTURE(type_name<T>(), type_name<Out>(), shape_name(s), exclusive);
      ++seed;
      check_sum<T, Out>(s, exclusive, seed, seed % 3 == 0);
    }
  }
}

//! The framework's wider output type of a sum: int64 for integers and bool, float for 16-bit floats.
template <class T>
using wider_t = std::conditional_t<fastscan::detail::is_half_v<T>, float, std::int64_t>;

//! "ordered column sums look back across tile groups" (float, double, __half).
template <class TestType>
void check_grouped_lookback() {
  // Float column sums along one chain look back in two levels: groups of 32 / (columns per
  // look-back warp) tiles (device/tile_state.cuh, grouped_exclusive_prefix). Chains of several
  // groups, a last group cut short; the sums are exact, so any wrong fold shows.
  using dispatch = fstest::dispatch_of<typename fastscan::detail::sum_entry<TestType, TestType>::problem>;
  std::uint64_t seed = 1500;
  for (const fastscan::Shape3 s : {fastscan::Shape3{1, (1 << 20) + 5, 4}, fastscan::Shape3{1, 600001, 8},
                                   fastscan::Shape3{1, 300001, 3}, fastscan::Shape3{1, 700001, 2}}) {
    fastscan::detail::plan p;
    REQUIRE(dispatch::solve(s, p) == cudaSuccess);
    REQUIRE(p.kind == fastscan::detail::strategy::columns);
    REQUIRE(p.lookback_groups);
    const int warps = p.block_threads / 32;
    const int spread = p.tile_cols >= warps ? static_cast<int>(p.tile_cols) / warps : 1;
    const int least = std::min(static_cast<int>(p.tile_cols), fastscan::policy::column_lookback_min_cols_per_warp<false>);
    const int depth = 32 / std::max(spread, least);
    CAPTURE(type_name<TestType>(), shape_name(s), p.tile_cols, p.len_tiles, depth);
    REQUIRE(p.len_tiles >= 3 * depth);
    for (bool exclusive : {false, true}) {
      CAPTURE(exclusive);
      check_sum<TestType, TestType>(s, exclusive, ++seed, false);
    }
  }
}

//! "cumsum of 1- and 2-byte types on the full-size row plan" (uint8, int8, int16, __half).
template <class TestType>
void check_full_size_rows() {
  // Above the latency plans' sizes, these rows hold more than policy::row_unrolled_items_max items
  // per thread and check row heads per 16-byte unit (1-byte sums take whole units four bytes at a
  // time): rows shorter than a unit, heads inside units, a last thread with a partial unit.
  using dispatch = fstest::dispatch_of<typename fastscan::detail::sum_entry<TestType, TestType>::problem>;
  std::uint64_t seed = 1200;
  for (const fastscan::Shape3 s : {fastscan::Shape3{3, 1500001, 1}, fastscan::Shape3{300001, 15, 1},
                                   fastscan::Shape3{70001, 67, 1}, fastscan::Shape3{1100, 4099, 1},
                                   fastscan::Shape3{1, 4500007, 1}, fastscan::Shape3{281, 16384, 1}}) {
    fastscan::detail::plan p;
    REQUIRE(dispatch::solve(s, p) == cudaSuccess);
    REQUIRE(p.items > fastscan::policy::row_unrolled_items_max);
    for (bool exclusive : {false, true}) {
      CAPTURE(type_name<TestType>(), shape_name(s), exclusive);
      ++seed;
      check_sum<TestType, TestType>(s, exclusive, seed, seed % 4 < 2);
    }
  }
}

//! "cumsum of inputs and outputs off the 16-byte grid" (uint8, int16, int32, int64, float).
template <class TestType>
void check_sum_off_grid() {
  // Pointers one element past an allocation: whole warps lose their coalesced path on the input,
  // the output or both, and mix staged and direct accesses.
  std::uint64_t seed = 900;
  for (const fastscan::Shape3 s : {fastscan::Shape3{3, 100003, 1}, fastscan::Shape3{1, 70001, 1}, fastscan::Shape3{5, 4099, 1},
                                   fastscan::Shape3{2, 517, 64}, fastscan::Shape3{1, 3001, 3},
                                   // One long chain of columns: float sums split it into two of 8.
                                   fastscan::Shape3{1, 200003, 13}}) {
    for (const auto& shifts : {std::pair<int, int>{1, 0}, std::pair<int, int>{0, 1}, std::pair<int, int>{1, 1}}) {
      CAPTURE(type_name<TestType>(), shape_name(s), shifts.first, shifts.second);
      const auto numel = static_cast<std::size_t>(s.outer * s.len * s.inner);
      const auto in = random_values<TestType>(numel, ++seed);
      device_buffer<TestType> d_in(numel + 1);
      device_buffer<TestType> d_out(numel + 1);
      CUDA_REQUIRE(cudaMemcpy(d_in.ptr + shifts.first, in.data(), numel * sizeof(TestType), cudaMemcpyHostToDevice));
      d_out.poison();
      const TestType* x = d_in.ptr + shifts.first;
      TestType* y = d_out.ptr + shifts.second;
      std::size_t temp_bytes = 0;
      CUDA_REQUIRE(fastscan::cumsum(nullptr, temp_bytes, x, y, s));
      device_buffer<unsigned char> temp(temp_bytes);
      CUDA_REQUIRE(fastscan::cumsum(temp.ptr, temp_bytes, x, y, s));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      std::vector<double> sums, magnitudes;
      std::vector<TestType> exact;
      reference_sum<TestType, TestType>(in, sums, magnitudes, exact, s, false);
      const auto got = d_out.download();
      std::size_t bad = 0;
      for (std::size_t i = 0; i < numel; ++i) {
        const TestType g = got[i + static_cast<std::size_t>(shifts.second)];
        if constexpr (std::is_integral_v<TestType>) {
          bad += g != exact[i];
        } else {
          bad += std::isnan(sums[i]) ? !fastscan::detail::is_nan(g) : !same_bits(g, from_double<TestType>(sums[i]));
        }
      }
      CHECK(bad == 0);
    }
  }
}

//! "float cumsum is bitwise reproducible".
inline void check_float_sum_reproducible() {
  // Non-integral random floats, so the grouping of additions shows in the last bits.
  for (fastscan::Shape3 s : {fastscan::Shape3{1, std::int64_t{1} << 24, 1}, fastscan::Shape3{1, 1 << 20, 3},
                             fastscan::Shape3{1, 1 << 16, 64}, fastscan::Shape3{7, 1000003, 1}, fastscan::Shape3{1, 1 << 20, 13}}) {
    CAPTURE(shape_name(s));
    const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    std::vector<float> in(n);
    for (auto& x : in) x = dist(rng);
    device_buffer<float> d_in(n), d_out(n);
    d_in.upload(in);
    std::vector<float> first;
    for (int run = 0; run < 20; ++run) {
      d_out.poison();
      CUDA_REQUIRE(fastscan::cumsum(d_in.ptr, d_out.ptr, s));
      const auto got = d_out.download();
      if (run == 0) {
        first = got.to_vector();
        // Sanity: the sum is right to float rounding.
        double ref = 0, mag = 0;
        for (std::int64_t i = 0; i < s.len; ++i) {
          const std::size_t at = static_cast<std::size_t>(i * s.inner);
          ref += in[at];
          mag += std::fabs(in[at]);
          if (std::fabs(got[at] - ref) > 1e-5 * mag + 1e-6) {
            CAPTURE(i, got[at], ref);
            FAIL("float cumsum off by more than rounding");
          }
        }
      } else {
        REQUIRE(std::memcmp(first.data(), got.data(), n * sizeof(float)) == 0);
      }
    }
  }
}

//! One random case of cumsum / exclusive_cumsum into Out for the shape fuzzer (check_sum).
template <class T, class Out>
void fuzz_sum(std::uint64_t seed) {
  using dispatch = fstest::dispatch_of<typename fastscan::detail::sum_entry<T, Out>::problem>;
  static const auto tiles = tile_sizes<dispatch>();
  std::mt19937_64 rng(seed);
  const auto s = fuzz_shape(rng, tiles.rows, tiles.column_rows);
  const bool exclusive = rng() % 2 == 0, in_place = rng() % 3 == 0;
  CAPTURE(type_name<T>(), type_name<Out>(), shape_name(s), exclusive, in_place);
  check_sum<T, Out>(s, exclusive, seed, in_place);
}

}  // namespace fstest
