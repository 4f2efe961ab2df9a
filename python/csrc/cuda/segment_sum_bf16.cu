#include "segmented.cuh"

FASTSCAN_EXT_SEGMENT_SUM(__nv_bfloat16)
