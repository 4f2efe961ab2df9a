// Host logic that lives in the device headers (the host compiler cannot read them, so nvcc builds
// this file): launch-constant division, the warp exchange's slot arithmetic, the output iterator
// trait, the scan_types dispatch hands the solver, and cummax / cummin's order keys. Nothing here
// calls an entry point or launches: the file instantiates no kernel (ctest's
// host_binary_has_no_kernels checks the binary).
#include "entry_types.hpp"

#include "../support/host_reference.hpp"
#include "../support/odd_types.cuh"

#include <fastscan/scan.cuh>

#include "../support/dispatch_of.cuh"

#include <catch2/catch.hpp>

#include <random>
#include <set>

namespace fstest {

namespace {

template <class Problem>
entry_types entry(std::string name) {
  return {std::move(name), fstest::dispatch_of<Problem>::types()};
}

template <class T, class Out>
entry_types sum_entry() {
  using fastscan::detail::dtype_name;
  std::string name = std::string("cumsum ") + dtype_name<T>();
  if (!std::is_same_v<T, Out>) name += std::string(" -> ") + dtype_name<Out>();
  return entry<typename fastscan::detail::sum_entry<T, Out>::problem>(name);
}

template <class T, class Index>
entry_types extreme_entry() {
  using fastscan::detail::dtype_name;
  const std::string name = std::string("cummax ") + dtype_name<T>() + " (" + dtype_name<Index>() + " indices)";
  return entry<fastscan::detail::extreme_problem<T, Index>>(name);
}

}  // namespace

std::vector<entry_types> entry_point_types() {
  using namespace fastscan::detail;
  using odd_sizes::rgb;
  using odd_sizes::six;
  return {
      sum_entry<std::uint8_t, std::uint8_t>(), sum_entry<std::int8_t, std::int8_t>(), sum_entry<std::int16_t, std::int16_t>(),
      sum_entry<std::int32_t, std::int32_t>(), sum_entry<std::int64_t, std::int64_t>(), sum_entry<__half, __half>(),
      sum_entry<__nv_bfloat16, __nv_bfloat16>(), sum_entry<float, float>(), sum_entry<double, double>(),
      sum_entry<bool, std::int64_t>(), sum_entry<std::uint8_t, std::int64_t>(), sum_entry<std::int8_t, std::int64_t>(),
      sum_entry<std::int16_t, std::int64_t>(), sum_entry<std::int32_t, std::int64_t>(), sum_entry<__half, float>(),
      sum_entry<__nv_bfloat16, float>(),
      extreme_entry<bool, std::int64_t>(), extreme_entry<std::uint8_t, std::int64_t>(), extreme_entry<std::int8_t, std::int64_t>(),
      extreme_entry<std::int16_t, std::int64_t>(), extreme_entry<std::int32_t, std::int64_t>(),
      extreme_entry<std::int64_t, std::int64_t>(), extreme_entry<__half, std::int64_t>(),
      extreme_entry<__nv_bfloat16, std::int64_t>(), extreme_entry<float, std::int64_t>(), extreme_entry<double, std::int64_t>(),
      extreme_entry<std::uint8_t, std::int32_t>(), extreme_entry<float, std::int32_t>(),
      extreme_entry<std::int64_t, std::int32_t>(),
      entry<logsumexp_problem<float>>("logcumsumexp float32"), entry<logsumexp_problem<double>>("logcumsumexp float64"),
      entry<logsumexp_problem<__half>>("logcumsumexp float16"),
      // inclusive_scan: a sum into a wider type (through a pointer), 3- and 6-byte elements.
      entry<generic_problem<const std::int32_t*, std::int64_t*, fastscan::sum_op>>("inclusive_scan int32 -> int64"),
      entry<generic_problem<const rgb*, rgb*, odd_sizes::rgb_max>>("inclusive_scan 3-byte"),
      entry<generic_problem<const six*, six*, odd_sizes::six_sum>>("inclusive_scan 6-byte"),
  };
}

}  // namespace fstest

TEST_CASE("division by a launch-constant divisor is exact", "[host][index]") {
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

namespace {

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
    // The rows fit the warp's slice.
    REQUIRE(static_cast<std::size_t>(*slots.rbegin() + 1) * 16 <= fastscan::detail::unit_slice_bytes(U));
  }
}

}  // namespace

TEST_CASE("warp staging puts every unit of a run in its lane's row", "[host][index]") {
  check_staged_slots<1>();
  check_staged_slots<2>();
  check_staged_slots<4>();
  check_staged_slots<8>();
  check_staged_slots<16>();
}

TEST_CASE("word staging of rows narrower than their tile keeps every word in its part", "[host][index]") {
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

TEST_CASE("inclusive_scan takes output iterators whose elements take the input's value type", "[host][validation]") {
  // Compile-time: a wrong answer here fails the build.
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

TEST_CASE("tile tags never read as a zeroed or 0xff-filled ticket word", "[host][index]") {
  // A tagged call's ticket word holds the tag's low bits above the count (tile_state.cuh,
  // resolve_ticket): a tag whose ticket bits were 0 would take a zeroed-mode word for its own, and
  // one of all ones would take memory filled with 0xff. Rewinding the counter to just below such
  // tags shows the tag source skips them.
  namespace d = fastscan::detail;
  const unsigned long long saved = d::tile_tags().load();
  const unsigned long long tag_bits = (1ull << 62) - 1;
  for (const unsigned long long start : {0ull, d::ticket_tag_mask - 2, (d::ticket_tag_mask + 1) * 5 - 3, tag_bits - 3}) {
    d::tile_tags().store(start);
    for (int i = 0; i < 8; ++i) {
      const unsigned long long tag = d::next_tile_tag();
      CAPTURE(start, tag);
      CHECK(tag != 0);
      CHECK(tag != tag_bits);
      CHECK((tag & d::ticket_tag_mask) != 0);
      CHECK((tag & d::ticket_tag_mask) != d::ticket_tag_mask);
    }
  }
  d::tile_tags().store(saved);
}

namespace tuned {
//! An operator only this test uses, so that retuning its type pair moves no other kernel.
struct rgb_first {
  __host__ __device__ odd_sizes::rgb operator()(const odd_sizes::rgb& a, const odd_sizes::rgb&) const { return a; }
};
}  // namespace tuned

namespace fastscan {
namespace policy {
// One type retuned, in one member: its column kernels take 2 rows per thread.
template <>
struct tuning<odd_sizes::rgb, odd_sizes::rgb, tuned::rgb_first> : size_tuning<3, 3> {
  static constexpr int column_items() { return 2; }
};
}  // namespace policy
}  // namespace fastscan

TEST_CASE("a tuning specialised for one type moves that type's kernels alone", "[host][plan]") {
  using fastscan::detail::strategy;
  using retuned = fastscan::detail::generic_problem<const odd_sizes::rgb*, odd_sizes::rgb*, tuned::rgb_first>;
  using plain = fastscan::detail::generic_problem<const odd_sizes::rgb*, odd_sizes::rgb*, odd_sizes::rgb_max>;
  const auto mine = fstest::dispatch_of<retuned>::types();
  const auto other = fstest::dispatch_of<plain>::types();
  CHECK(mine.variants.find(strategy::columns, 2) >= 0);
  CHECK(other.variants.find(strategy::columns, 2) < 0);
  // The solver runs it where it holds a plan's rows: two rows along len.
  const auto p = fastscan::detail::make_plan({1000, 2, 3}, mine);
  REQUIRE(p.kind == strategy::columns);
  CHECK(mine.variants.at[p.variant].items == 2);
  const auto q = fastscan::detail::make_plan({1000, 2, 3}, other);
  CHECK(other.variants.at[q.variant].items > 2);
}

namespace {

using namespace fstest;

//! cummax / cummin as the library runs them: a max scan over order keys, undone on the way out.
template <class T>
void check_order_keys() {
  using key = fastscan::detail::order_key<T>;
  using K = typename key::type;
  using fastscan::detail::flip_bits;
  for (int trial = 0; trial < 200; ++trial) {
    const auto values = random_values<T>(1 + trial % 89, 500 + static_cast<std::uint64_t>(trial), 1 + trial % 9);
    for (auto e : {fastscan::Extreme::max, fastscan::Extreme::min}) {
      for (auto tie : {fastscan::Tie::last, fastscan::Tie::first}) {
        host_array<T> ref_v;
        std::vector<std::int64_t> ref_i;
        reference_extreme(values, ref_v, ref_i, {1, static_cast<std::int64_t>(values.size()), 1},
                          e == fastscan::Extreme::min, tie == fastscan::Tie::first);
        const auto mask = key::mask(e);
        auto scan = [&](auto op) {
          fastscan::value_index<K> run{};
          for (std::size_t i = 0; i < values.size(); ++i) {
            K k;
            std::memcpy(&k, &values[i], sizeof k);
            const fastscan::value_index<K> x{flip_bits(k, mask), static_cast<std::int64_t>(i)};
            run = i == 0 ? x : op(run, x);
            T v;
            const K out = flip_bits(run.value, mask);
            std::memcpy(&v, &out, sizeof v);
            CAPTURE(type_name<T>(), trial, i, e == fastscan::Extreme::min, tie == fastscan::Tie::first);
            REQUIRE(same_bits(v, ref_v[i]));
            REQUIRE(run.index == ref_i[i]);
          }
        };
        tie == fastscan::Tie::last ? scan(fastscan::value_index_op<K, fastscan::Extreme::max, fastscan::Tie::last>{})
                                   : scan(fastscan::value_index_op<K, fastscan::Extreme::max, fastscan::Tie::first>{});
      }
    }
  }
}

}  // namespace

TEMPLATE_TEST_CASE("cummax and cummin as one max scan over order keys give the framework's values and indices",
                   "[host][ops]", bool, std::uint8_t, std::int8_t, std::int16_t, std::int32_t, std::int64_t, __half,
                   __nv_bfloat16, float, double) {
  check_order_keys<TestType>();
  // Both signs of a width share one key type, so one kernel.
  STATIC_REQUIRE(std::is_same_v<fastscan::detail::order_key_t<std::int8_t>, std::uint8_t>);
  STATIC_REQUIRE(std::is_same_v<fastscan::detail::order_key_t<std::int64_t>, std::uint64_t>);
}
