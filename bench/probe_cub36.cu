// probe_cub36: CUB 3.6's look-ahead scan (warp-specialised, bulk copies; on sm_90 CUB takes it only
// for deterministic float sums) forced for int64 and float32 1-D sums, against CUB 3.6's classic
// scan, fastscan's cumsum and a device copy in the same run (random data, events, median of 9;
// outputs compared with the classic scan's). What it reaches on this card bounds what the
// warp-specialised row kernel may (probe_ws.cu; bench/NOTES.md item 1). Builds against the
// cuda-cccl package's headers (FASTSCAN_BENCH_CCCL, scripts/gpu-check.sh deps).
#include <cub/device/device_scan.cuh>
#include <fastscan/scan.cuh>

#include "probe_util.cuh"

#include <algorithm>
#include <cstdio>
#include <vector>
#include <cstdint>


template <class T> __global__ void fillr(T* p, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * (std::int64_t)blockDim.x + threadIdx.x; i < n; i += (std::int64_t)gridDim.x * blockDim.x) {
    std::uint64_t z = (i + 7) * 0x9E3779B97F4A7C15ull; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull; z ^= z >> 31;
    p[i] = static_cast<T>(static_cast<int>(z % 201) - 100);
  }
}

namespace cs = cub::detail::scan;
template <class In, int W, int IPT, int LA, int LS = 2, int BS = -1>
struct la_sel {
  __host__ __device__ constexpr cub::ScanPolicy operator()(cuda::compute_capability cc) const {
    auto p = cs::policy_selector_from_types<const In*, In*, In, std::uint64_t, cuda::std::plus<>, false>{}(cc);
    p.algorithm = cub::ScanAlgorithm::lookahead;
    p.lookahead = cub::ScanLookaheadPolicy{W, IPT, LA, LS, BS};
    return p;
  }
};


template <class T> bool same(const T* a, const T* b, std::int64_t n) {
  std::vector<T> x(1 << 20), y(1 << 20);
  for (std::int64_t off : {std::int64_t{0}, n - (1 << 20)}) {
    CK(cudaMemcpy(x.data(), a + off, (1 << 20) * sizeof(T), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(y.data(), b + off, (1 << 20) * sizeof(T), cudaMemcpyDeviceToHost));
    if (x != y) return false;
  }
  return true;
}

template <class T, class Sel> void run_la(const char* name, const T* in, T* out, std::int64_t n, void* tmp, size_t tb, double copy_gbs, const T* ref) {
  size_t bytes = 0;
  CK(cs::dispatch(nullptr, bytes, in, out, cuda::std::plus<>{}, cub::NullType{}, (std::uint64_t)n, 0, Sel{}));
  if (bytes > tb) { printf("%s: temp %zu too big\n", name, bytes); return; }
  float ms = probe::median_ms([&] { CK(cs::dispatch(tmp, bytes, in, out, cuda::std::plus<>{}, cub::NullType{}, (std::uint64_t)n, 0, Sel{})); });
  double gbs = 2.0 * n * sizeof(T) / ms / 1e6;
  printf("%-40s %9.1f us  %.3f of copy  %s\n", name, ms * 1e3, gbs / copy_gbs, ref && same(out, ref, n) ? "same" : "DIFF");
}

template <class T> void suite(const char* tn, std::int64_t n, double copy_gbs, void* tmp, size_t tb) {
  T *in, *out, *ref;
  CK(cudaMalloc(&in, n * sizeof(T))); CK(cudaMalloc(&out, n * sizeof(T))); CK(cudaMalloc(&ref, n * sizeof(T)));
  fillr<<<2048, 256>>>(in, n);
  size_t bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, bytes, in, ref, n));
  float ms = probe::median_ms([&] { CK(cub::DeviceScan::InclusiveSum(tmp, bytes, in, ref, n)); });
  printf("%s n=%lld\n%-40s %9.1f us  %.3f of copy\n", tn, (long long)n, "cub36 classic InclusiveSum", ms * 1e3, 2.0 * n * sizeof(T) / ms / 1e6 / copy_gbs);
  {
    fastscan::Shape3 s{1, n, 1};
    size_t fb = 0;
    CK(fastscan::cumsum(nullptr, fb, in, out, s));
    float m2 = probe::median_ms([&] { CK(fastscan::cumsum(tmp, fb, in, out, s, cudaStream_t{})); });
    printf("%-40s %9.1f us  %.3f of copy  %s\n", "fastscan cumsum", m2 * 1e3, 2.0 * n * sizeof(T) / m2 / 1e6 / copy_gbs, same(out, ref, n) ? "same" : "DIFF");
  }
  constexpr int fb_ipt = 256 / sizeof(T) - 1;
  run_la<T, la_sel<T, 4, fb_ipt, 4>>("cub36 lookahead 4w ipt=256/s-1 la4", in, out, n, tmp, tb, copy_gbs, ref);
  if constexpr (sizeof(T) == 8) {
    run_la<T, la_sel<T, 2, 87, 7, -2, -2>>("cub36 lookahead 2w 87 la7 (b200 i64)", in, out, n, tmp, tb, copy_gbs, ref);
    run_la<T, la_sel<T, 2, 63, 5>>("cub36 lookahead 2w 63 la5", in, out, n, tmp, tb, copy_gbs, ref);
    run_la<T, la_sel<T, 3, 55, 5>>("cub36 lookahead 3w 55 la5", in, out, n, tmp, tb, copy_gbs, ref);
  } else {
    run_la<T, la_sel<T, 4, 87, 3>>("cub36 lookahead 4w 87 la3 (b200 f32)", in, out, n, tmp, tb, copy_gbs, ref);
    run_la<T, la_sel<T, 3, 119, 8, 2, -2>>("cub36 lookahead 3w 119 la8 (gb300 f32)", in, out, n, tmp, tb, copy_gbs, ref);
    run_la<T, la_sel<T, 5, 63, 4>>("cub36 lookahead 5w 63 la4", in, out, n, tmp, tb, copy_gbs, ref);
  }
  CK(cudaFree(in)); CK(cudaFree(out)); CK(cudaFree(ref));
}

int main() {
  const std::int64_t n = std::int64_t{1} << 28;
  const double copy_gbs = probe::copy_gbs(n * 8);
  printf("copy %.0f GB/s\n", copy_gbs);
  void* tmp; size_t tb = 256 << 20; CK(cudaMalloc(&tmp, tb));
  for (int round = 0; round < 2; ++round) {
    suite<std::int64_t>("int64", n, copy_gbs, tmp, tb);
    suite<float>("float32", n, copy_gbs, tmp, tb);
  }
}
