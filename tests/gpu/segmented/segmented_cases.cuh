// The segmented scans' cases, shared by the per-type files: keys of every segment pattern, a host
// reference summed in double, and the checks of segmented_cumsum and segment_sum against it.
#pragma once

#include "../common.cuh"
#include "../fuzz.cuh"

#include <cuda_fp8.h>

#include <cmath>
#include <map>
#include <random>

namespace fstest {

//! Keys of S rows (non-decreasing) in one of the patterns: `every` rows a new key (1: every row its
//! own segment, S: one segment), or, for every = 0, random lengths (mostly short, some of many
//! tiles). Keys start at `first` and jump by 1 - 3.
template <class Key>
std::vector<Key> segment_keys(std::int64_t S, std::int64_t every, std::uint64_t seed, Key first = Key{-5}) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(static_cast<std::size_t>(S));
  Key key = first;
  std::int64_t left = 0;
  for (std::int64_t i = 0; i < S; ++i) {
    if (left == 0) {
      if (i > 0) key = static_cast<Key>(key + 1 + static_cast<Key>(rng() % 3));
      if (every > 0) {
        left = every;
      } else {
        const int r = static_cast<int>(rng() % 100);
        left = r < 60 ? 1 + static_cast<std::int64_t>(rng() % 8) : r < 95 ? 1 + static_cast<std::int64_t>(rng() % 300)
                                                                       : 1 + static_cast<std::int64_t>(rng() % 20000);
      }
    }
    keys[static_cast<std::size_t>(i)] = key;
    --left;
  }
  return keys;
}

//! Feature values k / 4 for |k| <= 16: exact in every feature type (fp8 e4m3 included).
template <class T>
host_array<T> segment_feats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  host_array<T> v(n);
  for (auto& x : v) {
    const double d = (static_cast<int>(rng() % 33) - 16) * 0.25;
    if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) x = __nv_fp8_e4m3(static_cast<float>(d));
    else x = from_double<T>(d);
  }
  return v;
}

//! The reference: each segment's running sums in double, and the sum of magnitudes for the
//! tolerance of float accumulators (a different grouping rounds differently).
struct segment_reference {
  std::vector<double> running, magnitude;  // [S, C]
  std::vector<double> totals, total_magnitude;  // [V, C]
  std::vector<std::int64_t> starts;            // [V]
};
template <class T, class Key>
segment_reference reference_segments(const host_array<T>& feats, const std::vector<Key>& keys, std::int64_t C) {
  segment_reference r;
  const auto S = static_cast<std::int64_t>(keys.size());
  r.running.assign(feats.size(), 0.0);
  r.magnitude.assign(feats.size(), 0.0);
  for (std::int64_t i = 0; i < S; ++i) {
    const bool head = i == 0 || keys[i] != keys[i - 1];
    if (head) r.starts.push_back(i);
    for (std::int64_t c = 0; c < C; ++c) {
      const auto at = static_cast<std::size_t>(i * C + c);
      const double x = to_double(feats[at]);
      r.running[at] = head ? x : r.running[at - C] + x;
      r.magnitude[at] = head ? std::fabs(x) : r.magnitude[at - C] + std::fabs(x);
    }
  }
  for (std::size_t v = 0; v < r.starts.size(); ++v) {
    const std::int64_t last = (v + 1 < r.starts.size() ? r.starts[v + 1] : S) - 1;
    for (std::int64_t c = 0; c < C; ++c) {
      r.totals.push_back(r.running[static_cast<std::size_t>(last * C + c)]);
      r.total_magnitude.push_back(r.magnitude[static_cast<std::size_t>(last * C + c)]);
    }
  }
  return r;
}

//! Accumulator rounding allowed against the double reference: none for integers, a few units of
//! the last place of the magnitude sum for floats.
template <class Acc>
bool close_to(const Acc& got, double want, double magnitude) {
  const double g = to_double(got);
  if constexpr (std::is_integral_v<Acc>) {
    return g == want;
  } else {
    const double eps = std::is_same_v<Acc, double> ? 1e-15 : 1e-6;
    return std::fabs(g - want) <= eps * magnitude * 4 + 1e-30;
  }
}

//! segmented_cumsum and segment_sum of one case against the reference; poisoned outputs catch
//! elements never written, and the sums past the last segment must stay unwritten.
//! Outputs get this many poisoned elements past their end: a write there is a write out of bounds.
constexpr std::size_t guard_elements = 64;

template <class T, class Key, class Acc>
void check_segments_of(const std::vector<Key>& keys, std::int64_t C, std::uint64_t seed) {
  const auto S = static_cast<std::int64_t>(keys.size());
  const auto feats = segment_feats<T>(static_cast<std::size_t>(S * C), seed + 1);
  const segment_reference ref = reference_segments(feats, keys, C);
  const auto n = static_cast<std::size_t>(S * C);
  device_buffer<T> d_feats(n);
  device_buffer<Key> d_keys(keys.size()), d_unique(keys.size() + guard_elements);
  device_buffer<Acc> d_out(n + guard_elements), d_sums(n + guard_elements);
  device_buffer<std::int64_t> d_count(1);
  if (n > 0) d_feats.upload(feats);
  if (S > 0) d_keys.upload(keys);
  d_out.poison();
  d_sums.poison();
  d_unique.poison();
  d_count.poison();

  std::size_t bytes = 0;
  CUDA_REQUIRE(fastscan::segmented_cumsum(nullptr, bytes, d_feats.ptr, d_keys.ptr, d_out.ptr, S, C));
  device_buffer<unsigned char> temp(bytes);
  temp.poison();  // (no pass may read temp storage it did not write)
  CUDA_REQUIRE(fastscan::segmented_cumsum(temp.ptr, bytes, d_feats.ptr, d_keys.ptr, d_out.ptr, S, C));
  std::size_t sum_bytes = 0;
  CUDA_REQUIRE(fastscan::segment_sum(nullptr, sum_bytes, d_feats.ptr, d_keys.ptr, d_unique.ptr, d_sums.ptr, d_count.ptr, S, C));
  device_buffer<unsigned char> sum_temp(sum_bytes);
  sum_temp.poison();
  CUDA_REQUIRE(fastscan::segment_sum(sum_temp.ptr, sum_bytes, d_feats.ptr, d_keys.ptr, d_unique.ptr, d_sums.ptr, d_count.ptr, S, C));
  CUDA_REQUIRE(cudaDeviceSynchronize());

  const auto out = d_out.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) wrong += !close_to(out[i], ref.running[i], ref.magnitude[i]);
  CHECK(wrong == 0);

  const auto count = d_count.download();
  const auto V = static_cast<std::int64_t>(ref.starts.size());
  REQUIRE(count[0] == V);
  const auto sums = d_sums.download();
  const auto unique = d_unique.download();
  std::size_t wrong_sums = 0, wrong_keys = 0, written_past = 0;
  for (std::int64_t v = 0; v < V; ++v) {
    wrong_keys += unique[static_cast<std::size_t>(v)] != keys[static_cast<std::size_t>(ref.starts[v])];
    for (std::int64_t c = 0; c < C; ++c) {
      const auto at = static_cast<std::size_t>(v * C + c);
      wrong_sums += !close_to(sums[at], ref.totals[at], ref.total_magnitude[at]);
    }
  }
  host_array<Acc> poison(1);
  std::memset(poison.data(), 0x5b, sizeof(Acc));
  for (std::size_t at = static_cast<std::size_t>(V * C); at < n + guard_elements; ++at) {
    written_past += !same_bits(sums[at], poison[0]);
  }
  host_array<Key> key_poison(1);
  std::memset(key_poison.data(), 0x5b, sizeof(Key));
  for (std::size_t at = static_cast<std::size_t>(V); at < keys.size() + guard_elements; ++at) {
    written_past += !same_bits(unique[at], key_poison[0]);
  }
  for (std::size_t at = n; at < n + guard_elements; ++at) written_past += !same_bits(out[at], poison[0]);
  CHECK(wrong_sums == 0);
  CHECK(wrong_keys == 0);
  CHECK(written_past == 0);
}

template <class T, class Key, class Acc>
void check_segments(std::int64_t S, std::int64_t C, std::int64_t every, std::uint64_t seed) {
  CAPTURE(type_name<T>(), sizeof(Key), S, C, every, seed);
  check_segments_of<T, Key, Acc>(segment_keys<Key>(S, every, seed), C, seed);
}

//! Unsorted keys from a few values: every run of equal keys is a segment (keys that come back
//! start a new one), over small shapes whose rows are narrower than the tile.
template <class T, class Key, class Acc = fastscan::segment_acc_t<T>>
void check_unsorted_small() {
  std::uint64_t seed = 100;
  for (const std::int64_t S : {1, 2, 3, 5, 12, 17, 33, 100, 1000}) {
    for (const std::int64_t C : {1, 2, 3, 5, 7, 80}) {
      std::mt19937_64 rng(++seed);
      std::vector<Key> keys(static_cast<std::size_t>(S));
      for (auto& k : keys) k = static_cast<Key>(rng() % 4);
      CAPTURE(type_name<T>(), sizeof(Key), S, C, seed);
      check_segments_of<T, Key, Acc>(keys, C, seed);
    }
  }
}

//! Every pattern over the sizes that reach the kernels' edges: C = 1 takes the row kernel, wider
//! rows the column kernel; segments of 256 and 4096 rows start exactly at tile edges (tiles are
//! powers of two rows).
template <class T, class Key, class Acc = fastscan::segment_acc_t<T>>
void check_segment_patterns(const std::vector<std::pair<std::int64_t, std::int64_t>>& sizes) {
  std::uint64_t seed = 1;
  for (const auto& [S, C] : sizes) {
    for (const std::int64_t every : {std::int64_t{0}, std::int64_t{1}, std::int64_t{256}, std::int64_t{4096}, S}) {
      check_segments<T, Key, Acc>(S, C, every, ++seed);
    }
  }
}

//! One random case of segmented_cumsum and segment_sum for the shape fuzzer: rows S biased to the
//! edges, C from 1 to 1024, segments of one row, of random lengths, of 4096 rows or one for all.
template <class T, class Key, class Acc = fastscan::segment_acc_t<T>>
void fuzz_segments(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  static const std::int64_t widths[] = {1, 2, 3, 4, 7, 16, 64, 80, 1024};
  const std::int64_t C = widths[rng() % 9];
  const std::int64_t S = fuzz_extent(rng, 256, std::max<std::int64_t>(1, fuzz_max_numel() / C));
  static const std::int64_t every[] = {0, 0, 1, 3, 4096, -1};
  const std::int64_t e = every[rng() % 6];
  check_segments<T, Key, Acc>(S, C, e < 0 ? std::max<std::int64_t>(S, 1) : e, seed);
}

}  // namespace fstest
