//! \file bench_scans.cuh
//! The benchmark's timed library calls (cummax / cummin, cumsum), declared here and compiled for
//! the benchmark's types in bench_scans_*.cu: one translation unit per group of types, so the
//! benchmark builds on every core.
#pragma once

#include <fastscan/shape.hpp>

#include <fastscan/cummax.cuh>

#include <benchmark/benchmark.h>

namespace bench_scans {

//! Bytes a cummax / cummin of n elements moves: the input, the values and int64 indices.
template <class T>
std::size_t extreme_bytes(std::int64_t n) {
  return static_cast<std::size_t>(n) * (2 * sizeof(T) + sizeof(std::int64_t));
}

template <class T>
void bench_extreme(benchmark::State& state, fastscan::Shape3 s, fastscan::Extreme e);
template <class T, class Out = T>
void bench_cumsum(benchmark::State& state, fastscan::Shape3 s);

}  // namespace bench_scans
