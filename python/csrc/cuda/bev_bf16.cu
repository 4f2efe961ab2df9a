#include "bev.cuh"

FASTSCAN_EXT_BEV(__nv_bfloat16)
