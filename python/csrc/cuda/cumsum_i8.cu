#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(std::int8_t, std::int64_t)
