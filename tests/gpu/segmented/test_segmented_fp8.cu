// Segmented scans of fp8 e4m3 features (read only, summed in float) and their determinism.
#include "determinism.cuh"
#include "segmented_cases.cuh"

using namespace fstest;

TEST_CASE("segmented_cumsum and segment_sum of fp8 e4m3 rows", "[gpu][segmented]") {
  check_segment_patterns<__nv_fp8_e4m3, std::int64_t>({{70001, 1}, {4097, 3}, {(1 << 16) + 1, 64}});
}
TEST_CASE("segment sums of fp8 are bitwise the same on every run", "[gpu][segmented]") {
  check_segments_deterministic<__nv_fp8_e4m3, std::int64_t>(1 << 16, 80);
}
TEST_CASE("unsorted keys over fp8 rows narrower than a tile, one row included", "[gpu][segmented]") {
  check_unsorted_small<__nv_fp8_e4m3, std::int64_t>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_seg_fp8_i64{"segmented fp8 e4m3, int64 keys", &fuzz_segments<__nv_fp8_e4m3, std::int64_t>};
