//! \file bench_support.cuh
//! What the benchmark (bench.cu), the probe (probe.cu) and the gate (gate.cu) share: error checks,
//! device buffers, the random inputs (many ties, never zeros), and the event timing of repeated
//! calls. No fastscan header: the gate links trees of other namespaces.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <type_traits>

namespace bench_support {

inline void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

//! Values of -250 ... 250 in steps of 0.25 (integers -1000 ... 1000; bools alternate), hashed from
//! the position and seed.
template <class T>
__global__ void fill(T* x, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = (static_cast<std::uint64_t>(i) + seed) * 0x9E3779B97F4A7C15ull;
    const int v = static_cast<int>((h >> 33) % 2001) - 1000;  // many ties
    if constexpr (std::is_same_v<T, __half>) x[i] = __float2half(v * 0.25f);
    else if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) x[i] = __nv_fp8_e4m3(v * 0.25f);
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) x[i] = __float2bfloat16(v * 0.25f);
    else if constexpr (std::is_same_v<T, bool>) x[i] = (v & 1) != 0;
    else if constexpr (std::is_floating_point_v<T>) x[i] = static_cast<T>(v * 0.25);
    else x[i] = static_cast<T>(v);
  }
}

namespace {  // (a kernel per translation unit: the benchmark is several)
//! A pure read of `vectors` 16-byte words: each thread folds its words and one word per block is
//! written, so the loads cannot be dropped.
__global__ void read_kernel(const uint4* x, std::int64_t vectors, unsigned* sink) {
  unsigned acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < vectors; i += std::int64_t{gridDim.x} * blockDim.x) {
    const uint4 v = __ldg(x + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  acc = __reduce_xor_sync(0xffffffffu, acc);
  if ((threadIdx.x & 31) == 0 && acc == 0x9E3779B9u) sink[blockIdx.x] = acc;  // (almost never taken)
}
//! Holds the stream for `ns` nanoseconds.
__global__ void hold_kernel(unsigned long long ns) {
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}
}  // namespace

//! Holds the default stream for 2 ms, so that calls enqueued behind it run back to back on the
//! device whatever the host's launch time (5.8 us for an empty kernel on one lent host, more than
//! a latency-bound call's device time).
inline void hold_stream() {
  hold_kernel<<<1, 1>>>(2000000ull);
  check(cudaPeekAtLastError(), "hold kernel");
}

//! Reads `bytes` (rounded down to 16) at `x` once.
inline void pure_read(const void* x, std::size_t bytes, unsigned* sink, cudaStream_t stream = nullptr) {
  read_kernel<<<132 * 8, 512, 0, stream>>>(static_cast<const uint4*>(x), static_cast<std::int64_t>(bytes / 16), sink);
}

struct device_memory {
  void* ptr = nullptr;
  explicit device_memory(std::size_t bytes) { check(cudaMalloc(&ptr, bytes < 16 ? 16 : bytes), "cudaMalloc"); }
  ~device_memory() { cudaFree(ptr); }
  device_memory(const device_memory&) = delete;
  device_memory& operator=(const device_memory&) = delete;
  template <class T>
  T* as() const {
    return static_cast<T*>(ptr);
  }
};

//! Times `call` with CUDA events: three warm-up calls, then one round per `more()` (true while
//! rounds are wanted), each `record(ms)` with the time per call. Working sets beyond 64 MB (past
//! the 60 MB L2) run one call per round, smaller ones 20 calls back to back behind hold_stream()
//! (latency: device time, not the host's launch time).
template <class More, class Record>
void time_rounds(std::size_t working_set, const std::function<void()>& call, More&& more, Record&& record) {
  const int per = working_set > (std::size_t{64} << 20) ? 1 : 20;
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  for (int i = 0; i < 3; ++i) call();
  check(cudaDeviceSynchronize(), "warm-up");
  while (more()) {
    if (per > 1) hold_stream();
    cudaEventRecord(start);
    for (int k = 0; k < per; ++k) call();
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "timed calls");
    float ms = 0;
    cudaEventElapsedTime(&ms, start, stop);
    record(ms / per);
  }
  check(cudaGetLastError(), "timed launches");
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

}  // namespace bench_support
