#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(std::uint8_t, std::int64_t)
