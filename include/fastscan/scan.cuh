//! \file scan.cuh
//! Umbrella header: every public fastscan header.
#pragma once

#include <fastscan/block/block_scan.cuh>
#include <fastscan/cummax.cuh>
#include <fastscan/cumsum.cuh>
#include <fastscan/inclusive_scan.cuh>
#include <fastscan/segmented.cuh>
#include <fastscan/voxel_key.hpp>
#include <fastscan/ops/value_index.cuh>
#include <fastscan/shape.hpp>
#include <fastscan/version.cuh>
#include <fastscan/warp/warp_scan.cuh>
