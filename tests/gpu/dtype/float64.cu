// The float64 tests of the dtype sweep (cummax / cummin, cumsum): the float64 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", double) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", double) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("ordered column sums look back across tile groups", "[gpu][sum][lookback]", double) {
  check_grouped_lookback<TestType>();
}

namespace {
std::vector<std::int64_t> framework_indices(const std::vector<double>& x, fastscan::Extreme e, host_array<double>* values) {
  device_buffer<double> d_in(x.size()), d_v(x.size());
  device_buffer<std::int64_t> d_i(x.size());
  d_in.upload(x);
  d_v.poison();
  d_i.poison();
  CUDA_REQUIRE(fastscan::extreme_scan(d_in.ptr, d_v.ptr, d_i.ptr, {1, static_cast<std::int64_t>(x.size()), 1}, e,
                                      nullptr, fastscan::Tie::last));
  if (values != nullptr) *values = d_v.download();
  return d_i.download().to_vector();
}
}  // namespace

TEST_CASE("cummax and cummin reproduce the framework examples", "[gpu][extreme]") {
  CHECK(framework_indices({2, 2, 1, 1, 3, 3}, fastscan::Extreme::max, nullptr) ==
        std::vector<std::int64_t>{0, 1, 1, 1, 4, 5});
  CHECK(framework_indices({2, 2, 1, 1, 3, 3}, fastscan::Extreme::min, nullptr) ==
        std::vector<std::int64_t>{0, 1, 2, 3, 3, 3});
  host_array<double> values;
  CHECK(framework_indices({1, 3, 3, 2, NAN, 5, NAN}, fastscan::Extreme::max, &values) ==
        std::vector<std::int64_t>{0, 1, 2, 2, 4, 4, 6});
  CHECK(values[3] == 3);
  CHECK(std::isnan(values[4]));
  CHECK(std::isnan(values[5]));
  CHECK(std::isnan(values[6]));
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_float64{"cummax / cummin float64", &fuzz_extreme<double>};
static const fuzz_registration fuzz_sum_float64{"cumsum float64", &fuzz_sum<double, double>};
