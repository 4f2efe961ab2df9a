#include "segmented.cuh"

FASTSCAN_EXT_SEGMENTED_CUMSUM(__half)
FASTSCAN_EXT_SEGMENTED_CUMSUM(__nv_bfloat16)
