#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummin, std::uint8_t)
