// Segmented scans of bfloat16 features with int32 keys (summed in float) and their determinism.
#include "determinism.cuh"
#include "segmented_cases.cuh"

using namespace fstest;

TEST_CASE("segmented_cumsum and segment_sum of bfloat16 rows, int32 keys", "[gpu][segmented]") {
  check_segment_patterns<__nv_bfloat16, std::int32_t>({{70001, 1}, {1031, 80}});
}
TEST_CASE("segment sums of bfloat16 are bitwise the same on every run", "[gpu][segmented]") {
  check_segments_deterministic<__nv_bfloat16, std::int32_t>(1 << 20, 1);
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_seg_bf16_i32{"segmented bfloat16, int32 keys", &fuzz_segments<__nv_bfloat16, std::int32_t>};
