// BEV pooling the Lift-Splat-Shoot way, from unsorted voxel keys: a synthetic frustum of 6 cameras
// x 59 depth bins x a 16 x 44 feature map (C = 64 channels per point) lifted into a 200 x 200 grid,
// pooled with fastscan::bev_pool and checked against a host loop, then timed. Second, the packed
// documents of a long-context batch done the segmented way: each token's position within its
// document is the segmented cumsum of ones over document ids.
#include <fastscan/bev.cuh>
#include <fastscan/voxel_key.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

#define CHECK_CUDA(expr)                                                         \
  do {                                                                           \
    const cudaError_t err_ = (expr);                                             \
    if (err_ != cudaSuccess) {                                                   \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(err_)); \
      return 1;                                                                  \
    }                                                                            \
  } while (0)

namespace {

//! Voxel keys of the frustum points: each camera looks out along its own heading, each depth bin
//! lies farther out, each feature column turns the ray; points beyond the grid are dropped (-1).
std::vector<std::int32_t> frustum_keys(const fastscan::voxel_key_encoder<std::int32_t>& enc, int cameras, int depths,
                                       int rows, int cols) {
  std::vector<std::int32_t> keys;
  for (int cam = 0; cam < cameras; ++cam)
    for (int d = 0; d < depths; ++d)
      for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
          const double heading = cam * 2 * M_PI / cameras + (c - cols / 2) * 0.02;
          const double range = 1.0 + d * 0.9;  // metres
          const double x = range * std::cos(heading), y = range * std::sin(heading);
          keys.push_back(enc(0, static_cast<std::int64_t>(std::floor(x / 0.5 + 100)),
                             static_cast<std::int64_t>(std::floor(y / 0.5 + 100)), r / rows));
        }
  return keys;
}

int pool_frustum() {
  fastscan::voxel_key_encoder<std::int32_t> enc;
  if (!fastscan::voxel_key_encoder<std::int32_t>::make(fastscan::voxel_grid{1, 200, 200, 1}, enc)) return 1;
  const auto keys = frustum_keys(enc, 6, 59, 16, 44);
  const auto S = static_cast<std::int64_t>(keys.size());
  const std::int64_t C = 64, cells = enc.cells;
  std::vector<float> feats(static_cast<std::size_t>(S * C));
  std::mt19937 rng(1);
  for (auto& f : feats) f = static_cast<float>(rng() % 17) * 0.25f;  // sums exact in float
  std::vector<double> want(static_cast<std::size_t>(cells * C), 0.0);
  for (std::int64_t i = 0; i < S; ++i)
    if (keys[i] >= 0)
      for (std::int64_t c = 0; c < C; ++c) want[keys[i] * C + c] += feats[i * C + c];

  float* d_feats;
  float* d_grid;
  std::int32_t* d_keys;
  CHECK_CUDA(cudaMalloc(&d_feats, feats.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_grid, want.size() * sizeof(float)));
  CHECK_CUDA(cudaMalloc(&d_keys, keys.size() * sizeof(std::int32_t)));
  CHECK_CUDA(cudaMemcpy(d_feats, feats.data(), feats.size() * sizeof(float), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_keys, keys.data(), keys.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  CHECK_CUDA(fastscan::bev_pool(nullptr, temp_bytes, d_feats, d_keys, d_grid, S, C, cells));
  void* d_temp;
  CHECK_CUDA(cudaMalloc(&d_temp, temp_bytes));
  CHECK_CUDA(fastscan::bev_pool(d_temp, temp_bytes, d_feats, d_keys, d_grid, S, C, cells));
  std::vector<float> got(want.size());
  CHECK_CUDA(cudaMemcpy(got.data(), d_grid, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < got.size(); ++i) wrong += got[i] != want[i];

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  CHECK_CUDA(cudaEventRecord(start));
  for (int k = 0; k < 20; ++k) CHECK_CUDA(fastscan::bev_pool(d_temp, temp_bytes, d_feats, d_keys, d_grid, S, C, cells));
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  std::printf("bev_pool: %lld points x %lld channels into %lld cells, %zu wrong; %.1f us per call (sort included)\n",
              static_cast<long long>(S), static_cast<long long>(C), static_cast<long long>(cells), wrong, ms * 1e3 / 20);
  cudaFree(d_feats);
  cudaFree(d_grid);
  cudaFree(d_keys);
  cudaFree(d_temp);
  return wrong == 0 ? 0 : 1;
}

int document_positions() {
  const std::int64_t seqlen = 65536;
  std::vector<std::int64_t> doc(seqlen);
  std::mt19937 rng(42);
  std::int64_t id = 0;
  for (std::int64_t pos = 0, left = 0; pos < seqlen; ++pos, --left) {
    if (left == 0) {
      ++id;
      left = 1 + static_cast<std::int64_t>(rng() % 4000);
    }
    doc[pos] = id;
  }
  std::vector<std::int64_t> ones(seqlen, 1);
  std::int64_t *d_doc, *d_ones, *d_pos;
  CHECK_CUDA(cudaMalloc(&d_doc, seqlen * sizeof(std::int64_t)));
  CHECK_CUDA(cudaMalloc(&d_ones, seqlen * sizeof(std::int64_t)));
  CHECK_CUDA(cudaMalloc(&d_pos, seqlen * sizeof(std::int64_t)));
  CHECK_CUDA(cudaMemcpy(d_doc, doc.data(), seqlen * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  CHECK_CUDA(cudaMemcpy(d_ones, ones.data(), seqlen * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  std::size_t temp_bytes = 0;
  CHECK_CUDA(fastscan::segmented_cumsum(nullptr, temp_bytes, d_ones, d_doc, d_pos, seqlen, 1));
  void* d_temp;
  CHECK_CUDA(cudaMalloc(&d_temp, temp_bytes));
  CHECK_CUDA(fastscan::segmented_cumsum(d_temp, temp_bytes, d_ones, d_doc, d_pos, seqlen, 1));
  std::vector<std::int64_t> pos(seqlen);
  CHECK_CUDA(cudaMemcpy(pos.data(), d_pos, seqlen * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  std::size_t wrong = 0;
  for (std::int64_t i = 0, within = 0; i < seqlen; ++i) {
    within = i > 0 && doc[i] == doc[i - 1] ? within + 1 : 1;
    wrong += pos[i] != within;  // 1-based position within the document
  }
  std::printf("packed documents: %lld positions in %lld documents, %zu wrong\n", static_cast<long long>(seqlen),
              static_cast<long long>(id), wrong);
  cudaFree(d_doc);
  cudaFree(d_ones);
  cudaFree(d_pos);
  cudaFree(d_temp);
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main() {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("bev_pool: no CUDA device on this machine; the example needs a GPU to run.\n");
    return 0;
  }
  const int frustum = pool_frustum();
  const int documents = document_positions();
  return frustum != 0 || documents != 0 ? 1 : 0;
}
