// Scans along an axis cut into shards (fastscan/shard.cuh) on one GPU: R simulated ranks, each
// holding its rows of every column in an array of its own; each rank's summary record is written
// where an all-gather would leave it, and the ranks' results, put together, must equal a
// sequential scan of the whole (bit for bit; float sums within rounding, and the same bits on
// every run for the same cuts).
#include "common.cuh"

#include <fastscan/shard.cuh>

#include "../support/affine_maps.cuh"

#include <memory>

using namespace fstest;

using affine_maps::affine;
using compose = affine_maps::compose_affine;

namespace {

//! Shard lengths of R ranks summing to len: random cuts, some shards empty.
std::vector<std::int64_t> random_cuts(std::int64_t len, int ranks, std::mt19937_64& rng) {
  std::vector<std::int64_t> cut(static_cast<std::size_t>(ranks) - 1);
  for (auto& c : cut) c = rng() % 4 == 0 ? 0 : static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(len + 1));
  std::sort(cut.begin(), cut.end());
  std::vector<std::int64_t> lens;
  std::int64_t at = 0;
  for (auto c : cut) {
    lens.push_back(c - at);
    at = c;
  }
  lens.push_back(len - at);
  return lens;
}

//! Runs the sharded scan of `whole` ([outer, sum of lens, inner]) over ranks of the given lengths
//! and returns the accumulators put back in the whole's layout.
template <class T, class Kind>
std::vector<typename Kind::acc_t> sharded_scan(const host_array<T>& whole, fastscan::Shape3 s, const std::vector<std::int64_t>& lens,
                                               Kind kind, bool exclusive = false) {
  using Acc = typename Kind::acc_t;
  const auto R = lens.size();
  const std::size_t record = fastscan::shard::summary_bytes<Acc>(s);
  device_buffer<unsigned char> records(record * R);
  CUDA_REQUIRE(cudaMemset(records.ptr, 0xff, record * R));  // what an all-gather overwrites
  std::vector<std::unique_ptr<device_buffer<T>>> in;
  std::vector<std::unique_ptr<device_buffer<Acc>>> out;
  std::int64_t offset = 0;
  for (std::size_t r = 0; r < R; ++r) {
    const fastscan::Shape3 local{s.outer, lens[r], s.inner};
    host_array<T> part(static_cast<std::size_t>(s.outer * lens[r] * s.inner));
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < lens[r] * s.inner; ++i) {
        part[static_cast<std::size_t>(o * lens[r] * s.inner + i)] = whole[static_cast<std::size_t>((o * s.len + offset) * s.inner + i)];
      }
    }
    in.push_back(std::make_unique<device_buffer<T>>(part.size()));
    out.push_back(std::make_unique<device_buffer<Acc>>(part.size()));
    if (part.size() > 0) in.back()->upload(part);
    std::size_t bytes = 0;
    CUDA_REQUIRE(fastscan::shard::summarize(nullptr, bytes, in[r]->ptr, local, kind, records.ptr + r * record));
    device_buffer<unsigned char> temp(bytes);
    CUDA_REQUIRE(fastscan::shard::summarize(temp.ptr, bytes, in[r]->ptr, local, kind, records.ptr + r * record));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    offset += lens[r];
  }
  std::vector<Acc> got(whole.size());
  offset = 0;
  for (std::size_t r = 0; r < R; ++r) {
    const fastscan::Shape3 local{s.outer, lens[r], s.inner};
    std::size_t bytes = 0;
    CUDA_REQUIRE(fastscan::shard::scan_from(nullptr, bytes, in[r]->ptr, local, kind, records.ptr, record, static_cast<int>(r),
                                            out[r]->ptr, exclusive));
    device_buffer<unsigned char> temp(bytes);
    CUDA_REQUIRE(fastscan::shard::scan_from(temp.ptr, bytes, in[r]->ptr, local, kind, records.ptr, record, static_cast<int>(r),
                                            out[r]->ptr, exclusive));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto part = out[r]->download();
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < lens[r] * s.inner; ++i) {
        got[static_cast<std::size_t>((o * s.len + offset) * s.inner + i)] = part[static_cast<std::size_t>(o * lens[r] * s.inner + i)];
      }
    }
    offset += lens[r];
  }
  return got;
}

//! A sequential scan of each column of the whole with `op` (inclusive, or exclusive from `zero`).
template <class Acc, class T, class Op>
std::vector<Acc> sequential(const host_array<T>& whole, fastscan::Shape3 s, Op op, bool exclusive = false, Acc zero = Acc{}) {
  std::vector<Acc> want(whole.size());
  for (std::int64_t o = 0; o < s.outer; ++o) {
    for (std::int64_t c = 0; c < s.inner; ++c) {
      Acc run = zero;
      for (std::int64_t i = 0; i < s.len; ++i) {
        const auto at = static_cast<std::size_t>((o * s.len + i) * s.inner + c);
        const Acc x = static_cast<Acc>(whole[at]);
        if (exclusive) want[at] = run;
        run = i == 0 && !exclusive ? x : op(run, x);
        if (!exclusive) want[at] = run;
      }
    }
  }
  return want;
}

const std::vector<fastscan::Shape3> shard_shapes = {{1, 100003, 1}, {3, 4099, 7}, {2, 20001, 64}, {1, 1, 1}, {5, 3, 2}};

//! Every shape, R = 1 ... 8 ranks with random cuts (empty shards included) and the uneven cut of
//! one rank holding everything but one row.
template <class Check>
void for_each_cut(Check&& check) {
  std::mt19937_64 rng(2026);
  for (const auto& s : shard_shapes) {
    for (int ranks = 1; ranks <= 8; ++ranks) {
      auto lens = random_cuts(s.len, ranks, rng);
      CAPTURE(shape_name(s), ranks);
      check(s, lens);
    }
    if (s.len > 1) check(s, std::vector<std::int64_t>{0, s.len - 1, 0, 1});
  }
}

}  // namespace

TEST_CASE("sharded integer sums equal the sums of the whole", "[gpu][shard]") {
  for_each_cut([](fastscan::Shape3 s, const std::vector<std::int64_t>& lens) {
    const auto whole = random_values<std::int32_t>(static_cast<std::size_t>(s.outer * s.len * s.inner), 7);
    const fastscan::shard::plain_kind<std::int64_t, fastscan::sum_op> kind{};
    for (bool exclusive : {false, true}) {
      CAPTURE(exclusive);
      const auto want = sequential<std::int64_t>(whole, s, fastscan::sum_op{}, exclusive);
      CHECK(sharded_scan(whole, s, lens, kind, exclusive) == want);
    }
  });
}

TEST_CASE("sharded cummax and cummin give the whole's values and global indices", "[gpu][shard]") {
  for_each_cut([](fastscan::Shape3 s, const std::vector<std::int64_t>& lens) {
    const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
    const auto whole = random_values<float>(n, 11);  // ties, NaNs, infinities, signed zeros
    host_array<float> values;
    std::vector<std::int64_t> indices;
    reference_extreme(whole, values, indices, s, false, false);
    const auto max_last = sharded_scan(whole, s, lens, fastscan::shard::extreme_kind<float, fastscan::Extreme::max, fastscan::Tie::last>{});
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += !same_bits(max_last[i].value, values[i]) || max_last[i].index != indices[i];
    CHECK(wrong == 0);
    const auto ints = random_values<std::int32_t>(n, 12);
    host_array<std::int32_t> ivalues;
    reference_extreme(ints, ivalues, indices, s, true, true);
    const auto min_first =
        sharded_scan(ints, s, lens, fastscan::shard::extreme_kind<std::int32_t, fastscan::Extreme::min, fastscan::Tie::first>{});
    wrong = 0;
    for (std::size_t i = 0; i < n; ++i) wrong += min_first[i].value != ivalues[i] || min_first[i].index != indices[i];
    CHECK(wrong == 0);
  });
}

TEST_CASE("sharded scans of a non-commutative operator keep the order of the ranks", "[gpu][shard]") {
  for_each_cut([](fastscan::Shape3 s, const std::vector<std::int64_t>& lens) {
    std::mt19937 rng(static_cast<unsigned>(s.len));
    host_array<affine> whole(static_cast<std::size_t>(s.outer * s.len * s.inner));
    for (auto& x : whole) x = affine{static_cast<std::uint32_t>(rng() | 1u), static_cast<std::uint32_t>(rng())};
    const auto want = sequential<affine>(whole, s, compose{});
    const auto got = sharded_scan(whole, s, lens, fastscan::shard::plain_kind<affine, compose>{});
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < want.size(); ++i) wrong += got[i].a != want[i].a || got[i].b != want[i].b;
    CHECK(wrong == 0);
  });
}

TEST_CASE("sharded float sums are within rounding and the same bits on every run", "[gpu][shard]") {
  for_each_cut([](fastscan::Shape3 s, const std::vector<std::int64_t>& lens) {
    const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
    host_array<float> whole(n);
    std::mt19937_64 rng(5);
    for (auto& x : whole) x = std::ldexp(static_cast<float>(static_cast<int>(rng() % 2001) - 1000), -static_cast<int>(rng() % 12));
    const fastscan::shard::plain_kind<float, fastscan::sum_op> kind{};
    const auto first = sharded_scan(whole, s, lens, kind);
    const auto again = sharded_scan(whole, s, lens, kind);
    CHECK(std::memcmp(first.data(), again.data(), n * sizeof(float)) == 0);
    std::vector<double> sums, mags;
    std::vector<float> exact;
    reference_sum<float, float>(whole, sums, mags, exact, s, false);
    std::size_t far = 0;
    for (std::size_t i = 0; i < n; ++i) far += std::fabs(static_cast<double>(first[i]) - sums[i]) > 1e-5 * mags[i] + 1e-6;
    CHECK(far == 0);
  });
}

TEST_CASE("sharded cummax writes values and indices through the pair output", "[gpu][shard]") {
  const fastscan::Shape3 s{2, 30011, 3};
  const auto n = static_cast<std::size_t>(s.outer * s.len * s.inner);
  const auto whole = random_values<std::int64_t>(n, 13);
  host_array<std::int64_t> values;
  std::vector<std::int32_t> indices;
  reference_extreme(whole, values, indices, s, false, false);
  // Two ranks, by hand: records side by side, then each rank's outputs into its own arrays.
  const std::vector<std::int64_t> lens = {12345, s.len - 12345};
  using kind_t = fastscan::shard::extreme_kind<std::int64_t, fastscan::Extreme::max, fastscan::Tie::last>;
  const std::size_t record = fastscan::shard::summary_bytes<kind_t::acc_t>(s);
  device_buffer<unsigned char> records(2 * record);
  std::vector<std::int64_t> got_v(n);
  std::vector<std::int32_t> got_i(n);
  std::vector<std::unique_ptr<device_buffer<std::int64_t>>> in, out;
  std::vector<std::unique_ptr<device_buffer<std::int32_t>>> idx;
  for (int r = 0; r < 2; ++r) {
    const fastscan::Shape3 local{s.outer, lens[static_cast<std::size_t>(r)], s.inner};
    host_array<std::int64_t> part(static_cast<std::size_t>(local.outer * local.len * local.inner));
    const std::int64_t off = r == 0 ? 0 : lens[0];
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < local.len * s.inner; ++i) {
        part[static_cast<std::size_t>(o * local.len * s.inner + i)] = whole[static_cast<std::size_t>((o * s.len + off) * s.inner + i)];
      }
    }
    in.push_back(std::make_unique<device_buffer<std::int64_t>>(part.size()));
    out.push_back(std::make_unique<device_buffer<std::int64_t>>(part.size()));
    idx.push_back(std::make_unique<device_buffer<std::int32_t>>(part.size()));
    in.back()->upload(part);
    std::size_t bytes = 0;
    CUDA_REQUIRE(fastscan::shard::summarize(nullptr, bytes, in.back()->ptr, local, kind_t{}, records.ptr + r * record));
    device_buffer<unsigned char> temp(bytes);
    CUDA_REQUIRE(fastscan::shard::summarize(temp.ptr, bytes, in.back()->ptr, local, kind_t{}, records.ptr + r * record));
  }
  for (int r = 0; r < 2; ++r) {
    const fastscan::Shape3 local{s.outer, lens[static_cast<std::size_t>(r)], s.inner};
    const auto output = fastscan::shard::pair_output(out[static_cast<std::size_t>(r)]->ptr, idx[static_cast<std::size_t>(r)]->ptr);
    std::size_t bytes = 0;
    CUDA_REQUIRE(fastscan::shard::scan_from(nullptr, bytes, in[static_cast<std::size_t>(r)]->ptr, local, kind_t{}, records.ptr, record, r, output));
    device_buffer<unsigned char> temp(bytes);
    CUDA_REQUIRE(fastscan::shard::scan_from(temp.ptr, bytes, in[static_cast<std::size_t>(r)]->ptr, local, kind_t{}, records.ptr, record, r, output));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto v = out[static_cast<std::size_t>(r)]->download();
    const auto x = idx[static_cast<std::size_t>(r)]->download();
    const std::int64_t off = r == 0 ? 0 : lens[0];
    for (std::int64_t o = 0; o < s.outer; ++o) {
      for (std::int64_t i = 0; i < local.len * s.inner; ++i) {
        const auto at = static_cast<std::size_t>((o * s.len + off) * s.inner + i);
        got_v[at] = v[static_cast<std::size_t>(o * local.len * s.inner + i)];
        got_i[at] = x[static_cast<std::size_t>(o * local.len * s.inner + i)];
      }
    }
  }
  CHECK(got_v == values.to_vector());
  CHECK(got_i == indices);
}
