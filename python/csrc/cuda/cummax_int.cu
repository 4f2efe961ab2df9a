#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, std::int16_t)
FASTSCAN_EXT_EXTREME(cummax, std::int32_t)
FASTSCAN_EXT_EXTREME(cummax, std::int64_t)
