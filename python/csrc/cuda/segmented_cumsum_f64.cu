#include "segmented.cuh"

FASTSCAN_EXT_SEGMENTED_CUMSUM(double)
