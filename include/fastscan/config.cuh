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

#define FASTSCAN_HD __host__ __device__ __forceinline__
#define FASTSCAN_DEVICE __device__ __forceinline__
