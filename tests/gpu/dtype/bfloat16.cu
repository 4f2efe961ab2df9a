// The bfloat16 tests of the dtype sweep (cummax / cummin, cumsum): the bfloat16 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", __nv_bfloat16) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", __nv_bfloat16) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", __nv_bfloat16) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_bfloat16{"cummax / cummin bfloat16", &fuzz_extreme<__nv_bfloat16>};
static const fuzz_registration fuzz_sum_bfloat16{"cumsum bfloat16", &fuzz_sum<__nv_bfloat16, __nv_bfloat16>};
static const fuzz_registration fuzz_wider_sum_bfloat16{"cumsum bfloat16 into the wider type", &fuzz_sum<__nv_bfloat16, wider_t<__nv_bfloat16>>};
