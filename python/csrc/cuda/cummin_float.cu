#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummin, __half)
FASTSCAN_EXT_EXTREME(cummin, __nv_bfloat16)
FASTSCAN_EXT_EXTREME(cummin, float)
FASTSCAN_EXT_EXTREME(cummin, double)
