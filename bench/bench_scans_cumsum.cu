// The benchmark's cumsum calls.
#include "bench_scans_impl.cuh"

namespace bench_scans {

template void bench_cumsum<bool, std::int64_t>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<std::uint8_t, std::uint8_t>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<std::int8_t, std::int8_t>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<std::int16_t, std::int16_t>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<std::int32_t, std::int32_t>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<std::int64_t, std::int64_t>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<__half, __half>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<__nv_bfloat16, __nv_bfloat16>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<float, float>(benchmark::State&, fastscan::Shape3);
template void bench_cumsum<double, double>(benchmark::State&, fastscan::Shape3);

}  // namespace bench_scans
