// The float32 tests of the dtype sweep (cummax / cummin, cumsum): the float32 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", float) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", float) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("ordered column sums look back across tile groups", "[gpu][sum][lookback]", float) {
  check_grouped_lookback<TestType>();
}

TEMPLATE_TEST_CASE("cumsum of inputs and outputs off the 16-byte grid", "[gpu][sum]", float) {
  check_sum_off_grid<TestType>();
}

TEST_CASE("float cumsum is bitwise reproducible", "[gpu][sum][determinism]") { check_float_sum_reproducible(); }

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_float32{"cummax / cummin float32", &fuzz_extreme<float>};
static const fuzz_registration fuzz_sum_float32{"cumsum float32", &fuzz_sum<float, float>};
