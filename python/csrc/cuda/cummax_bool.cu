#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, bool)
