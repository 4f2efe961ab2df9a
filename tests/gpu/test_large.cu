// More than 2^31 (and 2^32) elements: a generated input, and a check on the device that every output follows
// from its predecessor (out[0] = x[0], out[i] = op(out[i-1], x[i]) along each row), which by
// induction is the whole answer, with no 20 GB copy to the host.
#include "common.cuh"

#include <cmath>

using namespace fstest;

namespace {

__host__ __device__ std::uint64_t mix(std::int64_t i) { return static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull; }

//! Element i of the generated input: -4..4 (many ties); bool: one in three true; float: -1, 0 or 1
//! (every partial sum of 2^31 of them is an integer far below 2^24, so exact in any order), and a
//! NaN at every 2^24-th element for the extremes.
template <class T>
__host__ __device__ T generated(std::int64_t i) {
  const std::uint64_t h = mix(i);
  if constexpr (std::is_same_v<T, bool>) {
    return (h >> 40) % 3 == 0;
  } else if constexpr (std::is_same_v<T, float>) {
    return (i & ((1 << 24) - 1)) == 12345 ? static_cast<float>(NAN) : static_cast<float>(static_cast<int>((h >> 40) % 3) - 1);
  } else {
    return static_cast<T>(static_cast<int>((h >> 40) % 9) - 4);
  }
}
template <class T>
__global__ void generate(T* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    x[i] = generated<T>(i);
  }
}
// The sums without a NaN (the float cumsum runs on the generated values with NaNs made 0).
template <class T>
__host__ __device__ T summand(std::int64_t i) {
  const T x = generated<T>(i);
  if constexpr (std::is_same_v<T, float>) {
    return x != x ? 0.f : x;
  } else {
    return x;
  }
}
template <class T>
__global__ void generate_summands(T* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    x[i] = summand<T>(i);
  }
}

//! out[i] == out[i - inner] + x[i] along each row (out[i] == x[i] at a row's start).
template <class T, class Out>
__global__ void check_sum(const Out* out, fastscan::Shape3 s, unsigned long long* bad) {
  const std::int64_t n = s.outer * s.len * s.inner;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t pos = (i / s.inner) % s.len;
    const Out x = static_cast<Out>(summand<T>(i));
    const Out want = pos == 0 ? x : static_cast<Out>(out[i - s.inner] + x);
    if (!(out[i] == want)) atomicAdd(bad, 1ull);
  }
}

//! cummax's rule from the predecessor: NaN beats everything, ties go to the later index.
template <class T>
__global__ void check_max(const T* values, const std::int64_t* indices, fastscan::Shape3 s, unsigned long long* bad) {
  const std::int64_t n = s.outer * s.len * s.inner;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t pos = (i / s.inner) % s.len;
    const T x = generated<T>(i);
    T want_v = x;
    std::int64_t want_i = pos;
    if (pos > 0) {
      const T prev = values[i - s.inner];
      const bool x_nan = !(x == x), prev_nan = !(prev == prev);
      if (!x_nan && (prev_nan || prev > x)) {
        want_v = prev;
        want_i = indices[i - s.inner];
      }
    }
    const bool same_v = want_v == values[i] || (!(want_v == want_v) && !(values[i] == values[i]));
    if (!same_v || indices[i] != want_i) atomicAdd(bad, 1ull);
  }
}

bool reserve(std::size_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  return cudaMemGetInfo(&free_bytes, &total) == cudaSuccess && free_bytes > bytes + (std::size_t{1} << 30);
}


//! cumsum (into int64, or float into float) and cummax of the generated input of type T over `s`
//! (numel beyond 2^31), checked on the device.
template <class T>
void check_huge(fastscan::Shape3 s) {
  using Out = std::conditional_t<std::is_same_v<T, float>, float, std::int64_t>;
  CAPTURE(type_name<T>(), shape_name(s));
  const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
  const std::size_t need = n * (2 * sizeof(T) + sizeof(Out) + sizeof(std::int64_t));
  if (!reserve(need)) {
    FAIL("not enough device memory for the huge-input test: " << need << " bytes");
  }
  device_buffer<T> in(n), values(n);
  device_buffer<Out> sums(n);
  device_buffer<unsigned long long> bad(1);
  if constexpr (!std::is_same_v<T, bool>) {
    generate_summands<T><<<1024, 256>>>(in.ptr, static_cast<std::int64_t>(n));
    CUDA_REQUIRE(cudaGetLastError());
    sums.poison();
    CUDA_REQUIRE(fastscan::cumsum(in.ptr, sums.ptr, s));
  } else {
    generate<T><<<1024, 256>>>(in.ptr, static_cast<std::int64_t>(n));
    CUDA_REQUIRE(cudaGetLastError());
    sums.poison();
    CUDA_REQUIRE(fastscan::cumsum(in.ptr, sums.ptr, s));
  }
  CUDA_REQUIRE(cudaMemset(bad.ptr, 0, sizeof(unsigned long long)));
  check_sum<T, Out><<<1024, 256>>>(sums.ptr, s, bad.ptr);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(bad.download()[0] == 0);
  {
    device_buffer<std::int64_t> indices(n);
    generate<T><<<1024, 256>>>(in.ptr, static_cast<std::int64_t>(n));
    values.poison();
    indices.poison();
    CUDA_REQUIRE(fastscan::cummax(in.ptr, values.ptr, indices.ptr, s));
    CUDA_REQUIRE(cudaMemset(bad.ptr, 0, sizeof(unsigned long long)));
    check_max<T><<<1024, 256>>>(values.ptr, indices.ptr, s, bad.ptr);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CHECK(bad.download()[0] == 0);
  }
}

}  // namespace

TEST_CASE("scans of more than 2^31 and 2^32 elements", "[gpu][large]") {
  const std::int64_t big = (std::int64_t{1} << 31) + 4099, huge = (std::int64_t{1} << 32) + 17;
  for (fastscan::Shape3 s : {fastscan::Shape3{1, big, 1}, fastscan::Shape3{3, big / 3, 1}, fastscan::Shape3{1, big / 2, 2}}) {
    check_huge<std::int8_t>(s);
  }
  check_huge<std::int8_t>({1, huge, 1});
  check_huge<bool>({1, huge, 1});
  check_huge<float>({1, (std::int64_t{1} << 31) + 5, 1});
  check_huge<float>({1, ((std::int64_t{1} << 31) + 5) / 5, 5});
}

namespace {

//! Segment v holds rows [v * run, (v + 1) * run) (the last one shorter): key v.
constexpr std::int64_t run_rows = 37;
__global__ void generate_rows(float* feats, std::int64_t* keys, std::int64_t S, std::int64_t C) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < S * C; i += std::int64_t{gridDim.x} * blockDim.x) {
    feats[i] = summand<float>(i);
    if (i % C == 0) keys[i / C] = i / C / run_rows;
  }
}
//! sums[v, c] == the sum of its rows' channel c (a thread sums one (segment, channel) in order).
__global__ void check_segment_sums(const float* sums, const std::int64_t* unique, const std::int64_t* count, std::int64_t S,
                                   std::int64_t C, unsigned long long* bad) {
  const std::int64_t V = (S + run_rows - 1) / run_rows;
  if (blockIdx.x == 0 && threadIdx.x == 0 && *count != V) atomicAdd(bad, 1ull);
  for (std::int64_t t = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; t < V * C; t += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t v = t / C, c = t % C;
    float want = 0;
    for (std::int64_t r = v * run_rows; r < S && r < (v + 1) * run_rows; ++r) want += summand<float>(r * C + c);
    if (sums[t] != want || (c == 0 && unique[v] != v)) atomicAdd(bad, 1ull);
  }
}
//! out[i, c] == out[i - 1, c] + feats[i, c] within a segment.
__global__ void check_segmented_cumsum(const float* out, std::int64_t S, std::int64_t C, unsigned long long* bad) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < S * C; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t row = i / C;
    const float want = row % run_rows == 0 ? summand<float>(i) : out[i - C] + summand<float>(i);
    if (out[i] != want) atomicAdd(bad, 1ull);
  }
}

}  // namespace

TEST_CASE("segmented sums and scans of more than 2^31 elements", "[gpu][large]") {
  const std::int64_t C = 64, S = (std::int64_t{1} << 25) + 3;  // S x C = 2^31 + 192
  const auto n = static_cast<std::size_t>(S * C);
  if (!reserve(n * 12 + static_cast<std::size_t>(S) * 24)) {
    FAIL("not enough device memory for the segmented 2^31+ test");
  }
  device_buffer<float> feats(n), out(n);
  device_buffer<std::int64_t> keys(static_cast<std::size_t>(S)), unique(static_cast<std::size_t>(S)), count(1);
  device_buffer<unsigned long long> bad(1);
  generate_rows<<<1024, 256>>>(feats.ptr, keys.ptr, S, C);
  CUDA_REQUIRE(cudaGetLastError());
  out.poison();
  CUDA_REQUIRE(fastscan::segment_sum(feats.ptr, keys.ptr, unique.ptr, out.ptr, count.ptr, S, C));
  CUDA_REQUIRE(cudaMemset(bad.ptr, 0, sizeof(unsigned long long)));
  check_segment_sums<<<1024, 256>>>(out.ptr, unique.ptr, count.ptr, S, C, bad.ptr);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(bad.download()[0] == 0);

  out.poison();
  CUDA_REQUIRE(fastscan::segmented_cumsum(feats.ptr, keys.ptr, out.ptr, S, C));
  CUDA_REQUIRE(cudaMemset(bad.ptr, 0, sizeof(unsigned long long)));
  check_segmented_cumsum<<<1024, 256>>>(out.ptr, S, C, bad.ptr);
  CUDA_REQUIRE(cudaDeviceSynchronize());
  CHECK(bad.download()[0] == 0);
}

TEST_CASE("temp storage smaller than the plan needs is rejected", "[gpu][validation]") {
  const fastscan::Shape3 s{1, 1 << 22, 1};
  device_buffer<float> in(1 << 22), out(1 << 22);
  out.poison();
  std::size_t need = 0;
  CUDA_REQUIRE(fastscan::cumsum(nullptr, need, in.ptr, out.ptr, s));
  REQUIRE(need > 1);
  device_buffer<unsigned char> temp(need);
  std::size_t small = need - 1;
  CHECK(fastscan::cumsum(temp.ptr, small, in.ptr, out.ptr, s) == cudaErrorInvalidValue);
  const auto after = out.download();
  CHECK(std::all_of(after.begin(), after.end(), [](float v) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return bits == 0x5b5b5b5bu;
  }));
}

TEST_CASE("scans run on the stream they are given", "[gpu][stream]") {
  cudaStream_t stream;
  CUDA_REQUIRE(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const fastscan::Shape3 s{2, 3 << 20, 1};
  const auto n = static_cast<std::size_t>(s.outer * s.len);
  const auto h = random_values<std::int32_t>(n, 5);
  device_buffer<std::int32_t> in(n);
  device_buffer<std::int64_t> out(n);
  in.upload(h);
  out.poison();
  CUDA_REQUIRE(fastscan::cumsum(in.ptr, out.ptr, s, stream));
  CUDA_REQUIRE(cudaStreamSynchronize(stream));
  const auto got = out.download();
  std::int64_t run = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    run = (i % static_cast<std::size_t>(s.len) == 0) ? h[i] : run + h[i];
    bad += got[i] != run;
  }
  CHECK(bad == 0);
  CUDA_REQUIRE(cudaStreamDestroy(stream));
}
