// cummax / cummin checks shared by the per-dtype test files (dtype/*.cu: each dtype's 8
// (index, operator) instantiations compile in their own file, in parallel).
#pragma once

#include "common.cuh"
#include "fuzz.cuh"

namespace fstest {

//! How check_extreme calls: the runtime entry (extreme_scan), the compile-time tie overloads
//! (cummax<T, Index, Tie::last> ...), or the shared kernels over order keys that
//! FASTSCAN_SHARED_EXTREME_KERNELS makes the default (called by name here, so both builds are tested).
enum class extreme_call { runtime, fixed, shared };

template <fastscan::Extreme E, fastscan::Tie Ti, class T, class Index>
cudaError_t call_shared(void* temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, fastscan::Shape3 s) {
  return fastscan::detail::extreme_scan_op<E, Ti, true>(fastscan::detail::caller_temp{temp, temp_bytes}, in, values,
                                                        indices, s, nullptr);
}

template <class T, class Index>
cudaError_t call_extreme(void* temp, std::size_t& temp_bytes, const T* in, T* values, Index* indices, fastscan::Shape3 s,
                         fastscan::Extreme e, fastscan::Tie tie, extreme_call how) {
  using fastscan::Extreme;
  using fastscan::Tie;
  if (how == extreme_call::runtime) {
    return fastscan::extreme_scan(temp, temp_bytes, in, values, indices, s, e, nullptr, tie);
  }
  if (how == extreme_call::shared) {
    if (e == Extreme::max) {
      return tie == Tie::last ? call_shared<Extreme::max, Tie::last>(temp, temp_bytes, in, values, indices, s)
                              : call_shared<Extreme::max, Tie::first>(temp, temp_bytes, in, values, indices, s);
    }
    return tie == Tie::last ? call_shared<Extreme::min, Tie::last>(temp, temp_bytes, in, values, indices, s)
                            : call_shared<Extreme::min, Tie::first>(temp, temp_bytes, in, values, indices, s);
  }
  if (e == Extreme::max) {
    return tie == Tie::last ? fastscan::cummax<T, Index, Tie::last>(temp, temp_bytes, in, values, indices, s)
                            : fastscan::cummax<T, Index, Tie::first>(temp, temp_bytes, in, values, indices, s);
  }
  return tie == Tie::last ? fastscan::cummin<T, Index, Tie::last>(temp, temp_bytes, in, values, indices, s)
                          : fastscan::cummin<T, Index, Tie::first>(temp, temp_bytes, in, values, indices, s);
}

template <class T, class Index>
void check_extreme(fastscan::Shape3 s, fastscan::Extreme e, fastscan::Tie tie, std::uint64_t seed, bool in_place) {
  const auto numel = static_cast<std::size_t>(s.outer * s.len * s.inner);
  const auto in = random_values<T>(numel, seed);
  device_buffer<T> d_in(numel), d_values(numel);
  device_buffer<Index> d_indices(numel);
  d_in.upload(in);
  d_values.poison();
  d_indices.poison();
  T* values = in_place ? d_in.ptr : d_values.ptr;
  std::size_t temp_bytes = 0;
  const auto how = static_cast<extreme_call>(seed % 3);
  CAPTURE(static_cast<int>(how));
  CUDA_REQUIRE(call_extreme(static_cast<void*>(nullptr), temp_bytes, d_in.ptr, values, d_indices.ptr, s, e, tie, how));
  REQUIRE(temp_bytes >= 1);
  device_buffer<unsigned char> temp(temp_bytes);
  CUDA_REQUIRE(call_extreme(static_cast<void*>(temp.ptr), temp_bytes, d_in.ptr, values, d_indices.ptr, s, e, tie, how));
  CUDA_REQUIRE(cudaDeviceSynchronize());

  host_array<T> ref_values;
  std::vector<Index> ref_indices;
  reference_extreme(in, ref_values, ref_indices, s, e == fastscan::Extreme::min, tie == fastscan::Tie::first);
  const auto got_values = in_place ? d_in.download() : d_values.download();
  const auto got_indices = d_indices.download();
  std::size_t bad = 0, first_bad = 0;
  for (std::size_t i = 0; i < numel; ++i) {
    if (!same_bits(got_values[i], ref_values[i]) || got_indices[i] != ref_indices[i]) {
      if (bad++ == 0) first_bad = i;
    }
  }
  if (bad != 0) {
    CAPTURE(first_bad, to_double(got_values[first_bad]), to_double(ref_values[first_bad]),
            static_cast<long long>(got_indices[first_bad]), static_cast<long long>(ref_indices[first_bad]));
    CHECK(bad == 0);
  }
}

template <class T>
void check_extreme_shapes() {
  using dispatch = fstest::dispatch_of<fastscan::detail::extreme_problem<T, std::int64_t>>;
  const auto tiles = tile_sizes<dispatch>();
  std::uint64_t seed = 1;
  for (const auto& s : edge_shapes(tiles.rows, tiles.column_rows, tiles.small_rows)) {
    for (auto e : {fastscan::Extreme::max, fastscan::Extreme::min}) {
      for (auto tie : {fastscan::Tie::last, fastscan::Tie::first}) {
        CAPTURE(type_name<T>(), shape_name(s), e == fastscan::Extreme::min ? "cummin" : "cummax",
                tie == fastscan::Tie::first ? "first" : "last");
        seed += 2;
        check_extreme<T, std::int64_t>(s, e, tie, seed, false);
        check_extreme<T, std::int32_t>(s, e, tie, seed + 1, seed % 5 == 0);
      }
    }
  }
}

//! One random case of cummax / cummin for the shape fuzzer: shape, operator, tie rule, index type,
//! in place, runtime or compile-time tie (check_extreme).
template <class T>
void fuzz_extreme(std::uint64_t seed) {
  using dispatch = fstest::dispatch_of<fastscan::detail::extreme_problem<T, std::int64_t>>;
  static const auto tiles = tile_sizes<dispatch>();
  std::mt19937_64 rng(seed);
  const auto s = fuzz_shape(rng, tiles.rows, tiles.column_rows);
  const auto e = rng() % 2 ? fastscan::Extreme::max : fastscan::Extreme::min;
  const auto tie = rng() % 2 ? fastscan::Tie::last : fastscan::Tie::first;
  const bool wide_index = rng() % 2 == 0, in_place = rng() % 4 == 0;
  CAPTURE(type_name<T>(), shape_name(s), e == fastscan::Extreme::min ? "cummin" : "cummax",
          tie == fastscan::Tie::first ? "first" : "last", wide_index, in_place);
  if (wide_index) {
    check_extreme<T, std::int64_t>(s, e, tie, seed, in_place);
  } else {
    check_extreme<T, std::int32_t>(s, e, tie, seed, in_place);
  }
}

}  // namespace fstest
