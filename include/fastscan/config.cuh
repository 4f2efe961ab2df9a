//! \file config.cuh
//! Namespace and kernel-visibility macros shared by every fastscan header.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

//! Frameworks that embed several copies of fastscan in one process define FASTSCAN_NAMESPACE
//! to a name of their own so that the copies cannot collide.
#ifndef FASTSCAN_NAMESPACE
#define FASTSCAN_NAMESPACE fastscan
#endif

#define FASTSCAN_NAMESPACE_BEGIN namespace FASTSCAN_NAMESPACE {
#define FASTSCAN_NAMESPACE_END }

//! Kernels get hidden visibility so two shared objects that both embed fastscan keep their own.
#if defined(__GNUC__) || defined(__clang__)
#define FASTSCAN_KERNEL __global__ __attribute__((visibility("hidden")))
#else
#define FASTSCAN_KERNEL __global__
#endif

#define FASTSCAN_HD __host__ __device__ __forceinline__
#define FASTSCAN_DEVICE __device__ __forceinline__
