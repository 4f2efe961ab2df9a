#include "segmented.cuh"

FASTSCAN_EXT_SEGMENT_SUM(double)
