// BEV pooling from unsorted keys: bev_pool (dense grid, dropped points), its reused plan and
// backward, voxel_sum in the points' order; each against a host loop summed in double.
#include "segmented_cases.cuh"

#include <fastscan/bev.cuh>

using namespace fstest;

namespace {

//! Unsorted keys in [-3, cells + 3): a few points fall outside the grid.
template <class Key>
std::vector<Key> unsorted_keys(std::int64_t S, std::int64_t cells, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Key> keys(static_cast<std::size_t>(S));
  for (auto& k : keys) k = static_cast<Key>(static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(cells + 6)) - 3);
  return keys;
}

template <class T, class Key, class Acc = fastscan::segment_acc_t<T>>
void check_bev(std::int64_t S, std::int64_t C, std::int64_t cells, std::uint64_t seed) {
  CAPTURE(type_name<T>(), sizeof(Key), S, C, cells);
  const auto keys = unsorted_keys<Key>(S, cells, seed);
  const auto feats = segment_feats<T>(static_cast<std::size_t>(S * C), seed + 1);
  std::vector<double> grid(static_cast<std::size_t>(cells * C), 0.0), mag(grid.size(), 0.0);
  for (std::int64_t i = 0; i < S; ++i) {
    const std::int64_t k = keys[static_cast<std::size_t>(i)];
    if (k < 0 || k >= cells) continue;
    for (std::int64_t c = 0; c < C; ++c) {
      const double x = to_double(feats[static_cast<std::size_t>(i * C + c)]);
      grid[static_cast<std::size_t>(k * C + c)] += x;
      mag[static_cast<std::size_t>(k * C + c)] += std::fabs(x);
    }
  }
  device_buffer<T> d_feats(feats.size()), d_grad(feats.size());
  device_buffer<Key> d_keys(keys.size());
  device_buffer<Acc> d_grid(grid.size()), d_voxel(feats.size());
  d_feats.upload(feats);
  d_keys.upload(keys);
  d_grid.poison();
  d_voxel.poison();
  d_grad.poison();
  std::size_t bytes = 0;
  CUDA_REQUIRE(fastscan::bev_pool(nullptr, bytes, d_feats.ptr, d_keys.ptr, d_grid.ptr, S, C, cells));
  device_buffer<unsigned char> temp(bytes);
  CUDA_REQUIRE(fastscan::bev_pool(temp.ptr, bytes, d_feats.ptr, d_keys.ptr, d_grid.ptr, S, C, cells));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto got = d_grid.download();
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < grid.size(); ++i) wrong += !close_to(got[i], grid[i], mag[i]);
  CHECK(wrong == 0);

  // The same with a plan made once and reused for a second frame of features.
  std::size_t plan_bytes = 0, pool_bytes = 0;
  fastscan::bev_pool_plan<Key> plan;
  CUDA_REQUIRE(fastscan::make_bev_pool_plan(nullptr, plan_bytes, d_keys.ptr, S, cells, plan));
  device_buffer<unsigned char> plan_mem(plan_bytes);
  CUDA_REQUIRE(fastscan::make_bev_pool_plan(plan_mem.ptr, plan_bytes, d_keys.ptr, S, cells, plan));
  CUDA_REQUIRE(fastscan::bev_pool(nullptr, pool_bytes, plan, d_feats.ptr, d_grid.ptr, C));
  device_buffer<unsigned char> pool_temp(pool_bytes);
  for (int frame = 0; frame < 2; ++frame) {
    d_grid.poison();
    CUDA_REQUIRE(fastscan::bev_pool(pool_temp.ptr, pool_bytes, plan, d_feats.ptr, d_grid.ptr, C));
    CUDA_REQUIRE(cudaDeviceSynchronize());
    const auto again = d_grid.download();
    CHECK(std::memcmp(again.data(), got.data(), got.size() * sizeof(Acc)) == 0);  // bitwise, as the plan is the same
  }

  // voxel_sum: every point gets its voxel's total (points outside the grid included: keys are keys).
  std::size_t voxel_bytes = 0;
  CUDA_REQUIRE(fastscan::voxel_sum(nullptr, voxel_bytes, d_feats.ptr, d_keys.ptr, d_voxel.ptr, S, C));
  device_buffer<unsigned char> voxel_temp(voxel_bytes);
  CUDA_REQUIRE(fastscan::voxel_sum(voxel_temp.ptr, voxel_bytes, d_feats.ptr, d_keys.ptr, d_voxel.ptr, S, C));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto voxel = d_voxel.download();
  std::map<std::int64_t, std::vector<double>> totals, mags;
  for (std::int64_t i = 0; i < S; ++i) {
    auto& t = totals[keys[static_cast<std::size_t>(i)]];
    auto& m = mags[keys[static_cast<std::size_t>(i)]];
    t.resize(static_cast<std::size_t>(C));
    m.resize(static_cast<std::size_t>(C));
    for (std::int64_t c = 0; c < C; ++c) {
      const double x = to_double(feats[static_cast<std::size_t>(i * C + c)]);
      t[static_cast<std::size_t>(c)] += x;
      m[static_cast<std::size_t>(c)] += std::fabs(x);
    }
  }
  std::size_t wrong_voxel = 0;
  for (std::int64_t i = 0; i < S; ++i) {
    const auto& t = totals[keys[static_cast<std::size_t>(i)]];
    const auto& m = mags[keys[static_cast<std::size_t>(i)]];
    for (std::int64_t c = 0; c < C; ++c) {
      wrong_voxel += !close_to(voxel[static_cast<std::size_t>(i * C + c)], t[static_cast<std::size_t>(c)], m[static_cast<std::size_t>(c)]);
    }
  }
  CHECK(wrong_voxel == 0);

  // Backward: each point reads its cell's gradient (the pooled grid as the gradient), 0 outside.
  std::size_t back_bytes = 0;
  CUDA_REQUIRE(fastscan::bev_pool_backward(nullptr, back_bytes, d_grid.ptr, d_keys.ptr, d_grad.ptr, S, C, cells));
  CUDA_REQUIRE(fastscan::bev_pool_backward(temp.ptr, back_bytes, d_grid.ptr, d_keys.ptr, d_grad.ptr, S, C, cells));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto grad = d_grad.download();
  std::size_t wrong_grad = 0;
  for (std::int64_t i = 0; i < S; ++i) {
    const std::int64_t k = keys[static_cast<std::size_t>(i)];
    for (std::int64_t c = 0; c < C; ++c) {
      const T want = k < 0 || k >= cells ? T{} : fastscan::detail::convert_to<T>(got[static_cast<std::size_t>(k * C + c)]);
      wrong_grad += !same_bits(grad[static_cast<std::size_t>(i * C + c)], want);
    }
  }
  CHECK(wrong_grad == 0);
}

}  // namespace

TEST_CASE("bev_pool, its plan, backward and voxel_sum from unsorted keys", "[gpu][segmented][bev]") {
  check_bev<float, std::int32_t>(70001, 64, 40000, 3);
  check_bev<float, std::int64_t>(4097, 3, 100, 4);
  check_bev<float, std::int32_t>(1000, 1, 7, 5);
  check_bev<__half, std::int64_t>(20000, 80, 5000, 6);
}

TEST_CASE("bev_pool with every point outside the grid writes a zero grid", "[gpu][segmented][bev]") {
  const std::int64_t S = 1000, C = 16, cells = 10;
  std::vector<std::int32_t> keys(S, -1);
  device_buffer<float> d_feats(static_cast<std::size_t>(S * C)), d_grid(static_cast<std::size_t>(cells * C));
  device_buffer<std::int32_t> d_keys(keys.size());
  d_feats.upload(segment_feats<float>(static_cast<std::size_t>(S * C), 1));
  d_keys.upload(keys);
  d_grid.poison();
  std::size_t bytes = 0;
  CUDA_REQUIRE(fastscan::bev_pool(nullptr, bytes, d_feats.ptr, d_keys.ptr, d_grid.ptr, S, C, cells));
  device_buffer<unsigned char> temp(bytes);
  CUDA_REQUIRE(fastscan::bev_pool(temp.ptr, bytes, d_feats.ptr, d_keys.ptr, d_grid.ptr, S, C, cells));
  CUDA_REQUIRE(cudaDeviceSynchronize());
  const auto grid = d_grid.download();
  std::size_t nonzero = 0;
  for (float v : grid) nonzero += v != 0.0f;
  CHECK(nonzero == 0);
}

//! One random case of bev_pool (both forms), its backward and voxel_sum for the shape fuzzer.
template <class T, class Key>
void fuzz_bev(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  static const std::int64_t widths[] = {1, 3, 4, 64, 80};
  const std::int64_t C = widths[rng() % 5];
  const std::int64_t S = 1 + fuzz_extent(rng, 256, std::min<std::int64_t>(fuzz_max_numel() / C, 1 << 20));
  const std::int64_t cells = 1 + fuzz_extent(rng, 1000, 100000);
  CAPTURE(type_name<T>(), sizeof(Key), S, C, cells, seed);
  check_bev<T, Key>(S, C, cells, seed);
}

// Targets of the shape fuzzer (test_fuzz.cu), run with the kernels this file compiles.
static const fuzz_registration fuzz_bev_f32_i32{"bev_pool / voxel_sum float32, int32 keys", &fuzz_bev<float, std::int32_t>};
static const fuzz_registration fuzz_bev_f32_i64{"bev_pool / voxel_sum float32, int64 keys", &fuzz_bev<float, std::int64_t>};
static const fuzz_registration fuzz_bev_f16_i64{"bev_pool / voxel_sum float16, int64 keys", &fuzz_bev<__half, std::int64_t>};
