// Segmented scans over keys of float32 and float64 features: every segment pattern against the
// double reference, and determinism.
#include "determinism.cuh"
#include "segmented_cases.cuh"

using namespace fstest;

namespace {
const std::vector<std::pair<std::int64_t, std::int64_t>> sizes = {
    {0, 3}, {1, 1}, {1, 64}, {1000, 1}, {70001, 1}, {(1 << 20) + 3, 1}, {4097, 3}, {(1 << 16) + 1, 64}, {1031, 80}, {300, 1024}};
}  // namespace

TEST_CASE("segmented_cumsum and segment_sum of float32 rows, int64 keys", "[gpu][segmented]") {
  check_segment_patterns<float, std::int64_t>(sizes);
}
TEST_CASE("segmented_cumsum and segment_sum of float32 rows, int32 keys", "[gpu][segmented]") {
  check_segment_patterns<float, std::int32_t>({{70001, 1}, {4097, 3}, {1031, 80}});
}
TEST_CASE("segment sums of float32 and float64 are bitwise the same on every run", "[gpu][segmented]") {
  check_segments_deterministic<float, std::int64_t>(1 << 20, 1);
  check_segments_deterministic<float, std::int64_t>(1 << 16, 64);
  check_segments_deterministic<double, std::int64_t>(1 << 16, 64);
}

TEST_CASE("unsorted int32 keys over float32 rows narrower than a tile", "[gpu][segmented]") {
  check_unsorted_small<float, std::int32_t>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_seg_f32_i64{"segmented float32, int64 keys", &fuzz_segments<float, std::int64_t>};
static const fuzz_registration fuzz_seg_f32_i32{"segmented float32, int32 keys", &fuzz_segments<float, std::int32_t>};
