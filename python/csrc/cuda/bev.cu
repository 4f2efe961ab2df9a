#include "bev.cuh"

FASTSCAN_EXT_BEV(__half)
FASTSCAN_EXT_BEV(__nv_bfloat16)
FASTSCAN_EXT_BEV(float)
FASTSCAN_EXT_BEV(double)
