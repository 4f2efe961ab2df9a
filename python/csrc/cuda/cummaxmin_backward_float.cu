#include "cummaxmin_backward.cuh"

FASTSCAN_EXT_BACKWARD(float)
FASTSCAN_EXT_BACKWARD(double)
