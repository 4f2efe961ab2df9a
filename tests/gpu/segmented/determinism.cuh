// Segment sums of floats are the same bits on every run: 20 runs of one case compared bitwise.
#pragma once

#include "segmented_cases.cuh"

namespace fstest {

template <class T, class Key, class Acc = fastscan::segment_acc_t<T>>
void check_segments_deterministic(std::int64_t S, std::int64_t C) {
  CAPTURE(type_name<T>(), S, C);
  const auto keys = segment_keys<Key>(S, 0, 77);
  host_array<T> feats(static_cast<std::size_t>(S * C));
  std::mt19937_64 rng(78);
  std::uniform_real_distribution<double> u(-3.0, 3.0);  // inexact sums: the grouping shows in the bits
  for (auto& x : feats) {
    if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) x = __nv_fp8_e4m3(static_cast<float>(u(rng)));
    else x = from_double<T>(u(rng));
  }
  const auto n = static_cast<std::size_t>(S * C);
  device_buffer<T> d_feats(n);
  device_buffer<Key> d_keys(keys.size()), d_unique(keys.size());
  device_buffer<Acc> d_out(n), d_sums(n);
  device_buffer<std::int64_t> d_count(1);
  d_feats.upload(feats);
  d_keys.upload(keys);
  std::size_t bytes = 0, sum_bytes = 0;
  CUDA_REQUIRE(fastscan::segmented_cumsum(nullptr, bytes, d_feats.ptr, d_keys.ptr, d_out.ptr, S, C));
  CUDA_REQUIRE(fastscan::segment_sum(nullptr, sum_bytes, d_feats.ptr, d_keys.ptr, d_unique.ptr, d_sums.ptr, d_count.ptr, S, C));
  device_buffer<unsigned char> temp(std::max(bytes, sum_bytes));
  host_array<Acc> first_out, first_sums;
  int differing = 0;
  for (int run = 0; run < 20; ++run) {
    CUDA_REQUIRE(cudaMemset(temp.ptr, run * 37, std::max(bytes, sum_bytes)));  // whatever the temp storage held
    CUDA_REQUIRE(fastscan::segmented_cumsum(temp.ptr, bytes, d_feats.ptr, d_keys.ptr, d_out.ptr, S, C));
    CUDA_REQUIRE(fastscan::segment_sum(temp.ptr, sum_bytes, d_feats.ptr, d_keys.ptr, d_unique.ptr, d_sums.ptr, d_count.ptr, S, C));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto out = d_out.download();
    const auto sums = d_sums.download();
    if (run == 0) {
      first_out = out;
      first_sums = sums;
      continue;
    }
    differing += std::memcmp(out.data(), first_out.data(), n * sizeof(Acc)) != 0 ||
                 std::memcmp(sums.data(), first_sums.data(), n * sizeof(Acc)) != 0;
  }
  CHECK(differing == 0);
}

}  // namespace fstest
