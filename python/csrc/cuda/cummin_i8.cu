#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummin, std::int8_t)
