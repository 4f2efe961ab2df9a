// fastscan benchmark: the tables of the framework performance issue (A-F), the splits of 2^24 and
// 2^26 elements along both axes, 1-D 2^28 scans, every dtype, 3-D middle axes, narrow rows along
// axis 0, and CUB baselines, all as ratios to a device-to-device copy measured in the same process.
//
// Timing: CUDA events around the calls (manual time). Working sets above 64 MB (beyond the 60 MB
// L2) are timed one call at a time; smaller ones as 20 back-to-back calls, like the issue's script,
// so they read as latency. Inputs are random with ties, never zeros. Bytes = read + written.
// The library's calls are compiled in bench_scans_*.cu (one file per group of types, so the build
// runs on every core).
#include <fastscan/scan.cuh>

#include "bench_scans.cuh"
#include "gbench_support.cuh"

#include <cub/device/device_scan.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace {

using bench_support::add;
using bench_support::check;
using bench_support::device_memory;
using bench_support::fill;
using bench_support::time_calls;
using bench_scans::bench_cumsum;
using bench_scans::bench_extreme;
using bench_scans::extreme_bytes;

template <class T>
void bench_cub_sum(benchmark::State& state, std::int64_t n) {
  device_memory in(n * sizeof(T)), out(n * sizeof(T));
  fill<<<1024, 256>>>(in.as<T>(), n, 3);
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::InclusiveSum(nullptr, temp_bytes, in.as<T>(), out.as<T>(), n), "cub size");
  device_memory temp(temp_bytes);
  time_calls(state, 2 * n * sizeof(T), 2 * n * sizeof(T), [&] {
    check(cub::DeviceScan::InclusiveSum(temp.ptr, temp_bytes, in.as<T>(), out.as<T>(), n), "cub sum");
  });
}

template <class T>
struct to_pair {
  const T* in;
  __host__ __device__ fastscan::value_index<T> operator()(std::int64_t i) const { return {in[i], i}; }
};

template <class T>
void bench_cub_pair(benchmark::State& state, std::int64_t n) {
  device_memory in(n * sizeof(T)), out(n * sizeof(fastscan::value_index<T>));
  fill<<<1024, 256>>>(in.as<T>(), n, 4);
  auto pairs = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), to_pair<T>{in.as<T>()});
  const fastscan::value_index_op<T, fastscan::Extreme::max, fastscan::Tie::last> op;
  auto* d_out = out.as<fastscan::value_index<T>>();
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::InclusiveScan(nullptr, temp_bytes, pairs, d_out, op, n), "cub size");
  device_memory temp(temp_bytes);
  time_calls(state, extreme_bytes<T>(n), extreme_bytes<T>(n), [&] {
    check(cub::DeviceScan::InclusiveScan(temp.ptr, temp_bytes, pairs, d_out, op, n), "cub pair");
  });
}

struct row_of {
  std::int64_t len;
  __host__ __device__ std::int64_t operator()(std::int64_t i) const { return i / len; }
};

void bench_cub_by_key(benchmark::State& state, std::int64_t rows, std::int64_t len) {
  const std::int64_t n = rows * len;
  device_memory in(n * 8), out(n * 8);
  fill<<<1024, 256>>>(in.as<std::int64_t>(), n, 5);
  auto keys = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), row_of{len});
  std::size_t temp_bytes = 0;
  check(cub::DeviceScan::InclusiveSumByKey(nullptr, temp_bytes, keys, in.as<std::int64_t>(), out.as<std::int64_t>(), n),
        "cub size");
  device_memory temp(temp_bytes);
  time_calls(state, 2 * n * 8, 2 * n * 8, [&] {
    check(cub::DeviceScan::InclusiveSumByKey(temp.ptr, temp_bytes, keys, in.as<std::int64_t>(), out.as<std::int64_t>(), n),
          "cub by key");
  });
}

void bench_copy(benchmark::State& state, std::size_t bytes) {
  device_memory a(bytes), b(bytes);
  fill<<<1024, 256>>>(a.as<std::int64_t>(), static_cast<std::int64_t>(bytes / 8), 6);
  time_calls(state, 2 * bytes, 2 * bytes, [&] { check(cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice), "copy"); });
}

std::string shape_label(fastscan::Shape3 s) {
  return "[" + std::to_string(s.outer) + "," + std::to_string(s.len) + "," + std::to_string(s.inner) + "]";
}

template <class T>
const char* tname() {
  return fastscan::detail::dtype_name<T>();
}

template <class T>
void add_extreme(const std::string& table, fastscan::Shape3 s, fastscan::Extreme e = fastscan::Extreme::max) {
  add(table + "/" + (e == fastscan::Extreme::max ? "cummax/" : "cummin/") + tname<T>() + "/" + shape_label(s),
      [s, e](benchmark::State& st) { bench_extreme<T>(st, s, e); });
}

template <class T, class Out = T>
void add_cumsum(const std::string& table, fastscan::Shape3 s) {
  add(table + "/cumsum/" + tname<T>() + "->" + tname<Out>() + "/" + shape_label(s),
      [s](benchmark::State& st) { bench_cumsum<T, Out>(st, s); });
}

//! 2^total_log elements of T as [R, 2^total_log / R] along both axes, R = 1, 4, 16, ...
template <class T>
void add_splits(const std::string& table, int total_log) {
  const std::int64_t total = std::int64_t{1} << total_log;
  for (std::int64_t r = 1; r <= total; r *= 4) {
    add_extreme<T>(table + "/axis-1", {r, total / r, 1});
    add_cumsum<T>(table + "/axis-1", {r, total / r, 1});
    add_extreme<T>(table + "/axis0", {1, r, total / r});
    add_cumsum<T>(table + "/axis0", {1, r, total / r});
  }
}

template <class T>
void add_every_type_1d(std::int64_t n) {
  add_extreme<T>("types", {1, n, 1});
  if constexpr (std::is_same_v<T, bool>) {
    add_cumsum<T, std::int64_t>("types", {1, n, 1});
  } else {
    add_cumsum<T>("types", {1, n, 1});
  }
}

void register_all() {
  using fastscan::Shape3;
  add("copy/2GiB", [](benchmark::State& st) { bench_copy(st, std::size_t{1} << 31); });
  // A: one row of growing length. D: the same as a 1-D tensor, cummin too.
  for (std::int64_t n : {16384, 32768, 65536, 131072, 262144}) {
    add_extreme<std::int64_t>("A", {1, n, 1});
    add_cumsum<std::int64_t>("A", {1, n, 1});
    add_extreme<std::int64_t>("D", {1, n, 1}, fastscan::Extreme::min);
  }
  // B: 65536 int64 elements, rows along the last axis. C/E: the same counts along axis 0.
  for (std::int64_t r = 1; r <= 65536; r *= 4) {
    add_extreme<std::int64_t>("B", {r, 65536 / r, 1});
    add_cumsum<std::int64_t>("B", {r, 65536 / r, 1});
    add_extreme<std::int64_t>("C", {1, r, 65536 / r});
    add_cumsum<std::int64_t>("C", {1, r, 65536 / r});
  }
  for (std::int64_t r : {65536, 32768, 8192, 1024, 128}) {
    add_extreme<std::int64_t>("E", {1, r, 65536 / r});
  }
  // F: dtypes of [1, 65536].
  add_extreme<std::int32_t>("F", {1, 65536, 1});
  add_extreme<float>("F", {1, 65536, 1});
  add_extreme<double>("F", {1, 65536, 1});
  add_extreme<__half>("F", {1, 65536, 1});
  add_extreme<__nv_bfloat16>("F", {1, 65536, 1});
  // Splits of 2^24 and 2^26 int64 elements along both axes, and of 2^26 float32 (float sums take
  // the ordered look-back, and float32 columns measured far below int64 ones: NOTES.md).
  add_splits<std::int64_t>("split24", 24);
  add_splits<std::int64_t>("split26", 26);
  add_splits<float>("split26f32", 26);
  // 1-D 2^28 and the CUB baselines in the same run.
  const std::int64_t big = std::int64_t{1} << 28;
  add_cumsum<std::int64_t>("1d", {1, big, 1});
  add_cumsum<float>("1d", {1, big, 1});
  add_extreme<std::int64_t>("1d", {1, big, 1});
  add_extreme<float>("1d", {1, big, 1});
  add_extreme<std::int64_t>("1d", {1, big, 1}, fastscan::Extreme::min);
  add_extreme<float>("1d", {1, big, 1}, fastscan::Extreme::min);
  add("1d/cub_sum/int64/" + std::to_string(big), [big](benchmark::State& st) { bench_cub_sum<std::int64_t>(st, big); });
  add("1d/cub_sum/float32/" + std::to_string(big), [big](benchmark::State& st) { bench_cub_sum<float>(st, big); });
  add("1d/cub_pair_max/int64/" + std::to_string(big), [big](benchmark::State& st) { bench_cub_pair<std::int64_t>(st, big); });
  add("1d/cub_pair_max/float32/" + std::to_string(big), [big](benchmark::State& st) { bench_cub_pair<float>(st, big); });
  add("A/cub_sum/int64/65536", [](benchmark::State& st) { bench_cub_sum<std::int64_t>(st, 65536); });
  add("A/cub_pair_max/int64/65536", [](benchmark::State& st) { bench_cub_pair<std::int64_t>(st, 65536); });
  for (auto rl : {std::pair<std::int64_t, std::int64_t>{16384, 16384}, {1 << 20, 64}, {64, 1 << 20}}) {
    add("bykey/cub_sum_by_key/int64/[" + std::to_string(rl.first) + "," + std::to_string(rl.second) + "]",
        [rl](benchmark::State& st) { bench_cub_by_key(st, rl.first, rl.second); });
    add_cumsum<std::int64_t>("bykey", {rl.first, rl.second, 1});
  }
  // 3-D middle axes.
  for (Shape3 s : {Shape3{64, 4096, 256}, Shape3{4096, 64, 256}}) {
    add_extreme<std::int64_t>("3d", s);
    add_cumsum<std::int64_t>("3d", s);
  }
  // Narrow rows along axis 0, 2^26 elements: rows narrower than a 16-byte vector, or not a
  // power-of-two number of vectors wide (xyz coordinates, [T, 3] trajectories).
  const std::int64_t n = std::int64_t{1} << 26;
  for (std::int64_t inner : {2, 3, 6, 12}) {
    add_cumsum<float>("narrow", {1, n / inner, inner});
  }
  add_extreme<float>("narrow", {1, n / 3, 3});
  add_cumsum<__half>("narrow", {1, n / 4, 4});
  add_cumsum<std::int8_t>("narrow", {1, n / 8, 8});
  // Every dtype, 1-D 2^26.
  add_every_type_1d<bool>(n);
  add_every_type_1d<std::uint8_t>(n);
  add_every_type_1d<std::int8_t>(n);
  add_every_type_1d<std::int16_t>(n);
  add_every_type_1d<std::int32_t>(n);
  add_every_type_1d<std::int64_t>(n);
  add_every_type_1d<__half>(n);
  add_every_type_1d<__nv_bfloat16>(n);
  add_every_type_1d<float>(n);
  add_every_type_1d<double>(n);
}

}  // namespace

int main(int argc, char** argv) { return bench_support::benchmark_main(argc, argv, register_all, false); }
