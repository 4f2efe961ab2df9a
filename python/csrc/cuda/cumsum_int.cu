#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(std::int16_t, std::int64_t)
FASTSCAN_EXT_CUMSUM(std::int32_t, std::int64_t)
FASTSCAN_EXT_CUMSUM(std::int64_t, std::int64_t)
