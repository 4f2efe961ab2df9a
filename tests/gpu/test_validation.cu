// Argument validation of the entry points: every bad call returns before any launch and writes
// nothing, so these need no device (tagged [host], not [gpu]; ctest labels them host). They call the
// entry points, which instantiates kernels, so they live in the GPU binary, not the host one.
#include "common.cuh"

using namespace fstest;

TEST_CASE("bad input is rejected before any launch and outputs stay untouched", "[host][validation]") {
  // Host arrays stand in for device memory: nothing may be launched or written.
  std::vector<float> in(16, 1.f), values(16, 7.f);
  std::vector<std::int32_t> idx32(16, 7);
  std::vector<std::int64_t> idx64(16, 7);
  alignas(16) unsigned char temp[64];
  std::size_t temp_bytes = sizeof(temp);
  const fastscan::Shape3 ok{1, 16, 1};

  CHECK(fastscan::cummax(temp, temp_bytes, static_cast<const float*>(nullptr), values.data(), idx64.data(), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cummax(temp, temp_bytes, in.data(), static_cast<float*>(nullptr), idx64.data(), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cummin(temp, temp_bytes, in.data(), values.data(), static_cast<std::int64_t*>(nullptr), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cumsum(temp, temp_bytes, static_cast<const float*>(nullptr), values.data(), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::exclusive_cumsum(temp, temp_bytes, in.data(), static_cast<double*>(nullptr), ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::inclusive_scan(temp, temp_bytes, in.data(), static_cast<float*>(nullptr), fastscan::sum_op{}, ok) ==
        cudaErrorInvalidValue);
  CHECK(fastscan::cummax(in.data(), static_cast<float*>(nullptr), idx64.data(), ok) == cudaErrorInvalidValue);
  CHECK(fastscan::cumsum(static_cast<const float*>(nullptr), values.data(), ok) == cudaErrorInvalidValue);

  for (fastscan::Shape3 bad : {fastscan::Shape3{-1, 4, 1}, fastscan::Shape3{1, -4, 1}, fastscan::Shape3{1, 4, -1}}) {
    std::size_t query = 0;
    CHECK(fastscan::cummax(nullptr, query, in.data(), values.data(), idx64.data(), bad) == cudaErrorInvalidValue);
    CHECK(fastscan::cumsum(temp, temp_bytes, in.data(), values.data(), bad) == cudaErrorInvalidValue);
  }
  // Temp storage that is not 16-byte aligned (the tile state is read and written in 16-byte words).
  std::size_t short_bytes = temp_bytes - 8;
  CHECK(fastscan::cummax(temp + 8, short_bytes, in.data(), values.data(), idx64.data(), ok) == cudaErrorInvalidValue);
  CHECK(fastscan::cumsum(temp + 4, short_bytes, in.data(), values.data(), ok) == cudaErrorInvalidValue);
  // More than 2^62 elements.
  std::size_t query = 0;
  CHECK(fastscan::cumsum(nullptr, query, in.data(), values.data(), {std::int64_t{1} << 40, std::int64_t{1} << 30, 8}) ==
        cudaErrorInvalidValue);
  // int32 indices cannot name position 2^31.
  CHECK(fastscan::cummax(nullptr, query, in.data(), values.data(), idx32.data(),
                         {1, (std::int64_t{1} << 31) + 1, 1}) == cudaErrorInvalidValue);
  CHECK(fastscan::cummax(temp, temp_bytes, in.data(), values.data(), idx32.data(),
                         {2, (std::int64_t{1} << 31) + 1, 1}) == cudaErrorInvalidValue);

  // Empty shapes succeed and write nothing, with or without pointers.
  for (fastscan::Shape3 empty : {fastscan::Shape3{0, 16, 1}, fastscan::Shape3{1, 0, 1}, fastscan::Shape3{1, 16, 0}}) {
    CHECK(fastscan::cummax(temp, temp_bytes, in.data(), values.data(), idx64.data(), empty) == cudaSuccess);
    CHECK(fastscan::cumsum(temp, temp_bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr), empty) ==
          cudaSuccess);
    CHECK(fastscan::cummin(in.data(), values.data(), idx32.data(), empty) == cudaSuccess);
    std::size_t q = 0;
    CHECK(fastscan::cummax(nullptr, q, in.data(), values.data(), idx64.data(), empty) == cudaSuccess);
    CHECK(q >= 1);
  }
  CHECK(values == std::vector<float>(16, 7.f));
  CHECK(idx32 == std::vector<std::int32_t>(16, 7));
  CHECK(idx64 == std::vector<std::int64_t>(16, 7));
}
