// cummax and cummin of these types share their kernels (order keys), so they compile together.
#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, std::int16_t)
FASTSCAN_EXT_EXTREME(cummin, std::int16_t)
FASTSCAN_EXT_EXTREME(cummax, std::int32_t)
FASTSCAN_EXT_EXTREME(cummin, std::int32_t)
FASTSCAN_EXT_EXTREME(cummax, std::int64_t)
FASTSCAN_EXT_EXTREME(cummin, std::int64_t)
