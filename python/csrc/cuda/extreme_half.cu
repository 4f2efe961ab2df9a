// cummax and cummin of these types share their kernels (order keys), so they compile together.
#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, __half)
FASTSCAN_EXT_EXTREME(cummin, __half)
FASTSCAN_EXT_EXTREME(cummax, __nv_bfloat16)
FASTSCAN_EXT_EXTREME(cummin, __nv_bfloat16)
