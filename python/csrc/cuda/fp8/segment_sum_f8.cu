#include "../segmented.cuh"

FASTSCAN_EXT_SEGMENT_SUM(fastscan_ext::fp8)
