#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummin, std::int16_t)
FASTSCAN_EXT_EXTREME(cummin, std::int32_t)
FASTSCAN_EXT_EXTREME(cummin, std::int64_t)
