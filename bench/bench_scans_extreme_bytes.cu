// The benchmark's cummax / cummin calls of 1-byte inputs.
#include "bench_scans_impl.cuh"

namespace bench_scans {

template void bench_extreme<bool>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);
template void bench_extreme<std::uint8_t>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);
template void bench_extreme<std::int8_t>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);

}  // namespace bench_scans
