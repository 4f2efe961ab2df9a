// Segmented scans over keys: the precision the subtract-at-run-ends method loses, any operator,
// and the validation of every entry point.
#include "determinism.cuh"
#include "segmented_cases.cuh"

using namespace fstest;

TEST_CASE("segmented_cumsum and segment_sum of float64 rows", "[gpu][segmented]") {
  check_segment_patterns<double, std::int64_t>({{70001, 1}, {4097, 3}, {(1 << 16) + 1, 64}});
}
TEST_CASE("a small segment after a long one keeps its digits", "[gpu][segmented]") {
  // One segment of 2^20 rows of 1000, then one of 16 rows of 1e-3. Sums taken by a cumsum of the
  // whole array and subtracted at the run ends lose the small segment (float32 keeps 7 digits of
  // a running 1e9); summed per segment, it is exact to float's rounding.
  const std::int64_t big = 1 << 20, small = 16, S = big + small;
  host_array<float> feats(static_cast<std::size_t>(S));
  std::vector<std::int64_t> keys(static_cast<std::size_t>(S));
  for (std::int64_t i = 0; i < S; ++i) {
    feats[static_cast<std::size_t>(i)] = i < big ? 1000.0f : 1e-3f;
    keys[static_cast<std::size_t>(i)] = i < big ? 0 : 1;
  }
  float running = 0, at_big = 0;  // the subtract method, in float as a float cumsum would
  for (std::int64_t i = 0; i < S; ++i) {
    running += feats[static_cast<std::size_t>(i)];
    if (i == big - 1) at_big = running;
  }
  const double want = 16e-3;
  const double subtract_error = std::fabs((running - at_big) - want) / want;
  device_buffer<float> d_feats(feats.size()), d_sums(feats.size());
  device_buffer<std::int64_t> d_keys(keys.size()), d_unique(keys.size()), d_count(1);
  d_feats.upload(feats);
  d_keys.upload(keys);
  CUDA_REQUIRE(fastscan::segment_sum(d_feats.ptr, d_keys.ptr, d_unique.ptr, d_sums.ptr, d_count.ptr, S, 1));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto sums = d_sums.download();
  CHECK(d_count.download()[0] == 2);
  CHECK(subtract_error > 0.5);  // the method this replaces loses the segment
  CHECK(std::fabs(sums[1] - want) / want < 1e-5);
  CHECK(std::fabs(sums[0] - 1000.0 * big) / (1000.0 * big) < 1e-6);
}

TEST_CASE("segment_sum into max_segments rows writes the first segments and counts them all", "[gpu][segmented]") {
  // Segments past max_segments are counted in num_segments but not written; rows past the count
  // keep what they held (poisoned here).
  const std::int64_t S = 50021, C = 3;
  std::vector<std::int64_t> keys(static_cast<std::size_t>(S));
  host_array<double> feats(static_cast<std::size_t>(S * C));
  std::int64_t key = 0;
  for (std::int64_t i = 0; i < S; ++i) {
    key += (i * 2654435761u) % 7 == 0;  // runs of varied lengths
    keys[static_cast<std::size_t>(i)] = key;
    for (std::int64_t c = 0; c < C; ++c) feats[static_cast<std::size_t>(i * C + c)] = static_cast<double>((i + c) % 13) - 6;
  }
  std::vector<double> want;
  std::vector<std::int64_t> want_keys;
  for (std::int64_t i = 0; i < S; ++i) {
    if (i == 0 || keys[static_cast<std::size_t>(i)] != keys[static_cast<std::size_t>(i - 1)]) {
      want.resize(want.size() + C, 0.0);
      want_keys.push_back(keys[static_cast<std::size_t>(i)]);
    }
    for (std::int64_t c = 0; c < C; ++c) want[want.size() - C + c] += feats[static_cast<std::size_t>(i * C + c)];
  }
  const auto V = static_cast<std::int64_t>(want_keys.size());
  device_buffer<double> d_feats(feats.size());
  device_buffer<std::int64_t> d_keys(keys.size()), d_count(1);
  d_feats.upload(feats);
  d_keys.upload(keys);
  for (const std::int64_t M : {V - 7, V, V + 5, std::int64_t{0}}) {
    CAPTURE(V, M);
    device_buffer<double> d_sums(static_cast<std::size_t>(M * C + 1));
    device_buffer<std::int64_t> d_unique(static_cast<std::size_t>(M + 1));
    d_sums.poison();
    d_unique.poison();
    CUDA_REQUIRE(fastscan::segment_sum(d_feats.ptr, d_keys.ptr, d_unique.ptr, d_sums.ptr, d_count.ptr, S, C, nullptr, M));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CHECK(d_count.download()[0] == V);
    const auto sums = d_sums.download();
    const auto unique = d_unique.download();
    std::int64_t wrong = 0, touched = 0;
    for (std::int64_t v = 0; v <= M; ++v) {  // row M is past the output: a guard
      const bool segment = v < std::min(M, V);
      for (std::int64_t c = 0; c < (v < M ? C : 1); ++c) {
        const double got = sums[static_cast<std::size_t>(v * C + c)];
        double poison;
        std::memset(&poison, 0x5b, sizeof poison);
        if (segment) wrong += got != want[static_cast<std::size_t>(v * C + c)];
        else touched += std::memcmp(&got, &poison, sizeof got) != 0;
      }
      if (segment) wrong += unique[static_cast<std::size_t>(v)] != want_keys[static_cast<std::size_t>(v)];
    }
    CHECK(wrong == 0);
    CHECK(touched == 0);
  }
}

TEST_CASE("segment sums of runs that end where a range of summed rows ends, or a row off", "[gpu][segmented]") {
  // segment_sum sums ranges of rows (fastscan::detail::run_sum_rows) and finishes the runs that
  // cross them from the ranges' partial sums: runs over several ranges, ending exactly at a
  // range's end, one row before or after it, and runs of one row at a range's start.
  const std::int64_t R = fastscan::detail::run_sum_rows(1 << 12, 1);
  std::vector<std::int64_t> keys;
  std::int64_t key = -3;
  for (const std::int64_t length : {3 * R, R, 2 * R - 1, std::int64_t{1}, R + 1, 5 * R, std::int64_t{1}, R - 1, 2 * R,
                                    std::int64_t{3}, R, 4 * R}) {
    keys.insert(keys.end(), static_cast<std::size_t>(length), key);
    key += 2;
  }
  for (const std::int64_t C : {1, 3, 4, 64}) {
    CAPTURE(R, C);
    check_segments_of<float, std::int64_t, float>(keys, C, 91);
    check_segments_of<double, std::int64_t, double>(keys, C, 92);
  }
}

// (At namespace scope: a kernel instantiated for a type of an unnamed namespace cannot be hidden.)
struct segmented_max_i64 {
  __host__ __device__ long long operator()(long long a, long long b) const { return a > b ? a : b; }
};

TEST_CASE("segmented_inclusive_scan with max restarts at every new key", "[gpu][segmented]") {
  for (const auto& [S, C] : std::vector<std::pair<std::int64_t, std::int64_t>>{{(1 << 20) + 7, 1}, {70001, 3}}) {
    for (const std::int64_t every : {std::int64_t{0}, std::int64_t{16}, std::int64_t{4096}}) {
      CAPTURE(S, C, every);
      const auto keys = segment_keys<std::int64_t>(S, every, 5 + every);
      const auto in = random_values<long long>(static_cast<std::size_t>(S * C), 9);
      std::vector<long long> want(in.size());
      for (std::int64_t i = 0; i < S; ++i) {
        const bool head = i == 0 || keys[i] != keys[i - 1];
        for (std::int64_t c = 0; c < C; ++c) {
          const auto at = static_cast<std::size_t>(i * C + c);
          want[at] = head ? in[at] : std::max(want[at - C], in[at]);
        }
      }
      device_buffer<long long> d_in(in.size()), d_out(in.size());
      device_buffer<std::int64_t> d_keys(keys.size());
      d_in.upload(in);
      d_keys.upload(keys);
      d_out.poison();
      std::size_t bytes = 0;
      CUDA_REQUIRE(fastscan::segmented_inclusive_scan(nullptr, bytes, d_in.ptr, d_keys.ptr, d_out.ptr, segmented_max_i64{}, S, C));
      device_buffer<unsigned char> temp(bytes);
      CUDA_REQUIRE(fastscan::segmented_inclusive_scan(temp.ptr, bytes, d_in.ptr, d_keys.ptr, d_out.ptr, segmented_max_i64{}, S, C));
      CUDA_REQUIRE(cudaDeviceSynchronize());
      const auto got = d_out.download();
      std::size_t wrong = 0;
      for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i] != want[i];
      CHECK(wrong == 0);
    }
  }
}

TEST_CASE("segmented entry points reject bad arguments before any launch", "[host][validation][segmented]") {
  // No device is needed: every call returns before it is asked anything.
  std::size_t bytes = 0;
  float* f = reinterpret_cast<float*>(16);
  std::int64_t* k = reinterpret_cast<std::int64_t*>(16);
  std::int64_t* count = reinterpret_cast<std::int64_t*>(16);
  const cudaError_t bad = cudaErrorInvalidValue;
  CHECK(fastscan::segmented_cumsum(nullptr, bytes, f, k, f, -1, 4) == bad);
  CHECK(fastscan::segmented_cumsum(nullptr, bytes, f, k, f, 10, -1) == bad);
  CHECK(fastscan::segmented_cumsum(nullptr, bytes, f, k, f, 10, 0) == bad);
  CHECK(fastscan::segmented_cumsum(nullptr, bytes, static_cast<const float*>(nullptr), k, f, 10, 4) == bad);
  CHECK(fastscan::segmented_cumsum(nullptr, bytes, f, static_cast<const std::int64_t*>(nullptr), f, 10, 4) == bad);
  CHECK(fastscan::segmented_cumsum(nullptr, bytes, f, k, static_cast<float*>(nullptr), 10, 4) == bad);
  CHECK(fastscan::segment_sum(nullptr, bytes, f, k, k, f, static_cast<std::int64_t*>(nullptr), 10, 4) == bad);
  CHECK(fastscan::segment_sum(nullptr, bytes, f, k, static_cast<std::int64_t*>(nullptr), f, count, 10, 4) == bad);
  CHECK(fastscan::segment_sum(nullptr, bytes, f, k, k, f, count, 10, 0) == bad);
  float* f2 = reinterpret_cast<float*>(4096);
  std::int64_t* u = reinterpret_cast<std::int64_t*>(1 << 20);
  // Outputs of max_segments rows: 3 rows fit apart from the inputs (the query then asks the device,
  // if any), 2^30 rows of sums would overlap the keys.
  CHECK(fastscan::segment_sum(nullptr, bytes, f, k + 64, u, f2, count + 8192, 10, 4, nullptr, 3) != bad);
  CHECK(fastscan::segment_sum(nullptr, bytes, f, k + 64, u, f2, count + 8192, 10, 4, nullptr, 1 << 30) == bad);
  CHECK(fastscan::segmented_inclusive_scan(nullptr, bytes, f, static_cast<const std::int64_t*>(nullptr), f,
                                           fastscan::sum_op{}, 10, 4) == bad);
  // Nothing to scan is no error, and the size query still answers.
  bytes = 0;
  CHECK(fastscan::segmented_cumsum(nullptr, bytes, f, k, f, 0, 0) == cudaSuccess);
  CHECK(bytes >= 1);
}
TEST_CASE("unsorted float64 keys over rows narrower than a tile: each run of equal keys is a segment", "[gpu][segmented]") {
  check_unsorted_small<double, std::int64_t>();
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_seg_f64_i64{"segmented float64, int64 keys", &fuzz_segments<double, std::int64_t>};
