//! \file scan.cuh
//! Umbrella header: every public fastscan header but three, which pull in more than the scans need
//! and are included on their own where used:
//! - bev.cuh (BEV pooling): CUB's radix sort, seconds of compile time in every file that includes it;
//! - shard.cuh (the steps of a sharded scan): Thrust's iterators;
//! - nccl.cuh (scans across ranks): NCCL's header and library.
#pragma once

#include <fastscan/block/block_scan.cuh>
#include <fastscan/cummax.cuh>
#include <fastscan/cumsum.cuh>
#include <fastscan/extension.cuh>
#include <fastscan/inclusive_scan.cuh>
#include <fastscan/logcumsumexp.cuh>
#include <fastscan/namespace.hpp>
#include <fastscan/ops/value_index.cuh>
#include <fastscan/segmented.cuh>
#include <fastscan/shape.hpp>
#include <fastscan/version.cuh>
#include <fastscan/voxel_key.hpp>
#include <fastscan/warp/warp_scan.cuh>
