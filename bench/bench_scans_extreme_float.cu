// The benchmark's cummax / cummin calls of floating-point inputs.
#include "bench_scans_impl.cuh"

namespace bench_scans {

template void bench_extreme<__half>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);
template void bench_extreme<__nv_bfloat16>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);
template void bench_extreme<float>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);
template void bench_extreme<double>(benchmark::State&, fastscan::Shape3, fastscan::Extreme);

}  // namespace bench_scans
