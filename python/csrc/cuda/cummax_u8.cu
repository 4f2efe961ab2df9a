#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, std::uint8_t)
