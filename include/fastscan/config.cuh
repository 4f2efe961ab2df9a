//! \file config.cuh
//! Kernel-visibility and function macros shared by every device header (the namespace: namespace.hpp).
#pragma once

#include <fastscan/namespace.hpp>

#include <cuda_runtime.h>

#include <cstdint>

//! Kernels get hidden visibility so two shared objects that both embed fastscan keep their own.
#if defined(__GNUC__) || defined(__clang__)
#define FASTSCAN_KERNEL __global__ __attribute__((visibility("hidden")))
#else
#define FASTSCAN_KERNEL __global__
#endif

//! Around kernel definitions: a kernel instantiated for a caller's type in an unnamed namespace has
//! internal linkage, where nvcc warns (1407) that the hidden visibility does not apply (it needs none).
#if defined(__NVCC__)
#define FASTSCAN_KERNELS_BEGIN _Pragma("nv_diagnostic push") _Pragma("nv_diag_suppress 1407")
#define FASTSCAN_KERNELS_END _Pragma("nv_diagnostic pop")
#else
#define FASTSCAN_KERNELS_BEGIN
#define FASTSCAN_KERNELS_END
#endif

#define FASTSCAN_HD __host__ __device__ __forceinline__
#define FASTSCAN_DEVICE __device__ __forceinline__
