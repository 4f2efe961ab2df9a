#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(__half, __half)
FASTSCAN_EXT_CUMSUM(__nv_bfloat16, __nv_bfloat16)
FASTSCAN_EXT_CUMSUM(float, float)
FASTSCAN_EXT_CUMSUM(double, double)
