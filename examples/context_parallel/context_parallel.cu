// Context parallelism: a 65536-token packed sequence split across the GPUs of this machine, one
// process per GPU (fork), each holding a contiguous block of positions. Document starts are the
// running maximum of (position at a document's first token, else 0), computed with the sharded
// cummax on NCCL (fastscan/nccl.cuh) and checked against a host loop over the whole sequence.
// Runs with any number of GPUs (one gives one rank). NCCL_NVLS_ENABLE=0 is set before NCCL starts.
#include <fastscan/nccl.cuh>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(expr, what)                                      \
  do {                                                         \
    if (!(expr)) {                                             \
      std::fprintf(stderr, "rank %d: %s failed\n", rank, what); \
      return 1;                                                \
    }                                                          \
  } while (0)

namespace {

constexpr std::int64_t seqlen = 65536;

//! The whole sequence's marks (position at each document's first token, else 0): every rank
//! builds the same one from the same seed and keeps its block.
std::vector<std::int64_t> marks() {
  std::mt19937 rng(42);
  std::vector<std::int64_t> m(seqlen, 0);
  for (std::int64_t pos = 0; pos < seqlen; pos += 1 + static_cast<std::int64_t>(rng() % 4000)) m[pos] = pos;
  return m;
}

int run_rank(int rank, int ranks, const ncclUniqueId& id) {
  CHECK(cudaSetDevice(rank) == cudaSuccess, "cudaSetDevice");
  ncclComm_t comm;
  CHECK(ncclCommInitRank(&comm, ranks, id, rank) == ncclSuccess, "ncclCommInitRank");
  const auto whole = marks();
  // Uneven blocks: rank r holds positions [first, last).
  const std::int64_t first = seqlen * rank / ranks - (rank > 0 ? 7 : 0), last = seqlen * (rank + 1) / ranks - (rank + 1 < ranks ? 7 : 0);
  const fastscan::Shape3 local{1, last - first, 1};
  std::int64_t *d_marks, *d_starts, *d_where;
  const std::size_t bytes = static_cast<std::size_t>(local.len) * sizeof(std::int64_t);
  CHECK(cudaMalloc(&d_marks, bytes + 8) == cudaSuccess && cudaMalloc(&d_starts, bytes + 8) == cudaSuccess &&
            cudaMalloc(&d_where, bytes + 8) == cudaSuccess,
        "cudaMalloc");
  CHECK(cudaMemcpy(d_marks, whole.data() + first, bytes, cudaMemcpyHostToDevice) == cudaSuccess, "upload");
  cudaStream_t stream;
  CHECK(cudaStreamCreate(&stream) == cudaSuccess, "cudaStreamCreate");
  std::size_t temp_bytes = 0;
  CHECK(fastscan::nccl::cummax(nullptr, temp_bytes, d_marks, d_starts, d_where, local, comm, stream) == cudaSuccess, "size query");
  void* d_temp;
  CHECK(cudaMalloc(&d_temp, temp_bytes) == cudaSuccess, "cudaMalloc temp");
  CHECK(fastscan::nccl::cummax(d_temp, temp_bytes, d_marks, d_starts, d_where, local, comm, stream) == cudaSuccess, "cummax");
  // Exclusive sums read each element's predecessor, so they refuse to run in place (every rank has
  // rows here, so every rank returns before the all-gather).
  std::size_t sum_bytes = 0;
  void* d_sum_temp;
  CHECK(fastscan::nccl::exclusive_cumsum(nullptr, sum_bytes, d_marks, d_marks, local, comm, stream) == cudaSuccess &&
            cudaMalloc(&d_sum_temp, sum_bytes) == cudaSuccess,
        "size query");
  CHECK(fastscan::nccl::exclusive_cumsum(d_sum_temp, sum_bytes, d_marks, d_marks, local, comm, stream) == cudaErrorInvalidValue,
        "exclusive_cumsum in place refused");
  std::vector<std::int64_t> starts(static_cast<std::size_t>(local.len)), where(starts.size());
  CHECK(cudaStreamSynchronize(stream) == cudaSuccess, "the scan");
  CHECK(cudaMemcpy(starts.data(), d_starts, bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
  CHECK(cudaMemcpy(where.data(), d_where, bytes, cudaMemcpyDeviceToHost) == cudaSuccess, "download");
  // The host loop over the whole sequence; indices are global positions (ties: the latest).
  std::int64_t best = 0, at = 0, wrong = 0;
  for (std::int64_t i = 0; i < last; ++i) {
    if (whole[static_cast<std::size_t>(i)] >= best) {
      best = whole[static_cast<std::size_t>(i)];
      at = i;
    }
    if (i >= first) wrong += starts[static_cast<std::size_t>(i - first)] != best || where[static_cast<std::size_t>(i - first)] != at;
  }
  std::printf("context_parallel: rank %d of %d, positions [%lld, %lld): %lld wrong\n", rank, ranks, static_cast<long long>(first),
              static_cast<long long>(last), static_cast<long long>(wrong));
  ncclCommDestroy(comm);
  return wrong == 0 ? 0 : 1;
}

}  // namespace

//! The GPU count, from a child process: a parent that started CUDA could not fork processes that
//! use it.
bool probe(int& ranks) {
  int fds[2];
  if (pipe(fds) != 0) return false;
  const pid_t pid = fork();
  if (pid == 0) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) n = 0;
    std::_Exit(write(fds[1], &n, sizeof n) == sizeof n ? 0 : 1);
  }
  close(fds[1]);
  const bool got = read(fds[0], &ranks, sizeof ranks) == sizeof ranks;
  close(fds[0]);
  waitpid(pid, nullptr, 0);
  return got;
}

//! One rank's process: rank 0 makes NCCL's id (its process hosts the bootstrap root, so it must
//! live through every rank's init) and hands it to the others through their pipes.
int start_rank(int rank, int ranks, const std::vector<std::array<int, 2>>& pipes) {
  // Rank 0 keeps only the write ends, the others only the read ends: a rank 0 that fails closes
  // the last write end, so the others read end-of-file instead of waiting.
  for (const auto& p : pipes) close(p[rank == 0 ? 0 : 1]);
  ncclUniqueId id{};
  if (rank == 0) {
    if (ncclGetUniqueId(&id) != ncclSuccess) return 1;
    for (int r = 1; r < ranks; ++r) {
      if (write(pipes[r][1], &id, sizeof id) != sizeof id) return 1;
    }
  } else if (read(pipes[rank][0], &id, sizeof id) != sizeof id) {
    return 1;
  }
  return run_rank(rank, ranks, id);
}

int main() {
  setenv("NCCL_NVLS_ENABLE", "0", 1);
  int ranks = 0;
  if (!probe(ranks)) {
    std::fprintf(stderr, "context_parallel: could not ask for the GPUs\n");
    return 1;
  }
  if (ranks == 0) {
    std::printf("context_parallel: no CUDA device on this machine; the example needs a GPU to run.\n");
    return 0;
  }
  std::vector<std::array<int, 2>> pipes(static_cast<std::size_t>(ranks));
  for (auto& p : pipes) {
    if (pipe(p.data()) != 0) return 1;
  }
  // One process per GPU.
  std::vector<pid_t> children;
  for (int rank = 0; rank < ranks; ++rank) {
    const pid_t pid = fork();
    if (pid == 0) std::exit(start_rank(rank, ranks, pipes));
    children.push_back(pid);
  }
  for (const auto& p : pipes) {
    close(p[0]);
    close(p[1]);
  }
  int failed = 0;
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    failed += !WIFEXITED(status) || WEXITSTATUS(status) != 0;
  }
  std::printf("context_parallel: %d of %d ranks right\n", ranks - failed, ranks);
  return failed == 0 ? 0 : 1;
}
