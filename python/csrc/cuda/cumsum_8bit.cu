// The 1-byte inputs (bool runs uint8's kernels: common.h): the longest to compile of the sums.
#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(std::uint8_t, std::int64_t)
FASTSCAN_EXT_CUMSUM(std::int8_t, std::int64_t)
