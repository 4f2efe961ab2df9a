// The uint8 tests of the dtype sweep (cummax / cummin, cumsum): the uint8 kernels compile in
// this file alone, the other dtypes' in theirs, so the sweep builds in parallel.
#include "../extreme_check.cuh"
#include "../sum_check.cuh"

using namespace fstest;

TEMPLATE_TEST_CASE("cummax and cummin match the framework rule on edge shapes", "[gpu][extreme]", std::uint8_t) {
  check_extreme_shapes<TestType>();
}

TEMPLATE_TEST_CASE("cumsum into the same type", "[gpu][sum]", std::uint8_t) { check_sum_shapes<TestType, TestType>(); }

TEMPLATE_TEST_CASE("cumsum into the framework's wider type", "[gpu][sum]", std::uint8_t) {
  check_sum_shapes<TestType, wider_t<TestType>>();
}

TEMPLATE_TEST_CASE("cumsum of 1- and 2-byte types on the full-size row plan", "[gpu][sum]", std::uint8_t) {
  check_full_size_rows<TestType>();
}

TEMPLATE_TEST_CASE("cumsum of inputs and outputs off the 16-byte grid", "[gpu][sum]", std::uint8_t) {
  check_sum_off_grid<TestType>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_extreme_uint8{"cummax / cummin uint8", &fuzz_extreme<std::uint8_t>};
static const fuzz_registration fuzz_sum_uint8{"cumsum uint8", &fuzz_sum<std::uint8_t, std::uint8_t>};
static const fuzz_registration fuzz_wider_sum_uint8{"cumsum uint8 into the wider type", &fuzz_sum<std::uint8_t, wider_t<std::uint8_t>>};
