// The bool tests of the dtype sweep (cummax / cummin, cumsum): the bool kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", bool) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", bool) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_bool{"cummax / cummin bool", &fuzz_extreme<bool>};
static const fuzz_registration fuzz_wider_sum_bool{"cumsum bool into the wider type", &fuzz_sum<bool, wider_t<bool>>};
