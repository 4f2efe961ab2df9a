// cummax / cummin against the sequential framework rule on the floating-point types (NaNs and
// signed zeros among the ties); the integer types are in test_extreme.cu.
#include "extreme_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", __half,
                   __nv_bfloat16, float, double) {
  check_all_shapes<TestType>();
}
