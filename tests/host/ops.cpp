// The operators on the host (their calls are __host__ __device__): the framework's extreme and tie
// rule, associativity on ties and NaNs, the segmented operator, and dtype names.
#include "../support/host_reference.hpp"

#include <fastscan/detail/overlap.hpp>
#include <fastscan/ops/segmented.cuh>
#include <fastscan/ops/log_sum_exp.cuh>
#include <fastscan/voxel_key.hpp>

#include <catch2/catch.hpp>

using namespace fstest;

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

TEST_CASE("bool bytes read as the framework reads them: any nonzero byte is true", "[host][ops]") {
  using fastscan::Extreme;
  using fastscan::Tie;
  using fastscan::detail::bool_byte;
  for (const unsigned b : {0u, 1u, 2u, 7u, 128u, 255u}) {
    const bool_byte x{static_cast<unsigned char>(b)};
    CHECK(fastscan::detail::to_arith(x) == (b != 0));
    CHECK(fastscan::detail::canonical(x).byte == (b != 0 ? 1 : 0));
  }
  // Equal truths tie (the later index wins under Tie::last) whatever their bytes.
  const fastscan::value_index_op<bool_byte, Extreme::max, Tie::last> max_last;
  const fastscan::value_index_op<bool_byte, Extreme::min, Tie::last> min_last;
  CHECK(max_last.later_wins(bool_byte{2}, bool_byte{1}));
  CHECK(max_last.later_wins(bool_byte{0}, bool_byte{128}));
  CHECK_FALSE(max_last.later_wins(bool_byte{255}, bool_byte{0}));
  CHECK(min_last.later_wins(bool_byte{7}, bool_byte{0}));
  CHECK_FALSE(min_last.later_wins(bool_byte{0}, bool_byte{3}));
  static_assert(std::is_same_v<fastscan::detail::stored_t<bool>, bool_byte>);
  static_assert(std::is_same_v<fastscan::detail::stored_t<std::uint8_t>, std::uint8_t>);
  CHECK(std::string(fastscan::detail::dtype_name<bool_byte>()) == "bool");
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
  // 16-bit floats compare as floats.
  const fastscan::value_index_op<__half, Extreme::max, Tie::first> half_max;
  CHECK(half_max.later_wins(__double2half(1.0), __double2half(1.5)));
  CHECK_FALSE(half_max.later_wins(__double2half(1.5), __double2half(1.5)));
  CHECK(half_max.later_wins(__double2half(1.5), __double2half(std::nan(""))));
}

TEST_CASE("only operators that regroup without changing a bit are exactly associative", "[host][ops]") {
  // The look-back may fold these in any order; the others (float sums) in one fixed order.
  STATIC_REQUIRE(fastscan::is_exactly_associative<fastscan::sum_op, std::int64_t>::value);
  STATIC_REQUIRE(fastscan::is_exactly_associative<fastscan::sum_op, std::uint8_t>::value);
  STATIC_REQUIRE_FALSE(fastscan::is_exactly_associative<fastscan::sum_op, float>::value);
  STATIC_REQUIRE_FALSE(fastscan::is_exactly_associative<fastscan::sum_op, double>::value);
  STATIC_REQUIRE(fastscan::is_exactly_associative<fastscan::value_index_op<float, fastscan::Extreme::min, fastscan::Tie::first>,
                                                  fastscan::value_index<float>>::value);
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

//! Calls f with the operator of extreme e and tie rule t.
template <class T, class F>
void with_op(fastscan::Extreme e, fastscan::Tie t, F&& f) {
  using fastscan::Extreme;
  using fastscan::Tie;
  if (e == Extreme::max) {
    t == Tie::last ? f(fastscan::value_index_op<T, Extreme::max, Tie::last>{})
                   : f(fastscan::value_index_op<T, Extreme::max, Tie::first>{});
  } else {
    t == Tie::last ? f(fastscan::value_index_op<T, Extreme::min, Tie::last>{})
                   : f(fastscan::value_index_op<T, Extreme::min, Tie::first>{});
  }
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
        with_op<T>(e, tie, [&](auto op) {
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

TEST_CASE("the segmented operator restarts at every head and stays associative", "[host][ops]") {
  // The row kernel scans rows of a flat array as one segmented scan: any grouping of
  // segmented_op over (value, head) pairs must give each position the sum since its row's head.
  using flagged = fastscan::detail::flagged<std::int64_t>;
  const fastscan::detail::segmented_op<fastscan::sum_op> op{};
  std::mt19937 rng(3);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial % 61);
    std::vector<flagged> seq(n);
    for (std::size_t i = 0; i < n; ++i) seq[i] = {static_cast<std::int64_t>(rng() % 19) - 9, i == 0 || rng() % 5 == 0};
    std::int64_t since_head = 0;
    for (std::size_t i = 0; i < n; ++i) since_head = seq[i].head ? seq[i].value : since_head + seq[i].value;
    for (int k = 0; k < 5; ++k) {
      const flagged tree = fold_tree(seq, 0, n, op, rng);
      CAPTURE(trial, k);
      REQUIRE(tree.value == since_head);
      REQUIRE(tree.head);
    }
  }
}

TEST_CASE("the counting segmented operator numbers the segments under any grouping", "[host][ops][segmented]") {
  // segment_sum folds (value, heads counted): the fold of a prefix holds its sum since the last
  // head and the number of heads, which is the segment's ordinal plus one.
  using counted = fastscan::flagged<std::int64_t, std::int64_t>;
  const fastscan::segmented_op<fastscan::sum_op> op{};
  std::mt19937 rng(4);
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 1 + static_cast<std::size_t>(trial % 61);
    std::vector<counted> seq(n);
    for (std::size_t i = 0; i < n; ++i) {
      seq[i] = {static_cast<std::int64_t>(rng() % 19) - 9, (i == 0 || rng() % 4 == 0) ? 1 : 0};
    }
    std::int64_t since_head = 0, heads = 0;
    for (std::size_t i = 0; i < n; ++i) {
      since_head = seq[i].head ? seq[i].value : since_head + seq[i].value;
      heads += seq[i].head;
    }
    for (int k = 0; k < 5; ++k) {
      const counted tree = fold_tree(seq, 0, n, op, rng);
      CAPTURE(trial, k);
      REQUIRE(tree.value == since_head);
      REQUIRE(tree.head == heads);
    }
  }
  CHECK(fastscan::is_exactly_associative<fastscan::segmented_op<fastscan::sum_op>, counted>::value);
  CHECK_FALSE(fastscan::is_exactly_associative<fastscan::segmented_op<fastscan::sum_op>, fastscan::flagged<float>>::value);
  CHECK(fastscan::key_starts_segment(3, 3, true));
  CHECK_FALSE(fastscan::key_starts_segment(3, 3, false));
  CHECK(fastscan::key_starts_segment(4, 3, false));
}

TEST_CASE("the voxel key encoder refuses every grid whose keys would not fit", "[host][segmented][voxel]") {
  using fastscan::voxel_grid;
  fastscan::voxel_key_encoder<std::int32_t> e32;
  fastscan::voxel_key_encoder<std::int64_t> e64;
  // int32 keys: 2^31 cells (keys up to 2^31 - 1) fit, one cell more does not.
  REQUIRE(fastscan::voxel_key_encoder<std::int32_t>::make(voxel_grid{2, 1024, 1024, 1024}, e32));
  CHECK(e32.cells == (std::int64_t{1} << 31));
  CHECK(e32.bits == 31);
  CHECK(e32(1, 1023, 1023, 1023) == std::numeric_limits<std::int32_t>::max());
  const auto untouched = e32.cells;
  CHECK_FALSE(fastscan::voxel_key_encoder<std::int32_t>::make(voxel_grid{2, 1024, 1024, 1025}, e32));
  CHECK_FALSE(fastscan::voxel_key_encoder<std::int32_t>::make(voxel_grid{1, 46341, 46341, 1}, e32));
  CHECK(e32.cells == untouched);
  CHECK(fastscan::voxel_key_encoder<std::int32_t>::make(voxel_grid{1, 46340, 46340, 1}, e32));
  // int64 keys: 2^62 cells fit, 2^63 do not (cells is an int64), products that overflow are refused.
  REQUIRE(fastscan::voxel_key_encoder<std::int64_t>::make(voxel_grid{std::int64_t{1} << 31, std::int64_t{1} << 31, 1, 1}, e64));
  CHECK(e64.bits == 62);
  CHECK_FALSE(fastscan::voxel_key_encoder<std::int64_t>::make(voxel_grid{std::int64_t{1} << 31, std::int64_t{1} << 31, 2, 1}, e64));
  CHECK_FALSE(fastscan::voxel_key_encoder<std::int64_t>::make(voxel_grid{std::int64_t{1} << 40, std::int64_t{1} << 40, 1, 1}, e64));
  // Extents must be positive.
  for (const voxel_grid g : {voxel_grid{0, 1, 1, 1}, voxel_grid{1, -1, 1, 1}, voxel_grid{1, 1, 0, 1}, voxel_grid{1, 1, 1, -5}}) {
    CHECK_FALSE(fastscan::voxel_key_encoder<std::int64_t>::make(g, e64));
  }
  // Key widths: the bits of the largest key.
  const std::pair<voxel_grid, int> widths[] = {{{1, 1, 1, 1}, 0}, {{1, 2, 1, 1}, 1}, {{1, 3, 1, 1}, 2}, {{6, 200, 200, 1}, 18}};
  for (const auto& [g, bits] : widths) {
    REQUIRE(fastscan::voxel_key_encoder<std::int64_t>::make(g, e64));
    CHECK(e64.bits == bits);
    CHECK((std::int64_t{1} << e64.bits) >= e64.cells);
  }
}

TEST_CASE("voxel keys number the cells batch-major and drop points outside the grid", "[host][segmented][voxel]") {
  fastscan::voxel_key_encoder<std::int32_t> e;
  REQUIRE(fastscan::voxel_key_encoder<std::int32_t>::make(fastscan::voxel_grid{2, 3, 4, 5}, e));
  std::int32_t expected = 0;
  for (int b = 0; b < 2; ++b)
    for (int x = 0; x < 3; ++x)
      for (int y = 0; y < 4; ++y)
        for (int z = 0; z < 5; ++z) CHECK(e(b, x, y, z) == expected++);  // sorted keys: (b, x, y, z) order
  CHECK(expected == e.cells);
  CHECK(e(-1, 0, 0, 0) == -1);
  CHECK(e(2, 0, 0, 0) == -1);
  CHECK(e(0, 3, 0, 0) == -1);
  CHECK(e(0, 0, -1, 0) == -1);
  CHECK(e(0, 0, 0, 5) == -1);
}

TEST_CASE("arrays may be exactly in place or apart, never overlapping in part", "[host][validation]") {
  using fastscan::detail::span_of;
  alignas(16) static float buf[64];
  const auto a = span_of(buf, 16);
  CHECK(a.end - a.begin == 64);
  CHECK(fastscan::detail::in_place_or_apart(a, span_of(buf, 16)));        // in place
  CHECK(fastscan::detail::in_place_or_apart(a, span_of(buf + 16, 16)));   // adjacent
  CHECK_FALSE(fastscan::detail::in_place_or_apart(a, span_of(buf + 15, 16)));  // one element
  CHECK_FALSE(fastscan::detail::in_place_or_apart(a, span_of(buf + 1, 16)));
  CHECK_FALSE(fastscan::detail::in_place_or_apart(a, span_of(buf, 8)));   // same start, other length
  const auto* bytes = reinterpret_cast<const unsigned char*>(buf);
  CHECK(fastscan::detail::overlap(a, span_of(bytes + 63, 1)));            // one byte
  CHECK_FALSE(fastscan::detail::overlap(a, span_of(bytes + 64, 1)));
  // Empty arrays, null pointers and iterators overlap nothing; huge counts saturate, never wrap.
  CHECK_FALSE(fastscan::detail::overlap(a, span_of(buf + 3, 0)));
  CHECK_FALSE(fastscan::detail::overlap(a, span_of(static_cast<const float*>(nullptr), 16)));
  CHECK_FALSE(fastscan::detail::overlap(a, span_of(buf + 3, -5)));
  const auto huge = span_of(buf + 32, std::int64_t{1} << 62);
  CHECK(huge.end >= huge.begin);
  CHECK(fastscan::detail::overlap(huge, span_of(buf + 40, 1)));
  CHECK_FALSE(fastscan::detail::overlap(huge, a));
  CHECK(fastscan::detail::all_apart({a, span_of(buf + 16, 16), span_of(buf + 32, 32)}));
  CHECK_FALSE(fastscan::detail::all_apart({a, span_of(buf + 32, 32), span_of(buf + 12, 8)}));
  CHECK(fastscan::detail::temp_aligned(buf));
  CHECK_FALSE(fastscan::detail::temp_aligned(buf + 2));
}

namespace {

//! log(sum(exp(x))) of a float sequence folded with log_sum_exp_op left to right, or as a tree.
float log_sum_exp_fold(const std::vector<float>& x, bool tree) {
  const fastscan::log_sum_exp_op op;
  std::vector<fastscan::scaled_sum<float>> v;
  for (const float e : x) v.push_back({e, 1.0f});
  while (v.size() > 1) {
    std::vector<fastscan::scaled_sum<float>> next;
    if (!tree) {
      next.push_back(op(v[0], v[1]));
      next.insert(next.end(), v.begin() + 2, v.end());
    } else {
      for (std::size_t i = 0; i + 1 < v.size(); i += 2) next.push_back(op(v[i], v[i + 1]));
      if (v.size() % 2 == 1) next.push_back(v.back());
    }
    v = next;
  }
  return v[0].max + std::log(v[0].sum);
}

}  // namespace

TEST_CASE("log-sum-exp as a running maximum with rescaled sums: values, groupings and infinities", "[host][ops]") {
  std::mt19937 rng(5);
  for (const float spread : {1.0f, 30.0f, 300.0f}) {
    std::uniform_real_distribution<float> d(-spread, spread);
    std::vector<float> x(1000);
    double hi = -1e300;
    for (float& e : x) {
      e = d(rng);
      hi = std::max(hi, static_cast<double>(e));
    }
    double s = 0;
    for (const float e : x) s += std::exp(static_cast<double>(e) - hi);
    const double want = hi + std::log(s);
    CAPTURE(spread);
    CHECK(std::fabs(log_sum_exp_fold(x, false) - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
    CHECK(std::fabs(log_sum_exp_fold(x, true) - want) <= 1e-5 * std::max(1.0, std::fabs(want)));
  }
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  CHECK(log_sum_exp_fold({-inf, -inf, -inf}, false) == -inf);
  CHECK(log_sum_exp_fold({-inf, 3.0f}, false) == 3.0f);
  CHECK(log_sum_exp_fold({3.0f, -inf}, true) == 3.0f);
  CHECK(log_sum_exp_fold({inf, 2.0f, inf}, false) == inf);  // two +inf add, no inf - inf
  CHECK(log_sum_exp_fold({1.0f, inf, -inf}, true) == inf);
  CHECK(std::isnan(log_sum_exp_fold({1.0f, nan, 2.0f}, false)));
  CHECK(std::isnan(log_sum_exp_fold({nan, inf}, true)));
  CHECK(std::fabs(log_sum_exp_fold({0.0f, 0.0f}, false) - std::log(2.0f)) < 1e-7f);
}
