//! \file launch.cuh
//! How every kernel of the library is launched: flags asked once per kernel and device, and the
//! launch itself (the runtime's cudaLaunchKernelEx: the driver's cuLaunchKernelEx enqueued no
//! faster, bench/probe_pdl.cu).
#pragma once

#include <fastscan/namespace.hpp>

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <utility>

FASTSCAN_NAMESPACE_BEGIN
namespace detail {

//! Per-device flags of one kernel (each instantiation of the template its own), set once.
template <auto Kernel>
struct kernel_flags {
  static std::atomic<unsigned long long>& word(int slot) {
    static std::atomic<unsigned long long> words[2] = {{0}, {0}};
    return words[slot];
  }
  static unsigned long long bit(int device) { return device >= 0 && device < 64 ? 1ull << device : 0ull; }
};

//! Lets `Kernel` use `bytes` of dynamic shared memory on `device` (past the 48 KB default), once
//! per device.
template <auto Kernel>
cudaError_t opt_in_smem(int device, std::size_t bytes) {
  using flags = kernel_flags<Kernel>;
  const unsigned long long bit = flags::bit(device);
  if (bit != 0 && (flags::word(0).load(std::memory_order_relaxed) & bit) != 0) {
    return cudaSuccess;
  }
  const cudaError_t err = cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes));
  if (err == cudaSuccess) {
    flags::word(0).fetch_or(bit, std::memory_order_relaxed);
  }
  return err;
}

//! Whether `Kernel`, as loaded on `device`, holds enter_stream_order's wait (its PTX is of sm_90 or
//! later), asked once per device: only such a kernel may start before its stream's previous
//! kernel has ended.
template <auto Kernel>
bool waits_for_stream(int device) {
  using flags = kernel_flags<Kernel>;
  static std::atomic<unsigned long long> known{0};
  const unsigned long long bit = flags::bit(device);
  if (bit != 0 && (known.load(std::memory_order_acquire) & bit) != 0) {
    return (flags::word(1).load(std::memory_order_relaxed) & bit) != 0;
  }
  cudaFuncAttributes attr{};
  const bool yes = cudaFuncGetAttributes(&attr, Kernel) == cudaSuccess && attr.ptxVersion >= 90;
  if (yes) flags::word(1).fetch_or(bit, std::memory_order_relaxed);
  known.fetch_or(bit, std::memory_order_release);
  return yes;
}

//! A launch's grid, block, dynamic shared memory and device (-1: the current one).
struct launch_dims {
  std::int64_t grid;
  int threads;
  std::size_t smem_bytes = 0;
  int device = -1;
};

//! Launches every kernel of the library: with programmatic stream serialization when the kernel
//! waits for its stream (stream_order.cuh), so a pass after another starts as that one ends.
template <auto Kernel, class... Args>
cudaError_t launch_kernel(launch_dims d, cudaStream_t stream, Args&&... args) {
  if (d.device < 0 && cudaGetDevice(&d.device) != cudaSuccess) {
    d.device = -1;  // (asked again at each launch; the launch reports the error)
  }
  cudaLaunchAttribute early{};
  early.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  early.val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(d.grid));
  config.blockDim = dim3(static_cast<unsigned>(d.threads));
  config.dynamicSmemBytes = d.smem_bytes;
  config.stream = stream;
  config.attrs = &early;
  config.numAttrs = waits_for_stream<Kernel>(d.device) ? 1 : 0;
  return cudaLaunchKernelEx(&config, Kernel, std::forward<Args>(args)...);
}

}  // namespace detail
FASTSCAN_NAMESPACE_END
