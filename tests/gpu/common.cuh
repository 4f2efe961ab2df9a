// Helpers of the GPU tests: device buffers and poisoning, and the tile sizes of the running
// device's plans; the host references, random data and shape lists are support/host_reference.hpp.
#pragma once

#include "../support/host_reference.hpp"

#include <fastscan/scan.cuh>

#include "../support/dispatch_of.cuh"

#include <catch2/catch.hpp>

#include <cstring>
#include <vector>

namespace fstest {

#define CUDA_REQUIRE(expr) REQUIRE((expr) == cudaSuccess)

template <class T>
struct device_buffer {
  T* ptr = nullptr;
  std::size_t count = 0;
  explicit device_buffer(std::size_t n) : count(n) {
    if (n > 0) {
      const cudaError_t err = cudaMalloc(&ptr, n * sizeof(T));
      if (err != cudaSuccess) {
        FAIL("cudaMalloc of " << n * sizeof(T) << " bytes failed: " << cudaGetErrorString(err));
      }
      // Byte buffers are temp storage: written once with 0xff, which the tile state reads as
      // unpublished, so that compute-sanitizer's initcheck does not report the look-back's reads
      // of words no tile has written yet (by design: they carry no tag of the call).
      if constexpr (std::is_same_v<T, unsigned char>) {
        CUDA_REQUIRE(cudaMemset(ptr, 0xff, n));
      }
    }
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() { cudaFree(ptr); }
  //! Upload and poison finish before they return: both go on the legacy stream, which a
  //! non-blocking stream under test does not wait for (a pageable copy or a memset may still run).
  template <class H>
  void upload(const H& h) {
    CUDA_REQUIRE(cudaMemcpy(ptr, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    CUDA_REQUIRE(cudaDeviceSynchronize());
  }
  host_array<T> download() const {
    host_array<T> h(count);
    if (count > 0) {
      CUDA_REQUIRE(cudaMemcpy(h.data(), ptr, count * sizeof(T), cudaMemcpyDeviceToHost));
    }
    return h;
  }
  //! Fills with a byte pattern no correct result equals, so unwritten elements are caught.
  void poison() {
    if (count > 0) {
      CUDA_REQUIRE(cudaMemset(ptr, 0x5b, count * sizeof(T)));
      CUDA_REQUIRE(cudaDeviceSynchronize());
    }
  }
};

inline bool has_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

//! Tile sizes of the plans the running device gets, so the shape lists follow the solver: rows,
//! column rows, and rows of a latency-bound plan.
struct plan_tiles {
  std::int64_t rows, column_rows, small_rows;
};
template <class Dispatch>
plan_tiles tile_sizes() {
  fastscan::detail::plan rows, cols, small;
  REQUIRE(Dispatch::solve({1, std::int64_t{1} << 26, 1}, rows) == cudaSuccess);
  REQUIRE(Dispatch::solve({1, std::int64_t{1} << 26, 64}, cols) == cudaSuccess);
  REQUIRE(Dispatch::solve({1, 65536, 1}, small) == cudaSuccess);
  return {rows.tile_items, cols.tile_items, small.tile_items};
}

}  // namespace fstest
