// fastscan_probe: times any scan shape from the command line, with no dependency beyond CUDA, so
// it also builds on a machine without Google Benchmark (plain nvcc) and against another copy of
// the headers (A/B runs of a policy or kernel change: scripts/ab.sh).
//
//   fastscan_probe OP TYPE OUTER LEN INNER [OP TYPE OUTER LEN INNER ...]
//     OP: cumsum | cummax | cummin     TYPE: u8 i8 i16 i32 i64 f16 bf16 f32 f64
//
// Each case: CUDA events around the calls, median of 15 repetitions after 3 warm-up calls, and a
// device-to-device copy of the same bytes (read + written) timed the same way in the same process,
// and the host time per call of enqueueing 20 calls (PROBE_HOST=0 skips it: bench/sweep.py).
// Working sets above 64 MB (beyond the 60 MB L2) are timed one call at a time, smaller ones as 20
// calls back to back (latency). Inputs are random with many ties, never zeros. cumsum writes the
// input type; cummax / cummin write int64 indices. Built with -DPROBE_TYPE_<T> (e.g. PROBE_TYPE_I64)
// it compiles only those types (faster builds for A/B runs).
#include <fastscan/scan.cuh>

#include "bench_support.cuh"
#include "extreme_call.cuh"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using bench_support::check;
using bench_support::device_memory;
using bench_support::fill;

//! Median over 15 rounds of the time per call (ms).
float median_ms(std::size_t working_set, const std::function<void()>& call) {
  std::vector<float> times;
  bench_support::time_rounds(working_set, call, [&] { return times.size() < 15; }, [&](float ms) { times.push_back(ms); });
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

//! Median host time per call to enqueue 20 calls (a latency row is host-bound when this is near
//! its time per call).
double host_us(const std::function<void()>& call) {
  std::vector<double> us;
  for (int r = 0; r < 15; ++r) {
    check(cudaDeviceSynchronize(), "host timing");
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) call();
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 20);
  }
  check(cudaDeviceSynchronize(), "host timing");
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

template <class T>
void probe(const std::string& op, const std::string& type, fastscan::Shape3 s) {
  const long long n = s.outer * s.len * s.inner;
  const bool extreme = op != "cumsum";
  const fastscan::Extreme which = op == "cummin" ? fastscan::Extreme::min : fastscan::Extreme::max;
  device_memory in(n * sizeof(T)), out(n * sizeof(T)), indices(extreme ? n * 8 : 0);
  fill<<<1024, 256>>>(in.as<T>(), n, 7);
  const std::size_t bytes = n * (2 * sizeof(T) + (extreme ? 8 : 0));
  std::size_t temp_bytes = 0;
  auto call = [&](void* temp) {
    return extreme ? bench_support::extreme(temp, temp_bytes, in.as<T>(), out.as<T>(), indices.as<std::int64_t>(), s,
                                            which)
                   : fastscan::cumsum(temp, temp_bytes, in.as<T>(), out.as<T>(), s);
  };
  check(call(nullptr), "size query");
  device_memory temp(temp_bytes);
  const float ms = median_ms(bytes, [&] { check(call(temp.ptr), op.c_str()); });
  device_memory from(bytes / 2), to(bytes / 2);
  const float copy_ms = median_ms(bytes, [&] { cudaMemcpyAsync(to.ptr, from.ptr, bytes / 2, cudaMemcpyDeviceToDevice); });
  const char* host = std::getenv("PROBE_HOST");
  const bool timed_host = host == nullptr || std::strcmp(host, "0") != 0;
  std::printf("%s %s [%lld,%lld,%lld] %.2f us  copy %.2f us  share of copy %.3f  host %.2f us\n", op.c_str(),
              type.c_str(), static_cast<long long>(s.outer), static_cast<long long>(s.len),
              static_cast<long long>(s.inner), ms * 1e3, copy_ms * 1e3, copy_ms / ms,
              timed_host ? host_us([&] { check(call(temp.ptr), op.c_str()); }) : 0.0);
  std::fflush(stdout);
}

#if !defined(PROBE_TYPE_U8) && !defined(PROBE_TYPE_I8) && !defined(PROBE_TYPE_I16) && !defined(PROBE_TYPE_I32) && \
    !defined(PROBE_TYPE_I64) && !defined(PROBE_TYPE_F16) && !defined(PROBE_TYPE_BF16) && !defined(PROBE_TYPE_F32) && \
    !defined(PROBE_TYPE_F64)
#define PROBE_ALL_TYPES 1
#endif

bool run_case(const std::string& op, const std::string& type, fastscan::Shape3 s) {
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_U8)
  if (type == "u8") return probe<std::uint8_t>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_I8)
  if (type == "i8") return probe<std::int8_t>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_I16)
  if (type == "i16") return probe<std::int16_t>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_I32)
  if (type == "i32") return probe<std::int32_t>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_I64)
  if (type == "i64") return probe<std::int64_t>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_F16)
  if (type == "f16") return probe<__half>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_BF16)
  if (type == "bf16") return probe<__nv_bfloat16>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_F32)
  if (type == "f32") return probe<float>(op, type, s), true;
#endif
#if defined(PROBE_ALL_TYPES) || defined(PROBE_TYPE_F64)
  if (type == "f64") return probe<double>(op, type, s), true;
#endif
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6 || (argc - 1) % 5 != 0) {
    std::fprintf(stderr,
                 "usage: %s OP TYPE OUTER LEN INNER [...]\n  OP: cumsum | cummax | cummin; TYPE: u8 i8 i16 i32 "
                 "i64 f16 bf16 f32 f64\n",
                 argv[0]);
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "fastscan_probe: no CUDA device here; it times scans on a GPU.\n");
    return 1;
  }
  for (int a = 1; a < argc; a += 5) {
    const std::string op = argv[a], type = argv[a + 1];
    const fastscan::Shape3 s{std::atoll(argv[a + 2]), std::atoll(argv[a + 3]), std::atoll(argv[a + 4])};
    if (op != "cumsum" && op != "cummax" && op != "cummin") {
      std::fprintf(stderr, "unknown op %s\n", op.c_str());
      return 2;
    }
    if (!run_case(op, type, s)) {
      std::fprintf(stderr, "type %s not known or not compiled in\n", type.c_str());
      return 2;
    }
  }
  return 0;
}
