// The shape fuzzer's targets. Each test file that compiles an entry point's kernels registers a
// target that runs one random case of its check (extreme_check, sum_check, segmented_cases), so
// the fuzzer (test_fuzz.cu) compiles no kernel of its own and covers exactly what the suite does.
#pragma once

#include <fastscan/shape.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace fstest {

struct fuzz_target {
  const char* name;
  void (*run)(std::uint64_t seed);
};
std::vector<fuzz_target>& fuzz_targets();  // (test_fuzz.cu)

//! Registers a target at static initialisation: `static fuzz_registration r{"name", &run};`.
struct fuzz_registration {
  fuzz_registration(const char* name, void (*run)(std::uint64_t)) { fuzz_targets().push_back({name, run}); }
};

//! The most elements one fuzzed case holds (FASTSCAN_FUZZ_MAX_NUMEL, default 2^22; the sanitizer
//! runs of scripts/fuzz.sh set it lower).
std::int64_t fuzz_max_numel();  // (test_fuzz.cu)

//! An extent biased to the edges: 0 - 2, a tile +- 1, a few tiles +- 1, a prime, a power of two,
//! or any value up to `most`.
inline std::int64_t fuzz_extent(std::mt19937_64& rng, std::int64_t tile, std::int64_t most) {
  static const std::int64_t primes[] = {3, 7, 31, 127, 257, 4099, 65537, 100003};
  const auto pick = [&](std::uint64_t n) { return static_cast<std::int64_t>(rng() % n); };
  std::int64_t n = 0;
  switch (pick(8)) {
    case 0: n = pick(3); break;
    case 1: n = tile + pick(3) - 1; break;
    case 2: n = tile * (1 + pick(4)) + pick(3) - 1; break;
    case 3: n = primes[pick(8)]; break;
    case 4: n = std::int64_t{1} << pick(22); break;
    default: n = most > 0 ? pick(static_cast<std::uint64_t>(most) + 1) : 0; break;
  }
  return std::clamp<std::int64_t>(n, 0, std::max<std::int64_t>(most, 0));
}

//! A shape of at most fuzz_max_numel() elements: long rows with a tiny outer, wide planes only 1 -
//! 2 long, columns, and anything between; tile edges from the running device's plans.
inline fastscan::Shape3 fuzz_shape(std::mt19937_64& rng, std::int64_t row_tile, std::int64_t column_rows) {
  const std::int64_t most = fuzz_max_numel();
  const auto small = [&](std::uint64_t n) { return 1 + static_cast<std::int64_t>(rng() % n); };
  fastscan::Shape3 s{1, 1, 1};
  switch (rng() % 4) {
    case 0: s = {small(3), fuzz_extent(rng, row_tile, most), 1}; break;
    case 1: s = {1, small(2), fuzz_extent(rng, 4096, most)}; break;
    case 2: s = {small(4), fuzz_extent(rng, column_rows, most / 16), fuzz_extent(rng, 16, 64)}; break;
    default: s = {fuzz_extent(rng, 8, 64), fuzz_extent(rng, column_rows, 4096), fuzz_extent(rng, 4, 256)}; break;
  }
  while (s.outer * s.len * s.inner > most) {  // (halve the longest extent)
    std::int64_t& e = s.len >= s.inner && s.len >= s.outer ? s.len : (s.inner >= s.outer ? s.inner : s.outer);
    e /= 2;
  }
  return s;
}

}  // namespace fstest
