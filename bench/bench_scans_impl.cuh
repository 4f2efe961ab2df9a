//! \file bench_scans_impl.cuh
//! The definitions of bench_scans.cuh, included by the bench_scans_*.cu files that instantiate them.
#pragma once

#include "bench_scans.cuh"
#include "extreme_call.cuh"
#include "gbench_support.cuh"

#include <fastscan/cumsum.cuh>

namespace bench_scans {

using bench_support::check;
using bench_support::device_memory;
using bench_support::fill;
using bench_support::time_calls;

template <class T>
void bench_extreme(benchmark::State& state, fastscan::Shape3 s, fastscan::Extreme e) {
  const std::int64_t n = s.outer * s.len * s.inner;
  device_memory in(n * sizeof(T)), values(n * sizeof(T)), indices(n * 8);
  fill<<<1024, 256>>>(in.as<T>(), n, 1);
  std::size_t temp_bytes = 0;
  check(bench_support::extreme(nullptr, temp_bytes, in.as<T>(), values.as<T>(), indices.as<std::int64_t>(), s, e),
        "size query");
  device_memory temp(temp_bytes);
  time_calls(state, extreme_bytes<T>(n), extreme_bytes<T>(n), [&] {
    check(bench_support::extreme(temp.ptr, temp_bytes, in.as<T>(), values.as<T>(), indices.as<std::int64_t>(), s, e),
          "cummax / cummin");
  });
}

template <class T, class Out>
void bench_cumsum(benchmark::State& state, fastscan::Shape3 s) {
  const std::int64_t n = s.outer * s.len * s.inner;
  device_memory in(n * sizeof(T)), out(n * sizeof(Out));
  fill<<<1024, 256>>>(in.as<T>(), n, 2);
  std::size_t temp_bytes = 0;
  check(fastscan::cumsum(nullptr, temp_bytes, in.as<T>(), out.as<Out>(), s), "size query");
  device_memory temp(temp_bytes);
  const std::size_t bytes = static_cast<std::size_t>(n) * (sizeof(T) + sizeof(Out));
  time_calls(state, bytes, bytes, [&] {
    check(fastscan::cumsum(temp.ptr, temp_bytes, in.as<T>(), out.as<Out>(), s), "cumsum");
  });
}

}  // namespace bench_scans
