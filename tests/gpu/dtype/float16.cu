// The float16 tests of the dtype sweep (cummax / cummin, cumsum): the float16 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", __half) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", __half) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", __half) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

TEMPLATE_TEST_CASE("ordered column sums look back across tile groups", "[gpu][sum][lookback]", __half) {
  check_grouped_lookback<TestType>();
}

TEMPLATE_TEST_CASE("cumsum of 1- and 2-byte types on the full-size row plan", "[gpu][sum]", __half) {
  check_full_size_rows<TestType>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_float16{"cummax / cummin float16", &fuzz_extreme<__half>};
static const fuzz_registration fuzz_sum_float16{"cumsum float16", &fuzz_sum<__half, __half>};
static const fuzz_registration fuzz_wider_sum_float16{"cumsum float16 into the wider type", &fuzz_sum<__half, wider_t<__half>>};
