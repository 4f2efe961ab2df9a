#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(bool, std::int64_t)
