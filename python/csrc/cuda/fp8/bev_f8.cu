#include "../bev.cuh"

FASTSCAN_EXT_BEV(fastscan_ext::fp8)
