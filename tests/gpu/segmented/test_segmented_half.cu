// Segmented scans of float16 features (summed in float) and their determinism.
#include "determinism.cuh"
#include "segmented_cases.cuh"

using namespace fstest;

TEST_CASE("segmented_cumsum and segment_sum of float16 rows", "[gpu][segmented]") {
  check_segment_patterns<__half, std::int64_t>({{70001, 1}, {4097, 3}, {(1 << 16) + 1, 64}, {1031, 80}, {300, 1024}});
}
TEST_CASE("segment sums of float16 are bitwise the same on every run", "[gpu][segmented]") {
  check_segments_deterministic<__half, std::int64_t>(1 << 16, 64);
}
TEST_CASE("unsorted keys over float16 rows narrower than a tile, one row included", "[gpu][segmented]") {
  check_unsorted_small<__half, std::int64_t>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_seg_f16_i64{"segmented float16, int64 keys", &fuzz_segments<__half, std::int64_t>};
