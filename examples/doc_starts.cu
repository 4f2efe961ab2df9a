// Forward-fills document starts over a packed sequence, the long-context training use case:
// doc_start[i] = cummax(is_boundary * position)[i] over 65536 positions, checked against a host loop,
// and timed back to back. `doc_starts --plan [OUTER LEN INNER]` prints the plan fastscan takes for a
// shape (the example's by default) and exits.
#include <fastscan/cummax.cuh>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#define CHECK_CUDA(expr)                                                                     \
  do {                                                                                       \
    const cudaError_t err_ = (expr);                                                         \
    if (err_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "%s failed: %s\n", #expr, cudaGetErrorString(err_));             \
      return 1;                                                                              \
    }                                                                                        \
  } while (0)

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "--plan") == 0) {
    const auto at = [&](int i, long long fallback) { return argc > i ? std::atoll(argv[i]) : fallback; };
    const fastscan::Shape3 s{at(2, 1), at(3, 65536), at(4, 1)};
    std::printf("cummax int64: %s\n", fastscan::explain_cummax<std::int64_t>(s).c_str());
    return 0;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("doc_starts: no CUDA device on this machine; the example needs a GPU to run.\n");
    return 0;
  }
  const std::int64_t seqlen = 65536;
  // Packed documents of random lengths; a boundary marks each document's first position.
  std::mt19937 rng(42);
  std::vector<std::int64_t> marked(seqlen, 0);
  for (std::int64_t pos = 0; pos < seqlen;) {
    marked[pos] = pos;
    pos += 1 + static_cast<std::int64_t>(rng() % 4000);
  }

  std::int64_t *d_marked, *d_starts, *d_where;
  CHECK_CUDA(cudaMalloc(&d_marked, seqlen * sizeof(std::int64_t)));
  CHECK_CUDA(cudaMalloc(&d_starts, seqlen * sizeof(std::int64_t)));
  CHECK_CUDA(cudaMalloc(&d_where, seqlen * sizeof(std::int64_t)));
  CHECK_CUDA(cudaMemcpy(d_marked, marked.data(), seqlen * sizeof(std::int64_t), cudaMemcpyHostToDevice));

  // Two-phase temp storage, as a framework's caching allocator would use it.
  std::size_t temp_bytes = 0;
  const fastscan::Shape3 shape{1, seqlen, 1};
  CHECK_CUDA(fastscan::cummax(nullptr, temp_bytes, d_marked, d_starts, d_where, shape));
  void* d_temp;
  CHECK_CUDA(cudaMalloc(&d_temp, temp_bytes));
  CHECK_CUDA(fastscan::cummax(d_temp, temp_bytes, d_marked, d_starts, d_where, shape));

  std::vector<std::int64_t> starts(seqlen);
  CHECK_CUDA(cudaMemcpy(starts.data(), d_starts, seqlen * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  std::int64_t current = 0, wrong = 0;
  for (std::int64_t i = 0; i < seqlen; ++i) {
    current = marked[i] > current ? marked[i] : current;
    wrong += starts[i] != current;
  }

  cudaEvent_t start, stop;
  CHECK_CUDA(cudaEventCreate(&start));
  CHECK_CUDA(cudaEventCreate(&stop));
  const int reps = 200;
  for (int i = 0; i < 10; ++i) CHECK_CUDA(fastscan::cummax(d_temp, temp_bytes, d_marked, d_starts, d_where, shape));
  CHECK_CUDA(cudaEventRecord(start));
  for (int i = 0; i < reps; ++i) CHECK_CUDA(fastscan::cummax(d_temp, temp_bytes, d_marked, d_starts, d_where, shape));
  CHECK_CUDA(cudaEventRecord(stop));
  CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));

  std::printf("doc_starts: %lld positions, %lld wrong; cummax [1, %lld] int64: %.2f us per call (back to back)\n",
              static_cast<long long>(seqlen), static_cast<long long>(wrong), static_cast<long long>(seqlen),
              1e3 * ms / reps);
  cudaFree(d_temp);
  cudaFree(d_marked);
  cudaFree(d_starts);
  cudaFree(d_where);
  return wrong == 0 ? 0 : 1;
}
