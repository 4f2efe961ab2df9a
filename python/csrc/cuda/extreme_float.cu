// cummax and cummin of these types share their kernels (order keys), so they compile together.
#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, float)
FASTSCAN_EXT_EXTREME(cummin, float)
FASTSCAN_EXT_EXTREME(cummax, double)
FASTSCAN_EXT_EXTREME(cummin, double)
