// bool: sums into int64 and the extremes, over bytes read as torch reads them (any nonzero byte is
// true; the library's bool entry points do so), in a file of their own beside the 1-byte types'.
#include "extreme.cuh"
#include "sum.cuh"

FASTSCAN_EXT_CUMSUM(bool, std::int64_t)
FASTSCAN_EXT_EXTREME(cummax, bool)
FASTSCAN_EXT_EXTREME(cummin, bool)
