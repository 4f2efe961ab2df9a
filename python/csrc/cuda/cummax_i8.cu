#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, std::int8_t)
