// More than 2^31 elements: a generated input, and a check on the device that every output follows
// from its predecessor (out[0] = x[0], out[i] = op(out[i-1], x[i]) along each row), which by
// induction is the whole answer, with no 20 GB copy to the host.
#include "common.cuh"

using namespace fstest;

namespace {

__host__ __device__ std::int8_t generated(std::int64_t i) {
  const std::uint64_t h = static_cast<std::uint64_t>(i) * 0x9E3779B97F4A7C15ull;
  return static_cast<std::int8_t>(static_cast<int>((h >> 40) % 9) - 4);  // -4..4, many ties
}

__global__ void generate(std::int8_t* x, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    x[i] = generated(i);
  }
}

__global__ void check_sum(const std::int64_t* out, fastscan::Shape3 s, unsigned long long* bad) {
  const std::int64_t n = s.outer * s.len * s.inner;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t pos = (i / s.inner) % s.len;
    const std::int64_t want = pos == 0 ? generated(i) : out[i - s.inner] + generated(i);
    if (out[i] != want) atomicAdd(bad, 1ull);
  }
}

__global__ void check_max(const std::int8_t* values, const std::int64_t* indices, fastscan::Shape3 s, unsigned long long* bad) {
  const std::int64_t n = s.outer * s.len * s.inner;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::int64_t pos = (i / s.inner) % s.len;
    const std::int8_t x = generated(i);
    std::int8_t want_v = x;
    std::int64_t want_i = pos;
    if (pos > 0 && values[i - s.inner] > x) {  // ties go to the later index
      want_v = values[i - s.inner];
      want_i = indices[i - s.inner];
    }
    if (values[i] != want_v || indices[i] != want_i) atomicAdd(bad, 1ull);
  }
}

bool reserve(std::size_t bytes) {
  std::size_t free_bytes = 0, total = 0;
  return cudaMemGetInfo(&free_bytes, &total) == cudaSuccess && free_bytes > bytes + (std::size_t{1} << 30);
}

}  // namespace

TEST_CASE("scans of more than 2^31 elements", "[gpu][large]") {
  const std::int64_t big = (std::int64_t{1} << 31) + 4099;
  for (fastscan::Shape3 s : {fastscan::Shape3{1, big, 1}, fastscan::Shape3{3, big / 3, 1}, fastscan::Shape3{1, big / 2, 2}}) {
    CAPTURE(shape_name(s));
    const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
    if (!reserve(n * 18)) {
      FAIL("not enough device memory for the 2^31+ test: " << n * 18 << " bytes");
    }
    device_buffer<std::int8_t> in(n), values(n);
    device_buffer<std::int64_t> wide(n);
    device_buffer<unsigned long long> bad(1);
    generate<<<1024, 256>>>(in.ptr, static_cast<std::int64_t>(n));
    CUDA_REQUIRE(cudaGetLastError());

    wide.poison();
    CUDA_REQUIRE(fastscan::cumsum(in.ptr, wide.ptr, s));
    CUDA_REQUIRE(cudaMemset(bad.ptr, 0, sizeof(unsigned long long)));
    check_sum<<<1024, 256>>>(wide.ptr, s, bad.ptr);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CHECK(bad.download()[0] == 0);

    values.poison();
    wide.poison();
    CUDA_REQUIRE(fastscan::cummax(in.ptr, values.ptr, wide.ptr, s));
    CUDA_REQUIRE(cudaMemset(bad.ptr, 0, sizeof(unsigned long long)));
    check_max<<<1024, 256>>>(values.ptr, wide.ptr, s, bad.ptr);
    CUDA_REQUIRE(cudaDeviceSynchronize());
    CHECK(bad.download()[0] == 0);
  }
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
