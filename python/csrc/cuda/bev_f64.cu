#include "bev.cuh"

FASTSCAN_EXT_BEV(double)
