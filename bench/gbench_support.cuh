//! \file gbench_support.cuh
//! What the Google Benchmark binaries (bench.cu, segmented.cu) share: the ceilings measured once at
//! start (a 2 GiB device-to-device copy and, where asked, a 2 GiB pure read), cases that report
//! their share of each, registration, and main().
#pragma once

#include "bench_support.cuh"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bench_support {

//! Bytes per second of the ceilings (read + written for the copy, read for the pure read); 0 when
//! not measured.
struct ceilings {
  double copy = 0;
  double read = 0;
};
inline ceilings& ceiling() {
  static ceilings c;
  return c;
}

//! Times `call` with events and reports GB/s and the share of each measured ceiling.
inline void time_calls(benchmark::State& state, std::size_t bytes, std::size_t working_set, const std::function<void()>& call) {
  time_rounds(working_set, call, [&] { return state.KeepRunning(); }, [&](float ms) { state.SetIterationTime(ms / 1e3); });
  const double moved = static_cast<double>(bytes) * static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(moved));
  state.counters["copy_frac"] = benchmark::Counter(moved / ceiling().copy, benchmark::Counter::kIsRate);
  if (ceiling().read > 0) {
    state.counters["read_frac"] = benchmark::Counter(moved / ceiling().read, benchmark::Counter::kIsRate);
  }
}

//! Median of 15 timed runs of `call` (after 3 untimed), in seconds.
inline double median_seconds(const std::function<void()>& call) {
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::vector<float> ms(15);
  for (int i = -3; i < 15; ++i) {
    cudaEventRecord(start);
    call();
    cudaEventRecord(stop);
    check(cudaEventSynchronize(stop), "ceiling");
    if (i >= 0) cudaEventElapsedTime(&ms[static_cast<std::size_t>(i)], start, stop);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms[7] / 1e3;
}

//! The ceilings of this run: a 2 GiB copy always, a 2 GiB pure read when `with_read`.
inline void measure_ceilings(bool with_read) {
  const std::size_t bytes = std::size_t{1} << 31;
  device_memory a(bytes), b(bytes), sink(132 * 8 * sizeof(unsigned));
  fill<<<1024, 256>>>(a.as<std::int64_t>(), static_cast<std::int64_t>(bytes / 8), 7);
  ceiling().copy = 2.0 * static_cast<double>(bytes) /
                   median_seconds([&] { check(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice), "copy"); });
  if (with_read) {
    ceiling().read = static_cast<double>(bytes) / median_seconds([&] { pure_read(a.ptr, bytes, sink.as<unsigned>()); });
  }
}

template <class F>
void add(const std::string& name, F&& f) {
  benchmark::RegisterBenchmark(name.c_str(), std::forward<F>(f))->UseManualTime()->Unit(benchmark::kMicrosecond);
}

//! main() of a benchmark binary: lists its cases without a device, says so and measures nothing
//! on a machine without one, else prints the device and the ceilings and runs the cases.
inline int benchmark_main(int argc, char** argv, void (*register_all)(), bool with_read) {
  for (int a = 1; a < argc; ++a) {
    if (std::strncmp(argv[a], "--benchmark_list_tests", 22) == 0) {
      register_all();
      benchmark::Initialize(&argc, argv);
      benchmark::RunSpecifiedBenchmarks();
      return 0;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("%s: no CUDA device on this machine; nothing to measure.\n", argv[0]);
    return 0;
  }
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "device properties");
  measure_ceilings(with_read);
  std::printf("device: %s, %d SMs, L2 %d MB; copy (2 GiB D2D, read+write, median of 15): %.0f GB/s", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, ceiling().copy / 1e9);
  if (with_read) std::printf("; pure read (2 GiB, median of 15): %.0f GB/s", ceiling().read / 1e9);
  std::printf("\n");
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

}  // namespace bench_support
