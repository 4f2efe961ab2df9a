//! \file version.cuh
//! fastscan's version as one integer, the way CUB spells its own:
//! FASTSCAN_VERSION = major * 10000 + minor * 100 + patch (0.5.0 is 500).
#pragma once

#define FASTSCAN_VERSION 500
#define FASTSCAN_VERSION_MAJOR (FASTSCAN_VERSION / 10000)
#define FASTSCAN_VERSION_MINOR (FASTSCAN_VERSION / 100 % 100)
#define FASTSCAN_VERSION_PATCH (FASTSCAN_VERSION % 100)
