// fastscan_gate: the regression gate. Times the headline set (gate_cases.hpp) with two header
// trees linked into this one binary (gate_entry.cu compiled under two namespaces: the reference,
// a release, and the working tree), and CUB's InclusiveSum beside the 1-D sums, interleaved call
// batch by call batch in one process, over 3 rounds.
//
//   fastscan_gate [REF_LABEL NEW_LABEL] [--rounds N] [--filter SUBSTRING]
//
// Each case: CUDA events around one call (working sets beyond 64 MB, past the 60 MB L2) or 20
// calls back to back on the device (latency rows: time_batch); 9 batches per variant and round, interleaved; the median of a
// round's batches, then the median over the rounds. Shares are of a device-to-device copy measured
// at the start of the same run (bytes read + written). Inputs are random with many ties (never
// zeros); the outputs of the two trees are compared bit for bit. It prints a markdown table and
// the worst change of the working tree against the reference; exit 0 whatever the numbers (the
// closing note judges them), 1 on a CUDA error or a failed call.
#include "bench_support.cuh"
#include "gate_cases.hpp"

#include <cub/device/device_scan.cuh>
#include <cuda_fp16.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

cudaError_t gate_ref(const gate::gate_case&, void*, std::size_t&, const gate::buffers&, cudaStream_t);
cudaError_t gate_new(const gate::gate_case&, void*, std::size_t&, const gate::buffers&, cudaStream_t);

namespace {

using bench_support::check;
using bench_support::device_memory;
using bench_support::fill;
using bench_support::hold_stream;
using gate::gate_case;

__device__ std::uint64_t mix(std::uint64_t i, std::uint64_t seed) {
  std::uint64_t z = (i + seed) * 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  return z ^ (z >> 31);
}

//! Head flags of runs of mean length n / runs (their running count is the sorted keys), or
//! unsorted cells in [0, runs) when `cells`.
__global__ void make_keys(std::int64_t* keys, std::int64_t n, std::int64_t runs, bool cells) {
  for (std::int64_t i = blockIdx.x * std::int64_t{blockDim.x} + threadIdx.x; i < n; i += std::int64_t{gridDim.x} * blockDim.x) {
    const std::uint64_t h = mix(static_cast<std::uint64_t>(i), 99);
    keys[i] = cells ? static_cast<std::int64_t>(h % static_cast<std::uint64_t>(runs))
                    : static_cast<std::int64_t>(i == 0 || h % static_cast<std::uint64_t>(n) < static_cast<std::uint64_t>(runs));
  }
}

__global__ void count_differences(const unsigned char* a, const unsigned char* b, std::size_t n, unsigned long long* d) {
  unsigned long long mine = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    mine += a[i] != b[i];
  }
  if (mine != 0) atomicAdd(d, mine);
}

//! A case's buffers, its bytes moved, and its output size.
struct case_data {
  const gate_case& c;
  std::int64_t n;
  std::size_t in_bytes, out_bytes, moved;
  device_memory in, out, out_ref, indices, keys, unique, count;

  explicit case_data(const gate_case& c_)
      : c(c_), n(gate::elements(c_)), in_bytes(n * gate::type_bytes(c.type)), out_bytes(output_bytes(c_)),
        moved(moved_bytes(c_)), in(in_bytes), out(out_bytes), out_ref(out_bytes),
        indices(c.what == gate::op::cummax ? n * 8 : 0), keys(keyed() ? c.len * 8 : 0),
        unique(c.what == gate::op::segment_sum ? c.len * 8 : 0), count(8) {
    switch (c.type) {
      case gate::dtype::u8: fill<<<1024, 256>>>(in.as<std::uint8_t>(), n, 7); break;
      case gate::dtype::f16: fill<<<1024, 256>>>(in.as<__half>(), n, 7); break;
      case gate::dtype::f32: fill<<<1024, 256>>>(in.as<float>(), n, 7); break;
      case gate::dtype::i64: fill<<<1024, 256>>>(in.as<std::int64_t>(), n, 7); break;
    }
    if (keyed()) {
      const bool cells = c.what == gate::op::bev_pool;
      make_keys<<<1024, 256>>>(keys.as<std::int64_t>(), c.len, c.segments, cells);
      if (!cells) {  // the running count of heads: sorted keys in runs of random length
        std::size_t bytes = 0;
        check(cub::DeviceScan::InclusiveSum(nullptr, bytes, keys.as<std::int64_t>(), keys.as<std::int64_t>(), c.len), "keys");
        device_memory temp(bytes);
        check(cub::DeviceScan::InclusiveSum(temp.ptr, bytes, keys.as<std::int64_t>(), keys.as<std::int64_t>(), c.len), "keys");
      }
    }
    check(cudaDeviceSynchronize(), "inputs");
  }
  bool keyed() const { return c.what >= gate::op::segment_sum; }
  static std::size_t output_bytes(const gate_case& c) {
    const std::size_t acc = c.type == gate::dtype::f16 && c.what >= gate::op::segment_sum ? 4 : gate::type_bytes(c.type);
    return (c.what == gate::op::bev_pool ? c.segments * c.inner : gate::elements(c)) * acc;  // (bev_pool: the grid)
  }
  static std::size_t moved_bytes(const gate_case& c) {
    const std::size_t n = gate::elements(c), t = gate::type_bytes(c.type);
    switch (c.what) {
      case gate::op::cumsum: return 2 * n * t;
      case gate::op::cummax: return n * (2 * t + 8);
      case gate::op::segment_sum: return n * t + c.len * 8 + c.segments * (c.inner * 4 + 8);
      case gate::op::segmented_cumsum: return n * (t + 4) + c.len * 8;
      case gate::op::bev_pool: return n * t + c.len * 8 + c.segments * c.inner * 4;
    }
    return 0;
  }
  gate::buffers io(bool reference) const {
    return {in.ptr, reference ? out_ref.ptr : out.ptr, indices.as<std::int64_t>(), keys.as<std::int64_t>(),
            unique.as<std::int64_t>(), count.as<std::int64_t>()};
  }
};

//! One variant of a case: a call on the default stream, ready to time.
struct variant {
  std::string label;
  std::function<cudaError_t()> call;
  std::vector<float> round_ms;
  double host_us = 0;
};

//! Device time per call of `per` calls: a batch of several runs behind hold_stream(), back to back.
float time_batch(const std::function<cudaError_t()>& call, int per, cudaEvent_t start, cudaEvent_t stop) {
  if (per > 1) {
    hold_stream();
  }
  check(cudaEventRecord(start), "event");
  for (int k = 0; k < per; ++k) check(call(), "timed call");
  check(cudaEventRecord(stop), "event");
  check(cudaEventSynchronize(stop), "timed calls");
  float ms = 0;
  check(cudaEventElapsedTime(&ms, start, stop), "event");
  return ms / per;
}

template <class T>
T median(std::vector<T> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

//! Host time per call of enqueueing 20 calls (median of 9 batches).
double host_us(const std::function<cudaError_t()>& call) {
  std::vector<double> us;
  for (int r = 0; r < 9; ++r) {
    check(cudaDeviceSynchronize(), "host timing");
    const auto t0 = std::chrono::steady_clock::now();
    for (int k = 0; k < 20; ++k) check(call(), "host-timed call");
    us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() / 20);
  }
  check(cudaDeviceSynchronize(), "host timing");
  return median(us);
}

double copy_gbps() {
  const std::size_t bytes = std::size_t{2} << 30;
  device_memory a(bytes), b(bytes);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  std::vector<float> ms;
  for (int i = 0; i < 18; ++i) {
    const float t = time_batch([&] { return cudaMemcpyAsync(b.ptr, a.ptr, bytes, cudaMemcpyDeviceToDevice); }, 1, start, stop);
    if (i >= 3) ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return 2.0 * bytes / (median(ms) * 1e6);
}

std::size_t differing_bytes(const case_data& d) {
  device_memory diff(8);
  check(cudaMemset(diff.ptr, 0, 8), "compare");
  count_differences<<<1024, 256>>>(d.out.as<unsigned char>(), d.out_ref.as<unsigned char>(), d.out_bytes,
                                   diff.as<unsigned long long>());
  unsigned long long n = 0;
  check(cudaMemcpy(&n, diff.ptr, 8, cudaMemcpyDeviceToHost), "compare");
  return static_cast<std::size_t>(n);
}

__global__ void empty_kernel() {}

//! The floor of a latency row: device time per call of an empty kernel launched back to back, and
//! host time per launch (medians as for the cases).
void print_launch_floor(cudaEvent_t start, cudaEvent_t stop) {
  const auto launch = [] {
    empty_kernel<<<1, 32>>>();
    return cudaPeekAtLastError();
  };
  for (int w = 0; w < 3; ++w) check(launch(), "empty kernel");
  std::vector<float> ms;
  for (int b = 0; b < 9; ++b) ms.push_back(time_batch(launch, 20, start, stop));
  std::printf("An empty kernel back to back: %.2f us a call on the device, %.2f us on the host.\n\n",
              median(ms) * 1e3, host_us(launch));
}

struct options {
  std::string ref = "ref", now = "new", filter;
  int rounds = 3;
};

options parse(int argc, char** argv) {
  options o;
  std::vector<std::string> labels;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--rounds" && a + 1 < argc) o.rounds = std::max(1, std::atoi(argv[++a]));
    else if (s == "--filter" && a + 1 < argc) o.filter = argv[++a];
    else labels.push_back(s);
  }
  if (labels.size() == 2) {
    o.ref = labels[0];
    o.now = labels[1];
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("fastscan_gate: no CUDA device on this machine; the gate times scans on a GPU.\n");
    return 0;
  }
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "device");
  const double copy = copy_gbps();
  std::printf("# fastscan gate: %s (ref) against %s (new)\n\n%s, %d SMs; copy %.0f GB/s (read + written, same run); "
              "%d rounds\n\n", o.ref.c_str(), o.now.c_str(), prop.name, prop.multiProcessorCount, copy, o.rounds);
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "event");
  check(cudaEventCreate(&stop), "event");
  print_launch_floor(start, stop);
  std::printf("| case | ref us | change | new us | new share of copy | CUB share | new vs CUB | host us (ref / new / CUB) | "
              "same bits |\n|---|---:|---:|---:|---:|---:|---:|---:|---|\n");
  double worst = -1e9;
  std::string worst_case;
  for (const gate_case& c : gate::cases) {
    if (!o.filter.empty() && std::string(c.name).find(o.filter) == std::string::npos) continue;
    case_data d(c);
    std::size_t bytes_ref = 0, bytes_new = 0, bytes_cub = 0;
    // Timed calls all write one output buffer (a buffer's placement moved one row 10 % between two
    // binaries); the compared calls at the end each write their own.
    gate::buffers io_ref = d.io(false), io_new = d.io(false);
    // A reference that rejects the case (an entry point it does not have in this form) leaves its
    // columns empty; the working tree must take every case.
    const bool has_ref = gate_ref(c, nullptr, bytes_ref, io_ref, nullptr) == cudaSuccess;
    check(gate_new(c, nullptr, bytes_new, io_new, nullptr), "new size query");
    device_memory temp_ref(has_ref ? bytes_ref : 0), temp_new(bytes_new);
    std::vector<variant> vs;
    vs.push_back({"new", [&] { return gate_new(c, temp_new.ptr, bytes_new, io_new, nullptr); }, {}});
    if (has_ref) vs.push_back({"ref", [&] { return gate_ref(c, temp_ref.ptr, bytes_ref, io_ref, nullptr); }, {}});
    std::unique_ptr<device_memory> temp_cub;
    if (c.cub) {
      const auto cub_call = [&](void* t, std::size_t& b) -> cudaError_t {
        if (c.type == gate::dtype::f32) return cub::DeviceScan::InclusiveSum(t, b, d.in.as<float>(), d.out.as<float>(), d.n);
        return cub::DeviceScan::InclusiveSum(t, b, d.in.as<std::int64_t>(), d.out.as<std::int64_t>(), d.n);
      };
      check(cub_call(nullptr, bytes_cub), "CUB size query");
      temp_cub = std::make_unique<device_memory>(bytes_cub);
      vs.push_back({"cub", [&, cub_call] { return cub_call(temp_cub->ptr, bytes_cub); }, {}});
    }
    const int per = d.moved > (std::size_t{64} << 20) ? 1 : 20;
    for (auto& v : vs) {
      for (int w = 0; w < 3; ++w) check(v.call(), ("warm-up of " + v.label + ", " + c.name).c_str());
    }
    for (int r = 0; r < o.rounds; ++r) {
      std::vector<std::vector<float>> batches(vs.size());
      for (int b = 0; b < 9; ++b) {
        for (std::size_t i = 0; i < vs.size(); ++i) batches[i].push_back(time_batch(vs[i].call, per, start, stop));
      }
      for (std::size_t i = 0; i < vs.size(); ++i) vs[i].round_ms.push_back(median(batches[i]));
    }
    for (auto& v : vs) v.host_us = host_us(v.call);
    const double new_us = median(vs[0].round_ms) * 1e3, share = d.moved / (new_us * 1e3) / copy;
    char cub_cols[64] = "- | -", ref_cols[96] = "- | -", same[8] = "-", ref_host[32] = "-", cub_host[32] = "";
    if (c.cub) {
      const double cub_us = median(vs.back().round_ms) * 1e3;
      std::snprintf(cub_cols, sizeof cub_cols, "%.3f | %.2fx", d.moved / (cub_us * 1e3) / copy, cub_us / new_us);
      std::snprintf(cub_host, sizeof cub_host, " / %.2f", vs.back().host_us);
    }
    double change = 0;
    if (has_ref) {  // the outputs of both trees from one more call each, into buffers of their own
      io_ref = d.io(true);
      check(vs[1].call(), "ref call");
      check(vs[0].call(), "new call");
      check(cudaDeviceSynchronize(), "compare");
      std::snprintf(same, sizeof same, "%s", differing_bytes(d) == 0 ? "yes" : "NO");
      const double ref_us = median(vs[1].round_ms) * 1e3;
      change = 100.0 * (new_us / ref_us - 1.0);
      std::snprintf(ref_cols, sizeof ref_cols, "%.1f | %+.1f %%", ref_us, change);
      std::snprintf(ref_host, sizeof ref_host, "%.2f", vs[1].host_us);
    }
    std::printf("| %s | %s | %.1f | %.3f | %s | %s / %.2f%s | %s |\n", c.name, ref_cols, new_us, share, cub_cols,
                ref_host, vs[0].host_us, cub_host, same);
    std::fflush(stdout);
    if (has_ref && change > worst) {
      worst = change;
      worst_case = c.name;
    }
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  if (!worst_case.empty()) {
    std::printf("\nworst change, %s against %s: %+.1f %% (%s)\n", o.now.c_str(), o.ref.c_str(), worst, worst_case.c_str());
  }
  return 0;
}
