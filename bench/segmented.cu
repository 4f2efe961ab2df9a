// fastscan segmented benchmark: segment sums, segmented scans and BEV pooling, beside the peers
// re-implemented or called in the same process (the BEVPoolv2 scheme of precomputed intervals,
// index_add_-style atomics, CUB's radix sort, ReduceByKey, scans by key and, built against CUB
// 3.5+, DeviceSegmentedScan), as shares of a copy and of a pure read measured at start.
//
// Bytes count what an operator must move: the features and keys read, the outputs written (segment
// sums: feats + keys + sums + unique keys; pooling: feats + the keys or the plan's permutation and
// sorted keys + the grid). Inputs are random with ties, never zeros; keys are sorted runs of random
// length, or uniformly random voxels for the unsorted pipelines.
#include <fastscan/bev.cuh>
#include <fastscan/scan.cuh>

#include "gbench_support.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>
#if CUB_VERSION >= 300500
#include <cub/device/device_segmented_scan.cuh>
#define BENCH_CUB_SEGMENTED_SCAN 1
#endif

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

//! The scan operator of the max rows (outside the unnamed namespace: kernels are instantiated for it).
namespace bench_ops {
struct max_of {
  template <class T>
  __host__ __device__ T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};
}  // namespace bench_ops

namespace {

using bench_ops::max_of;
using bench_support::add;
using bench_support::check;
using bench_support::device_memory;
using bench_support::fill;
using bench_support::time_calls;
using i64 = std::int64_t;

__device__ std::uint64_t mix(std::uint64_t i, std::uint64_t seed) {
  std::uint64_t h = (i + seed) * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31;
  return h * 0xBF58476D1CE4E5B9ull;
}

//! heads[i] = 1 where a run starts: row 0, and each row with probability 1 / mean_run.
__global__ void run_heads(int* heads, i64 n, double mean_run, std::uint64_t seed) {
  for (i64 i = blockIdx.x * i64{blockDim.x} + threadIdx.x; i < n; i += i64{gridDim.x} * blockDim.x) {
    heads[i] = i == 0 || static_cast<double>(mix(static_cast<std::uint64_t>(i), seed) >> 11) * 0x1p-53 * mean_run < 1.0;
  }
}

//! Unsorted voxel keys, uniform over [0, cells).
template <class Key>
__global__ void random_cells(Key* keys, i64 n, i64 cells, std::uint64_t seed) {
  for (i64 i = blockIdx.x * i64{blockDim.x} + threadIdx.x; i < n; i += i64{gridDim.x} * blockDim.x) {
    keys[i] = static_cast<Key>(mix(static_cast<std::uint64_t>(i), seed) % static_cast<std::uint64_t>(cells));
  }
}

//! Sorted keys of n rows in runs of random length (mean `mean_run`): the running count of heads.
struct sorted_runs {
  device_memory keys;
  i64 runs = 0;
  sorted_runs(i64 n, double mean_run) : keys(n * sizeof(i64)) {
    device_memory heads(n * sizeof(int));
    run_heads<<<1024, 256>>>(heads.as<int>(), n, mean_run, 11);
    check(fastscan::cumsum(heads.as<int>(), keys.as<i64>(), fastscan::Shape3{1, n, 1}), "keys");
    check(cudaMemcpy(&runs, keys.as<i64>() + (n - 1), sizeof(i64), cudaMemcpyDeviceToHost), "run count");
  }
};

//! The BEVPoolv2 scheme's pooling pass: one thread per (interval, channel) sums its interval's rows
//! (through `perm` when given) in float and writes the key's cell of the grid.
template <class T>
__global__ void pool_intervals(const T* feats, const i64* perm, const i64* unique, const int* starts, const int* lengths,
                               const int* intervals, float* grid, int C, i64 cells) {
  const i64 n = i64{*intervals} * C;
  for (i64 i = blockIdx.x * i64{blockDim.x} + threadIdx.x; i < n; i += i64{gridDim.x} * blockDim.x) {
    const i64 v = i / C;
    const int c = static_cast<int>(i - v * C);
    const int begin = starts[v];
    float acc = 0;
    for (int j = begin; j < begin + lengths[v]; ++j) {
      acc += static_cast<float>(feats[(perm ? perm[j] : j) * C + c]);
    }
    if (unique[v] >= 0 && unique[v] < cells) grid[unique[v] * C + c] = acc;
  }
}

//! index_add_: one atomic add per element into a float grid (not deterministic).
template <class T>
__global__ void atomic_pool(const T* feats, const i64* keys, float* grid, i64 S, int C) {
  for (i64 i = blockIdx.x * i64{blockDim.x} + threadIdx.x; i < S * C; i += i64{gridDim.x} * blockDim.x) {
    const i64 row = i / C;
    atomicAdd(grid + keys[row] * C + (i - row * C), static_cast<float>(feats[i]));
  }
}

__global__ void iota(i64* x, i64 n) {
  for (i64 i = blockIdx.x * i64{blockDim.x} + threadIdx.x; i < n; i += i64{gridDim.x} * blockDim.x) x[i] = i;
}

//! A two-phase CUB call: sizes its temp storage once, then runs it.
template <class Call>
struct cub_call {
  Call call;
  std::size_t bytes;
  device_memory temp;
  static std::size_t size(Call& c) {
    std::size_t b = 0;
    check(c(nullptr, b), "cub size");
    return b;
  }
  explicit cub_call(Call c) : call(c), bytes(size(call)), temp(bytes) {}
  void operator()() { check(call(temp.ptr, bytes), "cub"); }
};
template <class Call>
cub_call<Call> make_cub(Call c) {
  return cub_call<Call>(c);
}

//! The BEVPoolv2 scheme from sorted keys: run-length intervals (CUB), then the pooling pass.
struct intervals {
  i64 S;
  device_memory unique, lengths, starts, count;
  std::size_t encode_bytes = 0, scan_bytes = 0;
  std::unique_ptr<device_memory> temp;
  intervals(const i64* sorted, i64 S_)
      : S(S_), unique(S_ * sizeof(i64)), lengths(S_ * sizeof(int)), starts(S_ * sizeof(int)), count(sizeof(int)) {
    check(encode(nullptr, sorted), "rle size");
    check(scan(nullptr), "scan size");
    temp = std::make_unique<device_memory>(std::max(encode_bytes, scan_bytes));
    find(sorted);
  }
  cudaError_t encode(void* t, const i64* sorted) {
    return cub::DeviceRunLengthEncode::Encode(t, encode_bytes, sorted, unique.as<i64>(), lengths.as<int>(), count.as<int>(), S);
  }
  cudaError_t scan(void* t) { return cub::DeviceScan::ExclusiveSum(t, scan_bytes, lengths.as<int>(), starts.as<int>(), S); }
  void find(const i64* sorted) {
    check(encode(temp->ptr, sorted), "rle");
    check(scan(temp->ptr), "interval starts");
  }
  template <class T>
  void pool(const T* feats, const i64* perm, float* grid, int C, i64 cells) const {
    pool_intervals<<<132 * 16, 256>>>(feats, perm, unique.as<i64>(), starts.as<int>(), lengths.as<int>(), count.as<int>(),
                                      grid, C, cells);
  }
};

template <class T>
const char* tname() {
  if constexpr (std::is_same_v<T, __nv_fp8_e4m3>) return "fp8e4m3";
  else return fastscan::detail::dtype_name<T>();
}

std::string rows_label(i64 S, i64 C) { return "[" + std::to_string(S) + "," + std::to_string(C) + "]"; }

// ---- segment sums and segmented cumsum over sorted keys, [S, C] rows ----

template <class T>
void segment_rows(const std::string& table, i64 S, int C, i64 segments) {
  using Acc = fastscan::segment_acc_t<T>;
  const std::string tail = std::string(tname<T>()) + "/" + rows_label(S, C) + "/segments:" + std::to_string(segments);
  struct data {
    sorted_runs keys;
    device_memory feats, sums, unique, count, out, sink;
    data(i64 S, int C, i64 segments)
        : keys(S, static_cast<double>(S) / static_cast<double>(segments)), feats(S * C * sizeof(T)),
          sums(S * C * sizeof(Acc)), unique(S * sizeof(i64)), count(sizeof(i64)), out(S * C * sizeof(Acc)),
          sink(132 * 8 * sizeof(unsigned)) {
      fill<<<1024, 256>>>(feats.as<T>(), S * C, 21);
    }
  };
  add(table + "/segment_sum/" + tail, [=](benchmark::State& st) {
    data d(S, C, segments);
    const std::size_t bytes = S * (C * sizeof(T) + sizeof(i64)) + d.keys.runs * (C * sizeof(Acc) + sizeof(i64));
    std::size_t temp_bytes = 0;
    auto call = [&](void* temp) {
      return fastscan::segment_sum(temp, temp_bytes, d.feats.template as<T>(), d.keys.keys.template as<i64>(), d.unique.template as<i64>(),
                                   d.sums.template as<Acc>(), d.count.template as<i64>(), S, C);
    };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    time_calls(st, bytes, bytes, [&] { check(call(temp.ptr), "segment_sum"); });
  });
  add(table + "/segmented_cumsum/" + tail, [=](benchmark::State& st) {
    data d(S, C, segments);
    const std::size_t bytes = S * (C * (sizeof(T) + sizeof(Acc)) + sizeof(i64));
    std::size_t temp_bytes = 0;
    auto call = [&](void* temp) {
      return fastscan::segmented_cumsum(temp, temp_bytes, d.feats.template as<T>(), d.keys.keys.template as<i64>(), d.out.template as<Acc>(), S, C);
    };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    time_calls(st, bytes, bytes, [&] { check(call(temp.ptr), "segmented_cumsum"); });
  });
  add(table + "/bevpoolv2_sorted/" + tail, [=](benchmark::State& st) {  // the peer, intervals precomputed
    data d(S, C, segments);
    intervals iv(d.keys.keys.template as<i64>(), S);
    const std::size_t bytes = S * C * sizeof(T) + d.keys.runs * (C * sizeof(float) + sizeof(i64) + 2 * sizeof(int));
    time_calls(st, bytes, bytes, [&] { iv.pool(d.feats.template as<T>(), nullptr, d.sums.template as<float>(), C, i64{1} << 62); });
  });
  add(table + "/read/" + tail, [=](benchmark::State& st) {
    device_memory feats(S * C * sizeof(T)), sink(132 * 8 * sizeof(unsigned));
    fill<<<1024, 256>>>(feats.as<T>(), S * C, 21);
    const std::size_t bytes = S * C * sizeof(T);
    time_calls(st, bytes, bytes, [&] { bench_support::pure_read(feats.ptr, bytes, sink.as<unsigned>()); });
  });
}

// ---- scalar rows (C = 1): a max scan by key, sums by key, against CUB ----

void scalar_rows(i64 n, double mean_run) {
  const std::string tail = "int64/" + std::to_string(n) + "/mean_run:" + std::to_string(static_cast<i64>(mean_run));
  struct data {
    sorted_runs keys;
    device_memory in, out;
    data(i64 n, double mean_run) : keys(n, mean_run), in(n * 8), out(n * 8) { fill<<<1024, 256>>>(in.as<i64>(), n, 31); }
  };
  const std::size_t bytes = 3 * n * sizeof(i64);  // keys and values read, values written
  add("scalar/segmented_max/" + tail, [=](benchmark::State& st) {
    data d(n, mean_run);
    std::size_t temp_bytes = 0;
    auto call = [&](void* temp) {
      return fastscan::segmented_inclusive_scan(temp, temp_bytes, d.in.template as<i64>(), d.keys.keys.template as<i64>(), d.out.template as<i64>(),
                                                max_of{}, n, 1);
    };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    time_calls(st, bytes, bytes, [&] { check(call(temp.ptr), "segmented max"); });
  });
  add("scalar/cub_max_by_key/" + tail, [=](benchmark::State& st) {
    data d(n, mean_run);
    auto cub = make_cub([&](void* t, std::size_t& b) {
      return cub::DeviceScan::InclusiveScanByKey(t, b, d.keys.keys.template as<i64>(), d.in.template as<i64>(), d.out.template as<i64>(), max_of{}, n);
    });
    time_calls(st, bytes, bytes, [&] { cub(); });
  });
  add("scalar/segmented_cumsum/" + tail, [=](benchmark::State& st) {
    data d(n, mean_run);
    std::size_t temp_bytes = 0;
    auto call = [&](void* temp) {
      return fastscan::segmented_cumsum(temp, temp_bytes, d.in.template as<i64>(), d.keys.keys.template as<i64>(), d.out.template as<i64>(), n, 1);
    };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    time_calls(st, bytes, bytes, [&] { check(call(temp.ptr), "segmented cumsum"); });
  });
  add("scalar/cub_sum_by_key/" + tail, [=](benchmark::State& st) {
    data d(n, mean_run);
    auto cub = make_cub([&](void* t, std::size_t& b) {
      return cub::DeviceScan::InclusiveSumByKey(t, b, d.keys.keys.template as<i64>(), d.in.template as<i64>(), d.out.template as<i64>(), n);
    });
    time_calls(st, bytes, bytes, [&] { cub(); });
  });
  add("scalar/segment_sum/" + tail, [=](benchmark::State& st) {
    data d(n, mean_run);
    device_memory unique(n * 8), count(8);
    const std::size_t sum_bytes = 2 * n * sizeof(i64) + 2 * d.keys.runs * sizeof(i64);
    std::size_t temp_bytes = 0;
    auto call = [&](void* temp) {
      return fastscan::segment_sum(temp, temp_bytes, d.in.template as<i64>(), d.keys.keys.template as<i64>(), unique.as<i64>(), d.out.template as<i64>(),
                                   count.as<i64>(), n, 1);
    };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    time_calls(st, sum_bytes, sum_bytes, [&] { check(call(temp.ptr), "segment_sum"); });
  });
  add("scalar/cub_reduce_by_key/" + tail, [=](benchmark::State& st) {
    data d(n, mean_run);
    device_memory unique(n * 8), count(8);
    const std::size_t sum_bytes = 2 * n * sizeof(i64) + 2 * d.keys.runs * sizeof(i64);
    auto cub = make_cub([&](void* t, std::size_t& b) {
      return cub::DeviceReduce::ReduceByKey(t, b, d.keys.keys.template as<i64>(), unique.as<i64>(), d.in.template as<i64>(), d.out.template as<i64>(),
                                            count.as<i64>(), cuda::std::plus<>{}, n);
    });
    time_calls(st, sum_bytes, sum_bytes, [&] { cub(); });
  });
#ifdef BENCH_CUB_SEGMENTED_SCAN
  add("scalar/cub_segmented_scan_max/" + tail, [=](benchmark::State& st) {
    data d(n, mean_run);
    device_memory offsets((d.keys.runs + 1) * sizeof(i64)), selected(8);
    {  // run starts, then n: the offsets CUB's segmented scan takes
      device_memory heads(n * sizeof(int));
      run_heads<<<1024, 256>>>(heads.as<int>(), n, mean_run, 11);
      auto select = make_cub([&](void* t, std::size_t& b) {
        return cub::DeviceSelect::Flagged(t, b, thrust::counting_iterator<i64>(0), heads.as<int>(), offsets.as<i64>(),
                                          selected.as<i64>(), n);
      });
      select();
      check(cudaMemcpy(offsets.as<i64>() + d.keys.runs, &n, sizeof(i64), cudaMemcpyHostToDevice), "offsets");
    }
    const i64* begins = offsets.as<i64>();
    auto cub = make_cub([&](void* t, std::size_t& b) {
      return cub::DeviceSegmentedScan::InclusiveSegmentedScan(t, b, d.in.template as<i64>(), d.out.template as<i64>(), begins, begins + 1,
                                                              d.keys.runs, max_of{});
    });
    time_calls(st, bytes, bytes, [&] { cub(); });
  });
#endif
}

// ---- BEV pooling from unsorted voxel keys, S = 2^23, C = 64 ----

template <class T>
struct bev_data {
  i64 S, cells;
  int C;
  device_memory feats, keys, grid, sink;
  bev_data(i64 S_, int C_, i64 cells_)
      : S(S_), cells(cells_), C(C_), feats(S_ * C_ * sizeof(T)), keys(S_ * sizeof(i64)), grid(cells_ * C_ * sizeof(float)),
        sink(132 * 8 * sizeof(unsigned)) {
    fill<<<1024, 256>>>(feats.as<T>(), S * C, 41);
    random_cells<<<1024, 256>>>(keys.as<i64>(), S, cells, 43);
  }
  std::size_t pool_bytes() const { return S * (C * sizeof(T) + sizeof(i64)) + cells * C * sizeof(float); }
};

//! The bits a radix sort of keys in [0, cells) needs.
int bits_for(i64 cells) {
  int bits = 1;
  while ((i64{1} << bits) < cells) ++bits;
  return bits;
}

template <class T>
void bev_rows(i64 S, int C, i64 cells) {
  const std::string tail = std::string(tname<T>()) + "/" + rows_label(S, C) + "/cells:" + std::to_string(cells);
  add("bev/bev_pool/" + tail, [=](benchmark::State& st) {
    bev_data<T> d(S, C, cells);
    std::size_t temp_bytes = 0;
    auto call = [&](void* t) { return fastscan::bev_pool(t, temp_bytes, d.feats.template as<T>(), d.keys.template as<i64>(), d.grid.template as<float>(), S, C, cells); };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    time_calls(st, d.pool_bytes(), d.pool_bytes(), [&] { check(call(temp.ptr), "bev_pool"); });
  });
  add("bev/voxel_sum/" + tail, [=](benchmark::State& st) {
    bev_data<T> d(S, C, cells);
    device_memory out(S * C * sizeof(float));
    std::size_t temp_bytes = 0;
    auto call = [&](void* t) { return fastscan::voxel_sum(t, temp_bytes, d.feats.template as<T>(), d.keys.template as<i64>(), out.as<float>(), S, C); };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    const std::size_t bytes = S * (C * (sizeof(T) + sizeof(float)) + sizeof(i64));
    time_calls(st, bytes, bytes, [&] { check(call(temp.ptr), "voxel_sum"); });
  });
  add("bev/bev_pool_planned/" + tail, [=](benchmark::State& st) {  // geometry fixed: sorted once
    bev_data<T> d(S, C, cells);
    std::size_t plan_bytes = 0, temp_bytes = 0;
    fastscan::bev_pool_plan<i64> plan;
    check(fastscan::make_bev_pool_plan<i64>(nullptr, plan_bytes, d.keys.template as<i64>(), S, cells, plan), "plan size");
    device_memory plan_memory(plan_bytes);
    check(fastscan::make_bev_pool_plan<i64>(plan_memory.ptr, plan_bytes, d.keys.template as<i64>(), S, cells, plan), "plan");
    auto call = [&](void* t) { return fastscan::bev_pool(t, temp_bytes, plan, d.feats.template as<T>(), d.grid.template as<float>(), C); };
    check(call(nullptr), "size");
    device_memory temp(temp_bytes);
    const std::size_t bytes = d.pool_bytes() + S * sizeof(i64);  // (+ the permutation)
    time_calls(st, bytes, bytes, [&] { check(call(temp.ptr), "planned bev_pool"); });
  });
  add("bev/read/" + tail, [=](benchmark::State& st) {
    bev_data<T> d(S, C, cells);
    const std::size_t bytes = S * C * sizeof(T);
    time_calls(st, bytes, bytes, [&] { bench_support::pure_read(d.feats.ptr, bytes, d.sink.template as<unsigned>()); });
  });
}

//! The backward pass and the peers (float and half features).
template <class T>
void bev_rows_peers(i64 S, int C, i64 cells) {
  const std::string tail = std::string(tname<T>()) + "/" + rows_label(S, C) + "/cells:" + std::to_string(cells);
  add("bev/bev_pool_backward/" + tail, [=](benchmark::State& st) {
    bev_data<T> d(S, C, cells);
    fill<<<1024, 256>>>(d.grid.template as<float>(), cells * C, 47);
    std::size_t temp_bytes = 0;
    check(fastscan::bev_pool_backward(nullptr, temp_bytes, d.grid.template as<float>(), d.keys.template as<i64>(), d.feats.template as<T>(), S, C, cells),
          "size");
    device_memory temp(temp_bytes);
    const std::size_t bytes = S * (C * (sizeof(float) + sizeof(T)) + sizeof(i64));
    time_calls(st, bytes, bytes, [&] {
      check(fastscan::bev_pool_backward(temp.ptr, temp_bytes, d.grid.template as<float>(), d.keys.template as<i64>(), d.feats.template as<T>(), S, C, cells),
            "bev_pool_backward");
    });
  });
  add("bev/cub_sort_pairs/" + tail, [=](benchmark::State& st) {  // the sort alone, the bits the grid needs
    bev_data<T> d(S, C, cells);
    device_memory index(S * 8), sorted(S * 8), perm(S * 8);
    iota<<<1024, 256>>>(index.as<i64>(), S);
    auto sort = make_cub([&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, d.keys.template as<i64>(), sorted.as<i64>(), index.as<i64>(), perm.as<i64>(), S, 0,
                                             bits_for(cells));
    });
    const std::size_t bytes = 4 * S * sizeof(i64);
    time_calls(st, bytes, bytes, [&] { sort(); });
  });
  add("bev/bevpoolv2/" + tail, [=](benchmark::State& st) {  // the peer's pipeline: sort, intervals, pool
    bev_data<T> d(S, C, cells);
    device_memory index(S * 8), sorted(S * 8), perm(S * 8);
    auto sort = make_cub([&](void* t, std::size_t& b) {
      return cub::DeviceRadixSort::SortPairs(t, b, d.keys.template as<i64>(), sorted.as<i64>(), index.as<i64>(), perm.as<i64>(), S, 0,
                                             bits_for(cells));
    });
    intervals iv(sorted.as<i64>(), S);
    time_calls(st, d.pool_bytes(), d.pool_bytes(), [&] {
      iota<<<1024, 256>>>(index.as<i64>(), S);
      sort();
      iv.find(sorted.as<i64>());
      check(cudaMemsetAsync(d.grid.ptr, 0, cells * C * sizeof(float)), "memset");
      iv.pool(d.feats.template as<T>(), perm.as<i64>(), d.grid.template as<float>(), C, cells);
    });
  });
  add("bev/index_add/" + tail, [=](benchmark::State& st) {
    bev_data<T> d(S, C, cells);
    time_calls(st, d.pool_bytes(), d.pool_bytes(), [&] {
      check(cudaMemsetAsync(d.grid.ptr, 0, cells * C * sizeof(float)), "memset");
      atomic_pool<<<132 * 16, 256>>>(d.feats.template as<T>(), d.keys.template as<i64>(), d.grid.template as<float>(), S, C);
    });
  });
}

void register_all() {
  const i64 S = i64{1} << 23;
  for (int C : {64, 80}) {
    for (i64 segments : {i64{16384}, i64{320000}}) {
      segment_rows<__half>("sorted", S, C, segments);
      segment_rows<float>("sorted", S, C, segments);
    }
  }
  for (double mean_run : {16.0, 4096.0}) {
    scalar_rows(i64{1} << 28, mean_run);
  }
  bev_rows<float>(S, 64, 320000);
  bev_rows_peers<float>(S, 64, 320000);
  bev_rows<__half>(S, 64, 320000);
  bev_rows_peers<__half>(S, 64, 320000);
  bev_rows<__nv_fp8_e4m3>(S, 64, 320000);
}

}  // namespace

int main(int argc, char** argv) { return bench_support::benchmark_main(argc, argv, register_all, true); }
