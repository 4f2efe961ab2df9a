#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummin, bool)
