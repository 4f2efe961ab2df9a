#include "logcumsumexp.cuh"

FASTSCAN_EXT_LOGCUMSUMEXP(float)
