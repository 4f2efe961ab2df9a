#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, __half)
FASTSCAN_EXT_EXTREME(cummax, __nv_bfloat16)
FASTSCAN_EXT_EXTREME(cummax, float)
FASTSCAN_EXT_EXTREME(cummax, double)
