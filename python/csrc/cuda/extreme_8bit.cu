// cummax and cummin of these types share their kernels (order keys), so they compile together.
#include "extreme.cuh"

FASTSCAN_EXT_EXTREME(cummax, std::uint8_t)
FASTSCAN_EXT_EXTREME(cummin, std::uint8_t)
FASTSCAN_EXT_EXTREME(cummax, std::int8_t)
FASTSCAN_EXT_EXTREME(cummin, std::int8_t)
