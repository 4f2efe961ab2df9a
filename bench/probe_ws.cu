// probe_ws: the experiment behind the speed issue's last item (1-D sums at 0.88 of copy). Two
// warp-specialised, persistent single-pass scans of a flat array, timed against the library's
// cumsum, CUB's InclusiveSum and a device copy in the same run; outputs compared with CUB's
// (integers bit for bit; floats run to run and against CUB within rounding):
// - ws: per block one producer warp takes tile tickets and streams tiles into a ring of
//   shared-memory stages with bulk copies (cp.async.bulk); the consumer warps scan each stage in
//   place, waiting on their own look-back, and hand it to a bulk store;
// - lib: the library's pipelined kernel (device/pipelined_rows.cuh), where a reduce squad, a
//   look-back warp and a scan-store squad each own their stage of the ring, so a tile's look-back
//   overlaps the next tiles' loads and reductions; also over n - 3 (a tail bulk copies cannot
//   take whole).
//
//   probe_ws [log2_n]          (default 28)
//
// Not part of the library: what it measures decides which shapes the pipelined kernel takes.
#include <fastscan/cumsum.cuh>
#include <fastscan/device/pipelined_rows.cuh>
#include <fastscan/device/tile_state.cuh>

#include <cub/device/device_scan.cuh>

#include "probe_util.cuh"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace ws {
namespace fd = fastscan::detail;

__device__ std::int64_t least(std::int64_t a, std::int64_t b) { return a < b ? a : b; }

__device__ unsigned smem_addr(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

__device__ void bar_init(std::uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_addr(bar)), "r"(count) : "memory");
}
__device__ void bar_arrive(std::uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(smem_addr(bar)) : "memory");
}
__device__ void bar_arrive_expect(std::uint64_t* bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(bar)), "r"(bytes) : "memory");
}
__device__ void bar_wait(std::uint64_t* bar, unsigned parity) {
  unsigned done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
        : "=r"(done)
        : "r"(smem_addr(bar)), "r"(parity)
        : "memory");
  } while (done == 0);
}
//! Global -> shared, completing `bytes` on `bar`.
__device__ void bulk_load(void* dst, const void* src, unsigned bytes, std::uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
                   smem_addr(dst)),
               "l"(src), "r"(bytes), "r"(smem_addr(bar))
               : "memory");
}
__device__ void bulk_store(void* dst, const void* src, unsigned bytes) {
  asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(dst), "r"(smem_addr(src)), "r"(bytes)
               : "memory");
  asm volatile("cp.async.bulk.commit_group;" ::: "memory");
}
//! Waits until at most N bulk stores of this thread still read shared memory.
template <int N>
__device__ void bulk_wait_read() {
  asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}
__device__ void bulk_wait_all() { asm volatile("cp.async.bulk.wait_group 0;" ::: "memory"); }
//! Orders this thread's shared-memory writes before later bulk copies (the async proxy).
__device__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;" ::: "memory"); }
template <int Threads>
__device__ void consumers_sync() {
  asm volatile("bar.sync 1, %0;" ::"n"(Threads) : "memory");
}

//! One configuration: consumer warps, items per consumer thread (odd: rows of a thread fall in
//! different banks), ring stages.
template <class T, int Warps, int Items, int Stages>
struct cfg {
  static constexpr int consumers = Warps * 32;
  static constexpr int threads = consumers + 32;
  static constexpr int tile_items = consumers * Items;
  static constexpr int tile_bytes = tile_items * static_cast<int>(sizeof(T));
  static constexpr int stage_bytes = (tile_bytes + 127) / 128 * 128;
  static_assert(tile_bytes % 16 == 0, "bulk copies move multiples of 16 bytes");
  struct shared {
    std::uint64_t full[Stages];
    std::uint64_t empty[Stages];
    std::int64_t tile[Stages];
    T warp_total[Warps];
    T prefix;
  };
  static constexpr int smem_bytes = Stages * stage_bytes + static_cast<int>((sizeof(shared) + 127) / 128 * 128);
};

struct params {
  std::int64_t n;
  std::int64_t num_tiles;
  unsigned long long* ticket;  //!< zeroed before the launch
  void* tile_words;
  unsigned long long tag;
};

template <class C, class T>
__device__ typename C::shared& shared_of(unsigned char* smem) {
  return *reinterpret_cast<typename C::shared*>(smem + C::smem_bytes - ((sizeof(typename C::shared) + 127) / 128 * 128));
}

//! The producer warp: a ticket per stage, then the tile's bulk load; a ticket past the last tile
//! is handed on as the end.
template <class C, class T, int Stages>
__device__ void produce(const T* in, const params& p, unsigned char* smem) {
  auto& sh = shared_of<C, T>(smem);
  if ((threadIdx.x & 31) != 0) return;
  for (std::int64_t k = 0;; ++k) {
    const int s = static_cast<int>(k % Stages);
    if (k >= Stages) bar_wait(&sh.empty[s], static_cast<unsigned>((k / Stages - 1) & 1));
    const std::int64_t t = static_cast<std::int64_t>(atomicAdd(p.ticket, 1ull));
    sh.tile[s] = t;
    if (t >= p.num_tiles) {
      bar_arrive(&sh.full[s]);
      return;
    }
    const std::int64_t first = t * C::tile_items;
    const std::int64_t items = least(C::tile_items, p.n - first);
    const unsigned bytes = static_cast<unsigned>(items * static_cast<std::int64_t>(sizeof(T)));
    bar_arrive_expect(&sh.full[s], bytes);
    bulk_load(smem + s * C::stage_bytes, in + first, bytes, &sh.full[s]);
  }
}

//! The consumer warps: each stage in ring order, scanned in place, stored by a bulk copy whose
//! stage is released once the next store is issued (its reads then done).
template <class C, class T, int Items, int Stages>
__device__ void consume(T* out, const params& p, unsigned char* smem) {
  auto& sh = shared_of<C, T>(smem);
  const int tid = static_cast<int>(threadIdx.x);  // 0 .. consumers - 1
  const int lane = tid & 31, warp = tid >> 5;
  constexpr bool exact = std::is_integral_v<T>;
  const fd::tile_state<T> state{static_cast<ulonglong2*>(p.tile_words), p.tag, 0u, 0u};
  const fastscan::sum_op op{};
  int pending = -1;  // the stage whose store may still read it
  for (std::int64_t k = 0;; ++k) {
    const int s = static_cast<int>(k % Stages);
    bar_wait(&sh.full[s], static_cast<unsigned>((k / Stages) & 1));
    const std::int64_t t = sh.tile[s];
    if (t >= p.num_tiles) break;
    T* const stage = reinterpret_cast<T*>(smem + s * C::stage_bytes);
    const std::int64_t first = t * C::tile_items;
    const int valid = static_cast<int>(least(C::tile_items, p.n - first));
    T v[Items];
    T total{};
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      v[i] = tid * Items + i < valid ? stage[tid * Items + i] : T{};
      total = i == 0 ? v[i] : op(total, v[i]);
    }
    const T warp_inclusive = fastscan::warp_inclusive_scan(total, op);
    if (lane == 31) sh.warp_total[warp] = warp_inclusive;
    consumers_sync<C::consumers>();
    if (warp == 0) {
      const T w = lane < C::consumers / 32 ? sh.warp_total[lane] : T{};
      const T block = fd::shuffle_idx(fastscan::warp_inclusive_scan(w, op), C::consumers / 32 - 1);
      T prefix{};
      if (t == 0) {
        if (lane == 0) state.publish(t, block, fd::tile_prefix);
      } else {
        if (lane == 0) state.publish(t, block, fd::tile_aggregate);
        prefix = state.template exclusive_prefix<exact, fastscan::policy::lookback>(t, op);
        if (lane == 0) state.publish(t, op(prefix, block), fd::tile_prefix);
      }
      if (lane == 0) sh.prefix = prefix;
    }
    consumers_sync<C::consumers>();
    // The thread's running sum: the tile's prefix, the warps before, the lanes before.
    T running = sh.prefix;
    for (int w = 0; w < warp; ++w) running = op(running, sh.warp_total[w]);
    const T lane_before = __shfl_up_sync(0xffffffffu, warp_inclusive, 1);
    if (lane > 0) running = op(running, lane_before);
    bool has = t > 0 || tid > 0;  // (the array's first element is taken as it is: -0.0 stays -0.0)
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      running = has ? op(running, v[i]) : v[i];
      has = true;
      if (tid * Items + i < valid) stage[tid * Items + i] = running;
    }
    fence_async_shared();
    consumers_sync<C::consumers>();
    if (tid == 0) {
      bulk_store(out + first, stage, static_cast<unsigned>(valid * static_cast<int>(sizeof(T))));
      if (pending >= 0) {
        bulk_wait_read<1>();
        bar_arrive(&sh.empty[pending]);
      }
      pending = s;
    }
  }
  if (tid == 0) {
    bulk_wait_all();
    if (pending >= 0) bar_arrive(&sh.empty[pending]);
  }
}

template <class C, class T, int Items, int Stages>
__global__ void __launch_bounds__(C::threads) scan_kernel(const T* in, T* out, params p) {
  extern __shared__ __align__(128) unsigned char smem[];
  auto& sh = shared_of<C, T>(smem);
  if (threadIdx.x == 0) {
    for (int s = 0; s < Stages; ++s) {
      bar_init(&sh.full[s], 1);
      bar_init(&sh.empty[s], 1);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x >= C::consumers) {
    produce<C, T, Stages>(in, p, smem);
  } else {
    consume<C, T, Items, Stages>(out, p, smem);
  }
}

//! A launch of one configuration over n elements; temp: tile words, then the ticket.
template <class T, int Warps, int Items, int Stages>
struct runner {
  using C = cfg<T, Warps, Items, Stages>;
  int blocks = 0;
  std::size_t temp_bytes(std::int64_t n) const {
    const std::int64_t tiles = (n + C::tile_items - 1) / C::tile_items;
    return static_cast<std::size_t>(tiles) * 16 + 256;
  }
  void setup() {
    auto k = scan_kernel<C, T, Items, Stages>;
    CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, C::smem_bytes));
    int per_sm = 0, sms = 0, dev = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, C::threads, C::smem_bytes));
    blocks = per_sm * sms;
  }
  void run(const T* in, T* out, std::int64_t n, unsigned char* temp, unsigned long long tag, cudaStream_t stream) const {
    const std::int64_t tiles = (n + C::tile_items - 1) / C::tile_items;
    auto* ticket = reinterpret_cast<unsigned long long*>(temp + static_cast<std::size_t>(tiles) * 16);
    CK(cudaMemsetAsync(ticket, 0, 8, stream));
    const params p{n, tiles, ticket, temp, tag};
    scan_kernel<C, T, Items, Stages><<<static_cast<int>(std::min<std::int64_t>(blocks, tiles)), C::threads, C::smem_bytes,
                                       stream>>>(in, out, p);
  }
};

}  // namespace ws

namespace {

template <class T>
__global__ void fill(T* p, std::int64_t n, std::uint64_t seed) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    std::uint64_t z = (static_cast<std::uint64_t>(i) + seed) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 31;
    p[i] = static_cast<T>(static_cast<int>(z % 201) - 100);
  }
}

//! Elements that differ (bitwise), and the largest relative difference (floats).
template <class T>
void compare(const T* a, const T* b, std::int64_t n, long long& diff, double& rel) {
  std::vector<T> x(static_cast<std::size_t>(n)), y(static_cast<std::size_t>(n));
  CK(cudaMemcpy(x.data(), a, n * sizeof(T), cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(y.data(), b, n * sizeof(T), cudaMemcpyDeviceToHost));
  diff = 0;
  rel = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    if (x[i] != y[i]) {
      ++diff;
      const double d = std::abs(static_cast<double>(x[i]) - static_cast<double>(y[i]));
      rel = std::max(rel, d / std::max(1.0, std::abs(static_cast<double>(y[i]))));
    }
  }
}

//! Waits for the device; a configuration that hangs (a pipeline bug) ends the probe after `seconds`
//! instead of holding the GPU.
void finish_or_die(const char* what, double seconds) {
  const auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  cudaError_t e;
  while ((e = cudaStreamQuery(nullptr)) == cudaErrorNotReady) {
    if (std::chrono::steady_clock::now() > until) {
      std::printf("%s: no result after %.0f s: hung\n", what, seconds);
      std::fflush(stdout);
      std::_Exit(3);
    }
  }
  CK(e);
}

unsigned long long next_tag() {
  static unsigned long long tag = (std::random_device{}() | 1ull) << 20;
  return ++tag & ((1ull << 62) - 1);
}

template <class T, int Warps, int Items, int Stages>
void try_config(const char* type, const T* in, T* out, const T* ref, std::int64_t n, unsigned char* temp, double copy_gbs) {
  ws::runner<T, Warps, Items, Stages> r;
  r.setup();
  long long diff = 0;
  double rel = 0;
  CK(cudaMemset(out, 0x5b, n * sizeof(T)));
  r.run(in, out, n, temp, next_tag(), nullptr);
  finish_or_die("ws", 5.0);
  compare(out, ref, n, diff, rel);
  const float ms = probe::median_ms([&] { r.run(in, out, n, temp, next_tag(), nullptr); });
  std::printf("%-8s ws %d warps x %2d items x %d stages (%5d B tile, %d blocks)  %8.1f us  %.3f of copy  differ %lld (rel %.1e)\n",
              type, Warps, Items, Stages, ws::cfg<T, Warps, Items, Stages>::tile_bytes, r.blocks, ms * 1e3,
              2.0 * n * sizeof(T) / (ms * 1e6) / copy_gbs, diff, rel);
}

//! The library's pipelined kernel (device/pipelined_rows.cuh) for one configuration, over n and
//! over a tail that bulk copies cannot take whole (n - 3), checked against CUB on both.
template <class T, int Warps, int Items, int Stages>
struct lib_policy {
  static constexpr int warps = Warps, items = Items, stages = Stages, threads = 2 * Warps * 32 + 64, min_blocks = 1;
  static constexpr bool exact = std::is_integral_v<T>;
  using lookback_policy = fastscan::policy::lookback;
};
template <class T, int Warps, int Items, int Stages>
void try_lib(const char* type, const T* in, T* out, T* ref, std::int64_t n, unsigned char* temp, double copy_gbs) {
  namespace fd = fastscan::detail;
  using P = lib_policy<T, Warps, Items, Stages>;
  using problem = typename fd::sum_entry<T, T>::problem;
  using block_t = fd::pipelined_rows<P, problem>;
  const auto kernel = fd::pipelined_rows_kernel<P, problem>;
  const int smem = Stages * block_t::stage_bytes + static_cast<int>(sizeof(typename block_t::shared_t));
  CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
  int per_sm = 0, sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, P::threads, smem));
  const auto run = [&](std::int64_t m) {
    const std::int64_t tiles = (m + block_t::tile_items - 1) / block_t::tile_items;
    const fd::pipelined_row_params p{m, tiles, reinterpret_cast<unsigned long long*>(temp), temp + 16, next_tag()};
    kernel<<<static_cast<int>(std::min<std::int64_t>(std::int64_t{per_sm} * sms, tiles)), P::threads, smem>>>(
        problem{{}, in, out, false}, p);
  };
  long long diff = 0, tail_diff = 0;
  double rel = 0;
  std::size_t cub_bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n - 3));
  CK(cub::DeviceScan::InclusiveSum(temp + (std::size_t{64} << 20), cub_bytes, in, ref, n - 3));
  CK(cudaMemset(out, 0x5b, n * sizeof(T)));
  run(n - 3);
  finish_or_die("lib", 5.0);
  compare(out, ref, n - 3, tail_diff, rel);
  CK(cub::DeviceScan::InclusiveSum(temp + (std::size_t{64} << 20), cub_bytes, in, ref, n));
  CK(cudaMemset(out, 0x5b, n * sizeof(T)));
  run(n);
  finish_or_die("lib", 5.0);
  compare(out, ref, n, diff, rel);
  const float ms = probe::median_ms([&] { run(n); });
  std::printf("%-8s lib %d+%d warps x %2d items x %d stages (%5d B tile, %d blocks)  %8.1f us  %.3f of copy  differ %lld, at n-3 %lld\n",
              type, Warps, Warps, Items, Stages, block_t::tile_items * static_cast<int>(sizeof(T)), per_sm * sms, ms * 1e3,
              2.0 * n * sizeof(T) / (ms * 1e6) / copy_gbs, diff, tail_diff);
}

template <class T>
void suite(const char* type, std::int64_t n, double copy_gbs) {
  T *in, *out, *ref;
  unsigned char* temp;
  CK(cudaMalloc(&in, n * sizeof(T)));
  CK(cudaMalloc(&out, n * sizeof(T)));
  CK(cudaMalloc(&ref, n * sizeof(T)));
  const std::size_t temp_bytes = static_cast<std::size_t>(n) * 2 + (64 << 20);
  CK(cudaMalloc(&temp, temp_bytes));
  fill<<<2048, 256>>>(in, n, 7);
  std::size_t cub_bytes = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, cub_bytes, in, ref, n));
  const float cub_ms = probe::median_ms([&] { CK(cub::DeviceScan::InclusiveSum(temp, cub_bytes, in, ref, n)); });
  std::printf("%-8s CUB InclusiveSum                                              %8.1f us  %.3f of copy\n", type,
              cub_ms * 1e3, 2.0 * n * sizeof(T) / (cub_ms * 1e6) / copy_gbs);
  std::size_t fs_bytes = 0;
  const fastscan::Shape3 shape{1, n, 1};
  CK(fastscan::cumsum(nullptr, fs_bytes, in, out, shape));
  const float fs_ms = probe::median_ms([&] { CK(fastscan::cumsum(temp, fs_bytes, in, out, shape, nullptr)); });
  long long diff = 0;
  double rel = 0;
  compare(out, ref, n, diff, rel);
  std::printf("%-8s fastscan cumsum (row kernel)                                  %8.1f us  %.3f of copy  differ %lld (rel %.1e)\n",
              type, fs_ms * 1e3, 2.0 * n * sizeof(T) / (fs_ms * 1e6) / copy_gbs, diff, rel);
  if constexpr (sizeof(T) == 8) {
    try_lib<T, 2, 31, 6>(type, in, out, ref, n, temp, copy_gbs);
    try_lib<T, 2, 31, 4>(type, in, out, ref, n, temp, copy_gbs);
    try_lib<T, 1, 63, 6>(type, in, out, ref, n, temp, copy_gbs);
    try_lib<T, 2, 15, 8>(type, in, out, ref, n, temp, copy_gbs);
    try_config<T, 4, 31, 3>(type, in, out, ref, n, temp, copy_gbs);
  } else {
    try_lib<T, 2, 63, 6>(type, in, out, ref, n, temp, copy_gbs);
    try_lib<T, 2, 31, 8>(type, in, out, ref, n, temp, copy_gbs);
    try_lib<T, 4, 31, 4>(type, in, out, ref, n, temp, copy_gbs);
    try_config<T, 4, 63, 3>(type, in, out, ref, n, temp, copy_gbs);
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(ref));
  CK(cudaFree(temp));
}

}  // namespace

int main(int argc, char** argv) {
  const int log2_n = argc > 1 ? std::atoi(argv[1]) : 28;
  const std::int64_t n = std::int64_t{1} << log2_n;
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  const double copy_gbs = probe::copy_gbs(n * 8);
  std::printf("%s, %d SMs; n = 2^%d; device copy %.0f GB/s\n", prop.name, prop.multiProcessorCount, log2_n, copy_gbs);
  for (int round = 0; round < 2; ++round) {
    suite<std::int64_t>("int64", n, copy_gbs);
    suite<float>("float32", n, copy_gbs);
  }
  return 0;
}
