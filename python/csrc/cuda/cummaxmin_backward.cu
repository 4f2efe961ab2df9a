#include "cummaxmin_backward.cuh"

FASTSCAN_EXT_BACKWARD(__half)
FASTSCAN_EXT_BACKWARD(__nv_bfloat16)
FASTSCAN_EXT_BACKWARD(float)
FASTSCAN_EXT_BACKWARD(double)
