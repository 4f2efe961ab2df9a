// The int8 tests of the dtype sweep (cummax / cummin, cumsum): the int8 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", std::int8_t) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", std::int8_t) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", std::int8_t) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

TEMPLATE_TEST_CASE("cumsum of 1- and 2-byte types on the full-size row plan", "[gpu][sum]", std::int8_t) {
  check_full_size_rows<TestType>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_int8{"cummax / cummin int8", &fuzz_extreme<std::int8_t>};
static const fuzz_registration fuzz_sum_int8{"cumsum int8", &fuzz_sum<std::int8_t, std::int8_t>};
static const fuzz_registration fuzz_wider_sum_int8{"cumsum int8 into the wider type", &fuzz_sum<std::int8_t, wider_t<std::int8_t>>};
