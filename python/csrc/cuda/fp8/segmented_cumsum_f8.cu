#include "../segmented.cuh"

FASTSCAN_EXT_SEGMENTED_CUMSUM(fastscan_ext::fp8)
