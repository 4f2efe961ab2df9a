// The 1-byte integer inputs (bool: bool.cu): the longest to compile of the sums.
#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(std::uint8_t, std::int64_t)
FASTSCAN_EXT_CUMSUM(std::int8_t, std::int64_t)
