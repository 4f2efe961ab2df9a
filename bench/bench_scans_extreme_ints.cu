// The benchmark's cummax / cummin calls of 2- to 8-byte integer inputs.
#include "bench_scans_impl.cuh"

namespace bench_scans {

template void bench_extreme<std::int16_t>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);
template void bench_extreme<std::int32_t>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);
template void bench_extreme<std::int64_t>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);

}  // namespace bench_scans
