// (value, index) scans of one long row: the pipelined kernel (16-byte aligned arrays) against the
// row kernel (the same call on arrays 8 bytes off alignment), bit for bit; outputs poisoned.
#include <fastscan/scan.cuh>
#include <cstdio>
#include <cstring>
#include <cmath>
#include <vector>
#include <random>
template <class T, class Gen, class Call>
int check(const char* name, long n, Gen gen, Call call) {
  std::vector<T> h(n);
  std::mt19937_64 g(n);
  for (long i = 0; i < n; ++i) h[i] = gen(g, i);
  T *x, *v; long* ix;
  cudaMalloc(&x, (n + 2) * sizeof(T)); cudaMalloc(&v, (n + 2) * sizeof(T)); cudaMalloc(&ix, (n + 2) * 8);
  std::vector<T> v0(n), v1(n); std::vector<long> i0(n), i1(n);
  for (int off = 0; off < 2; ++off) {
    cudaMemcpy(x + off, h.data(), n * sizeof(T), cudaMemcpyHostToDevice);
    cudaMemset(v, 0xfe, (n + 2) * sizeof(T)); cudaMemset(ix, 0xfe, (n + 2) * 8);
    cudaError_t e = call(x + off, v + off, ix + off, n);
    cudaError_t e2 = cudaDeviceSynchronize();
    if (e || e2) { printf("%s n %ld off %d error %d %d\n", name, n, off, e, e2); return 1; }
    cudaMemcpy(off ? v1.data() : v0.data(), v + off, n * sizeof(T), cudaMemcpyDeviceToHost);
    cudaMemcpy(off ? i1.data() : i0.data(), ix + off, n * 8, cudaMemcpyDeviceToHost);
  }
  long dv = 0, di = 0;
  for (long i = 0; i < n; ++i) { dv += std::memcmp(&v0[i], &v1[i], sizeof(T)) != 0; di += i0[i] != i1[i]; }
  printf("%s n %ld: values differ %ld, indices differ %ld (last index %ld)\n", name, n, dv, di, i0[n - 1]);
  cudaFree(x); cudaFree(v); cudaFree(ix);
  return dv + di != 0;
}
int main() {
  const long sizes[] = {1l << 20, (1l << 20) + 3, 3l * (1 << 20) + 77, (1l << 24) + 5, 1l << 27};
  int bad = 0;
  for (long n : sizes) {
    bad += check<long>("cummax int64", n, [n](std::mt19937_64& g, long i) { return (long)(g() % 1000) + i / (n / 7 + 1) * 100; },
                       [](const long* x, long* v, long* ix, long n) { return fastscan::cummax(x, v, ix, fastscan::Shape3{1, n, 1}); });
    bad += check<double>("cummin float64 (NaN, -0.0)", n, [n](std::mt19937_64& g, long i) {
      const unsigned r = g() % 100000;
      return r == 7 && i > n / 2 ? NAN : r % 3 == 0 ? -0.0 : r % 3 == 1 ? 0.0 : -(double)(r % 5000) - (double)(i / 4096); },
                         [](const double* x, double* v, long* ix, long n) { return fastscan::cummin(x, v, ix, fastscan::Shape3{1, n, 1}); });
  }
  printf("%s\n", bad ? "FAILED" : "passed");
  return bad;
}
