// probe_lanes: the experiment behind issue 45's narrowest rows. A scan along axis 0 of [n, k]
// whose row is k * sizeof(T) in {4, 8} bytes, taken two ways in the same run: fastscan::cumsum of
// [1, n, k] (the column kernel, with inner = k) and fastscan::inclusive_scan of n lane vectors
// (one k-wide row a element, [1, n, 1]: the row kernel) with an element-wise sum. Timed against a
// device copy; outputs compared (integers bit for bit, floats within rounding).
//
//   probe_lanes [log2_elements]   (default 26)
//
// Not part of the library: what it measures decides whether narrow rows become a problem type.
#include <fastscan/cumsum.cuh>
#include <fastscan/inclusive_scan.cuh>

#include "probe_util.cuh"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

//! K values of T side by side: one row of [n, K], aligned as a whole so the row kernel loads it.
template <class T, int K>
struct alignas(sizeof(T) * K) lanes {
  T v[K];
};
struct lanes_sum {
  template <class L>
  __host__ __device__ L operator()(const L& a, const L& b) const {
    L r;
    for (int i = 0; i < static_cast<int>(sizeof(L::v) / sizeof(L::v[0])); ++i) r.v[i] = a.v[i] + b.v[i];
    return r;
  }
};

template <class T>
__global__ void fill(T* p, std::int64_t n, unsigned seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    p[i] = static_cast<T>((h >> 31) ? 1 : -1);  // a random walk: float sums stay exact
  }
}

template <class T, int K>
void compare(const char* type, std::int64_t elements, double copy_gbs) {
  using L = lanes<T, K>;
  const std::int64_t n = elements / K;
  T *in, *col, *row;
  CK(cudaMalloc(&in, elements * sizeof(T)));
  CK(cudaMalloc(&col, elements * sizeof(T)));
  CK(cudaMalloc(&row, elements * sizeof(T)));
  fill<<<1024, 256>>>(in, elements, 12345u);
  CK(cudaMemset(col, 0xff, elements * sizeof(T)));
  CK(cudaMemset(row, 0xfe, elements * sizeof(T)));
  const fastscan::Shape3 columns{1, n, K}, rows{1, n, 1};
  std::size_t col_bytes = 0, row_bytes = 0;
  CK(fastscan::cumsum(nullptr, col_bytes, in, col, columns));
  CK(fastscan::inclusive_scan(nullptr, row_bytes, reinterpret_cast<const L*>(in), reinterpret_cast<L*>(row), lanes_sum{}, rows));
  void* temp = nullptr;
  CK(cudaMalloc(&temp, std::max(col_bytes, row_bytes)));
  const float col_ms = probe::median_ms([&] { CK(fastscan::cumsum(temp, col_bytes, in, col, columns)); });
  const float row_ms = probe::median_ms([&] {
    CK(fastscan::inclusive_scan(temp, row_bytes, reinterpret_cast<const L*>(in), reinterpret_cast<L*>(row), lanes_sum{}, rows));
  });
  std::vector<T> a(elements), b(elements);
  CK(cudaMemcpy(a.data(), col, elements * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(b.data(), row, elements * sizeof(T), cudaMemcpyDeviceToHost));
  std::int64_t differ = 0;
  for (std::int64_t i = 0; i < elements; ++i) differ += !(a[i] == b[i]);
  const double bytes = 2.0 * elements * sizeof(T);
  std::printf("%-8s [%lld, %d] along axis 0: columns %8.1f us %.3f of copy | lane rows %8.1f us %.3f of copy | %.2fx | differ %lld\n",
              type, static_cast<long long>(n), K, col_ms * 1e3, bytes / (col_ms * 1e6) / copy_gbs, row_ms * 1e3,
              bytes / (row_ms * 1e6) / copy_gbs, col_ms / row_ms, static_cast<long long>(differ));
  CK(cudaFree(in));
  CK(cudaFree(col));
  CK(cudaFree(row));
  CK(cudaFree(temp));
}

}  // namespace

int main(int argc, char** argv) {
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 26;
  const std::int64_t elements = std::int64_t{1} << log2_n;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const double copy_gbs = probe::copy_gbs(elements * 4);
  std::printf("%s, %d SMs; 2^%d elements a case; device copy %.0f GB/s\n", prop.name, prop.multiProcessorCount, log2_n, copy_gbs);
  for (int round = 0; round < 2; ++round) {
    compare<float, 2>("float32", elements, copy_gbs);
    compare<int, 2>("int32", elements, copy_gbs);
    compare<float, 1>("float32", elements, copy_gbs);  // (k = 1: both take the row kernel, the baseline)
    compare<std::int8_t, 8>("int8", elements, copy_gbs);
    compare<short, 4>("int16", elements, copy_gbs);
  }
  return 0;
}
