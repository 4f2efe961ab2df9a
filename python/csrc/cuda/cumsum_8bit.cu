// The 1-byte inputs: their kernels are the longest to compile of the sums.
#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(bool, std::int64_t)
FASTSCAN_EXT_CUMSUM(std::uint8_t, std::int64_t)
FASTSCAN_EXT_CUMSUM(std::int8_t, std::int64_t)
