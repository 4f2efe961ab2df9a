// The int32 tests of the dtype sweep (cummax / cummin, cumsum): the int32 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", std::int32_t) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", std::int32_t) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", std::int32_t) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

TEMPLATE_TEST_CASE("cumsum of inputs and outputs off the 16-byte grid", "[gpu][sum]", std::int32_t) {
  check_sum_off_grid<TestType>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_int32{"cummax / cummin int32", &fuzz_extreme<std::int32_t>};
static const fuzz_registration fuzz_sum_int32{"cumsum int32", &fuzz_sum<std::int32_t, std::int32_t>};
static const fuzz_registration fuzz_wider_sum_int32{"cumsum int32 into the wider type", &fuzz_sum<std::int32_t, wider_t<std::int32_t>>};
