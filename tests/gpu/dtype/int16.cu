// The int16 tests of the dtype sweep (cummax / cummin, cumsum): the int16 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", std::int16_t) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", std::int16_t) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", std::int16_t) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

TEMPLATE_TEST_CASE("cumsum of 1- and 2-byte types on the full-size row plan", "[gpu][sum]", std::int16_t) {
  check_full_size_rows<TestType>();
}

TEMPLATE_TEST_CASE("cumsum of inputs and outputs off the 16-byte grid", "[gpu][sum]", std::int16_t) {
  check_sum_off_grid<TestType>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_int16{"cummax / cummin int16", &fuzz_extreme<std::int16_t>};
static const fuzz_registration fuzz_sum_int16{"cumsum int16", &fuzz_sum<std::int16_t, std::int16_t>};
static const fuzz_registration fuzz_wider_sum_int16{"cumsum int16 into the wider type", &fuzz_sum<std::int16_t, wider_t<std::int16_t>>};
